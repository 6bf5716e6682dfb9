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
#include <vector>

#include "config_validator.h"

namespace allocore::config_validation {

void Validator::NormalisePartitionNames(SchedulerConfig& config) {
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

void Validator::ValidatePartition(PartitionConfig& partition) {
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
  CheckRules(partition.placement_rules);
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
  if (partition.quota_preemption_enabled.value_or(false) && semantics_ == Semantics::kYunikorn12) {
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

void Validator::InsertRoot(PartitionConfig& partition) {
  bool single_root = partition.queues.size() == 1 && Lower(partition.queues.front().name) == "root";
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

void Validator::CheckQueue(const QueueConfig& queue, const std::string& path, int depth) {
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

void Validator::CheckProperties(const QueueConfig& queue, const PropertyMap& properties,
                                std::string_view field, const std::string& path) {
  for (const PropertyFallback& fallback : ParseProperties(properties, semantics_).fallbacks) {
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

void Validator::CheckAcl(const QueueConfig& queue, const std::string& path, std::string_view field,
                         const std::string& acl) {
  internal::Acl::Problem problem;
  (void)internal::Acl::Parse(acl, &problem);
  using Kind = internal::Acl::Problem::Kind;
  if (problem.kind == Kind::kNone) return;
  constexpr std::string_view kForm =
      "an ACL is '*', empty, or 'users groups': comma-separated user and group lists "
      "separated by exactly one space (' groups' for groups only)";
  Report(FieldLocation(queue.field_locations, field, queue.location), path, field,
         problem.kind == Kind::kManyFields
             ? Cat("multiple spaces found in ACL: ", Quote(acl), " has ", problem.parts,
                   " space-separated parts; ", kForm)
             : Cat(field, " ", Quote(acl), " has ", problem.parts,
                   " parts when split on single spaces (double, leading-and-trailing or trailing "
                   "spaces); ",
                   kForm));
}

void Validator::CheckTemplate(const QueueConfig& queue, const std::string& path) {
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

void Validator::CheckMaxApplications(const QueueConfig& queue, const std::string& path, int depth) {
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

void Validator::CheckRules(const std::vector<PlacementRuleConfig>& rules) {
  std::vector<internal::RuleProblem> problems;
  (void)internal::PlacementRules::Build(rules, charset_, &problems);
  for (internal::RuleProblem& problem : problems) {
    const PlacementRuleConfig& rule = *problem.rule;
    Report(problem.at_rule ? rule.location
                           : FieldLocation(rule.field_locations, problem.field, rule.location),
           "", problem.field, std::move(problem.message));
  }
}

void Validator::CheckNodeSortPolicy(const PartitionConfig& partition) {
  const NodeSortPolicyConfig& policy = partition.node_sort_policy;
  if (!policy.type.empty() && policy.type != "fair" && policy.type != "binpacking") {
    Report(FieldLocation(partition.field_locations, "nodesortpolicy.type", partition.location), "",
           "nodesortpolicy.type",
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

void Validator::CheckResourceTypeCount(const SchedulerConfig& config) {
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
                 " distinct resource types (", absl::StrJoin(names.begin(), names.end() - 1, ", "),
                 ")"));
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
    // slot (kernel/README decision 18).
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

}  // namespace allocore::config_validation

namespace allocore {

std::vector<ConfigError> ValidateConfig(SchedulerConfig& config, Semantics semantics) {
  std::vector<ConfigError> errors;
  config_validation::Validator validator(&errors, semantics);
  validator.Run(config);
  std::stable_sort(errors.begin(), errors.end(), [](const ConfigError& a, const ConfigError& b) {
    if (a.location.line != b.location.line) return a.location.line < b.location.line;
    return a.location.column < b.location.column;
  });
  return errors;
}

}  // namespace allocore
