// adapters/config/yaml_config_decode.cc — strict decoding of the YuniKorn queues.yaml schema
// (semantics §2.2) into allocore's config structs.
//
// Like YuniKorn's yaml.v2 UnmarshalStrict: keys are the lower-case schema names, unknown and
// duplicate keys are errors, integers and booleans follow YAML 1.1 resolution (a quoted "10"
// is a string, not a number), any scalar is accepted where a string is expected, and null
// leaves a field at its zero value. Unlike it, decoding goes on after an error so that every
// problem is reported, each with the line and column of the offending key or value.
#include "yaml_config_decode.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "yaml_tree.h"

namespace allocore::adapters::internal {
namespace {

using Id = YamlTree::Id;
using Kind = YamlTree::Kind;
using Style = YamlTree::Style;

// absl::StrCat for std::string_view too (Debian's absl::string_view is its own type).
template <typename T>
decltype(auto) CatArg(const T& v) {
  if constexpr (std::is_same_v<T, std::string_view>) {
    return absl::string_view(v.data(), v.size());
  } else {
    return (v);
  }
}

template <typename... T>
std::string Cat(const T&... parts) {
  return absl::StrCat(CatArg(parts)...);
}

std::string Lower(std::string_view s) { return absl::AsciiStrToLower({s.data(), s.size()}); }

// 'text' for messages, shortened when long.
std::string Quote(std::string_view s) {
  constexpr size_t kMax = 80;
  if (s.size() <= kMax) return Cat("'", s, "'");
  size_t cut = kMax;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return Cat("'", s.substr(0, cut), "...' (", s.size(), " bytes)");
}

std::string_view KindName(const YamlTree& t, Id id) {
  switch (t.kind(id)) {
    case Kind::kNull:
      return "null";
    case Kind::kScalar:
      return "a scalar";
    case Kind::kSequence:
      return "a list";
    case Kind::kMapping:
      return "a mapping";
  }
  return "?";
}

std::string_view TrimSpace(std::string_view s) {
  auto space = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
  };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

// YAML 1.1 booleans as yaml.v2 resolves them.
std::optional<bool> ParseYamlBool(std::string_view s) {
  static constexpr std::string_view kTrue[] = {"y",    "Y",    "yes", "Yes", "YES", "true",
                                               "True", "TRUE", "on",  "On",  "ON"};
  static constexpr std::string_view kFalse[] = {"n",     "N",     "no",  "No",  "NO", "false",
                                                "False", "FALSE", "off", "Off", "OFF"};
  if (std::find(std::begin(kTrue), std::end(kTrue), s) != std::end(kTrue)) return true;
  if (std::find(std::begin(kFalse), std::end(kFalse), s) != std::end(kFalse)) return false;
  return std::nullopt;
}

// Unsigned integers as yaml.v2 resolves them (Go ParseInt base 0 after removing '_'): optional
// '+', 0x hex, 0o / leading-0 octal, 0b binary, decimal. Sets `negative` for "-N".
std::optional<uint64_t> ParseYamlUint(std::string_view s, bool* negative, bool* overflow) {
  *negative = false;
  *overflow = false;
  std::string plain;
  plain.reserve(s.size());
  for (char c : s) {
    if (c != '_') plain.push_back(c);
  }
  std::string_view v = plain;
  if (!v.empty() && (v[0] == '+' || v[0] == '-')) {
    *negative = v[0] == '-';
    v.remove_prefix(1);
  }
  int base = 10;
  if (v.size() > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
    base = 16;
    v.remove_prefix(2);
  } else if (v.size() > 2 && v[0] == '0' && (v[1] == 'o' || v[1] == 'O')) {
    base = 8;
    v.remove_prefix(2);
  } else if (v.size() > 2 && v[0] == '0' && (v[1] == 'b' || v[1] == 'B')) {
    base = 2;
    v.remove_prefix(2);
  } else if (v.size() > 1 && v[0] == '0') {
    base = 8;
    v.remove_prefix(1);
  }
  if (v.empty()) return std::nullopt;
  uint64_t out = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out, base);
  if (end != v.data() + v.size()) return std::nullopt;
  if (ec == std::errc::result_out_of_range) {
    *overflow = true;
    return std::nullopt;
  }
  if (ec != std::errc()) return std::nullopt;
  if (*negative && out != 0) return std::nullopt;
  *negative = false;
  return out;
}

// Finite floats (YAML ints and floats; '_' removed, optional '+').
std::optional<double> ParseYamlFloat(std::string_view s) {
  std::string plain;
  for (char c : s) {
    if (c != '_') plain.push_back(c);
  }
  std::string_view v = plain;
  if (!v.empty() && v[0] == '+') v.remove_prefix(1);
  if (v.empty()) return std::nullopt;
  double out = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || end != v.data() + v.size() || !std::isfinite(out)) return std::nullopt;
  return out;
}

constexpr std::string_view kQuantityForm =
    "expected digits with an optional suffix k, M, G, T, P, E (powers of 1000) or Ki, Mi, Gi, "
    "Ti, Pi, Ei (powers of 1024), and for vcore also m (milli-cores); no sign, no decimal "
    "point";

class Decoder {
 public:
  Decoder(const YamlTree& tree, std::vector<ConfigError>* errors) : t_(tree), errors_(errors) {}

  bool complete() const { return complete_; }

  void Document(Id root, SchedulerConfig* out) {
    if (t_.kind(root) == Kind::kNull) return;
    if (t_.kind(root) != Kind::kMapping) {
      Error(root, "",
            Cat("the config must be a mapping with a `partitions` list, got ", KindName(t_, root)));
      return;
    }
    Entries(root, "the config", {"partitions", "checksum"}, [&](std::string_view key, Id k, Id v) {
      if (key == "partitions") {
        List(v, k, "partitions", [&](Id item) {
          PartitionConfig& partition = out->partitions.emplace_back();
          Partition(item, &partition);
        });
      } else if (key == "checksum") {
        std::string ignored;
        String(v, k, "checksum", &ignored);  // recomputed by YuniKorn; ignored here
      }
    });
  }

 private:
  // ---- Errors and locations ----
  SourceLocation Location(Id id) const { return {t_.line(id), t_.column(id)}; }

  // A null value has no position of its own (yaml-cpp reports the next token): use the key.
  Id At(Id value, Id key) const {
    return t_.kind(value) == Kind::kNull && key != YamlTree::kNone ? key : value;
  }

  void Error(Id at, std::string_view field, std::string message, bool structural = true) {
    ConfigError& e = errors_->emplace_back();
    e.location = Location(at);
    e.partition = partition_;
    e.queue_path = queue_path_;
    e.field = std::string(field);
    e.message = std::move(message);
    if (structural) complete_ = false;
  }

  // Calls fn(key, key_id, value_id) for every entry of mapping `map` whose key is a known,
  // first-seen scalar. Unknown keys and duplicates are reported; `what` names the entity.
  template <typename Fn>
  void Entries(Id map, std::string_view what, std::initializer_list<std::string_view> known,
               Fn&& fn) {
    std::span<const Id> items = t_.children(map);
    size_t pairs = items.size() / 2;
    absl::flat_hash_set<std::string_view> seen;
    constexpr size_t kLinearLimit = 16;
    if (pairs > kLinearLimit) seen.reserve(pairs);
    for (size_t i = 0; i < pairs; ++i) {
      Id k = items[2 * i];
      Id v = items[2 * i + 1];
      if (t_.kind(k) != Kind::kScalar) {
        Error(k, "", Cat("a key in ", what, " must be a string, got ", KindName(t_, k)));
        continue;
      }
      std::string_view key = t_.scalar(k);
      bool duplicate = false;
      if (pairs > kLinearLimit) {
        duplicate = !seen.insert(key).second;
      } else {
        for (size_t j = 0; j < i && !duplicate; ++j) {
          Id other = items[2 * j];
          duplicate = t_.kind(other) == Kind::kScalar && t_.scalar(other) == key;
        }
      }
      if (duplicate) {
        Error(k, key,
              Cat("duplicate key ", Quote(key), " in ", what,
                  ": each key may appear once (the first occurrence is used)"),
              /*structural=*/false);
        continue;
      }
      if (known.size() != 0 && std::find(known.begin(), known.end(), key) == known.end()) {
        UnknownKey(k, key, what, known);
        continue;
      }
      fn(key, k, v);
    }
  }

  void UnknownKey(Id k, std::string_view key, std::string_view what,
                  std::initializer_list<std::string_view> known) {
    std::string lower = Lower(key);
    std::string hint;
    for (std::string_view candidate : known) {
      std::string squashed;
      for (char c : lower) {
        if (c != '_' && c != '-') squashed.push_back(c);
      }
      if (candidate == lower || candidate == squashed) {
        hint = Cat(" (did you mean ", Quote(candidate), "? keys are lower case)");
      }
    }
    std::vector<std::string> names(known.begin(), known.end());
    Error(k, key,
          Cat("unknown key ", Quote(key), " in ", what, hint,
              "; allowed keys: ", absl::StrJoin(names, ", ")),
          /*structural=*/false);
  }

  bool Expect(Id v, Id k, std::string_view field, Kind kind, std::string_view expected) {
    if (t_.kind(v) == kind) return true;
    Error(At(v, k), field, Cat(field, " must be ", expected, ", got ", KindName(t_, v)));
    return false;
  }

  // ---- Typed values ----
  // Any scalar as a string; null -> "".
  bool String(Id v, Id k, std::string_view field, std::string* out) {
    if (t_.kind(v) == Kind::kNull) {
      out->clear();
      return true;
    }
    if (!Expect(v, k, field, Kind::kScalar, "a string")) return false;
    out->assign(t_.scalar(v));
    return true;
  }

  // A scalar that YAML resolves as a number or boolean: plain, or with an explicit tag.
  bool Untyped(Id v, std::string_view tag) const {
    return t_.style(v) == Style::kPlain ||
           (t_.style(v) == Style::kTagged && t_.tag(v) == Cat("tag:yaml.org,2002:", tag));
  }

  bool Bool(Id v, Id k, std::string_view field, bool* out) {
    if (t_.kind(v) == Kind::kNull) {
      *out = false;
      return true;
    }
    if (!Expect(v, k, field, Kind::kScalar, "true or false")) return false;
    std::optional<bool> value = Untyped(v, "bool") ? ParseYamlBool(t_.scalar(v)) : std::nullopt;
    if (!value) {
      Error(v, field,
            Cat(field, " must be true or false, got ", Quote(t_.scalar(v)),
                t_.style(v) == Style::kNonPlain ? " (a quoted string)" : ""));
      return false;
    }
    *out = *value;
    return true;
  }

  bool Uint(Id v, Id k, std::string_view field, uint64_t* out) {
    if (t_.kind(v) == Kind::kNull) {
      *out = 0;
      return true;
    }
    if (!Expect(v, k, field, Kind::kScalar, "an unsigned integer")) return false;
    std::string_view text = t_.scalar(v);
    bool negative = false;
    bool overflow = false;
    std::optional<uint64_t> value =
        Untyped(v, "int") ? ParseYamlUint(text, &negative, &overflow) : std::nullopt;
    if (!value) {
      std::string why = overflow   ? " (too large: the maximum is 18446744073709551615)"
                        : negative ? " (negative values are not allowed)"
                        : t_.style(v) == Style::kNonPlain ? " (a quoted string, not a number)"
                                                          : "";
      Error(v, field,
            Cat(field, " must be an unsigned integer (0 = unlimited), got ", Quote(text), why));
      return false;
    }
    *out = *value;
    return true;
  }

  // A list; calls fn(item) for each item. null -> empty.
  template <typename Fn>
  bool List(Id v, Id k, std::string_view field, Fn&& fn) {
    if (t_.kind(v) == Kind::kNull) return true;
    if (!Expect(v, k, field, Kind::kSequence, "a list")) return false;
    for (Id item : t_.children(v)) fn(item);
    return true;
  }

  bool StringList(Id v, Id k, std::string_view field, std::vector<std::string>* out) {
    out->clear();
    return List(v, k, field, [&](Id item) {
      std::string& s = out->emplace_back();
      String(item, YamlTree::kNone, field, &s);
    });
  }

  // A mapping of string -> string (queue properties). null -> empty.
  void Properties(Id v, Id k, std::string_view field, PropertyMap* out, FieldLocations* locations) {
    if (t_.kind(v) == Kind::kNull) return;
    if (!Expect(v, k, field, Kind::kMapping, "a mapping of property names to values")) return;
    Entries(v, field, {}, [&](std::string_view key, Id pk, Id pv) {
      std::string name = Cat(field, ".", key);
      std::string value;
      if (String(pv, pk, name, &value)) out->emplace_back(std::string(key), std::move(value));
      locations->emplace_back(std::move(name), Location(pk));
    });
  }

  // A mapping of resource name -> quantity; null -> absent (nullopt).
  void Quantities(Id v, Id k, std::string_view field, std::optional<QuantityMap>* out,
                  FieldLocations* locations) {
    if (t_.kind(v) == Kind::kNull) return;
    if (!Expect(v, k, field, Kind::kMapping, "a mapping of resource names to quantities")) {
      return;
    }
    QuantityMap& map = out->emplace();
    Entries(v, field, {}, [&](std::string_view name, Id rk, Id rv) {
      std::string key = Cat(field, ".", name);
      locations->emplace_back(key, Location(rk));
      if (name.empty()) {
        Error(rk, key, Cat("an empty resource name in ", field));
        return;
      }
      std::string text;
      if (!String(rv, rk, key, &text)) return;
      std::string error;
      std::optional<int64_t> value = ParseQuantity(name, text, &error);
      if (!value) {
        Error(At(rv, rk), key, std::move(error));
        return;
      }
      map.emplace_back(std::string(name), *value);
    });
  }

  // ---- Entities ----
  void Partition(Id node, PartitionConfig* out) {
    out->location = Location(node);
    out->queues_present = false;
    partition_.clear();
    queue_path_.clear();
    if (!Expect(node, YamlTree::kNone, "partition", Kind::kMapping, "a mapping")) return;
    // Name first, so that every message of this partition carries it.
    std::string name = PeekString(node, "name");
    partition_ = name.empty() || Lower(name) == "default" ? "default" : name;
    FieldLocations& at = out->field_locations;
    Entries(node, "partition",
            {"name", "queues", "placementrules", "limits", "preemption", "nodesortpolicy",
             "statedumpfilepath", "usergroupresolver"},
            [&](std::string_view key, Id k, Id v) {
              at.emplace_back(std::string(key), Location(k));
              if (key == "name") {
                String(v, k, "name", &out->name);
              } else if (key == "queues") {
                if (t_.kind(v) == Kind::kNull) return;  // like an absent key
                out->queues_present = true;
                // Top-level queues are placed under an inserted root unless there is exactly
                // one, named root (any case); paths in messages follow that rule.
                std::string parent_path = "root";
                if (t_.kind(v) == Kind::kSequence && t_.children(v).size() == 1 &&
                    t_.kind(t_.children(v)[0]) == Kind::kMapping &&
                    Lower(PeekString(t_.children(v)[0], "name")) == "root") {
                  parent_path.clear();
                }
                List(v, k, "queues",
                     [&](Id item) { Queue(item, parent_path, &out->queues.emplace_back()); });
                queue_path_.clear();
              } else if (key == "placementrules") {
                List(v, k, "placementrules",
                     [&](Id item) { Rule(item, 1, &out->placement_rules.emplace_back()); });
              } else if (key == "limits") {
                List(v, k, "limits", [&](Id item) { Limit(item, &out->limits.emplace_back()); });
              } else if (key == "preemption") {
                if (t_.kind(v) == Kind::kNull) return;
                if (!Expect(v, k, "preemption", Kind::kMapping, "a mapping")) return;
                Entries(v, "preemption", {"enabled", "quotapreemptionenabled"},
                        [&](std::string_view pkey, Id ek, Id ev) {
                          std::string field = Cat("preemption.", pkey);
                          at.emplace_back(field, Location(ek));
                          bool enabled = false;
                          if (!Bool(ev, ek, field, &enabled)) return;
                          if (pkey == "enabled") {
                            out->preemption_enabled = enabled;
                          } else {
                            out->quota_preemption_enabled = enabled;
                          }
                        });
              } else if (key == "nodesortpolicy") {
                NodeSortPolicy(v, k, out);
              } else if (key == "statedumpfilepath") {
                String(v, k, "statedumpfilepath", &out->state_dump_file_path);
              } else if (key == "usergroupresolver") {
                // YuniKorn 1.8+ (YUNIKORN-656): which resolver finds a user's groups.
                if (t_.kind(v) == Kind::kNull) return;
                if (!Expect(v, k, "usergroupresolver", Kind::kMapping, "a mapping")) return;
                std::string type;
                Entries(v, "usergroupresolver", {"type"}, [&](std::string_view, Id tk, Id tv) {
                  at.emplace_back("usergroupresolver.type", Location(tk));
                  String(tv, tk, "usergroupresolver.type", &type);
                });
                out->user_group_resolver_type = type;
              }
            });
    partition_.clear();
  }

  void NodeSortPolicy(Id v, Id k, PartitionConfig* out) {
    if (t_.kind(v) == Kind::kNull) return;
    if (!Expect(v, k, "nodesortpolicy", Kind::kMapping,
                "a mapping with `type` and `resourceweights`")) {
      return;
    }
    FieldLocations& at = out->field_locations;
    Entries(
        v, "nodesortpolicy", {"type", "resourceweights"}, [&](std::string_view key, Id nk, Id nv) {
          at.emplace_back(Cat("nodesortpolicy.", key), Location(nk));
          if (key == "type") {
            String(nv, nk, "nodesortpolicy.type", &out->node_sort_policy.type);
            return;
          }
          if (t_.kind(nv) == Kind::kNull) return;
          if (!Expect(nv, nk, "nodesortpolicy.resourceweights", Kind::kMapping,
                      "a mapping of resource names to weights")) {
            return;
          }
          Entries(
              nv, "nodesortpolicy.resourceweights", {}, [&](std::string_view name, Id wk, Id wv) {
                std::string field = Cat("nodesortpolicy.resourceweights.", name);
                at.emplace_back(field, Location(wk));
                std::optional<double> weight;
                if (t_.kind(wv) == Kind::kScalar && (Untyped(wv, "float") || Untyped(wv, "int"))) {
                  weight = ParseYamlFloat(t_.scalar(wv));
                }
                if (!weight) {
                  Error(At(wv, wk), field,
                        Cat("resource weight for ", Quote(name),
                            " must be a finite number >= 0, got ",
                            t_.kind(wv) == Kind::kScalar ? Quote(t_.scalar(wv))
                                                         : std::string(KindName(t_, wv))));
                  return;
                }
                out->node_sort_policy.resource_weights.emplace_back(std::string(name), *weight);
              });
        });
  }

  void Queue(Id node, const std::string& parent_path, QueueConfig* out) {
    out->location = Location(node);
    std::string name = t_.kind(node) == Kind::kMapping ? PeekString(node, "name") : "";
    std::string path = parent_path.empty() ? Lower(name) : Cat(parent_path, ".", Lower(name));
    queue_path_ = path;
    if (!Expect(node, YamlTree::kNone, "queue", Kind::kMapping, "a mapping")) return;
    FieldLocations& at = out->field_locations;
    Entries(node, "queue",
            {"name", "parent", "maxapplications", "properties", "adminacl", "submitacl",
             "resources", "childtemplate", "queues", "limits"},
            [&](std::string_view key, Id k, Id v) {
              at.emplace_back(std::string(key), Location(k));
              if (key == "name") {
                String(v, k, "name", &out->name);
              } else if (key == "parent") {
                Bool(v, k, "parent", &out->parent);
              } else if (key == "maxapplications") {
                Uint(v, k, "maxapplications", &out->max_applications);
              } else if (key == "properties") {
                Properties(v, k, "properties", &out->properties, &at);
              } else if (key == "adminacl") {
                String(v, k, "adminacl", &out->admin_acl);
              } else if (key == "submitacl") {
                String(v, k, "submitacl", &out->submit_acl);
              } else if (key == "resources") {
                Resources(v, k, "resources", &out->resources, &at);
              } else if (key == "childtemplate") {
                ChildTemplate(v, k, out);
              } else if (key == "queues") {
                List(v, k, "queues", [&](Id item) {
                  Queue(item, path, &out->queues.emplace_back());
                  queue_path_ = path;
                });
              } else if (key == "limits") {
                List(v, k, "limits", [&](Id item) { Limit(item, &out->limits.emplace_back()); });
              }
            });
  }

  void Resources(Id v, Id k, std::string_view field, ResourcesConfig* out, FieldLocations* at) {
    if (t_.kind(v) == Kind::kNull) return;
    if (!Expect(v, k, field, Kind::kMapping, "a mapping with `guaranteed` and/or `max`")) return;
    Entries(v, field, {"guaranteed", "max"}, [&](std::string_view key, Id rk, Id rv) {
      std::string name = Cat(field, ".", key);
      at->emplace_back(name, Location(rk));
      Quantities(rv, rk, name, key == "max" ? &out->max : &out->guaranteed, at);
    });
  }

  void ChildTemplate(Id v, Id k, QueueConfig* queue) {
    if (t_.kind(v) == Kind::kNull) return;
    if (!Expect(v, k, "childtemplate", Kind::kMapping, "a mapping")) return;
    ChildTemplateConfig& t = queue->child_template.emplace();
    t.location = Location(k);
    FieldLocations& at = queue->field_locations;
    Entries(v, "childtemplate", {"maxapplications", "properties", "resources"},
            [&](std::string_view key, Id tk, Id tv) {
              std::string name = Cat("childtemplate.", key);
              at.emplace_back(name, Location(tk));
              if (key == "maxapplications") {
                Uint(tv, tk, name, &t.max_applications);
              } else if (key == "properties") {
                Properties(tv, tk, name, &t.properties, &at);
              } else {
                Resources(tv, tk, name, &t.resources, &at);
              }
            });
  }

  void Rule(Id node, int depth, PlacementRuleConfig* out) {
    out->location = Location(node);
    if (!Expect(node, YamlTree::kNone, "placement rule", Kind::kMapping, "a mapping")) return;
    FieldLocations& at = out->field_locations;
    Entries(node, "placement rule", {"name", "create", "value", "filter", "parent"},
            [&](std::string_view key, Id k, Id v) {
              at.emplace_back(std::string(key), Location(k));
              if (key == "name") {
                String(v, k, "name", &out->name);
              } else if (key == "create") {
                Bool(v, k, "create", &out->create);
              } else if (key == "value") {
                String(v, k, "value", &out->value);
              } else if (key == "filter") {
                if (t_.kind(v) == Kind::kNull) return;
                if (!Expect(v, k, "filter", Kind::kMapping, "a mapping")) return;
                Entries(v, "filter", {"type", "users", "groups"},
                        [&](std::string_view fkey, Id fk, Id fv) {
                          std::string name = Cat("filter.", fkey);
                          at.emplace_back(name, Location(fk));
                          if (fkey == "type") {
                            String(fv, fk, name, &out->filter.type);
                          } else {
                            StringList(fv, fk, name,
                                       fkey == "users" ? &out->filter.users : &out->filter.groups);
                          }
                        });
              } else if (key == "parent") {
                if (t_.kind(v) == Kind::kNull) return;
                Rule(v, depth + 1, &out->parent.emplace_back());
              }
            });
  }

  void Limit(Id node, LimitConfig* out) {
    out->location = Location(node);
    if (!Expect(node, YamlTree::kNone, "limit", Kind::kMapping, "a mapping")) return;
    FieldLocations& at = out->field_locations;
    Entries(node, "limit", {"limit", "users", "groups", "maxresources", "maxapplications"},
            [&](std::string_view key, Id k, Id v) {
              at.emplace_back(std::string(key), Location(k));
              if (key == "limit") {
                String(v, k, "limit", &out->limit);
              } else if (key == "users") {
                StringList(v, k, "users", &out->users);
              } else if (key == "groups") {
                StringList(v, k, "groups", &out->groups);
              } else if (key == "maxresources") {
                Quantities(v, k, "maxresources", &out->max_resources, &at);
              } else if (key == "maxapplications") {
                Uint(v, k, "maxapplications", &out->max_applications);
              }
            });
  }

  // The first `key` entry's scalar value in mapping `map`, or "".
  std::string PeekString(Id map, std::string_view key) const {
    std::span<const Id> items = t_.children(map);
    for (size_t i = 0; i + 1 < items.size(); i += 2) {
      if (t_.kind(items[i]) == Kind::kScalar && t_.scalar(items[i]) == key) {
        return std::string(t_.scalar(items[i + 1]));
      }
    }
    return "";
  }

  const YamlTree& t_;
  std::vector<ConfigError>* errors_;
  bool complete_ = true;
  std::string partition_;   // for messages: the normalised name of the partition being read
  std::string queue_path_;  // for messages: the path of the queue being read
};

}  // namespace

std::optional<int64_t> ParseQuantity(std::string_view name, std::string_view text,
                                     std::string* error) {
  std::string_view s = TrimSpace(text);
  auto fail = [&](std::string_view why) {
    *error = Cat("invalid quantity ", Quote(text), " for ", Quote(name), ": ", why);
    return std::nullopt;
  };
  size_t digits = 0;
  while (digits < s.size() && s[digits] >= '0' && s[digits] <= '9') ++digits;
  if (digits == 0) return fail(kQuantityForm);
  std::string_view rest = s.substr(digits);
  while (!rest.empty() && (rest[0] == ' ' || rest[0] == '\t' || rest[0] == '\n' ||
                           rest[0] == '\r' || rest[0] == '\f')) {
    rest.remove_prefix(1);
  }
  // The pattern admits one letter of "mkKMGTPE" optionally followed by 'i'.
  bool pattern =
      rest.empty() || (std::string_view("mkKMGTPE").find(rest[0]) != std::string_view::npos &&
                       (rest.size() == 1 || (rest.size() == 2 && rest[1] == 'i')));
  if (!pattern) return fail(kQuantityForm);
  uint64_t number = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + digits, number);
  (void)end;
  constexpr auto kMaxInt64 = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  constexpr std::string_view kOverflow =
      "overflow: the value must fit a signed 64-bit integer (vcore is counted in milli-cores, "
      "so at most 9223372036854775 cores)";
  if (ec == std::errc::result_out_of_range || number > kMaxInt64) return fail(kOverflow);
  static constexpr std::pair<std::string_view, uint64_t> kSuffixes[] = {
      {"", 1},
      {"k", 1000ULL},
      {"M", 1000000ULL},
      {"G", 1000000000ULL},
      {"T", 1000000000000ULL},
      {"P", 1000000000000000ULL},
      {"E", 1000000000000000000ULL},
      {"Ki", 1ULL << 10},
      {"Mi", 1ULL << 20},
      {"Gi", 1ULL << 30},
      {"Ti", 1ULL << 40},
      {"Pi", 1ULL << 50},
      {"Ei", 1ULL << 60},
  };
  bool vcore = name == "vcore";
  uint64_t multiplier = 0;
  if (rest == "m") {
    if (!vcore) return fail("invalid suffix 'm': milli units are only allowed for vcore");
    return static_cast<int64_t>(number);
  }
  for (const auto& [suffix, factor] : kSuffixes) {
    if (rest == suffix) multiplier = factor;
  }
  if (multiplier == 0) {
    return fail(Cat("invalid suffix ", Quote(rest),
                    ": use k, M, G, T, P, E or Ki, Mi, Gi, Ti, Pi, Ei (case-sensitive)"));
  }
  uint64_t value = 0;
  if (__builtin_mul_overflow(number, multiplier, &value) ||
      (vcore && __builtin_mul_overflow(value, uint64_t{1000}, &value)) || value > kMaxInt64) {
    return fail(kOverflow);
  }
  return static_cast<int64_t>(value);
}

absl::Status CheckYamlText(std::string_view text) {
  auto to_status = [](const YamlTextIssue& issue) {
    std::string message =
        issue.line > 0 ? Cat(issue.line, ":", issue.column, ": ", issue.message) : issue.message;
    return absl::InvalidArgumentError(message);
  };
  int aliases = 0;
  if (std::optional<YamlTextIssue> issue = ScanYamlText(text, &aliases)) return to_status(*issue);
  if (aliases > 0) {
    // Aliases are checked on the event stream: self-references and expansion size.
    YamlTree tree;
    if (std::optional<YamlTextIssue> issue = YamlTree::Parse(text, &tree, nullptr)) {
      return to_status(*issue);
    }
  }
  return absl::OkStatus();
}

bool DecodeConfigTree(const YamlTree& tree, YamlTree::Id node, SchedulerConfig* out,
                      std::vector<ConfigError>* errors) {
  Decoder decoder(tree, errors);
  decoder.Document(node, out);
  return decoder.complete();
}

void DecodeConfigNode(const YAML::Node& node, SchedulerConfig* out,
                      std::vector<ConfigError>* errors) {
  YamlTree tree;
  if (std::optional<YamlTextIssue> issue = YamlTree::FromNode(node, &tree)) {
    ConfigError& e = errors->emplace_back();
    e.location = {issue->line, issue->column};
    e.message = issue->message;
    return;
  }
  if (tree.empty()) return;
  DecodeConfigTree(tree, tree.root(), out, errors);
}

}  // namespace allocore::adapters::internal
