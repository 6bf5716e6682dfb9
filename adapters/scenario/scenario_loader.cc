// Scenario YAML -> allocore::adapters::Scenario, strictly (see scenario.h and the contract in
// docs/scenario-format.md).
//
// Every problem found is reported, one per line, as "file:line:col: [step N (kind): ]message".
// The text is parsed once into an internal::YamlTree (yaml-cpp's event parser; no YAML::Node):
// a replay of 100,000 steps spent more time building and walking YAML::Nodes than scheduling.
// yaml-cpp's exceptions stop inside YamlTree; nothing throws past this file.
#include <array>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_set>
#include <utility>

#include "absl/status/status.h"
#include "allocore/adapters/config_loader.h"
#include "allocore/adapters/scenario.h"
#include "allocore/adapters/text_input.h"
#include "scenario_decode.h"
#include "str_util.h"
#include "yaml_config_decode.h"
#include "yaml_tree.h"

namespace allocore::adapters {
namespace {

using internal::YamlTree;
using Id = YamlTree::Id;
using Kind = YamlTree::Kind;
using KeyList = std::initializer_list<std::string_view>;

std::string Quote(std::string_view s) {
  constexpr size_t kMaxShown = 40;
  std::string out = "\"";
  out.append(s.substr(0, kMaxShown));
  if (s.size() > kMaxShown) out += "...";
  out += "\"";
  return out;
}

// "what: " or "" when `what` is empty (the step context already names the place).
std::string Prefix(std::string_view what) {
  return what.empty() ? std::string() : internal::Cat(what, ": ");
}

// The directory part of `path` with a trailing '/', or "" when it has none.
std::string DirectoryOf(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

// Finds repeated keys among the scalar keys of one mapping. Resource and attribute mappings
// hold a handful of keys, where comparing with the earlier ones beats building a set; a large
// mapping switches to a hash set so that it stays linear.
class KeySet {
 public:
  // True when `key` was inserted before; inserts it otherwise.
  bool Seen(std::string_view key) {
    if (set_.empty()) {
      for (size_t i = 0; i < small_count_; ++i) {
        if (small_[i] == key) return true;
      }
      if (small_count_ < small_.size()) {
        small_[small_count_++] = key;
        return false;
      }
      set_.insert(small_.begin(), small_.end());
    }
    return !set_.insert(key).second;
  }

 private:
  std::array<std::string_view, 16> small_;
  size_t small_count_ = 0;
  std::unordered_set<std::string_view> set_;
};

// Walks one scenario document and fills a Scenario, collecting every problem.
//
// A node id may be YamlTree::kNone: the body of a step written as a bare kind (`- schedule`).
// It reads as null and has no position, so messages about it fall back to the step's.
class ScenarioDecoder {
 public:
  ScenarioDecoder(const YamlTree& tree, std::string source_name, ScenarioLoadOptions options)
      : tree_(tree),
        source_name_(std::move(source_name)),
        base_dir_(DirectoryOf(source_name_)),
        options_(options) {}

  void Decode(Id root, Scenario* out);
  // One entry of `steps:` (`index` is 1-based), appended to out->steps when it is valid.
  void StepEntry(size_t index, Id entry, Scenario* out);
  std::vector<std::string>& errors() { return errors_; }

 private:
  // --- the tree -----------------------------------------------------------------------------
  Kind KindOf(Id id) const { return id == YamlTree::kNone ? Kind::kNull : tree_.kind(id); }
  bool IsNull(Id id) const { return KindOf(id) == Kind::kNull; }
  bool IsScalar(Id id) const { return KindOf(id) == Kind::kScalar; }
  bool IsMap(Id id) const { return KindOf(id) == Kind::kMapping; }
  bool IsList(Id id) const { return KindOf(id) == Kind::kSequence; }
  std::string_view Scalar(Id id) const {
    return id == YamlTree::kNone ? std::string_view() : tree_.scalar(id);
  }
  // Sequence items; mapping keys and values interleaved.
  std::span<const Id> Children(Id id) const {
    return id == YamlTree::kNone ? std::span<const Id>() : tree_.children(id);
  }
  SourceLocation LocationOf(Id id) const {
    if (id == YamlTree::kNone) return {};
    return {.line = tree_.line(id), .column = tree_.column(id)};
  }
  std::string_view NodeKindName(Id id) const {
    switch (KindOf(id)) {
      case Kind::kNull:
        return "nothing";
      case Kind::kScalar:
        return "a scalar";
      case Kind::kSequence:
        return "a list";
      case Kind::kMapping:
        return "a mapping";
    }
    return "an undefined node";  // not reached: every tree node has one of the kinds above
  }
  // A scalar for messages: quoted, or the node kind.
  std::string Shown(Id id) const {
    return IsScalar(id) ? Quote(Scalar(id)) : std::string(NodeKindName(id));
  }

  // --- reporting --------------------------------------------------------------------------
  void ErrorAt(SourceLocation location, std::string_view message) {
    if (location.line == 0) location = context_location_;
    std::string line = source_name_;
    if (location.line > 0) internal::Append(&line, ":", location.line, ":", location.column);
    internal::Append(&line, ": ", context_, message);
    errors_.push_back(std::move(line));
  }
  void Error(Id at, std::string_view message) { ErrorAt(LocationOf(at), message); }

  // --- generic shapes ---------------------------------------------------------------------
  // Calls `fn(key, value)` for every entry of the mapping `map` (`what` names it in messages).
  // Unknown keys (not in `allowed`), duplicate keys and non-scalar keys are errors and skipped.
  // Returns false when `map` is not a mapping (null counts as an empty mapping).
  template <typename Fn>
  bool ForEachField(Id map, std::string_view what, KeyList allowed, Fn&& fn) {
    if (IsNull(map)) return true;
    if (!IsMap(map)) {
      Error(map, internal::Cat(Prefix(what), "expected a mapping, got ", NodeKindName(map)));
      return false;
    }
    // Only allowed keys can be duplicates, and every list of them is short (at most 6 keys):
    // one bit each instead of a set per mapping.
    uint64_t seen = 0;
    std::span<const Id> entries = Children(map);
    for (size_t i = 0; i + 1 < entries.size(); i += 2) {
      const Id key = entries[i];
      if (!IsScalar(key)) {
        Error(key, internal::Cat(Prefix(what), "keys must be scalars"));
        continue;
      }
      const std::string_view name = Scalar(key);
      size_t index = 0;
      for (std::string_view candidate : allowed) {
        if (candidate == name) break;
        ++index;
      }
      if (index == allowed.size() || index >= 64) {
        Error(key, internal::Cat(Prefix(what), "unknown key ", Quote(name),
                                 " (allowed: ", internal::Join(allowed, ", "), ")"));
        continue;
      }
      const uint64_t bit = uint64_t{1} << index;
      if ((seen & bit) != 0) {
        Error(key, internal::Cat(Prefix(what), "duplicate key ", Quote(name)));
        continue;
      }
      seen |= bit;
      fn(name, entries[i + 1]);
    }
    return true;
  }

  // A node's aggregate `occupied` amount is an extension of version 2; YuniKorn 1.7+ tracks
  // other schedulers' pods one by one instead, so the yunikorn-1.9 profile refuses it.
  bool RefuseOccupied(Id value) {
    if (semantics_ == Semantics::kYunikorn12) return false;
    Error(value,
          "occupied is not read under yunikorn-1.9 (YuniKorn 1.7+ tracks other "
          "schedulers' pods one by one: give them as add_foreign steps)");
    return true;
  }

  // The top-level `semantics:` (a profile name), overridden by the load options.
  void ReadSemantics(Id root, Scenario* out) {
    std::span<const Id> entries = Children(root);
    for (size_t i = 0; i + 1 < entries.size(); i += 2) {
      if (!IsScalar(entries[i]) || Scalar(entries[i]) != "semantics") continue;
      std::optional<std::string> name = String(entries[i + 1], "semantics");
      if (!name) break;
      std::optional<Semantics> parsed = ParseSemantics(*name);
      if (!parsed) {
        Error(entries[i + 1], internal::Cat("semantics: unknown profile ", Quote(*name),
                                            " (known: ", SemanticsNames(), ")"));
        break;
      }
      out->semantics = *parsed;
      break;
    }
    if (options_.semantics) out->semantics = *options_.semantics;
    semantics_ = out->semantics;
  }

  // Whether the mapping `map` has the scalar key `name` (whatever its value, null included).
  bool HasKey(Id map, std::string_view name) const {
    std::span<const Id> entries = Children(map);
    for (size_t i = 0; i + 1 < entries.size(); i += 2) {
      if (IsScalar(entries[i]) && Scalar(entries[i]) == name) return true;
    }
    return false;
  }

  std::optional<std::string> String(Id node, std::string_view what) {
    if (!IsScalar(node)) {
      Error(node, internal::Cat(Prefix(what), "expected a string, got ", NodeKindName(node)));
      return std::nullopt;
    }
    return std::string(Scalar(node));
  }

  // A decimal 64-bit integer, optionally signed. No quantity suffixes: node and ask values are
  // raw quantities as a resource manager reports them. `what` and `sub` name the field in
  // messages as "what.sub" (resource values), built only when there is something to report.
  std::optional<int64_t> Int64(Id node, std::string_view what, std::string_view sub = {}) {
    auto prefix = [&] { return sub.empty() ? Prefix(what) : internal::Cat(what, ".", sub, ": "); };
    if (!IsScalar(node)) {
      Error(node, internal::Cat(prefix(), "expected an integer, got ", NodeKindName(node)));
      return std::nullopt;
    }
    const std::string_view text = Scalar(node);
    std::string_view digits = text;
    if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
    int64_t value = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    bool all_digits = !digits.empty() && end == digits.data() + digits.size();
    if (ec == std::errc::result_out_of_range) {
      Error(node, internal::Cat(prefix(), Quote(text), " does not fit a 64-bit signed integer"));
      return std::nullopt;
    }
    if (ec != std::errc() || !all_digits || (text.size() > 1 && text[0] == '+' && text[1] == '-')) {
      Error(node,
            internal::Cat(prefix(), "expected an integer (raw quantity, no unit suffix), got ",
                          Quote(text)));
      return std::nullopt;
    }
    return value;
  }

  std::optional<int32_t> Int32(Id node, std::string_view what) {
    std::optional<int64_t> value = Int64(node, what);
    if (!value) return std::nullopt;
    if (*value < std::numeric_limits<int32_t>::min() ||
        *value > std::numeric_limits<int32_t>::max()) {
      Error(node, internal::Cat(Prefix(what), *value, " does not fit a 32-bit signed integer"));
      return std::nullopt;
    }
    return static_cast<int32_t>(*value);
  }

  std::optional<int64_t> NonNegative(Id node, std::string_view what) {
    std::optional<int64_t> value = Int64(node, what);
    if (value && *value < 0) {
      Error(node, internal::Cat(Prefix(what), "must not be negative, got ", *value));
      return std::nullopt;
    }
    return value;
  }

  std::optional<bool> Bool(Id node, std::string_view what) {
    if (IsScalar(node)) {
      const std::string_view text = Scalar(node);
      if (text == "true" || text == "True" || text == "TRUE") return true;
      if (text == "false" || text == "False" || text == "FALSE") return false;
    }
    Error(node, internal::Cat(Prefix(what), "expected true or false, got ", Shown(node)));
    return std::nullopt;
  }

  // Seconds as a non-negative decimal with at most 3 fraction digits -> milliseconds.
  std::optional<int64_t> Seconds(Id node, std::string_view what) {
    auto bad = [&]() -> std::optional<int64_t> {
      Error(node, internal::Cat(Prefix(what),
                                "expected a non-negative number of seconds (at most 3 "
                                "decimals), got ",
                                Shown(node)));
      return std::nullopt;
    };
    if (!IsScalar(node)) return bad();
    std::string_view text = Scalar(node);
    size_t dot = text.find('.');
    std::string_view whole = text.substr(0, dot);
    std::string_view fraction = dot == std::string_view::npos ? "" : text.substr(dot + 1);
    if (whole.empty() || fraction.size() > 3 || (dot != std::string_view::npos && fraction.empty()))
      return bad();
    int64_t seconds = 0;
    auto [end, ec] = std::from_chars(whole.data(), whole.data() + whole.size(), seconds);
    if (ec != std::errc() || end != whole.data() + whole.size() || whole[0] == '-') return bad();
    int64_t millis = 0;
    for (size_t i = 0; i < 3; ++i) {
      char c = i < fraction.size() ? fraction[i] : '0';
      if (c < '0' || c > '9') return bad();
      millis = millis * 10 + (c - '0');
    }
    constexpr int64_t kMaxSeconds = std::numeric_limits<int64_t>::max() / 1000 - 1;
    if (seconds > kMaxSeconds) return bad();
    return seconds * 1000 + millis;
  }

  std::optional<std::vector<std::string>> StringList(Id node, std::string_view what) {
    std::vector<std::string> out;
    if (IsNull(node)) return out;
    if (!IsList(node)) {
      Error(node, internal::Cat(Prefix(what), "expected a list, got ", NodeKindName(node)));
      return std::nullopt;
    }
    bool ok = true;
    std::span<const Id> items = Children(node);
    out.reserve(items.size());
    for (size_t i = 0; i < items.size(); ++i) {
      std::optional<std::string> item = IsScalar(items[i])
                                            ? std::string(Scalar(items[i]))
                                            : String(items[i], internal::Cat(what, "[", i, "]"));
      if (item) {
        out.push_back(std::move(*item));
      } else {
        ok = false;
      }
    }
    if (!ok) return std::nullopt;
    return out;
  }

  // A mapping name -> raw int64 quantity.
  Quantities Resources(Id node, std::string_view what) {
    Quantities out;
    if (!IsNull(node) && !IsMap(node)) {
      Error(node,
            internal::Cat(Prefix(what), "expected a mapping of resource name to integer, got ",
                          NodeKindName(node)));
      return out;
    }
    KeySet seen;
    std::span<const Id> entries = Children(node);
    for (size_t i = 0; i + 1 < entries.size(); i += 2) {
      const Id key = entries[i];
      if (!IsScalar(key) || Scalar(key).empty()) {
        Error(key, internal::Cat(Prefix(what), "resource names must be non-empty strings"));
        continue;
      }
      const std::string_view name = Scalar(key);
      if (seen.Seen(name)) {
        Error(key, internal::Cat(Prefix(what), "duplicate resource ", Quote(name)));
        continue;
      }
      std::optional<int64_t> value = Int64(entries[i + 1], what, name);
      if (value) out.emplace_back(std::string(name), *value);
    }
    return out;
  }

  Tags StringMap(Id node, std::string_view what) {
    Tags out;
    if (!IsNull(node) && !IsMap(node)) {
      Error(node, internal::Cat(Prefix(what), "expected a mapping, got ", NodeKindName(node)));
      return out;
    }
    KeySet seen;
    std::span<const Id> entries = Children(node);
    for (size_t i = 0; i + 1 < entries.size(); i += 2) {
      const Id key = entries[i];
      if (!IsScalar(key)) {
        Error(key, internal::Cat(Prefix(what), "keys must be scalars"));
        continue;
      }
      const std::string_view name = Scalar(key);
      if (seen.Seen(name)) {
        Error(key, internal::Cat(Prefix(what), "duplicate key ", Quote(name)));
        continue;
      }
      const Id value = entries[i + 1];
      if (!IsScalar(value)) {
        String(value, internal::Cat(what, ".", name));  // reports the error
        continue;
      }
      out.emplace_back(std::string(name), std::string(Scalar(value)));
    }
    return out;
  }

  void RequireKeys(Id map, std::string_view what, KeyList required) {
    for (std::string_view key : required) {
      if (!IsMap(map) || !HasKey(map, key)) {
        Error(map, internal::Cat(Prefix(what), "missing required key ", Quote(key)));
      }
    }
  }

  // --- configs ----------------------------------------------------------------------------
  // Decodes a `config:` block (null: the built-in default config). With `validate`, also runs
  // ValidateConfig and reports its errors (warnings go to `warnings`).
  std::optional<SchedulerConfig> Config(Id node, bool validate,
                                        std::vector<std::string>* warnings) {
    SchedulerConfig config;
    if (IsNull(node)) {
      config = DefaultSchedulerConfig();
    } else if (!IsMap(node)) {
      Error(node, internal::Cat("config: expected a mapping with `partitions:`, got ",
                                NodeKindName(node)));
      return std::nullopt;
    } else {
      std::vector<ConfigError> problems;
      DecodeConfigBlock(node, &config, &problems);
      if (!ReportConfigProblems(problems, LocationOf(node), warnings)) return std::nullopt;
    }
    config.source_name = source_name_;
    if (validate) {
      std::vector<ConfigError> problems = ValidateConfig(config, semantics_);
      if (!ReportConfigProblems(problems, LocationOf(node), warnings)) return std::nullopt;
    }
    return config;
  }

  // What internal::DecodeConfigNode does for a YAML::Node, on the block's own copy of the tree:
  // FromSubtree expands aliases under the same depth and node bounds (the config decoder
  // recurses along queues, and aliases can nest a block deeper than the text is), then the
  // config loader's decoder. As there, a block that could not be fully decoded still goes on
  // to validation.
  void DecodeConfigBlock(Id node, SchedulerConfig* config, std::vector<ConfigError>* problems) {
    YamlTree block;
    if (std::optional<internal::YamlTextIssue> issue = YamlTree::FromSubtree(tree_, node, &block)) {
      ConfigError& e = problems->emplace_back();
      e.location = {issue->line, issue->column};
      e.message = issue->message;
      return;
    }
    if (block.empty()) return;
    internal::DecodeConfigTree(block, block.root(), config, problems);
  }

  // `config_file:` relative to the scenario file; loaded and validated by the config loader.
  std::optional<SchedulerConfig> ConfigFile(Id node, std::vector<std::string>* warnings) {
    std::optional<std::string> name = String(node, "config_file");
    if (!name) return std::nullopt;
    if (name->empty()) {
      Error(node, "config_file: empty path");
      return std::nullopt;
    }
    std::string path = (*name)[0] == '/' ? *name : base_dir_ + *name;
    if (path == "-") {
      // "-" names stdin everywhere else; here the scenario itself may be what stdin holds.
      Error(node, "config_file: '-' (stdin) cannot hold the config; name a file");
      return std::nullopt;
    }
    ConfigLoadResult loaded = LoadConfigFile(path, semantics_);
    bool ok = loaded.config.has_value();
    for (const ConfigError& problem : loaded.errors) {
      std::string text = problem.ToString(path);
      if (problem.warning) {
        if (warnings) warnings->push_back(std::move(text));
      } else {
        ok = false;
        Error(node, internal::Cat("config_file ", Quote(*name), ": ", text));
      }
    }
    if (!ok) {
      if (loaded.errors.empty())
        Error(node, internal::Cat("config_file ", Quote(*name), ": could not be loaded"));
      return std::nullopt;
    }
    return std::move(loaded.config);
  }

  bool ReportConfigProblems(std::vector<ConfigError>& problems, SourceLocation fallback,
                            std::vector<std::string>* warnings) {
    bool ok = true;
    for (ConfigError& problem : problems) {
      if (problem.location.line == 0) problem.location = fallback;
      if (problem.warning) {
        if (warnings) warnings->push_back(problem.ToString(source_name_));
        continue;
      }
      ok = false;
      // ToString starts with "file:line:col: "; keep the step context after it.
      std::string text = problem.ToString(source_name_);
      if (!context_.empty()) {
        std::string prefix = source_name_;
        if (problem.location.line > 0) {
          internal::Append(&prefix, ":", problem.location.line, ":", problem.location.column);
        }
        prefix += ": ";
        if (text.compare(0, prefix.size(), prefix) == 0) {
          text = internal::Cat(prefix, context_, text.substr(prefix.size()));
        }
      }
      errors_.push_back(std::move(text));
    }
    return ok;
  }

  // --- sections -----------------------------------------------------------------------------
  void Nodes(Id node, Scenario* out);
  std::optional<AddNodeStep> NodeEntry(Id node, std::string_view what);
  void Steps(Id node, Scenario* out);
  void Step(size_t index, Id kind_node, Id body, Scenario* out);
  std::optional<StepAction> StepBody(StepKind kind, Id body);
  void Expect(Id node, Scenario* out);
  std::optional<std::vector<ExpectedAllocation>> ExpectedList(Id value, std::string_view key);

  const YamlTree& tree_;
  std::string source_name_;
  std::string base_dir_;
  ScenarioLoadOptions options_;
  Semantics semantics_ = Semantics::kYunikorn12;  // how configs validate
  std::vector<std::string> errors_;
  std::string context_;  // "step 3 (add_ask): " while inside a step
  SourceLocation context_location_;
};

constexpr std::string_view kStepKindNames[] = {
    "add_app",     "add_ask",        "schedule",           "release",           "remove_ask",
    "remove_app",  "add_node",       "update_node",        "remove_node",       "update_config",
    "advance",     "probe",          "recover_allocation", "update_allocation", "update_ask",
    "add_foreign", "update_foreign", "remove_foreign",
};

std::optional<StepKind> StepKindFromName(std::string_view name) {
  for (size_t i = 0; i < std::size(kStepKindNames); ++i) {
    if (kStepKindNames[i] == name) return static_cast<StepKind>(i);
  }
  return std::nullopt;
}

void ScenarioDecoder::Decode(Id root, Scenario* out) {
  if (IsNull(root)) {
    ErrorAt({}, "empty scenario (expected a mapping with config, nodes and steps)");
    return;
  }
  if (!IsMap(root)) {
    Error(root,
          internal::Cat("expected a scenario mapping at the top level, got ", NodeKindName(root)));
    return;
  }
  if (options_.allow_bare_config && HasKey(root, "partitions")) {
    std::optional<SchedulerConfig> config = Config(root, true, &out->config_warnings);
    if (config) out->config = std::move(*config);
    return;
  }
  // A queues.yaml or a ConfigMap given where a scenario is expected: say what it is and what
  // to do with it, rather than list its keys as unknown.
  if (!HasKey(root, "steps") && !HasKey(root, "config") && !HasKey(root, "config_file") &&
      (HasKey(root, "partitions") || (HasKey(root, "apiVersion") && HasKey(root, "kind")))) {
    Error(root, HasKey(root, "partitions")
                    ? "this is a queues.yaml (it has partitions:), not a scenario: validate it "
                      "with `allocore check`, or name it in a scenario's config_file:"
                    : "this is a Kubernetes object, not a scenario: validate a ConfigMap with "
                      "`allocore check`, or name it in a scenario's config_file:");
    return;
  }
  // The profile decides how the config validates, so it is read before the config.
  ReadSemantics(root, out);
  bool has_config = false;
  bool config_ok = true;
  ForEachField(root, "", {"semantics", "name", "config", "config_file", "nodes", "steps", "expect"},
               [&](std::string_view key, Id value) {
                 if (key == "semantics") return;  // read above
                 if (key == "name") {
                   if (std::optional<std::string> name = String(value, "name")) {
                     out->name = std::move(*name);
                   }
                 } else if (key == "config" || key == "config_file") {
                   if (has_config) {
                     Error(value, "give either `config:` or `config_file:`, not both");
                     config_ok = false;
                     return;
                   }
                   has_config = true;
                   std::optional<SchedulerConfig> config =
                       key == "config" ? Config(value, true, &out->config_warnings)
                                       : ConfigFile(value, &out->config_warnings);
                   if (config) {
                     out->config = std::move(*config);
                   } else {
                     config_ok = false;
                   }
                 } else if (key == "nodes") {
                   Nodes(value, out);
                 } else if (key == "steps") {
                   Steps(value, out);
                 } else if (key == "expect") {
                   Expect(value, out);
                 }
               });
  if (!has_config && config_ok) {
    out->config = DefaultSchedulerConfig();
    out->config.source_name = source_name_;
    for (const ConfigError& problem : ValidateConfig(out->config, semantics_)) {
      if (!problem.warning) ErrorAt({}, "built-in default config: " + problem.message);
    }
  }
}

void ScenarioDecoder::Nodes(Id node, Scenario* out) {
  if (IsNull(node)) return;
  if (!IsList(node)) {
    Error(node, internal::Cat("nodes: expected a list, got ", NodeKindName(node)));
    return;
  }
  std::span<const Id> entries = Children(node);
  out->nodes.reserve(out->nodes.size() + entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    const Id entry = entries[i];
    context_ = internal::Cat("nodes[", i, "]: ");
    context_location_ = LocationOf(entry);
    std::optional<AddNodeStep> parsed = NodeEntry(entry, "");
    if (parsed) out->nodes.push_back(std::move(*parsed));
  }
  context_.clear();
  context_location_ = {};
}

std::optional<AddNodeStep> ScenarioDecoder::NodeEntry(Id node, std::string_view what) {
  AddNodeStep step;
  size_t errors_before = errors_.size();
  bool is_map = ForEachField(
      node, what, {"id", "resources", "occupied", "attributes", "schedulable", "partition"},
      [&](std::string_view key, Id value) {
        if (key == "id") {
          if (auto id = String(value, "id")) step.node.id = std::move(*id);
        } else if (key == "resources") {
          step.node.capacity = Resources(value, "resources");
        } else if (key == "occupied") {
          if (RefuseOccupied(value)) return;
          step.node.occupied = Resources(value, "occupied");
        } else if (key == "attributes") {
          step.attributes = StringMap(value, "attributes");
        } else if (key == "schedulable") {
          if (auto flag = Bool(value, "schedulable")) step.node.schedulable = *flag;
        } else if (key == "partition") {
          if (auto partition = String(value, "partition")) step.node.partition = *partition;
        }
      });
  if (!is_map) return std::nullopt;
  RequireKeys(node, what, {"id"});
  if (errors_.size() != errors_before) return std::nullopt;
  return step;
}

void ScenarioDecoder::Steps(Id node, Scenario* out) {
  if (IsNull(node)) return;
  if (!IsList(node)) {
    Error(node, internal::Cat("steps: expected a list, got ", NodeKindName(node)));
    return;
  }
  std::span<const Id> entries = Children(node);
  out->steps.reserve(out->steps.size() + entries.size());
  for (size_t i = 0; i < entries.size(); ++i) StepEntry(i + 1, entries[i], out);
}

void ScenarioDecoder::StepEntry(size_t index, Id entry, Scenario* out) {
  semantics_ = out->semantics;
  context_ = internal::Cat("step ", index, ": ");
  context_location_ = LocationOf(entry);
  // A step is a mapping with exactly one key (the kind), or a bare kind name.
  const size_t keys = Children(entry).size() / 2;
  if (IsScalar(entry)) {
    Step(index, entry, YamlTree::kNone, out);
  } else if (IsMap(entry) && keys == 1) {
    Step(index, Children(entry)[0], Children(entry)[1], out);
  } else {
    Error(entry, internal::Cat("expected a mapping with exactly one key (the step kind), got ",
                               IsMap(entry) ? internal::Cat("a mapping with ", keys, " keys")
                                            : std::string(NodeKindName(entry))));
  }
  context_.clear();
  context_location_ = {};
}

void ScenarioDecoder::Step(size_t index, Id kind_node, Id body, Scenario* out) {
  if (!IsScalar(kind_node)) {
    Error(kind_node, "the step kind must be a name such as add_app or schedule");
    return;
  }
  std::optional<StepKind> kind = StepKindFromName(Scalar(kind_node));
  if (!kind) {
    Error(kind_node, internal::Cat("unknown step kind ", Quote(Scalar(kind_node)),
                                   " (known: ", internal::Join(kStepKindNames, ", "), ")"));
    return;
  }
  context_ = internal::Cat("step ", index, " (", Scalar(kind_node), "): ");
  context_location_ = LocationOf(kind_node);
  std::optional<StepAction> action = StepBody(*kind, body);
  if (action) {
    out->steps.push_back({.action = std::move(*action), .location = LocationOf(kind_node)});
  }
}

std::optional<StepAction> ScenarioDecoder::StepBody(StepKind kind, Id body) {
  const size_t errors_before = errors_.size();
  // The step context ("step 3 (add_ask): ") already names the place.
  std::string_view what;
  std::optional<std::string> partition;
  auto read_partition = [&](Id value) { partition = String(value, "partition"); };
  auto finish = [&](StepAction action, KeyList required) -> std::optional<StepAction> {
    RequireKeys(body, what, required);
    if (errors_.size() != errors_before) return std::nullopt;
    return action;
  };
  auto set_string = [&](std::string* field, std::string_view key, Id value) {
    if (auto text = String(value, key)) *field = std::move(*text);
  };

  switch (kind) {
    case StepKind::kAddApp: {
      AppSpec app;
      if (!ForEachField(body, what,
                        {"id", "queue", "user", "groups", "tags", "partition", "gang_style",
                         "placeholder_timeout", "placeholder_ask"},
                        [&](std::string_view key, Id value) {
                          if (key == "gang_style") {
                            std::optional<std::string> style = String(value, key);
                            if (style && (*style == "soft" || *style == "Soft")) {
                              app.gang_style = GangStyle::kSoft;
                            } else if (style && (*style == "hard" || *style == "Hard")) {
                              app.gang_style = GangStyle::kHard;
                            } else if (style) {
                              Error(value, internal::Cat("gang_style: expected soft or hard, got ",
                                                         Shown(value)));
                            }
                          }
                          if (key == "placeholder_timeout") {
                            if (auto millis = Seconds(value, key)) {
                              app.placeholder_timeout_millis = *millis;
                            }
                          }
                          if (key == "placeholder_ask") app.placeholder_ask = Resources(value, key);
                          if (key == "id") set_string(&app.id, key, value);
                          if (key == "queue") set_string(&app.queue, key, value);
                          if (key == "user") set_string(&app.user, key, value);
                          if (key == "groups") {
                            if (auto groups = StringList(value, key)) app.groups = *groups;
                          }
                          if (key == "tags") app.tags = StringMap(value, key);
                          if (key == "partition") read_partition(value);
                        })) {
        return std::nullopt;
      }
      if (partition) app.partition = *partition;
      return finish(std::move(app), {"id"});
    }
    case StepKind::kAddAsk:
    case StepKind::kProbe:
    case StepKind::kRecoverAllocation: {
      // A probe is an ask that is not submitted: the same fields, the id optional. A recovered
      // allocation is a pod that runs: the ask's fields but count, and its node.
      AskSpec ask;
      std::string node;
      const bool recover = kind == StepKind::kRecoverAllocation;
      KeyList ask_keys = {
          "app",        "id",           "resources",   "priority",      "count",
          "partition",  "task_group",   "placeholder", "required_node", "allow_preemption",
          "originator", "creation_time"};
      KeyList recover_keys = {
          "app",        "id",           "node",        "resources",     "priority",
          "partition",  "task_group",   "placeholder", "required_node", "allow_preemption",
          "originator", "creation_time"};
      if (!ForEachField(body, what, recover ? recover_keys : ask_keys,
                        [&](std::string_view key, Id value) {
                          if (key == "node") set_string(&node, key, value);
                          if (key == "task_group") set_string(&ask.task_group, key, value);
                          if (key == "required_node") set_string(&ask.required_node, key, value);
                          if (key == "placeholder") {
                            if (auto flag = Bool(value, key)) ask.placeholder = *flag;
                          }
                          if (key == "allow_preemption") {
                            if (auto flag = Bool(value, key)) ask.allow_preemption = *flag;
                          }
                          if (key == "originator") {
                            if (auto flag = Bool(value, key)) ask.originator = *flag;
                          }
                          if (key == "app") set_string(&ask.app, key, value);
                          if (key == "id") set_string(&ask.id, key, value);
                          if (key == "resources") ask.resources = Resources(value, key);
                          if (key == "priority") {
                            if (auto p = Int32(value, key)) ask.priority = *p;
                          }
                          if (key == "count") {
                            if (auto c = Int64(value, key)) ask.count = *c;
                          }
                          if (key == "creation_time") {
                            // Whole seconds on the logical clock (the SI tag creationTime).
                            constexpr int64_t kMaxSeconds = INT64_MAX / 1000;
                            if (auto t = NonNegative(value, key)) {
                              if (*t > kMaxSeconds) {
                                Error(value, internal::Cat(Prefix(what), "creation_time ", *t,
                                                           " s is past the clock's range (at most ",
                                                           kMaxSeconds, ")"));
                              } else {
                                ask.creation_time_millis = *t * 1000;
                              }
                            }
                          }
                          if (key == "partition") read_partition(value);
                        })) {
        return std::nullopt;
      }
      if (partition) ask.partition = *partition;
      if (kind == StepKind::kProbe) return finish(ProbeStep{std::move(ask)}, {"app", "resources"});
      if (recover) {
        return finish(RecoverAllocationStep{.ask = std::move(ask), .node = std::move(node)},
                      {"app", "id", "node", "resources"});
      }
      return finish(std::move(ask), {"app", "id", "resources"});
    }
    case StepKind::kUpdateAllocation: {
      UpdateAllocationStep update;
      if (!ForEachField(body, what, {"app", "ask", "node", "resources", "partition"},
                        [&](std::string_view key, Id value) {
                          if (key == "app") set_string(&update.app, key, value);
                          if (key == "ask") set_string(&update.ask, key, value);
                          if (key == "node") set_string(&update.node, key, value);
                          if (key == "resources") update.resources = Resources(value, key);
                          if (key == "partition") read_partition(value);
                        })) {
        return std::nullopt;
      }
      if (partition) update.partition = *partition;
      return finish(std::move(update), {"app", "ask", "resources"});
    }
    case StepKind::kUpdateAsk: {
      UpdateAskStep update;
      if (!ForEachField(body, what, {"app", "id", "resources", "partition"},
                        [&](std::string_view key, Id value) {
                          if (key == "app") set_string(&update.app, key, value);
                          if (key == "id") set_string(&update.id, key, value);
                          if (key == "resources") update.resources = Resources(value, key);
                          if (key == "partition") read_partition(value);
                        })) {
        return std::nullopt;
      }
      if (partition) update.partition = *partition;
      return finish(std::move(update), {"app", "id", "resources"});
    }
    case StepKind::kAddForeign: {
      AddForeignStep add;
      if (!ForEachField(body, what, {"node", "id", "resources", "kind", "partition"},
                        [&](std::string_view key, Id value) {
                          if (key == "node") set_string(&add.node, key, value);
                          if (key == "id") set_string(&add.id, key, value);
                          if (key == "resources") add.resources = Resources(value, key);
                          if (key == "kind") {
                            std::optional<std::string> text = String(value, key);
                            if (text && *text == "default") {
                              add.kind = ForeignKind::kDefault;
                            } else if (text && *text == "static") {
                              add.kind = ForeignKind::kStatic;
                            } else if (text) {
                              Error(value, internal::Cat(Prefix(what),
                                                         "kind: expected default or static, got ",
                                                         Shown(value)));
                            }
                          }
                          if (key == "partition") read_partition(value);
                        })) {
        return std::nullopt;
      }
      if (partition) add.partition = *partition;
      return finish(std::move(add), {"node", "id", "resources"});
    }
    case StepKind::kUpdateForeign: {
      UpdateForeignStep update;
      if (!ForEachField(body, what, {"id", "node", "resources", "partition"},
                        [&](std::string_view key, Id value) {
                          if (key == "id") set_string(&update.id, key, value);
                          if (key == "node") set_string(&update.node, key, value);
                          if (key == "resources") update.resources = Resources(value, key);
                          if (key == "partition") read_partition(value);
                        })) {
        return std::nullopt;
      }
      if (partition) update.partition = *partition;
      return finish(std::move(update), {"id", "resources"});
    }
    case StepKind::kRemoveForeign: {
      RemoveForeignStep remove;
      if (!ForEachField(body, what, {"id", "partition"}, [&](std::string_view key, Id value) {
            if (key == "id") set_string(&remove.id, key, value);
            if (key == "partition") read_partition(value);
          })) {
        return std::nullopt;
      }
      if (partition) remove.partition = *partition;
      return finish(std::move(remove), {"id"});
    }
    case StepKind::kSchedule: {
      ScheduleStep schedule;
      if (!ForEachField(body, what, {"max", "partition"}, [&](std::string_view key, Id value) {
            if (key == "max") {
              if (auto m = NonNegative(value, key)) schedule.max = *m;
            }
            if (key == "partition") read_partition(value);
          })) {
        return std::nullopt;
      }
      if (partition) schedule.partition = *partition;
      return finish(std::move(schedule), {});
    }
    case StepKind::kRelease: {
      ReleaseStep release;
      if (!ForEachField(body, what, {"app", "ask", "node", "seq", "partition"},
                        [&](std::string_view key, Id value) {
                          if (key == "app") set_string(&release.app, key, value);
                          if (key == "ask") set_string(&release.ask, key, value);
                          if (key == "node") set_string(&release.node, key, value);
                          if (key == "seq") {
                            // The allocation record's seq (contract version 3).
                            if (auto seq = NonNegative(value, key)) {
                              if (*seq == 0) {
                                Error(value, internal::Cat(Prefix(what),
                                                           "seq: allocations are numbered from 1"));
                              } else {
                                release.seq = *seq;
                              }
                            }
                          }
                          if (key == "partition") read_partition(value);
                        })) {
        return std::nullopt;
      }
      if (partition) release.partition = *partition;
      return finish(std::move(release), {"app", "ask"});
    }
    case StepKind::kRemoveAsk: {
      RemoveAskStep remove;
      if (!ForEachField(body, what, {"app", "id", "partition"},
                        [&](std::string_view key, Id value) {
                          if (key == "app") set_string(&remove.app, key, value);
                          if (key == "id") set_string(&remove.ask, key, value);
                          if (key == "partition") read_partition(value);
                        })) {
        return std::nullopt;
      }
      if (partition) remove.partition = *partition;
      return finish(std::move(remove), {"app", "id"});
    }
    case StepKind::kRemoveApp:
    case StepKind::kRemoveNode: {
      std::string id;
      if (!ForEachField(body, what, {"id", "partition"}, [&](std::string_view key, Id value) {
            if (key == "id") set_string(&id, key, value);
            if (key == "partition") read_partition(value);
          })) {
        return std::nullopt;
      }
      std::string part = partition ? *partition : std::string(kDefaultPartition);
      if (kind == StepKind::kRemoveApp) {
        return finish(RemoveAppStep{.partition = std::move(part), .id = std::move(id)}, {"id"});
      }
      return finish(RemoveNodeStep{.partition = std::move(part), .id = std::move(id)}, {"id"});
    }
    case StepKind::kAddNode: {
      if (!IsMap(body)) {
        Error(body, internal::Cat(Prefix(what), "expected a mapping, got ", NodeKindName(body)));
        return std::nullopt;
      }
      std::optional<AddNodeStep> node = NodeEntry(body, what);
      if (!node) return std::nullopt;
      return finish(std::move(*node), {"id"});
    }
    case StepKind::kUpdateNode: {
      NodeUpdate update;
      if (!ForEachField(body, what, {"id", "resources", "occupied", "schedulable", "partition"},
                        [&](std::string_view key, Id value) {
                          if (key == "id") set_string(&update.id, key, value);
                          if (key == "resources") update.capacity = Resources(value, key);
                          if (key == "occupied" && !RefuseOccupied(value)) {
                            update.occupied = Resources(value, key);
                          }
                          if (key == "schedulable") {
                            if (auto flag = Bool(value, key)) update.schedulable = *flag;
                          }
                          if (key == "partition") read_partition(value);
                        })) {
        return std::nullopt;
      }
      if (partition) update.partition = *partition;
      return finish(std::move(update), {"id"});
    }
    case StepKind::kUpdateConfig: {
      UpdateConfigStep update;
      bool has_config = false;
      if (!ForEachField(body, what, {"config", "config_file", "partition"},
                        [&](std::string_view key, Id value) {
                          if (key == "partition") {
                            read_partition(value);  // accepted for uniformity; no meaning here
                            return;
                          }
                          if (has_config) {
                            Error(value, "give either `config:` or `config_file:`, not both");
                            return;
                          }
                          has_config = true;
                          // Not validated here: a config the kernel refuses is an error record.
                          std::optional<SchedulerConfig> config =
                              key == "config" ? Config(value, false, nullptr)
                                              : ConfigFile(value, nullptr);
                          if (config) update.config = std::move(*config);
                        })) {
        return std::nullopt;
      }
      if (!has_config) {
        Error(body, internal::Cat(Prefix(what), "missing required key \"config\""));
        return std::nullopt;
      }
      return finish(std::move(update), {});
    }
    case StepKind::kAdvance: {
      AdvanceStep advance;
      if (!ForEachField(body, what, {"seconds", "partition"}, [&](std::string_view key, Id value) {
            if (key == "seconds") {
              if (auto millis = Seconds(value, key)) advance.millis = *millis;
            }
            if (key == "partition") read_partition(value);
          })) {
        return std::nullopt;
      }
      return finish(advance, {"seconds"});
    }
  }
  return std::nullopt;
}

// expect.allocations / expect.releases: a list of partial records, compared in order.
std::optional<std::vector<ExpectedAllocation>> ScenarioDecoder::ExpectedList(Id value,
                                                                             std::string_view key) {
  std::vector<ExpectedAllocation> list;
  if (!IsNull(value) && !IsList(value)) {
    Error(value, internal::Cat("expect.", key, ": expected a list, got ", NodeKindName(value)));
    return std::nullopt;
  }
  const bool releases = key == "releases";
  const bool app_states = key == "app_states";
  std::span<const Id> entries = Children(value);
  for (size_t i = 0; i < entries.size(); ++i) {
    const Id entry = entries[i];
    ExpectedAllocation expected;
    expected.location = LocationOf(entry);
    std::string what = internal::Cat("expect.", key, "[", i, "]");
    auto read = [&](std::string_view field, Id text) {
      std::optional<std::string> s = String(text, field);
      if (!s) return;
      if (field == "app") expected.app = std::move(s);
      if (field == "ask") expected.ask = std::move(s);
      if (field == "node") expected.node = std::move(s);
      if (field == "queue") expected.queue = std::move(s);
      if (field == "partition") expected.partition = std::move(s);
      if (field == "reason") expected.reason = std::move(s);
      if (field == "from") expected.from = std::move(s);
      if (field == "to") expected.to = std::move(s);
    };
    if (app_states) {
      ForEachField(entry, what, {"app", "from", "to", "step", "partition"},
                   [&](std::string_view field, Id text) {
                     if (field == "step") {
                       if (auto step = NonNegative(text, what + ".step")) expected.step = *step;
                       return;
                     }
                     read(field, text);
                   });
    } else {
      // `step` (the record's step) and `seq` are optional keys of this project's.
      auto read_or_number = [&](std::string_view field, Id text) {
        if (field == "seq") {
          if (auto seq = NonNegative(text, what + ".seq")) expected.seq = *seq;
        } else if (field == "step") {
          if (auto step = NonNegative(text, what + ".step")) expected.step = *step;
        } else {
          read(field, text);
        }
      };
      if (releases) {
        ForEachField(entry, what,
                     {"app", "ask", "node", "queue", "partition", "reason", "seq", "step"},
                     read_or_number);
      } else if (key == "recovered") {
        // A recovered allocation has no seq (contract version 3).
        ForEachField(entry, what, {"app", "ask", "node", "queue", "partition", "step"},
                     read_or_number);
      } else if (key == "quota_preemptions") {
        ForEachField(entry, what, {"queue", "victims", "partition", "step"},
                     [&](std::string_view field, Id text) {
                       if (field == "victims") {
                         if (auto n = NonNegative(text, what + ".victims")) expected.victims = *n;
                       } else {
                         read_or_number(field, text);
                       }
                     });
      } else {
        ForEachField(entry, what, {"app", "ask", "node", "queue", "partition", "seq", "step"},
                     read_or_number);
      }
    }
    list.push_back(std::move(expected));
  }
  return list;
}

void ScenarioDecoder::Expect(Id node, Scenario* out) {
  ScenarioExpect expect;
  if (!ForEachField(node, "expect",
                    {"allocations", "releases", "app_states", "recovered", "quota_preemptions",
                     "rejected_apps", "errors"},
                    [&](std::string_view key, Id value) {
                      if (key == "errors") {
                        if (auto count = NonNegative(value, "expect.errors"))
                          expect.errors = *count;
                      } else if (key == "rejected_apps") {
                        if (auto apps = StringList(value, "expect.rejected_apps")) {
                          expect.rejected_apps = std::move(*apps);
                        }
                      } else {
                        auto list = ExpectedList(value, key);
                        if (!list) return;
                        if (key == "allocations") expect.allocations = std::move(*list);
                        if (key == "releases") expect.releases = std::move(*list);
                        if (key == "app_states") expect.app_states = std::move(*list);
                        if (key == "recovered") expect.recovered = std::move(*list);
                        if (key == "quota_preemptions") expect.quota_preemptions = std::move(*list);
                      }
                    })) {
    return;
  }
  out->expect = std::move(expect);
}

// "file:line:col: message", or "file: message" when the position is unknown.
std::string Positioned(const std::string& source_name, const internal::YamlTextIssue& issue,
                       std::string_view message) {
  std::string out = source_name;
  if (issue.line > 0) internal::Append(&out, ":", issue.line, ":", issue.column);
  internal::Append(&out, ": ", message);
  return out;
}

absl::StatusOr<Scenario> DecodeScenario(std::string_view text, const std::string& source_name,
                                        const ScenarioLoadOptions& options) {
  int aliases = 0;
  if (std::optional<internal::YamlTextIssue> issue = internal::ScanYamlText(text, &aliases)) {
    return absl::InvalidArgumentError(Positioned(source_name, *issue, issue->message));
  }
  // The loader used to check a text with aliases by parsing it into a YamlTree (alias bounds,
  // self-references) and then load it again with YAML::Load. Both parses keep their observable
  // differences: with aliases, the tree's messages ("YAML syntax error: ...") and its look at
  // the start of a next document; without, YAML::Load's: the first document only and syntax
  // errors in yaml-cpp's own words.
  YamlTree tree;
  std::optional<internal::YamlTextIssue> issue = aliases > 0
                                                     ? YamlTree::Parse(text, &tree, nullptr)
                                                     : YamlTree::ParseFirstDocument(text, &tree);
  if (issue) {
    std::string_view message = aliases == 0 && !issue->parser_message.empty()
                                   ? std::string_view(issue->parser_message)
                                   : std::string_view(issue->message);
    return absl::InvalidArgumentError(Positioned(source_name, *issue, message));
  }
  Scenario scenario;
  std::vector<std::string> errors;
  internal::DecodeScenarioTree(tree, source_name, options, &scenario, &errors);
  if (!errors.empty()) return absl::InvalidArgumentError(internal::Join(errors, "\n"));
  return scenario;
}

}  // namespace

namespace internal {

void DecodeScenarioTree(const YamlTree& tree, const std::string& source_name,
                        const ScenarioLoadOptions& options, Scenario* out,
                        std::vector<std::string>* errors) {
  out->source_name = source_name;
  ScenarioDecoder decoder(tree, source_name, options);
  try {
    decoder.Decode(tree.empty() ? YamlTree::kNone : tree.root(), out);
  } catch (const std::exception& e) {
    // Out of memory or a container limit: reported like any other problem, not thrown at the
    // embedder.
    decoder.errors().push_back(Cat(source_name, ": ", e.what()));
  }
  errors->insert(errors->end(), decoder.errors().begin(), decoder.errors().end());
}

void DecodeScenarioStep(const YamlTree& tree, size_t index, const std::string& source_name,
                        Scenario* out, std::vector<std::string>* errors) {
  ScenarioDecoder decoder(tree, source_name, {});
  try {
    decoder.StepEntry(index, tree.empty() ? YamlTree::kNone : tree.root(), out);
  } catch (const std::exception& e) {
    decoder.errors().push_back(Cat(source_name, ": ", e.what()));
  }
  errors->insert(errors->end(), decoder.errors().begin(), decoder.errors().end());
}

}  // namespace internal

std::string_view StepKindName(StepKind kind) {
  auto index = static_cast<size_t>(kind);
  return index < std::size(kStepKindNames) ? kStepKindNames[index] : "unknown";
}

absl::StatusOr<Scenario> LoadScenarioText(std::string_view text, const std::string& source_name,
                                          const ScenarioLoadOptions& options) {
  return DecodeScenario(text, source_name, options);
}

absl::StatusOr<Scenario> LoadScenarioFile(const std::string& path,
                                          const ScenarioLoadOptions& options) {
  absl::StatusOr<std::string> text = ReadTextInput(path);
  const std::string name = TextInputName(path);
  if (!text.ok()) {
    return absl::Status(text.status().code(), FormatTextInputError(name, text.status()));
  }
  return DecodeScenario(*text, name, options);
}

}  // namespace allocore::adapters
