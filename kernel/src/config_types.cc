#include "config_types.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "message.h"

namespace allocore::internal {
namespace {

absl::Status TooMany(std::string_view name, std::string_view where) {
  return absl::FailedPreconditionError(
      Cat("resource type '", name, "' in ", where, " is one too many: allocore supports ",
          kMaxResourceTypes,
          " resource types, counting those its nodes, asks and earlier "
          "configurations have named"));
}

absl::Status Probe(const std::optional<QuantityMap>& quantities, std::string_view where,
                   ResourceTypes* registry) {
  if (!quantities) return absl::OkStatus();
  for (const auto& [name, value] : *quantities) {
    if (!registry->Intern(name).ok()) {
      return TooMany(name, where);
    }
  }
  return absl::OkStatus();
}

absl::Status ProbeLimits(const std::vector<LimitConfig>& limits, std::string_view where,
                         ResourceTypes* registry) {
  for (const LimitConfig& limit : limits) {
    absl::Status s = Probe(limit.max_resources, Cat(where, " limits"), registry);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ProbeConfigTypes(const SchedulerConfig& config, ResourceTypes registry) {
  for (const PartitionConfig& partition : config.partitions) {
    absl::Status s = ProbeLimits(partition.limits, Cat("partition ", partition.name), &registry);
    if (!s.ok()) return s;
    std::vector<std::pair<const QueueConfig*, std::string>> stack;
    for (const QueueConfig& root : partition.queues) stack.push_back({&root, root.name});
    while (!stack.empty()) {
      auto [q, path] = stack.back();
      stack.pop_back();
      std::string where = Cat("queue ", path);
      if (s.ok()) s = Probe(q->resources.guaranteed, where, &registry);
      if (s.ok()) s = Probe(q->resources.max, where, &registry);
      if (s.ok() && q->child_template) {
        s = Probe(q->child_template->resources.guaranteed, where, &registry);
        if (s.ok()) s = Probe(q->child_template->resources.max, where, &registry);
      }
      if (s.ok()) s = ProbeLimits(q->limits, where, &registry);
      if (!s.ok()) return s;
      for (const QueueConfig& child : q->queues) {
        stack.push_back({&child, Cat(path, ".", child.name)});
      }
    }
    for (const auto& [name, weight] : partition.node_sort_policy.resource_weights) {
      if (weight > 0 && !registry.Intern(name).ok()) {
        return TooMany(name, Cat("the node sort weights of partition ", partition.name));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace allocore::internal
