// kernel/src/config_validator.h — the validator behind allocore::ValidateConfig (internal).
// config_validate.cc holds the walk over partitions, queues, templates and placement rules;
// config_validate_limits.cc the user and group limit rules (Appendix A.2).
#ifndef ALLOCORE_KERNEL_SRC_CONFIG_VALIDATOR_H_
#define ALLOCORE_KERNEL_SRC_CONFIG_VALIDATOR_H_

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
#include "acl.h"
#include "allocore/config.h"
#include "allocore/resource.h"
#include "field_location.h"
#include "go_regexp.h"
#include "message.h"
#include "name_rules.h"
#include "placement.h"
#include "queue_properties.h"

namespace allocore::config_validation {

using internal::FieldLocation;
using internal::IsValidGroupName;
using internal::IsValidQueueName;
using internal::IsValidUserName;
using internal::ParseProperties;
using internal::PropertyFallback;

// absl::StrCat for std::string_view too (Debian's absl::string_view is its own type).
template <typename T>
inline decltype(auto) CatArg(const T& v) {
  if constexpr (std::is_same_v<T, std::string_view>) {
    return absl::string_view(v.data(), v.size());
  } else {
    return (v);
  }
}

template <typename... T>
inline std::string Cat(const T&... parts) {
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
inline bool FitsUnder(const OptionalResource& larger, const Resource& smaller) {
  return !larger || FitInMaxUndef(*larger, smaller);
}

inline bool IsNilOrZero(const OptionalResource& r) { return !r || IsZero(*r); }

// Both nil -> nil; one nil -> the other; otherwise the kernel's permissive minimum.
inline OptionalResource PermissiveMinOfOptional(const OptionalResource& a,
                                                const OptionalResource& b) {
  if (!a) return b;
  if (!b) return a;
  return PermissiveMin(*a, *b);
}

// ---- Names and patterns ----------------------------------------------------------------------
inline std::string Lower(std::string_view s) { return absl::AsciiStrToLower({s.data(), s.size()}); }

using internal::Quote;

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
  void NormalisePartitionNames(SchedulerConfig& config);

  void ValidatePartition(PartitionConfig& partition);

  // §2.3: insert `root` unless there is exactly one top-level queue named root (any case); the
  // root is always a parent and carries no resources.
  void InsertRoot(PartitionConfig& partition);

  // §2.4.4: ACLs, limits, child names; recursively.
  void CheckQueue(const QueueConfig& queue, const std::string& path, int depth);

  // Properties YuniKorn accepts and ignores or reads as their default: warnings, so that a typo
  // does not pass silently (check --strict makes them errors).
  void CheckProperties(const QueueConfig& queue, const PropertyMap& properties,
                       std::string_view field, const std::string& path);

  // §2.4.4.1 plus the apply-time parser (§2.6, §8.5), which splits the raw string on single
  // spaces into at most two parts.
  void CheckAcl(const QueueConfig& queue, const std::string& path, std::string_view field,
                const std::string& acl);

  // §2.4.8 and Appendix A.2 for one limit list: a queue's (`queue` is that queue), or the
  // partition's (`queue` is the root they apply to, null when the root has limits of its own).
  void CheckLimits(const std::vector<LimitConfig>& limits, const std::string& path,
                   const QueueConfig* queue, bool partition_level);

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
                           const std::string& path, int depth, const CarriedLimits& parent);

  // One user or group entry of a limit at `path`: checked against the parent's carried values
  // for the same name, then recorded in what `path` carries.
  void CheckAgainstParent(const LimitConfig& limit, size_t index, std::string_view kind,
                          const std::string& entry,
                          const Carried<CarriedResources>& parent_resources,
                          const Carried<CarriedApplications>& parent_applications,
                          const std::string& path, Carried<CarriedResources>* resources,
                          Carried<CarriedApplications>* applications);

  // YuniKorn v1.5 (YUNIKORN-2260): partition limits are the root's limits. When both lists are
  // set they must be the same: the same entries in the same order (order decides the group an
  // application is tracked under, and where the wildcard stands), each with the same users and
  // groups in the same order, the same maxapplications and the same maxresources (as parsed
  // quantities, in any type order; absent and empty both mean none). The free-text `limit`
  // description is not compared: it changes nothing.
  void CheckPartitionLimitsMatchRoot(const PartitionConfig& partition, const QueueConfig& root);

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
  void CheckTemplate(const QueueConfig& queue, const std::string& path);

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
  void CheckMaxApplications(const QueueConfig& queue, const std::string& path, int depth);

  // §2.4.6 plus the rule-construction errors of §2.6.
  // Placement rules, read by the kernel's own reader (PlacementRules::Build).
  void CheckRules(const std::vector<PlacementRuleConfig>& rules);

  // §2.4.9.
  void CheckNodeSortPolicy(const PartitionConfig& partition);

  // Resources are vectors over at most kMaxResourceTypes interned types per kernel: a config
  // naming more could never be applied.
  void CheckResourceTypeCount(const SchedulerConfig& config);

  std::vector<ConfigError>* out_;
  Semantics semantics_;
  internal::NameCharset charset_;
  std::string partition_;  // partition of the errors being reported
  ConfigQuantities quantities_;
};

}  // namespace allocore::config_validation

#endif  // ALLOCORE_KERNEL_SRC_CONFIG_VALIDATOR_H_
