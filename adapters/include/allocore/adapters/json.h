// allocore/adapters/json.h — minimal JSON string escaping for the decision stream.
#ifndef ALLOCORE_ADAPTERS_JSON_H_
#define ALLOCORE_ADAPTERS_JSON_H_

#include <string>
#include <string_view>

#include "allocore/export.h"

namespace allocore::adapters {

// Appends `s` as a JSON string literal (with quotes) to `out`. Invalid UTF-8 bytes are
// replaced by U+FFFD so the output is always valid JSON.
ALLOCORE_EXPORT void AppendJsonString(std::string* out, std::string_view s);

}  // namespace allocore::adapters

#endif  // ALLOCORE_ADAPTERS_JSON_H_
