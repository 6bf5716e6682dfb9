// adapters/config/yaml_tree.h — internal: a compact, read-only YAML document tree.
//
// The config loader builds it straight from yaml-cpp's event parser (no YAML::Node), which is
// faster and lets it control aliases: an alias shares the anchored node (the tree is a DAG),
// an alias to a node that is still open (a self-referencing anchor) is refused, and the number
// of nodes that aliases add when expanded is bounded. A YAML::Node (DecodeConfigNode) can be
// converted too, and a subtree copied with aliases expanded (the scenario loader's `config:`
// blocks), with the same bounds.
//
// Invariants:
//   1. The tree is acyclic; walking it visits at most (nodes + kMaxYamlAliasNodes) nodes.
//   2. Nesting depth is at most kMaxYamlDepth.
//   3. line/column are 1-based.
//
// The scenario layer (allocore_scenario) reads its files with this tree and the pre-check, so
// they are exported from a shared liballocore_config (ALLOCORE_EXPORT) though their header is
// internal: not installed, no API.
#ifndef ALLOCORE_ADAPTERS_CONFIG_YAML_TREE_H_
#define ALLOCORE_ADAPTERS_CONFIG_YAML_TREE_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "allocore/export.h"
#include "yaml-cpp/yaml.h"

namespace allocore::adapters::internal {

// Limits enforced on every YAML text before and while it is parsed (see adapters/README.md).
inline constexpr size_t kMaxYamlBytes = size_t{64} << 20;  // 64 MiB
// Nested collections. yaml-cpp 0.7's own parser gives up at 500 levels with the message "bad
// file"; refusing earlier gives a clear message (a queue level takes two YAML levels).
inline constexpr int kMaxYamlDepth = 400;
inline constexpr size_t kMaxYamlScalarBytes = size_t{64} << 10;  // 64 KiB per scalar
// A Kubernetes ConfigMap holds its queues.yaml as one scalar; Kubernetes bounds a ConfigMap at
// 1 MiB, and a queues.yaml of thousands of queues is that large.
inline constexpr size_t kMaxConfigMapScalarBytes = size_t{1} << 20;
inline constexpr int kMaxYamlAliases = 10000;            // alias references
inline constexpr uint64_t kMaxYamlAliasNodes = 1000000;  // nodes added by aliases

// A problem with a YAML text, at a 1-based position (0 = unknown).
struct YamlTextIssue {
  int line = 0;
  int column = 0;
  std::string message;
  // When yaml-cpp's parser threw: its own message, without the prefix `message` adds ("" for
  // issues found by the pre-scan or the tree builder). The scenario loader has always shown
  // syntax errors in this form.
  std::string parser_message;
  bool scalar_too_large = false;  // a scalar over the scan's limit (the rest of the text unread)
};

class ALLOCORE_EXPORT YamlTree {
 public:
  using Id = uint32_t;
  static constexpr Id kNone = UINT32_MAX;

  enum class Kind : uint8_t { kNull, kScalar, kSequence, kMapping };
  // How a scalar was written: plain, quoted/block (non-plain), or with an explicit tag.
  enum class Style : uint8_t { kPlain, kNonPlain, kTagged };

  bool empty() const { return root_ == kNone; }
  Id root() const { return root_; }

  Kind kind(Id id) const { return nodes_[id].kind; }
  Style style(Id id) const { return nodes_[id].style; }
  // The explicit tag of a kTagged scalar ("tag:yaml.org,2002:int", ...), else "".
  std::string_view tag(Id id) const;
  int line(Id id) const { return nodes_[id].line; }
  int column(Id id) const { return nodes_[id].column; }
  // The scalar's value ("" for other kinds).
  std::string_view scalar(Id id) const;
  // Sequence items, or mapping keys and values interleaved (key0, value0, key1, value1, ...).
  std::span<const Id> children(Id id) const;

  // Builds the tree of the first document of `text` with yaml-cpp's event parser. On a syntax
  // error or an alias problem returns the issue. `more_documents` is set when the text holds
  // more than one document (only the first is used). REQUIRES: `text` passed ScanYamlText.
  static std::optional<YamlTextIssue> Parse(std::string_view text, YamlTree* out,
                                            bool* more_documents);

  // As Parse, but stops after the first document without reading anything that follows it, as
  // YAML::Load does: a malformed directive of a later document is not an error.
  static std::optional<YamlTextIssue> ParseFirstDocument(std::string_view text, YamlTree* out);

  // Converts a yaml-cpp node (aliases are expanded; the same node-count and depth bounds
  // apply, so cyclic nodes are refused rather than followed forever).
  static std::optional<YamlTextIssue> FromNode(const YAML::Node& node, YamlTree* out);

  // Copies the subtree of `from` at `node` into `out` the way FromNode copies a YAML::Node
  // that yaml-cpp built from the same text: aliases expanded, the same depth and node-count
  // bounds and messages, scalar styles as YAML::Node tags give them.
  static std::optional<YamlTextIssue> FromSubtree(const YamlTree& from, Id node, YamlTree* out);

 private:
  friend class YamlTreeBuilder;

  struct Node {
    Kind kind = Kind::kNull;
    Style style = Style::kPlain;
    int32_t line = 0;
    int32_t column = 0;
    // Scalars: value range in values_. Collections: child range in children_.
    size_t begin = 0;
    size_t size = 0;
    uint32_t tag = 0;  // index into tags_ + 1 for kTagged scalars
  };

  // Empties the tree and keeps its storage, for the next document or step.
  void Clear() {
    nodes_.clear();
    children_.clear();
    values_.clear();
    tags_.clear();
    root_ = kNone;
  }

  std::vector<Node> nodes_;
  std::vector<Id> children_;
  std::string values_;
  std::vector<std::string> tags_;
  Id root_ = kNone;
};

// Lexical pre-check of a YAML text, before any parser sees it: size, NUL bytes, control
// characters, invalid UTF-8, nesting depth (block indentation plus flow brackets, estimated
// conservatively), scalar length and alias count. `alias_count` (optional) receives the
// number of aliases seen.
// `max_scalar_bytes`: kMaxYamlScalarBytes, or kMaxConfigMapScalarBytes for a ConfigMap's text.
ALLOCORE_EXPORT std::optional<YamlTextIssue> ScanYamlText(
    std::string_view text, int* alias_count, size_t max_scalar_bytes = kMaxYamlScalarBytes);

}  // namespace allocore::adapters::internal

#endif  // ALLOCORE_ADAPTERS_CONFIG_YAML_TREE_H_
