// allocore/config.h — the scheduler configuration as plain structs.
//
// These structs mirror the YuniKorn queues.yaml schema (partitions, queues, placement rules,
// limits, node sort policy). The kernel never reads YAML: an adapter (adapters/config) fills
// these structs, with quantity strings already parsed to raw int64 values (vcore in
// milli-cores, memory in bytes), and records where each entity came from so that validation
// errors can point at a file, line and column.
//
// Validation (ValidateConfig) and application (Kernel::Create / Kernel::UpdateConfig) are one
// pipeline: a config that validates is always applied in full.
//
// Example:
//   allocore::SchedulerConfig config;
//   auto& partition = config.partitions.emplace_back();
//   partition.name = "default";
//   auto& root = partition.queues.emplace_back();
//   root.name = "root";
//   root.submit_acl = "*";
//   root.queues.push_back({.name = "a"});
//   auto kernel = allocore::Kernel::Create(config);

#ifndef ALLOCORE_CONFIG_H_
#define ALLOCORE_CONFIG_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "allocore/export.h"
#include "allocore/semantics.h"

namespace allocore {

// Levels of a queue hierarchy, root included, configured or created by placement rules.
// YuniKorn sets no limit; real hierarchies have a handful of levels, and the bound keeps every
// walk over the tree within a 256 KiB thread stack.
inline constexpr int kMaxQueueDepth = 64;

// Where a config element was written. line/column are 1-based; 0 means unknown.
struct SourceLocation {
  int line = 0;
  int column = 0;
};

// A location per field name ("maxapplications", "resources.max", ...). Adapters fill it so
// that errors point at the offending field; the entity's own location is the fallback.
using FieldLocations = std::vector<std::pair<std::string, SourceLocation>>;

// Resource quantities in configuration order: name -> raw value.
using QuantityMap = std::vector<std::pair<std::string, int64_t>>;

// Queue properties in configuration order: key -> raw string value.
using PropertyMap = std::vector<std::pair<std::string, std::string>>;

struct LimitConfig {
  std::string limit;  // free-text description
  std::vector<std::string> users;
  std::vector<std::string> groups;
  std::optional<QuantityMap> max_resources;
  uint64_t max_applications = 0;  // 0 = not limited
  SourceLocation location;
  FieldLocations field_locations;
};

struct FilterConfig {
  std::string type;  // "", "allow" or "deny" (validated case-insensitively)
  std::vector<std::string> users;
  std::vector<std::string> groups;
};

struct PlacementRuleConfig {
  std::string name;  // provided | user | tag | fixed | recovery (case-insensitive)
  bool create = false;
  std::string value;
  FilterConfig filter;
  std::vector<PlacementRuleConfig> parent;  // zero or one element
  SourceLocation location;
  FieldLocations field_locations;
};

struct ResourcesConfig {
  // nullopt = key absent. Presence matters: the root may not carry either key, even empty.
  std::optional<QuantityMap> guaranteed;
  std::optional<QuantityMap> max;
};

struct ChildTemplateConfig {
  uint64_t max_applications = 0;
  PropertyMap properties;
  ResourcesConfig resources;
  SourceLocation location;
};

struct QueueConfig {
  std::string name;
  bool parent = false;
  uint64_t max_applications = 0;  // 0 = unlimited
  PropertyMap properties;
  std::string admin_acl;
  std::string submit_acl;
  ResourcesConfig resources;
  std::optional<ChildTemplateConfig> child_template;
  std::vector<QueueConfig> queues;
  std::vector<LimitConfig> limits;
  SourceLocation location;
  FieldLocations field_locations;
};

struct NodeSortPolicyConfig {
  std::string type;  // "", "fair" or "binpacking" (case-sensitive)
  std::vector<std::pair<std::string, double>> resource_weights;
};

struct PartitionConfig {
  std::string name;
  bool queues_present = true;  // the `queues` key must be present (validation rule 2)
  std::vector<QueueConfig> queues;
  std::vector<PlacementRuleConfig> placement_rules;
  std::vector<LimitConfig> limits;
  std::optional<bool> preemption_enabled;
  NodeSortPolicyConfig node_sort_policy;
  std::string state_dump_file_path;  // deprecated: a warning (yunikorn-1.2), an error (1.9)
  // YuniKorn 1.8+ keys. preemption.quotapreemptionenabled: quota-change preemption under
  // yunikorn-1.9 (absent: off; a warning under yunikorn-1.2); usergroupresolver.type: accepted
  // with a warning (the manager resolves groups).
  std::optional<bool> quota_preemption_enabled;
  std::optional<std::string> user_group_resolver_type;
  SourceLocation location;
  FieldLocations field_locations;
};

struct SchedulerConfig {
  std::vector<PartitionConfig> partitions;
  std::string source_name;  // file name used in error messages, e.g. "queues.yaml"
};

// One validation problem. Printed as
//   queues.yaml:14:9: partition default, queue root.a.b: maxapplications 20 exceeds ...
struct ALLOCORE_EXPORT ConfigError {
  SourceLocation location;
  std::string partition;   // empty when not partition-specific
  std::string queue_path;  // empty when not queue-specific
  std::string field;       // schema key, e.g. "maxapplications"; empty when none
  std::string message;     // what is wrong and what is allowed
  bool warning = false;    // warnings do not make a config invalid

  // "file:line:col: partition P, queue Q: message" (parts omitted when unknown).
  std::string ToString(const std::string& source_name) const;
};

// The built-in configuration used when a config is empty: partition `default`, placement rule
// `tag` on `namespace` with create, and a single queue `root` with submitacl `*`.
ALLOCORE_EXPORT SchedulerConfig DefaultSchedulerConfig();

// Normalises `config` in place (partition names, root insertion; see the YuniKorn rules in
// share/doc/allocore/kernel/README.md) and returns every problem found (errors and warnings), in
// document order. The config is valid iff no returned entry has warning == false. `semantics`: the
// profile whose rules apply (name character sets, keys a release removed).
ALLOCORE_EXPORT std::vector<ConfigError> ValidateConfig(
    SchedulerConfig& config, Semantics semantics = Semantics::kYunikorn12);

// Where the yunikorn-1.2 and yunikorn-1.9 profiles would read this (validated) config
// differently: one finding per rule and place, as warnings (`allocore check` lists them).
ALLOCORE_EXPORT std::vector<ConfigError> ProfileDifferences(const SchedulerConfig& config);

// A configured queue as the kernel reads it (§2.5): leaf or parent, its properties inherited
// from its parent and overlaid by its own, and the values the scheduling rules take from them
// (unparsable values read as their defaults). For tools that show a configuration.
struct EffectiveQueue {
  std::string path;  // "root.a.b", names as configured
  int depth = 0;     // root: 0
  bool leaf = false;
  std::string app_sort_policy;  // leaves: fifo | fair | stateaware; parents: empty
  bool priority_sort_enabled = true;
  bool priority_fenced = false;
  int32_t priority_offset = 0;
  std::string preemption_policy = "default";  // default | fence | disabled
  int64_t preemption_delay_millis = 30'000;   // read on leaves only
  // application.unschedasks.backoff and .delay (yunikorn-1.9; 0 under yunikorn-1.2: off).
  uint64_t unsched_ask_backoff = 0;
  int64_t unsched_ask_backoff_delay_millis = 30'000;
  // quota.preemption.delay (yunikorn-1.9; 0: off, and always 0 under yunikorn-1.2).
  int64_t quota_preemption_delay_millis = 0;
  PropertyMap properties;  // the merged map the values come from
};

// Every configured queue of `partition` (validated), depth first in configuration order.
// `semantics`: how the profile reads the properties (yunikorn-1.9 reads stateaware as fifo).
ALLOCORE_EXPORT std::vector<EffectiveQueue> EffectiveQueues(
    const PartitionConfig& partition, Semantics semantics = Semantics::kYunikorn12);

}  // namespace allocore

#endif  // ALLOCORE_CONFIG_H_
