// adapters/import/json_stream.h — internal: a large JSON document read one element at a time.
//
// The importers read documents that can be hundreds of megabytes (a YuniKorn state dump, a
// `kubectl get -o json` list of every pod) but consist of a top-level object whose big members
// are arrays of independent objects. The stream parses with RapidJSON's SAX reader (iterative,
// so hostile nesting cannot overflow the stack) and hands each top-level member, or each
// element of a top-level array, to the caller as a small tree that is freed afterwards.
//
// An element can itself hold a long list (an application's allocations, a partition's nodes):
// JsonStreamShape names such lists, and their items are handed over one by one as well, before
// the element, which then holds the list empty. Lists nobody reads (each node's copy of its
// allocations) can be skipped without being built. Memory then stays bounded by the largest
// item, not by the document.
#ifndef ALLOCORE_ADAPTERS_IMPORT_JSON_STREAM_H_
#define ALLOCORE_ADAPTERS_IMPORT_JSON_STREAM_H_

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
  // What one handed-over value holds: the bytes of its strings and numbers plus a few per value.
  uint64_t max_element_bytes = uint64_t{256} << 20;
  int max_depth = 64;  // of the document, counted from its top-level value
};

// Lists inside the elements of top-level arrays.
struct JsonStreamShape {
  struct List {
    std::string top;     // a top-level array ("Applications")
    std::string member;  // a member of its elements that holds a list ("allocations")
  };
  // Items handed over one by one (JsonElementPath::member set), before their element.
  std::vector<List> split;
  // Values never built, by path from a top-level array's element: {"nodesInfo", "[]",
  // "allocations"} drops each node's allocations under every element of `top`.
  struct Skip {
    std::string top;
    std::vector<std::string> path;  // keys, "[]" for any item of an array
  };
  std::vector<Skip> skip;
};

// Where a streamed value sits: `key` is the top-level member; `index` the position inside it
// when that member is an array (each element comes on its own), else nullopt. A split list's
// item also names the member and its position in it.
struct JsonElementPath {
  std::string_view key;
  std::optional<int64_t> index;
  std::string_view member;  // empty unless a split list's item
  std::optional<int64_t> member_index;
};

using JsonElementSink = std::function<absl::Status(const JsonElementPath&, JsonValue&&)>;

// Reads `path` ("-": stdin). The top-level value must be an object. Errors name the file and
// the line and column: InvalidArgument for bad JSON or a passed limit, NotFound /
// PermissionDenied for an unreadable file; an error the sink returns stops the read and is
// returned as it is.
absl::Status StreamJsonFile(const std::string& path, const JsonStreamLimits& limits,
                            const JsonElementSink& sink, const JsonStreamShape& shape = {});
// The same over text in memory (tests, fuzzing); `source_name` is used in messages.
absl::Status StreamJsonText(std::string_view text, const std::string& source_name,
                            const JsonStreamLimits& limits, const JsonElementSink& sink,
                            const JsonStreamShape& shape = {});

}  // namespace allocore::adapters::internal

#endif  // ALLOCORE_ADAPTERS_IMPORT_JSON_STREAM_H_
