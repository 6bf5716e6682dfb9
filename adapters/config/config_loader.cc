// adapters/config/config_loader.cc — queues.yaml text/file -> validated SchedulerConfig, and the
// config as JSON.
//
// Pipeline: ScanYamlText (limits, before any parser) -> YamlTree::Parse (yaml-cpp events;
// alias limits) -> DecodeConfigTree (strict schema) -> ValidateConfig (semantic rules, only
// when decoding left the structs complete). No exception leaves this file.
#include "allocore/adapters/config_loader.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <exception>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "allocore/adapters/json.h"
#include "allocore/adapters/text_input.h"
#include "allocore/config.h"
#include "yaml_config_decode.h"
#include "yaml_tree.h"

namespace allocore::adapters {
namespace {

bool HasError(const std::vector<ConfigError>& errors) {
  return std::any_of(errors.begin(), errors.end(), [](const ConfigError& e) { return !e.warning; });
}

ConfigLoadResult Failure(SourceLocation location, std::string message) {
  ConfigLoadResult result;
  ConfigError& e = result.errors.emplace_back();
  e.location = location;
  e.message = std::move(message);
  return result;
}

// The value of `key` in the mapping `node`, or kNone.
internal::YamlTree::Id Lookup(const internal::YamlTree& tree, internal::YamlTree::Id node,
                              std::string_view key) {
  using Tree = internal::YamlTree;
  if (node == Tree::kNone || tree.kind(node) != Tree::Kind::kMapping) return Tree::kNone;
  std::span<const Tree::Id> children = tree.children(node);
  for (size_t i = 0; i + 1 < children.size(); i += 2) {
    if (tree.kind(children[i]) == Tree::Kind::kScalar && tree.scalar(children[i]) == key) {
      return children[i + 1];
    }
  }
  return Tree::kNone;
}

// `in_config_map`: the text is a ConfigMap's data."queues.yaml"; a ConfigMap inside it is not
// unwrapped again (each level would cost a parse on the stack: a hostile file could nest many).
ConfigLoadResult LoadUnchecked(std::string_view text, const std::string& source_name,
                               Semantics semantics, bool in_config_map = false);

// YuniKorn's configuration lives in a Kubernetes ConfigMap (data."queues.yaml"), and people
// pass the ConfigMap file or a `kubectl get configmap -o yaml` dump of it. Returns nullopt
// when `tree` is not a Kubernetes object; otherwise the load of the embedded queues.yaml with
// every location mapped back into the outer file (exactly for a literal block, `|`, whose
// lines are the inner lines; at the value for any other style).
std::optional<ConfigLoadResult> LoadConfigMap(const internal::YamlTree& tree, std::string_view text,
                                              const std::string& source_name, Semantics semantics) {
  using Tree = internal::YamlTree;
  Tree::Id kind = Lookup(tree, tree.root(), "kind");
  if (kind == Tree::kNone || Lookup(tree, tree.root(), "apiVersion") == Tree::kNone) {
    return std::nullopt;
  }
  SourceLocation at{tree.line(kind), tree.column(kind)};
  if (tree.kind(kind) != Tree::Kind::kScalar || tree.scalar(kind) != "ConfigMap") {
    return Failure(
        at, absl::StrCat("this is a Kubernetes ",
                         tree.kind(kind) == Tree::Kind::kScalar ? std::string(tree.scalar(kind))
                                                                : std::string("object"),
                         ", not a queues.yaml or a ConfigMap holding one"));
  }
  Tree::Id value = Lookup(tree, Lookup(tree, tree.root(), "data"), "queues.yaml");
  if (value == Tree::kNone) {
    return Failure(at,
                   "a ConfigMap without data.\"queues.yaml\": YuniKorn reads its queue "
                   "configuration from that key");
  }
  SourceLocation value_at{tree.line(value), tree.column(value)};
  if (tree.kind(value) != Tree::Kind::kScalar) {
    return Failure(value_at, "data.\"queues.yaml\" must be a string holding the configuration");
  }
  // Where the literal block's first content line is, and its indentation.
  int line_offset = 0;
  int column_offset = 0;
  bool exact = false;
  size_t line_start = 0;
  for (int line = 1; line < value_at.line && line_start != std::string_view::npos; ++line) {
    line_start = text.find('\n', line_start);
    if (line_start != std::string_view::npos) ++line_start;
  }
  size_t indicator = line_start == std::string_view::npos
                         ? std::string_view::npos
                         : line_start + static_cast<size_t>(value_at.column - 1);
  if (indicator < text.size() && text[indicator] == '|') {
    size_t next = text.find('\n', indicator);
    while (next != std::string_view::npos && next + 1 < text.size()) {
      size_t content = next + 1;
      size_t first = text.find_first_not_of(' ', content);
      if (first == std::string_view::npos || text[first] != '\n') {
        column_offset =
            static_cast<int>((first == std::string_view::npos ? text.size() : first) - content);
        break;
      }
      next = first;  // a blank line before the content: keep looking for the indentation
    }
    line_offset = value_at.line;
    exact = true;
  }
  ConfigLoadResult inner =
      LoadUnchecked(tree.scalar(value), source_name, semantics, /*in_config_map=*/true);
  for (ConfigError& e : inner.errors) {
    if (exact && e.location.line > 0) {
      e.location.line += line_offset;
      e.location.column += column_offset;
    } else {
      e.location = value_at;
    }
  }
  return inner;
}

// Whether the text says `kind: ConfigMap` on a line of its own at the top level: read off the
// text, for a ConfigMap too large to be parsed.
bool DeclaresConfigMap(std::string_view text) {
  for (size_t at = 0; at < text.size();) {
    const size_t end = std::min(text.find('\n', at), text.size());
    std::string_view line = text.substr(at, end - at);
    if (line.starts_with("kind:")) {
      line.remove_prefix(5);
      while (!line.empty() &&
             (line.front() == ' ' || line.front() == '"' || line.front() == '\'')) {
        line.remove_prefix(1);
      }
      return line.starts_with("ConfigMap");
    }
    at = end + 1;
  }
  return false;
}

ConfigLoadResult LoadUnchecked(std::string_view text, const std::string& source_name,
                               Semantics semantics, bool in_config_map) {
  if (std::optional<internal::YamlTextIssue> issue = internal::ScanYamlText(text, nullptr)) {
    // A ConfigMap holds its whole queues.yaml as one scalar, up to Kubernetes' 1 MiB: a text
    // refused only for a long scalar is read again with that bound, and stays refused unless
    // it is a ConfigMap (whose queues.yaml is then scanned with the usual bounds).
    std::optional<internal::YamlTextIssue> retry_issue;
    if (!in_config_map && issue->scalar_too_large) {
      retry_issue = internal::ScanYamlText(text, nullptr, internal::kMaxConfigMapScalarBytes);
      // Too long even for a ConfigMap: say so, not the bound of a plain scalar.
      if (retry_issue && retry_issue->scalar_too_large && DeclaresConfigMap(text)) {
        return Failure({retry_issue->line, retry_issue->column},
                       absl::StrCat("a ConfigMap whose data.\"queues.yaml\" is more than ",
                                    internal::kMaxConfigMapScalarBytes,
                                    " bytes (1 MiB, Kubernetes' limit on a ConfigMap)"));
      }
    }
    const bool config_map_retry = !in_config_map && issue->scalar_too_large && !retry_issue;
    internal::YamlTree candidate;
    if (!config_map_retry || internal::YamlTree::Parse(text, &candidate, nullptr).has_value() ||
        candidate.empty() ||
        Lookup(candidate, candidate.root(), "kind") == internal::YamlTree::kNone ||
        Lookup(candidate, candidate.root(), "apiVersion") == internal::YamlTree::kNone) {
      return Failure({issue->line, issue->column}, std::move(issue->message));
    }
  }
  internal::YamlTree tree;
  bool more_documents = false;
  if (std::optional<internal::YamlTextIssue> issue =
          internal::YamlTree::Parse(text, &tree, &more_documents)) {
    return Failure({issue->line, issue->column}, std::move(issue->message));
  }
  if (std::optional<ConfigLoadResult> config_map =
          in_config_map ? std::nullopt : LoadConfigMap(tree, text, source_name, semantics)) {
    if (config_map->config) config_map->config->source_name = source_name;
    return *std::move(config_map);
  }
  ConfigLoadResult result;
  SchedulerConfig config;
  if (tree.empty() || tree.kind(tree.root()) == internal::YamlTree::Kind::kNull) {
    // Empty text, only comments, or a null document: YuniKorn's built-in default.
    config = DefaultSchedulerConfig();
  } else if (!internal::DecodeConfigTree(tree, tree.root(), &config, &result.errors)) {
    return result;  // incomplete structs: semantic checks would only add follow-on errors
  }
  if (more_documents) {
    ConfigError& w = result.errors.emplace_back();
    w.message = "the text holds more than one YAML document; only the first one is used";
    w.warning = true;
  }
  config.source_name = source_name;
  std::vector<ConfigError> problems = ValidateConfig(config, semantics);
  result.errors.insert(result.errors.end(), std::make_move_iterator(problems.begin()),
                       std::make_move_iterator(problems.end()));
  std::stable_sort(result.errors.begin(), result.errors.end(),
                   [](const ConfigError& a, const ConfigError& b) {
                     if (a.location.line != b.location.line) {
                       return a.location.line < b.location.line;
                     }
                     return a.location.column < b.location.column;
                   });
  if (!HasError(result.errors)) result.config = std::move(config);
  return result;
}

// ---- JSON output ---------------------------------------------------------------------------
class JsonWriter {
 public:
  std::string Take() { return std::move(out_); }

  void Config(const SchedulerConfig& config) {
    out_ += "{\n";
    Key(1, "partitions");
    Array(1, config.partitions, [&](const PartitionConfig& p) { Partition(2, p); });
    out_ += "\n}\n";
  }

 private:
  void Indent(int level) { out_.append(static_cast<size_t>(level) * 2, ' '); }
  void Key(int level, std::string_view key) {
    Indent(level);
    AppendJsonString(&out_, key);
    out_ += ": ";
  }
  void Str(std::string_view s) { AppendJsonString(&out_, s); }
  void Next() { out_ += ",\n"; }

  // A multi-line array of objects written by `item` (each at indent level + 1).
  template <typename T, typename Fn>
  void Array(int level, const std::vector<T>& items, Fn&& item) {
    if (items.empty()) {
      out_ += "[]";
      return;
    }
    out_ += "[\n";
    for (size_t i = 0; i < items.size(); ++i) {
      if (i > 0) out_ += ",\n";
      item(items[i]);
    }
    out_ += "\n";
    Indent(level);
    out_ += "]";
  }

  void StringList(const std::vector<std::string>& items) {
    out_ += "[";
    for (size_t i = 0; i < items.size(); ++i) {
      if (i > 0) out_ += ", ";
      Str(items[i]);
    }
    out_ += "]";
  }

  void Properties(const PropertyMap& properties) {
    out_ += "{";
    for (size_t i = 0; i < properties.size(); ++i) {
      if (i > 0) out_ += ", ";
      Str(properties[i].first);
      out_ += ": ";
      Str(properties[i].second);
    }
    out_ += "}";
  }

  // vcore is written in milli-cores with the `m` suffix so that it loads back unchanged; other
  // quantities are plain numbers.
  void Quantities(const QuantityMap& quantities) {
    out_ += "{";
    for (size_t i = 0; i < quantities.size(); ++i) {
      const auto& [name, value] = quantities[i];
      if (i > 0) out_ += ", ";
      Str(name);
      out_ += ": ";
      if (name == "vcore") {
        Str(absl::StrCat(value, "m"));
      } else {
        absl::StrAppend(&out_, value);
      }
    }
    out_ += "}";
  }

  void Resources(const ResourcesConfig& resources) {
    out_ += "{";
    bool first = true;
    if (resources.guaranteed) {
      out_ += "\"guaranteed\": ";
      Quantities(*resources.guaranteed);
      first = false;
    }
    if (resources.max) {
      out_ += first ? "\"max\": " : ", \"max\": ";
      Quantities(*resources.max);
    }
    out_ += "}";
  }

  // A partition is a multi-line object; queues, rules and limits are one line each (a queue's
  // children follow on their own lines), which keeps a 10,000-queue config compact.
  void Partition(int level, const PartitionConfig& p) {
    Indent(level);
    out_ += "{\n";
    Key(level + 1, "name");
    Str(p.name);
    if (p.queues_present) {
      Next();
      Key(level + 1, "queues");
      Array(level + 1, p.queues, [&](const QueueConfig& q) { Queue(level + 2, q); });
    }
    Next();
    Key(level + 1, "placementrules");
    Array(level + 1, p.placement_rules, [&](const PlacementRuleConfig& r) {
      Indent(level + 2);
      Rule(r);
    });
    Next();
    Key(level + 1, "limits");
    Array(level + 1, p.limits, [&](const LimitConfig& l) {
      Indent(level + 2);
      Limit(l);
    });
    if (p.preemption_enabled || p.quota_preemption_enabled) {
      Next();
      Key(level + 1, "preemption");
      out_ += "{";
      if (p.preemption_enabled) {
        absl::StrAppend(&out_, "\"enabled\": ", *p.preemption_enabled ? "true" : "false");
      }
      if (p.quota_preemption_enabled) {
        absl::StrAppend(&out_, p.preemption_enabled ? ", " : "", "\"quotapreemptionenabled\": ",
                        *p.quota_preemption_enabled ? "true" : "false");
      }
      out_ += "}";
    }
    Next();
    Key(level + 1, "nodesortpolicy");
    out_ += "{\"type\": ";
    Str(p.node_sort_policy.type);
    out_ += ", \"resourceweights\": {";
    for (size_t i = 0; i < p.node_sort_policy.resource_weights.size(); ++i) {
      const auto& [name, weight] = p.node_sort_policy.resource_weights[i];
      if (i > 0) out_ += ", ";
      Str(name);
      out_ += ": ";
      char buf[64];
      auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), weight);
      out_.append(buf, ec == std::errc() ? static_cast<size_t>(end - buf) : 0);
      if (ec != std::errc()) out_ += "0";
    }
    out_ += "}}";
    if (!p.state_dump_file_path.empty()) {
      Next();
      Key(level + 1, "statedumpfilepath");
      Str(p.state_dump_file_path);
    }
    if (p.user_group_resolver_type) {
      Next();
      Key(level + 1, "usergroupresolver");
      out_ += "{\"type\": ";
      Str(*p.user_group_resolver_type);
      out_ += "}";
    }
    out_ += "\n";
    Indent(level);
    out_ += "}";
  }

  void Queue(int level, const QueueConfig& q) {
    Indent(level);
    out_ += "{\"name\": ";
    Str(q.name);
    absl::StrAppend(&out_, ", \"parent\": ", q.parent ? "true" : "false",
                    ", \"maxapplications\": ", q.max_applications, ", \"properties\": ");
    Properties(q.properties);
    out_ += ", \"adminacl\": ";
    Str(q.admin_acl);
    out_ += ", \"submitacl\": ";
    Str(q.submit_acl);
    out_ += ", \"resources\": ";
    Resources(q.resources);
    if (q.child_template) {
      const ChildTemplateConfig& t = *q.child_template;
      absl::StrAppend(&out_, ", \"childtemplate\": {\"maxapplications\": ", t.max_applications,
                      ", \"properties\": ");
      Properties(t.properties);
      out_ += ", \"resources\": ";
      Resources(t.resources);
      out_ += "}";
    }
    out_ += ", \"limits\": [";
    for (size_t i = 0; i < q.limits.size(); ++i) {
      if (i > 0) out_ += ", ";
      Limit(q.limits[i]);
    }
    out_ += "], \"queues\": ";
    Array(level, q.queues, [&](const QueueConfig& c) { Queue(level + 1, c); });
    out_ += "}";
  }

  void Rule(const PlacementRuleConfig& r) {
    out_ += "{\"name\": ";
    Str(r.name);
    absl::StrAppend(&out_, ", \"create\": ", r.create ? "true" : "false", ", \"value\": ");
    Str(r.value);
    out_ += ", \"filter\": {\"type\": ";
    Str(r.filter.type);
    out_ += ", \"users\": ";
    StringList(r.filter.users);
    out_ += ", \"groups\": ";
    StringList(r.filter.groups);
    out_ += "}";
    if (!r.parent.empty()) {
      out_ += ", \"parent\": ";
      Rule(r.parent.front());
    }
    out_ += "}";
  }

  void Limit(const LimitConfig& l) {
    out_ += "{\"limit\": ";
    Str(l.limit);
    out_ += ", \"users\": ";
    StringList(l.users);
    out_ += ", \"groups\": ";
    StringList(l.groups);
    if (l.max_resources) {
      out_ += ", \"maxresources\": ";
      Quantities(*l.max_resources);
    }
    absl::StrAppend(&out_, ", \"maxapplications\": ", l.max_applications, "}");
  }

  std::string out_;
};

}  // namespace

ConfigLoadResult LoadConfigText(std::string_view text, const std::string& source_name,
                                Semantics semantics) {
  try {
    return LoadUnchecked(text, source_name, semantics);
  } catch (const std::exception& e) {
    // Nothing below is expected to throw except allocation failure; never let it escape.
    return Failure({}, absl::StrCat("cannot load the config: ", e.what()));
  }
}

ConfigLoadResult LoadConfigFile(const std::string& path, Semantics semantics) {
  absl::StatusOr<std::string> text = ReadTextInput(path);
  if (!text.ok()) {
    const absl::string_view message = text.status().message();
    SourceLocation at;
    if (std::optional<TextPosition> position = TextInputErrorPosition(text.status())) {
      at = {position->line, position->column};
    }
    return Failure(at, std::string(message.data(), message.size()));
  }
  return LoadConfigText(*text, TextInputName(path), semantics);
}

std::string ConfigToJson(const SchedulerConfig& config) {
  JsonWriter writer;
  writer.Config(config);
  return writer.Take();
}

}  // namespace allocore::adapters
