// kernel/src/config_validate.cc — allocore::ValidateConfig.
//
// Implements YuniKorn v1.2.0's configuration validator (semantics §2.3, §2.4) together with
// allocore's compatibility decisions:
//   1. Validation and application are one pipeline: everything YuniKorn only refuses when it
//      applies a config (§2.6: a top queue `Root`, ACLs the single-space parser rejects,
//      placement rules that cannot be built) is a validation error here.
//   2. The parent-guaranteed containment rule uses the relaxed v1.4.0 form (FitInMaxUndef).
//   3. User/group limit rules of Appendix A.2 are validated: duplicates, wildcard order, a
//      wildcard group never the only group limit, limit resources and application counts
//      against the queue and against what the levels above carry for the exact same user or
//      group name (as YuniKorn's checkLimitResource / checkLimitMaxApplications: a named
//      entry is never compared with a wildcard entry, '*' only with '*'), and partition limits
//      equal to the root's when both are set (they apply to the root when only they are set,
//      as Kernel::Create does).
//   4. Every problem is reported, not only the first, sorted into document order.
//
// Invariants:
//   1. The config is only modified by the normalisations YuniKorn writes back (partition name,
//      inserted root, root forced to be a parent), so validating twice gives the same result.
//   2. Pure: no I/O, no globals; linear in the size of the config (plus sorting the errors).

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/container/btree_map.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "allocore/config.h"
#include "allocore/resource.h"
#include "field_location.h"
#include "go_regexp.h"
#include "name_rules.h"
#include "placement.h"
#include "queue_properties.h"

namespace allocore {
namespace {

using internal::FieldLocation;
using internal::IsValidGroupName;
using internal::IsValidQueueName;
using internal::IsValidUserName;
using internal::PropertyFallback;
using internal::PropertyFallbacks;

// Longest name quoted in a message; longer ones are shortened with "...".
constexpr size_t kMaxQuotedLength = 80;

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

// ---- Quantities ------------------------------------------------------------------------------
// The kernel's resource vectors and arithmetic (allocore/resource.h) over a registry of the
// config's own type names. nullopt is YuniKorn's nil resource ("not set"). A config with more
// than kMaxResourceTypes types is an error of its own (CheckResourceTypeCount); the types past
// the limit are left out of the resource checks.
using OptionalResource = std::optional<Resource>;

class ConfigQuantities {
 public:
  // As the kernel applies a quantity list: a repeated type takes its last value.
  OptionalResource Convert(const std::optional<QuantityMap>& map) {
    if (!map) return std::nullopt;
    Resource out;
    for (const auto& [name, value] : *map) {
      absl::StatusOr<int> type = types_.Intern(name);
      if (type.ok()) out.Set(*type, value);
    }
    return out;
  }

  // "{memory: 1073741824, vcore: 2000m}", types by name: vcore is shown in milli-cores with the
  // `m` suffix so that the value reads the way it would be written in the config.
  std::string Format(const Resource& r) const {
    std::vector<std::pair<std::string_view, int64_t>> entries;
    for (int t = 0; t < types_.size(); ++t) {
      if (r.Has(t)) entries.emplace_back(types_.Name(t), r.value[static_cast<size_t>(t)]);
    }
    std::sort(entries.begin(), entries.end());
    std::string out = "{";
    bool first = true;
    for (const auto& [name, value] : entries) {
      absl::StrAppend(&out, first ? "" : ", ", absl::string_view(name.data(), name.size()), ": ",
                      value, name == "vcore" ? "m" : "");
      first = false;
    }
    out += "}";
    return out;
  }

 private:
  ResourceTypes types_;
};

// larger.FitInMaxUndef(smaller), where a nil larger fits everything.
bool FitsUnder(const OptionalResource& larger, const Resource& smaller) {
  return !larger || FitInMaxUndef(*larger, smaller);
}

bool IsNilOrZero(const OptionalResource& r) { return !r || IsZero(*r); }

// Both nil -> nil; one nil -> the other; otherwise the kernel's permissive minimum.
OptionalResource PermissiveMinOfOptional(const OptionalResource& a, const OptionalResource& b) {
  if (!a) return b;
  if (!b) return a;
  return PermissiveMin(*a, *b);
}

// ---- Names and patterns ----------------------------------------------------------------------
std::string Lower(std::string_view s) { return absl::AsciiStrToLower({s.data(), s.size()}); }

// 'name' for messages, shortened when very long.
std::string Quote(std::string_view s) {
  if (s.size() <= kMaxQuotedLength) return Cat("'", s, "'");
  size_t cut = kMaxQuotedLength;
  // Do not cut inside a UTF-8 sequence.
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return Cat("'", s.substr(0, cut), "...' (", s.size(), " bytes)");
}

bool IsAsciiAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsAsciiDigit(char c) { return c >= '0' && c <= '9'; }

// ^[_a-zA-Z][a-zA-Z0-9_]*$
bool IsValidRuleName(std::string_view s) {
  if (s.empty() || !(IsAsciiAlpha(s[0]) || s[0] == '_')) return false;
  return std::all_of(s.begin() + 1, s.end(),
                     [](char c) { return IsAsciiAlpha(c) || IsAsciiDigit(c) || c == '_'; });
}

// Go's regexp.Compile accepts it (RE2 decides: the same syntax).
bool IsValidRegexp(std::string_view s) { return internal::GoRegexp::Compile(s).ok(); }

// ---- The validator ---------------------------------------------------------------------------
class Validator {
 public:
  Validator(std::vector<ConfigError>* out, Semantics semantics)
      : out_(out),
        semantics_(semantics),
        charset_(semantics == Semantics::kYunikorn12 ? internal::NameCharset::kV12
                                                     : internal::NameCharset::kWide) {}

  void Run(SchedulerConfig& config) {
    NormalisePartitionNames(config);
    for (PartitionConfig& partition : config.partitions) ValidatePartition(partition);
    CheckResourceTypeCount(config);
  }

 private:
  void Report(SourceLocation location, std::string_view queue_path, std::string_view field,
              std::string message, bool warning = false) {
    ConfigError& e = out_->emplace_back();
    e.location = location;
    e.partition = partition_;
    e.queue_path = std::string(queue_path);
    e.field = std::string(field);
    e.message = std::move(message);
    e.warning = warning;
  }

  // §2.4.1: "" and any case of "default" become "default"; names are unique case-insensitively.
  void NormalisePartitionNames(SchedulerConfig& config) {
    absl::flat_hash_map<std::string, int> first_line;
    for (PartitionConfig& partition : config.partitions) {
      if (partition.name.empty() || Lower(partition.name) == "default") partition.name = "default";
      auto [it, inserted] = first_line.emplace(Lower(partition.name), partition.location.line);
      if (!inserted) {
        partition_ = partition.name;
        Report(FieldLocation(partition.field_locations, "name", partition.location), "", "name",
               Cat("duplicate partition name found with name ", Quote(partition.name),
                   ": partition names must be unique (compared case-insensitively)",
                   it->second > 0 ? Cat("; first defined at line ", it->second) : ""));
      }
    }
    partition_.clear();
  }

  void ValidatePartition(PartitionConfig& partition) {
    partition_ = partition.name;
    if (!partition.queues_present) {
      Report(partition.location, "", "queues",
             "queue config is not set: a partition needs a `queues` list (it may hold just "
             "the root queue)");
    } else {
      InsertRoot(partition);
      QueueConfig& root = partition.queues.front();
      CheckQueue(root, "root", 1);
      CheckResources(root, "root", std::nullopt, 1);
      CheckMaxApplications(root, "root", 1);
      CheckPartitionLimitsMatchRoot(partition, root);
      // The kernel applies the partition's limits to a root without limits of its own, so the
      // limits below are held against them there.
      CheckLimitHierarchy(root, root.limits.empty() ? partition.limits : root.limits, "root", 1,
                          CarriedLimits{});
    }
    for (const PlacementRuleConfig& rule : partition.placement_rules) CheckRule(rule, 0);
    const QueueConfig* applied_to = nullptr;
    if (partition.queues_present && partition.queues.front().limits.empty()) {
      applied_to = &partition.queues.front();
    }
    CheckLimits(partition.limits, "", applied_to, /*partition_level=*/true);
    CheckNodeSortPolicy(partition);
    if (!partition.state_dump_file_path.empty()) {
      // Deprecated in v1.2.0; 1.9 no longer knows the key (YUNIKORN-3263).
      const bool removed = semantics_ != Semantics::kYunikorn12;
      Report(FieldLocation(partition.field_locations, "statedumpfilepath", partition.location), "",
             "statedumpfilepath",
             removed ? "statedumpfilepath is not a key of YuniKorn 1.9's configuration (removed "
                       "in 1.9; the yunikorn-1.2 profile accepts it with a warning)"
                     : "statedumpfilepath is deprecated and ignored: state dumps are not written",
             /*warning=*/!removed);
    }
    if (partition.quota_preemption_enabled.value_or(false) &&
        semantics_ == Semantics::kYunikorn12) {
      Report(FieldLocation(partition.field_locations, "preemption.quotapreemptionenabled",
                           partition.location),
             "", "preemption.quotapreemptionenabled",
             "preemption.quotapreemptionenabled has no effect under the yunikorn-1.2 profile "
             "(YuniKorn added quota-change preemption in 1.8)",
             /*warning=*/true);
    }
    if (partition.user_group_resolver_type) {
      Report(FieldLocation(partition.field_locations, "usergroupresolver", partition.location), "",
             "usergroupresolver",
             Cat("usergroupresolver (type ", Quote(*partition.user_group_resolver_type),
                 ") has no effect in allocore: the resource manager resolves groups and passes "
                 "them with each application"),
             /*warning=*/true);
    }
    partition_.clear();
  }

  // §2.3: insert `root` unless there is exactly one top-level queue named root (any case); the
  // root is always a parent and carries no resources.
  void InsertRoot(PartitionConfig& partition) {
    bool single_root =
        partition.queues.size() == 1 && Lower(partition.queues.front().name) == "root";
    if (!single_root) {
      QueueConfig root;
      root.name = "root";
      root.location = FieldLocation(partition.field_locations, "queues", partition.location);
      root.queues = std::move(partition.queues);
      partition.queues.clear();
      partition.queues.push_back(std::move(root));
    }
    QueueConfig& root = partition.queues.front();
    root.parent = true;
    if (root.name != "root") {
      Report(FieldLocation(root.field_locations, "name", root.location), "root", "name",
             Cat("the top-level queue is named ", Quote(root.name),
                 ": a single top-level queue must be named exactly 'root' (lower case)"
                 " or the queues are placed under an inserted root; rename it to "
                 "'root'"));
    }
    for (std::string_view field : {"resources.guaranteed", "resources.max"}) {
      const auto& value = field == "resources.max" ? root.resources.max : root.resources.guaranteed;
      if (!value) continue;
      Report(FieldLocation(root.field_locations, field, root.location), "root", field,
             Cat("root queue must not have resource limits set: remove ", field,
                 " (the root's max is the cluster size; it has no guaranteed)"));
    }
  }

  // §2.4.4: ACLs, limits, child names; recursively.
  void CheckQueue(const QueueConfig& queue, const std::string& path, int depth) {
    CheckProperties(queue, queue.properties, "properties", path);
    if (queue.child_template) {
      CheckProperties(queue, queue.child_template->properties, "childtemplate.properties", path);
    }
    CheckAcl(queue, path, "adminacl", queue.admin_acl);
    CheckAcl(queue, path, "submitacl", queue.submit_acl);
    CheckLimits(queue.limits, path, &queue, /*partition_level=*/false);
    CheckTemplate(queue, path);
    if (depth >= kMaxQueueDepth) {
      if (!queue.queues.empty()) {
        Report(FieldLocation(queue.field_locations, "queues", queue.location), path, "queues",
               Cat("the queue hierarchy is deeper than ", kMaxQueueDepth,
                   " levels; allocore supports at most ", kMaxQueueDepth));
      }
      return;
    }
    // Sibling names: case-insensitively unique.
    absl::flat_hash_map<std::string, const QueueConfig*> seen;
    seen.reserve(queue.queues.size());
    for (const QueueConfig& child : queue.queues) {
      std::string lower = Lower(child.name);
      std::string child_path = Cat(path, ".", lower);
      SourceLocation name_location = FieldLocation(child.field_locations, "name", child.location);
      if (!IsValidQueueName(child.name, charset_)) {
        Report(name_location, child_path, "name",
               Cat("invalid child name ", Quote(child.name), ": a queue name is ",
                   internal::QueueNameRule(charset_),
                   charset_ == internal::NameCharset::kV12
                       ? " (YuniKorn v1.2.0's rule; the yunikorn-1.9 profile also accepts ':', "
                         "'#', '/' and '@')"
                       : ""));
      }
      auto [it, inserted] = seen.emplace(lower, &child);
      if (!inserted) {
        int first = it->second->location.line;
        Report(name_location, child_path, "name",
               Cat("duplicate child name found with name ", Quote(child.name), ", level ", depth,
                   ": sibling queue names must be unique (compared case-insensitively)",
                   first > 0 ? Cat("; first defined at line ", first) : ""));
      }
    }
    for (const QueueConfig& child : queue.queues) {
      CheckQueue(child, Cat(path, ".", Lower(child.name)), depth + 1);
    }
  }

  // Properties YuniKorn accepts and ignores or reads as their default: warnings, so that a typo
  // does not pass silently (check --strict makes them errors).
  void CheckProperties(const QueueConfig& queue, const PropertyMap& properties,
                       std::string_view field, const std::string& path) {
    for (const PropertyFallback& fallback : PropertyFallbacks(properties)) {
      std::string key_field = Cat(field, ".", fallback.key);
      std::string message =
          fallback.unknown_key
              ? Cat("unknown property ", Quote(fallback.key), " is ignored",
                    fallback.nearest_key.empty()
                        ? ""
                        : Cat("; did you mean '", fallback.nearest_key, "'?"))
              : Cat(fallback.key, ": ", Quote(fallback.value), " is not ", fallback.expected,
                    "; it counts as ", fallback.fallback, " (the default)");
      Report(FieldLocation(queue.field_locations, key_field, queue.location), path, key_field,
             std::move(message), /*warning=*/true);
    }
  }

  // §2.4.4.1 plus the apply-time parser (§2.6, §8.5), which splits the raw string on single
  // spaces into at most two parts.
  void CheckAcl(const QueueConfig& queue, const std::string& path, std::string_view field,
                const std::string& acl) {
    absl::string_view trimmed = absl::StripAsciiWhitespace(acl);
    if (trimmed.empty() && acl.empty()) return;
    SourceLocation location = FieldLocation(queue.field_locations, field, queue.location);
    constexpr std::string_view kForm =
        "an ACL is '*', empty, or 'users groups': comma-separated user and group lists "
        "separated by exactly one space (' groups' for groups only)";
    if (!trimmed.empty() && trimmed != "*") {
      std::vector<absl::string_view> fields =
          absl::StrSplit(trimmed, absl::ByAnyChar(" \t\n\v\f\r"), absl::SkipEmpty());
      if (fields.size() > 2) {
        Report(location, path, field,
               Cat("multiple spaces found in ACL: ", Quote(acl), " has ", fields.size(),
                   " space-separated parts; ", kForm));
        return;
      }
    }
    size_t parts = static_cast<size_t>(std::count(acl.begin(), acl.end(), ' ')) + 1;
    if (parts > 2) {
      Report(location, path, field,
             Cat(field, " ", Quote(acl), " has ", parts,
                 " parts when split on single spaces (double, leading-and-trailing or trailing "
                 "spaces); ",
                 kForm));
    }
  }

  // §2.4.8 and Appendix A.2 for one limit list: a queue's (`queue` is that queue), or the
  // partition's (`queue` is the root they apply to, null when the root has limits of its own).
  void CheckLimits(const std::vector<LimitConfig>& limits, const std::string& path,
                   const QueueConfig* queue, bool partition_level) {
    absl::flat_hash_map<std::string, int> users_seen;
    absl::flat_hash_map<std::string, int> groups_seen;
    bool user_wildcard = false;
    bool group_wildcard = false;
    int first_group_wildcard = -1;  // index of the limit naming the wildcard group first
    for (size_t index = 0; index < limits.size(); ++index) {
      const LimitConfig& limit = limits[index];
      std::string name =
          limit.limit.empty() ? Cat("limit #", index + 1) : Cat("limit ", Quote(limit.limit));
      auto at = [&](std::string_view field) {
        return FieldLocation(limit.field_locations, field, limit.location);
      };
      if (limit.users.empty() && limit.groups.empty()) {
        Report(limit.location, path, "users",
               Cat("empty user and group lists defined in ", name,
                   ": a limit needs at least one user or group ('*' for everyone)"));
      }
      auto check_names = [&](const std::vector<std::string>& names, std::string_view field,
                             bool user, absl::flat_hash_map<std::string, int>& seen,
                             bool& wildcard) {
        std::string_view kind = user ? "user" : "group";
        for (const std::string& entry : names) {
          if (entry == "*") {
            wildcard = true;
            if (!user && first_group_wildcard < 0) first_group_wildcard = static_cast<int>(index);
          } else {
            bool valid =
                user ? IsValidUserName(entry, charset_) : IsValidGroupName(entry, charset_);
            if (!valid) {
              Report(
                  at(field), path, field,
                  Cat("invalid ", kind, " name ", Quote(entry), " in ", name, ": a ", kind,
                      " name matches ",
                      user ? internal::UserNameRule(charset_) : internal::GroupNameRule(charset_),
                      " or is '*'"));
            }
            if (wildcard) {
              Report(at(field), path, field,
                     Cat(kind, " ", Quote(entry), " in ", name, " follows the wildcard ", kind,
                         " '*': named ", kind, "s must come before the wildcard limit"));
            }
          }
          auto [it, inserted] = seen.emplace(entry, static_cast<int>(index));
          if (!inserted) {
            Report(at(field), path, field,
                   Cat(kind, " ", Quote(entry), " appears more than once in the limits",
                       partition_level ? " of this partition" : " of this queue", " (", name,
                       it->second == static_cast<int>(index) ? ""
                                                             : Cat(" and limit #", it->second + 1),
                       "): each ", kind, " may have one limit per queue"));
          }
        }
      };
      check_names(limit.users, "users", true, users_seen, user_wildcard);
      check_names(limit.groups, "groups", false, groups_seen, group_wildcard);

      OptionalResource max = quantities_.Convert(limit.max_resources);
      CheckNonNegative(limit.max_resources, limit.field_locations, limit.location, path,
                       "maxresources");
      if (limit.max_applications == 0 && IsNilOrZero(max)) {
        Report(max ? at("maxresources") : limit.location, path, "maxresources",
               Cat("invalid resource combination for ", name,
                   ": maxapplications is 0 and all resource limits are null or zero; "
                   "set maxapplications > 0 or at least one maxresources value > 0"));
      } else if (max && max->present != 0 && !StrictlyGreaterThanZero(*max)) {
        Report(at("maxresources"), path, "maxresources",
               Cat("maxresources ", quantities_.Format(*max), " of ", name,
                   " must be strictly positive: no negative value and at least one "
                   "value > 0"));
      }
      // The root's max is the cluster size (a configured one is already an error).
      if (queue != nullptr && !partition_level && max) {
        OptionalResource queue_max = quantities_.Convert(queue->resources.max);
        if (!FitsUnder(queue_max, *max)) {
          Report(at("maxresources"), path, "maxresources",
                 Cat("maxresources ", quantities_.Format(*max), " of ", name,
                     " exceed the queue's max resources ", quantities_.Format(*queue_max),
                     "; a limit must fit within the queue's max"));
        }
      }
      if (queue != nullptr && queue->max_applications != 0 &&
          limit.max_applications > queue->max_applications) {
        Report(at("maxapplications"), path, "maxapplications",
               Cat("maxapplications ", limit.max_applications, " of ", name,
                   partition_level ? " exceeds the root queue's maxapplications "
                                   : " exceeds the queue's maxapplications ",
                   queue->max_applications, "; allowed: 1 to ", queue->max_applications,
                   partition_level ? " (partition limits apply to the root)" : ""));
      }
    }
    // A wildcard group limit caps the usage of all groups together. Without a named group
    // limit next to it every application's group is the wildcard one, so it would only repeat
    // the queue's own maximum; YuniKorn refuses that configuration.
    size_t named_groups = groups_seen.size() - (group_wildcard ? 1 : 0);
    if (first_group_wildcard >= 0 && named_groups == 0) {
      const LimitConfig& limit = limits[static_cast<size_t>(first_group_wildcard)];
      std::string name = limit.limit.empty() ? Cat("limit #", first_group_wildcard + 1)
                                             : Cat("limit ", Quote(limit.limit));
      Report(FieldLocation(limit.field_locations, "groups", limit.location), path, "groups",
             Cat("the wildcard group '*' in ", name, " is the only group limit",
                 partition_level ? " of this partition" : Cat(" of queue ", path),
                 ": add a limit for at least one named group before it, or limit the queue "
                 "itself (maxapplications, resources.max)"));
    }
  }

  // ---- Limits across levels (Appendix A.2) ---------------------------------------------------
  // YuniKorn's checkLimitResource and checkLimitMaxApplications walk the tree carrying, per
  // queue, a value for each user and group name (the wildcard "*" being just another name).
  // A child's limit entry is compared with the value carried for exactly its own name only: a
  // named user or group is never held to a wildcard entry above, and a level's wildcard never
  // narrows what the levels above carry for a name.
  struct CarriedResources {
    Resource max;
    std::string from;  // the queue that set or last narrowed `max`, for messages
  };
  struct CarriedApplications {
    uint64_t applications = 0;  // 0 = unlimited
    std::string from;
  };
  template <typename T>
  using Carried = absl::flat_hash_map<std::string, T>;
  struct CarriedLimits {
    Carried<CarriedResources> user_resources;
    Carried<CarriedResources> group_resources;
    Carried<CarriedApplications> user_applications;
    Carried<CarriedApplications> group_applications;
  };

  // What a queue carries to its children:
  //   * resources: everything its parent carries, with the names the queue lists set to their
  //     limit's maxresources (an absent maxresources counting as empty), permissively narrowed
  //     by the parent's value for the same name;
  //   * application counts: without limits of its own, everything its parent carries; with
  //     limits, only the names it lists, each the plain minimum of its maxapplications and the
  //     parent's value for the same name — a 0 (unlimited) on either side gives 0, as in
  //     YuniKorn.
  // A listed name the parent carries a value for is checked against it: resources by
  // FitInMaxUndef (a type the value does not limit is unlimited), applications like §2.4.11
  // (under a non-zero count the child needs 1 to that count; 0, unlimited, is refused even on a
  // resource-only limit). `limits` is the queue's own, or for a root without limits the
  // partition's.
  void CheckLimitHierarchy(const QueueConfig& queue, const std::vector<LimitConfig>& limits,
                           const std::string& path, int depth, const CarriedLimits& parent) {
    const CarriedLimits* below = &parent;
    CarriedLimits own;
    if (!limits.empty()) {
      own.user_resources = parent.user_resources;
      own.group_resources = parent.group_resources;
      for (size_t index = 0; index < limits.size(); ++index) {
        const LimitConfig& limit = limits[index];
        for (const std::string& user : limit.users) {
          CheckAgainstParent(limit, index, "user", user, parent.user_resources,
                             parent.user_applications, path, &own.user_resources,
                             &own.user_applications);
        }
        for (const std::string& group : limit.groups) {
          CheckAgainstParent(limit, index, "group", group, parent.group_resources,
                             parent.group_applications, path, &own.group_resources,
                             &own.group_applications);
        }
      }
      below = &own;
    }
    if (depth >= kMaxQueueDepth) return;
    for (const QueueConfig& child : queue.queues) {
      CheckLimitHierarchy(child, child.limits, Cat(path, ".", Lower(child.name)), depth + 1,
                          *below);
    }
  }

  // One user or group entry of a limit at `path`: checked against the parent's carried values
  // for the same name, then recorded in what `path` carries.
  void CheckAgainstParent(const LimitConfig& limit, size_t index, std::string_view kind,
                          const std::string& entry,
                          const Carried<CarriedResources>& parent_resources,
                          const Carried<CarriedApplications>& parent_applications,
                          const std::string& path, Carried<CarriedResources>* resources,
                          Carried<CarriedApplications>* applications) {
    std::string who = Cat(kind, " ", Quote(entry));
    std::string name =
        limit.limit.empty() ? Cat("limit #", index + 1) : Cat("limit ", Quote(limit.limit));
    auto at = [&](std::string_view field) {
      return FieldLocation(limit.field_locations, field, limit.location);
    };

    OptionalResource max = quantities_.Convert(limit.max_resources);
    Resource own_max = max ? *max : Resource{};
    CarriedResources carried{own_max, path};
    if (auto it = parent_resources.find(entry); it != parent_resources.end()) {
      const CarriedResources& above = it->second;
      if (!FitInMaxUndef(above.max, own_max)) {
        Report(
            at("maxresources"), path, "maxresources",
            Cat("maxresources ", quantities_.Format(own_max), " of ", who, " in ", name,
                " exceed the maxresources ", quantities_.Format(above.max), " that ", above.from,
                " sets for ", who,
                ": a limit may not allow more than the parent queues' limits for the same ", kind));
      }
      carried.max = PermissiveMin(own_max, above.max);
      if (carried.max == above.max) carried.from = above.from;
    }
    (*resources)[entry] = std::move(carried);

    uint64_t own_apps = limit.max_applications;
    CarriedApplications carried_apps{own_apps, path};
    if (auto it = parent_applications.find(entry); it != parent_applications.end()) {
      const CarriedApplications& above = it->second;
      if (above.applications != 0 && own_apps == 0) {
        Report(at("maxapplications"), path, "maxapplications",
               Cat("maxapplications of ", who, " in ", name, " is unlimited (0) but ", above.from,
                   " allows at most ", above.applications, " for ", who,
                   ": set maxapplications from 1 to ", above.applications));
      } else if (above.applications != 0 && own_apps > above.applications) {
        Report(at("maxapplications"), path, "maxapplications",
               Cat("maxapplications ", own_apps, " of ", who, " in ", name, " exceeds the ",
                   above.applications, " that ", above.from, " allows for ", who,
                   ": allowed: 1 to ", above.applications));
      }
      carried_apps.applications = std::min(own_apps, above.applications);
      if (carried_apps.applications == above.applications) carried_apps.from = above.from;
    }
    (*applications)[entry] = std::move(carried_apps);
  }

  // YuniKorn v1.5 (YUNIKORN-2260): partition limits are the root's limits. When both lists are
  // set they must be the same: the same entries in the same order (order decides the group an
  // application is tracked under, and where the wildcard stands), each with the same users and
  // groups in the same order, the same maxapplications and the same maxresources (as parsed
  // quantities, in any type order; absent and empty both mean none). The free-text `limit`
  // description is not compared: it changes nothing.
  void CheckPartitionLimitsMatchRoot(const PartitionConfig& partition, const QueueConfig& root) {
    if (partition.limits.empty() || root.limits.empty()) return;
    auto resources = [this](const LimitConfig& l) {
      return quantities_.Convert(l.max_resources).value_or(Resource{});
    };
    std::string difference;
    size_t common = std::min(partition.limits.size(), root.limits.size());
    for (size_t i = 0; i < common && difference.empty(); ++i) {
      const LimitConfig& p = partition.limits[i];
      const LimitConfig& r = root.limits[i];
      std::string entry = Cat("entry #", i + 1, ": ");
      auto list = [](const std::vector<std::string>& v) {
        return Cat("[", absl::StrJoin(v, ", "), "]");
      };
      if (p.users != r.users) {
        difference = Cat(entry, "users ", list(p.users), " against ", list(r.users));
      } else if (p.groups != r.groups) {
        difference = Cat(entry, "groups ", list(p.groups), " against ", list(r.groups));
      } else if (p.max_applications != r.max_applications) {
        difference =
            Cat(entry, "maxapplications ", p.max_applications, " against ", r.max_applications);
      } else if (resources(p) != resources(r)) {
        difference = Cat(entry, "maxresources ", quantities_.Format(resources(p)), " against ",
                         quantities_.Format(resources(r)));
      }
    }
    if (difference.empty() && partition.limits.size() != root.limits.size()) {
      difference = Cat(partition.limits.size(), " entries against ", root.limits.size());
    }
    if (difference.empty()) return;
    Report(FieldLocation(partition.field_locations, "limits", partition.location), "", "limits",
           Cat("the partition limits and the limits of the root queue are both set but differ (",
               difference,
               "): partition limits apply to the root, so set them in one place or make "
               "both lists the same entries in the same order"));
  }

  // Every negative quantity, by type name (a repeated type is checked with its last value, the
  // one the kernel applies).
  void CheckNonNegative(const std::optional<QuantityMap>& map, const FieldLocations& fields,
                        SourceLocation fallback, const std::string& path, std::string_view field) {
    if (!map) return;
    absl::btree_map<std::string_view, int64_t> by_name;
    for (const auto& [name, value] : *map) by_name[name] = value;
    for (const auto& [name, value] : by_name) {
      if (value >= 0) continue;
      std::string key = Cat(field, ".", name);
      Report(FieldLocation(fields, key, FieldLocation(fields, field, fallback)), path, field,
             Cat(key, " is ", value, ": resource quantities must be >= 0"));
    }
  }

  // Child templates (applied to dynamic leaves, including maxapplications as in v1.5).
  void CheckTemplate(const QueueConfig& queue, const std::string& path) {
    if (!queue.child_template) return;
    const ChildTemplateConfig& t = *queue.child_template;
    SourceLocation location = FieldLocation(queue.field_locations, "childtemplate",
                                            t.location.line > 0 ? t.location : queue.location);
    OptionalResource guaranteed = quantities_.Convert(t.resources.guaranteed);
    OptionalResource max = quantities_.Convert(t.resources.max);
    CheckNonNegative(t.resources.guaranteed, queue.field_locations, location, path,
                     "childtemplate.resources.guaranteed");
    CheckNonNegative(t.resources.max, queue.field_locations, location, path,
                     "childtemplate.resources.max");
    if (guaranteed && !FitsUnder(max, *guaranteed)) {
      Report(FieldLocation(queue.field_locations, "childtemplate.resources.guaranteed", location),
             path, "childtemplate.resources.guaranteed",
             Cat("childtemplate guaranteed resource ", quantities_.Format(*guaranteed),
                 " is larger than the childtemplate maximum resource ", quantities_.Format(*max),
                 ": accepted as YuniKorn does (the max is enforced, the guarantee orders the "
                 "dynamic queues)"),
             /*warning=*/true);
    }
    bool leaf = !queue.parent && queue.queues.empty();
    if (leaf) {
      Report(location, path, "childtemplate",
             "childtemplate on a leaf queue has no effect: templates apply to dynamic queues "
             "created below a parent queue",
             /*warning=*/true);
    }
  }

  // §2.4.5 with the v1.4.0 relaxed parent-guaranteed rule. Returns the queue's contribution to
  // its parent's children-guaranteed sum: its own guaranteed if non-zero, else its children's.
  Resource CheckResources(const QueueConfig& queue, const std::string& path,
                          const OptionalResource& parent_max, int depth) {
    bool is_root = depth == 1;
    // The root's resources are already an error; they take no part in the sums.
    OptionalResource guaranteed =
        is_root ? std::nullopt : quantities_.Convert(queue.resources.guaranteed);
    OptionalResource max = is_root ? std::nullopt : quantities_.Convert(queue.resources.max);
    SourceLocation guaranteed_at =
        FieldLocation(queue.field_locations, "resources.guaranteed", queue.location);
    SourceLocation max_at = FieldLocation(queue.field_locations, "resources.max", queue.location);
    if (!is_root) {
      CheckNonNegative(queue.resources.guaranteed, queue.field_locations, queue.location, path,
                       "resources.guaranteed");
      CheckNonNegative(queue.resources.max, queue.field_locations, queue.location, path,
                       "resources.max");
    }
    if (guaranteed && !FitsUnder(max, *guaranteed)) {
      Report(guaranteed_at, path, "resources.guaranteed",
             Cat("guaranteed resource ", quantities_.Format(*guaranteed),
                 " is larger than maximum resource ", quantities_.Format(*max),
                 ": every guaranteed type that has a max must be <= that max"));
    }
    if (max && !FitsUnder(parent_max, *max)) {
      Report(max_at, path, "resources.max",
             Cat("max resource of parent ", quantities_.Format(*parent_max),
                 " is smaller than maximum resource ", quantities_.Format(*max),
                 ": a queue's max must fit within the max of every ancestor"));
    }
    OptionalResource effective_max = PermissiveMinOfOptional(max, parent_max);
    Resource children_guaranteed;
    if (depth < kMaxQueueDepth) {
      for (const QueueConfig& child : queue.queues) {
        children_guaranteed =
            Add(children_guaranteed,
                CheckResources(child, Cat(path, ".", Lower(child.name)), effective_max, depth + 1));
      }
    }
    if (!IsNilOrZero(guaranteed) && !FitsUnder(guaranteed, children_guaranteed)) {
      Report(guaranteed_at, path, "resources.guaranteed",
             Cat("guaranteed resource of parent ", quantities_.Format(*guaranteed),
                 " is smaller than sum of guaranteed resources ",
                 quantities_.Format(children_guaranteed),
                 " of the children: for every type the parent guarantees, the "
                 "children's guaranteed must add up to at most the parent's"));
    }
    if (!FitsUnder(effective_max, children_guaranteed)) {
      Report(max ? max_at : queue.location, path, "resources.max",
             Cat("max resource ", quantities_.Format(*effective_max),
                 " is smaller than sum of guaranteed resources ",
                 quantities_.Format(children_guaranteed),
                 " of the children: the children's guaranteed must fit in the max"));
    }
    if (!IsNilOrZero(guaranteed)) return *guaranteed;
    return children_guaranteed;
  }

  // §2.4.11: under a parent with maxapplications P != 0 every child needs 1 <= C <= P.
  void CheckMaxApplications(const QueueConfig& queue, const std::string& path, int depth) {
    if (depth >= kMaxQueueDepth) return;
    uint64_t limit = queue.max_applications;
    for (const QueueConfig& child : queue.queues) {
      std::string child_path = Cat(path, ".", Lower(child.name));
      if (limit != 0) {
        SourceLocation at = FieldLocation(child.field_locations, "maxapplications", child.location);
        if (child.max_applications == 0) {
          Report(at, child_path, "maxapplications",
                 Cat("maxapplications is unlimited (0) but the parent ", path, " allows at most ",
                     limit, ": set maxapplications from 1 to ", limit));
        } else if (child.max_applications > limit) {
          Report(at, child_path, "maxapplications",
                 Cat("maxapplications ", child.max_applications, " exceeds the parent's ", limit,
                     " (", path,
                     "): a child may allow at most as many running applications as "
                     "its parent"));
        }
      }
      CheckMaxApplications(child, child_path, depth + 1);
    }
  }

  // §2.4.6 plus the rule-construction errors of §2.6.
  void CheckRule(const PlacementRuleConfig& rule, int depth) {
    auto at = [&](std::string_view field) {
      return FieldLocation(rule.field_locations, field, rule.location);
    };
    std::string prefix = depth == 0 ? "placement rule" : "parent placement rule";
    if (depth > 64) {
      Report(rule.location, "", "parent",
             "placement rule parents are nested more than 64 deep; use fewer parent rules");
      return;
    }
    if (rule.parent.size() > 1) {
      Report(at("parent"), "", "parent",
             Cat(prefix, " ", Quote(rule.name), " has ", rule.parent.size(),
                 " parent rules; at most one is allowed"));
    }
    for (const PlacementRuleConfig& parent : rule.parent) CheckRule(parent, depth + 1);

    std::string name = Lower(rule.name);
    if (!IsValidRuleName(rule.name)) {
      Report(at("name"), "", "name",
             Cat("invalid ", prefix, " name ", Quote(rule.name),
                 ": a rule name starts with a letter or '_' followed by letters, digits "
                 "or '_' (known rules: provided, user, tag, fixed, recovery)"));
    } else if (name != "provided" && name != "user" && name != "tag" && name != "fixed" &&
               name != "recovery") {
      Report(at("name"), "", "name",
             Cat("unknown ", prefix, " ", Quote(rule.name),
                 ": known rules are provided, user, tag, fixed and recovery "
                 "(case-insensitive)"));
    }
    if ((name == "tag" || name == "fixed") && rule.value.empty()) {
      Report(
          rule.location, "", "value",
          Cat(prefix, " ", Quote(rule.name), " requires a `value` (",
              name == "tag" ? "the application tag that names the queue" : "the queue name", ")"));
    }
    if (name == "fixed" && Lower(rule.value).starts_with("root") && !rule.parent.empty()) {
      Report(at("parent"), "", "parent",
             Cat(prefix, " 'fixed' with the fully qualified value ", Quote(rule.value),
                 " cannot have a parent rule: remove the parent rule or use an "
                 "unqualified value (values starting with 'root' are qualified)"));
    }
    const FilterConfig& filter = rule.filter;
    std::string type = Lower(filter.type);
    if (!type.empty() && type != "allow" && type != "deny") {
      Report(at("filter.type"), "", "filter.type",
             Cat("invalid filter type ", Quote(filter.type), " in ", prefix, " ", Quote(rule.name),
                 ": use allow or deny (empty means allow)"));
    }
    if (filter.users.size() == 1) {
      const std::string& user = filter.users.front();
      if (!IsValidUserName(user, charset_) &&
          !(internal::IsRegexpFilterEntry(user) && IsValidRegexp(user))) {
        Report(at("filter.users"), "", "filter.users",
               Cat("invalid filter user ", Quote(user), " in ", prefix, " ", Quote(rule.name),
                   ": a single entry must be a user name (", internal::UserNameRule(charset_),
                   ") or a valid regular expression"));
      }
    }
    if (filter.groups.size() == 1) {
      const std::string& group = filter.groups.front();
      if (!IsValidGroupName(group, charset_) &&
          !(internal::IsRegexpFilterEntry(group) && IsValidRegexp(group))) {
        Report(at("filter.groups"), "", "filter.groups",
               Cat("invalid filter group ", Quote(group), " in ", prefix, " ", Quote(rule.name),
                   ": a single entry must be a group name (", internal::GroupNameRule(charset_),
                   ") or a valid regular expression"));
      }
    }
  }

  // §2.4.9.
  void CheckNodeSortPolicy(const PartitionConfig& partition) {
    const NodeSortPolicyConfig& policy = partition.node_sort_policy;
    if (!policy.type.empty() && policy.type != "fair" && policy.type != "binpacking") {
      Report(FieldLocation(partition.field_locations, "nodesortpolicy.type", partition.location),
             "", "nodesortpolicy.type",
             Cat("undefined policy: ", Quote(policy.type),
                 " is not a node sort policy; use fair or binpacking (lower case) or "
                 "leave it empty for fair"));
    }
    for (const auto& [name, weight] : policy.resource_weights) {
      if (weight >= 0) continue;
      std::string field = Cat("nodesortpolicy.resourceweights.", name);
      Report(FieldLocation(partition.field_locations, field, partition.location), "", field,
             Cat("resource weight for ", Quote(name), " is ", weight, ": weights must be >= 0"));
    }
  }

  // Resources are vectors over at most kMaxResourceTypes interned types per kernel: a config
  // naming more could never be applied.
  void CheckResourceTypeCount(const SchedulerConfig& config) {
    std::vector<std::string> names;
    absl::flat_hash_set<std::string> seen;
    bool reported = false;
    auto add = [&](const std::optional<QuantityMap>& map, const FieldLocations& fields,
                   std::string_view field, SourceLocation fallback, const std::string& partition,
                   std::string_view path) {
      if (!map || reported) return;
      for (const auto& [name, value] : *map) {
        if (!seen.insert(name).second) continue;
        names.push_back(name);
        if (names.size() <= static_cast<size_t>(kMaxResourceTypes)) continue;
        reported = true;
        partition_ = partition;
        std::string key = Cat(field, ".", name);
        Report(FieldLocation(fields, key, FieldLocation(fields, field, fallback)), path, field,
               Cat("resource type ", Quote(name), " is resource type number ", names.size(),
                   " in this config; allocore supports at most ", kMaxResourceTypes,
                   " distinct resource types (",
                   absl::StrJoin(names.begin(), names.end() - 1, ", "), ")"));
        partition_.clear();
        return;
      }
    };
    struct Walker {
      decltype(add)& add_fn;
      const std::string& partition;
      void Queue(const QueueConfig& q, const std::string& path, int depth) {
        add_fn(q.resources.guaranteed, q.field_locations, "resources.guaranteed", q.location,
               partition, path);
        add_fn(q.resources.max, q.field_locations, "resources.max", q.location, partition, path);
        if (q.child_template) {
          add_fn(q.child_template->resources.guaranteed, q.field_locations,
                 "childtemplate.resources.guaranteed", q.location, partition, path);
          add_fn(q.child_template->resources.max, q.field_locations, "childtemplate.resources.max",
                 q.location, partition, path);
        }
        for (const LimitConfig& l : q.limits) {
          add_fn(l.max_resources, l.field_locations, "maxresources", l.location, partition, path);
        }
        if (depth >= kMaxQueueDepth) return;
        for (const QueueConfig& c : q.queues) {
          Queue(c, Cat(path, ".", Lower(c.name)), depth + 1);
        }
      }
    };
    for (const PartitionConfig& partition : config.partitions) {
      Walker walker{add, partition.name};
      // Configured weights register their types; the default ones (vcore, memory) take no
      // slot (kernel/README decision 16).
      QuantityMap weighted;
      for (const auto& [name, weight] : partition.node_sort_policy.resource_weights) {
        if (weight > 0) weighted.emplace_back(name, 1);
      }
      add(weighted, partition.field_locations, "nodesortpolicy.resourceweights", partition.location,
          partition.name, "");
      for (const LimitConfig& l : partition.limits) {
        add(l.max_resources, l.field_locations, "maxresources", l.location, partition.name, "");
      }
      for (const QueueConfig& q : partition.queues) walker.Queue(q, Lower(q.name), 1);
    }
  }

  std::vector<ConfigError>* out_;
  Semantics semantics_;
  internal::NameCharset charset_;
  std::string partition_;  // partition of the errors being reported
  ConfigQuantities quantities_;
};

}  // namespace

std::vector<ConfigError> ValidateConfig(SchedulerConfig& config, Semantics semantics) {
  std::vector<ConfigError> errors;
  Validator validator(&errors, semantics);
  validator.Run(config);
  std::stable_sort(errors.begin(), errors.end(), [](const ConfigError& a, const ConfigError& b) {
    if (a.location.line != b.location.line) return a.location.line < b.location.line;
    return a.location.column < b.location.column;
  });
  return errors;
}

}  // namespace allocore
