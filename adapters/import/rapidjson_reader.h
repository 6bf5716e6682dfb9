// adapters/import/rapidjson_reader.h — internal: RapidJSON's SAX reader, included once for the
// project.
//
// Debian's RapidJSON 1.1.0 computes `nullptr + n` the first time its internal stack grows
// (internal/stack.h, Stack::Reserve). That is harmless, but undefined, and the sanitizer builds
// trap on it. Its functions are compiled without the pointer-overflow check. Every other check
// stays on, and so does our own code.
#ifndef ALLOCORE_ADAPTERS_IMPORT_RAPIDJSON_READER_H_
#define ALLOCORE_ADAPTERS_IMPORT_RAPIDJSON_READER_H_

#if defined(__clang__)
#pragma clang attribute push(__attribute__((no_sanitize("pointer-overflow"))), apply_to = function)
#endif
#include "rapidjson/error/en.h"
#include "rapidjson/reader.h"
#if defined(__clang__)
#pragma clang attribute pop
#endif

#endif  // ALLOCORE_ADAPTERS_IMPORT_RAPIDJSON_READER_H_
