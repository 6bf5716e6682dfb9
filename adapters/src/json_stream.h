// adapters/src/json_stream.h — internal: a large JSON document read one element at a time.
//
// The importers read documents that can be hundreds of megabytes (a YuniKorn state dump, a
// `kubectl get -o json` list of every pod) but consist of a top-level object whose big members
// are arrays of independent objects. The stream parses with RapidJSON's SAX reader (iterative,
// so hostile nesting cannot overflow the stack) and hands each top-level member, or each
// element of a top-level array, to the caller as a small tree that is freed afterwards: memory
// stays bounded by the largest element, not by the document.
#ifndef ALLOCORE_ADAPTERS_SRC_JSON_STREAM_H_
#define ALLOCORE_ADAPTERS_SRC_JSON_STREAM_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"

namespace allocore::adapters::internal {

// One JSON value. Numbers keep their text, so that 64-bit integers (Unix nanoseconds) are
// read exactly and a caller decides how a number is allowed to look.
struct JsonValue {
  enum class Kind : uint8_t { kNull, kBool, kNumber, kString, kArray, kObject };
  Kind kind = Kind::kNull;
  bool boolean = false;
  std::string text;  // kNumber: as written; kString: the decoded string
  // kArray: the elements; kObject: the members' values, whose keys are keys[i] (two arrays,
  // since a vector of pairs may not hold the incomplete JsonValue).
  std::vector<JsonValue> items;
  std::vector<std::string> keys;
  int64_t line = 0;  // where the value starts (1-based)

  // The member `key` of an object (the last one if repeated), or nullptr.
  const JsonValue* Find(std::string_view key) const;
  bool is_null() const { return kind == Kind::kNull; }
};

// "null", "a string", "an object", ...: for messages.
std::string_view JsonKindName(JsonValue::Kind kind);

struct JsonStreamLimits {
  // The whole document; past it the read stops with a clear error.
  uint64_t max_document_bytes = uint64_t{4} << 30;
  // One element handed to the caller, counted as the bytes of its text in the document.
  uint64_t max_element_bytes = uint64_t{256} << 20;
  int max_depth = 64;  // of the document, counted from its top-level value
};

// Where a streamed value sits: `key` is the top-level member; `index` the position inside it
// when that member is an array (each element comes on its own), else nullopt.
struct JsonElementPath {
  std::string_view key;
  std::optional<int64_t> index;
};

using JsonElementSink = std::function<absl::Status(const JsonElementPath&, JsonValue&&)>;

// Reads `path` ("-": stdin). The top-level value must be an object. Errors name the file and
// the line and column: InvalidArgument for bad JSON or a passed limit, NotFound /
// PermissionDenied for an unreadable file; an error the sink returns stops the read and is
// returned as it is.
absl::Status StreamJsonFile(const std::string& path, const JsonStreamLimits& limits,
                            const JsonElementSink& sink);
// The same over text in memory (tests, fuzzing); `source_name` is used in messages.
absl::Status StreamJsonText(std::string_view text, const std::string& source_name,
                            const JsonStreamLimits& limits, const JsonElementSink& sink);

}  // namespace allocore::adapters::internal

#endif  // ALLOCORE_ADAPTERS_SRC_JSON_STREAM_H_
