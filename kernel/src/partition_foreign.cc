// Pods other schedulers placed (YuniKorn 1.7+ foreign allocations, YUNIKORN-2791): each is
// known by its own id and takes room on its node only. No queue, application, user or partition
// total counts it, so queue headroom ignores it, and no preemptor ever picks it. v1.2.0 knew one
// occupied total per node, every change of which re-sorted the node; 1.7+ do not tell the node
// order, so the node keeps its place until its next notified change (NodeFreeSpaceChanged).
// kernel/README "Recovery, resize and foreign pods".
#include "message.h"
#include "partition.h"

namespace allocore::internal {
namespace {

constexpr std::string_view kAddForeign = "add_foreign";
constexpr std::string_view kUpdateForeign = "update_foreign";

}  // namespace

absl::Status Partition::AddForeignAllocation(const ForeignAllocationSpec& spec,
                                             std::vector<Decision>* out) {
  if (spec.id.empty()) return absl::InvalidArgumentError(Cat(kAddForeign, ": empty id"));
  // YuniKorn cannot tell a second report of a pod from an update of it.
  if (foreign_.contains(spec.id)) {
    return UpdateForeignAllocation({.partition = spec.partition,
                                    .id = spec.id,
                                    .node = spec.node,
                                    .resources = spec.resources},
                                   out);
  }
  if (spec.node.empty()) {
    return absl::InvalidArgumentError(
        Cat(kAddForeign, ": foreign pod ", spec.id, ": the node it runs on is required"));
  }
  const uint32_t node = FindNode(spec.node);
  if (node == kNoSlot) {
    return absl::NotFoundError(
        Cat(kAddForeign, ": foreign pod ", spec.id, ": unknown node ", spec.node));
  }
  const int types_before = context_->types.size();
  absl::StatusOr<Resource> resource =
      ToResource(spec.resources, kAddForeign, Cat(": foreign pod ", spec.id));
  if (!resource.ok()) {
    context_->types.TruncateTo(types_before);
    return resource.status();
  }
  absl::Status added = AddForeignAllocationAt(node, spec.id, *resource, spec.kind, out);
  if (!added.ok()) context_->types.TruncateTo(types_before);
  return added;
}

absl::Status Partition::AddForeignAllocationAt(uint32_t node, std::string_view id,
                                               const Resource& resource, ForeignKind kind,
                                               std::vector<Decision>* out) {
  (void)out;
  if (id.empty()) return absl::InvalidArgumentError(Cat(kAddForeign, ": empty id"));
  Node& n = nodes_[node];
  if (auto known = foreign_.find(id); known != foreign_.end()) {
    if (known->second.node != node) {
      return absl::InvalidArgumentError(Cat(kAddForeign, ": foreign pod ", id, " runs on node ",
                                            nodes_[known->second.node].id, ", not on ", n.id));
    }
    return UpdateForeignAt(kAddForeign, known->first, resource);
  }
  for (int t = 0; t < kMaxResourceTypes; ++t) {
    if (!resource.Has(t)) continue;
    if (t >= context_->types.size() || resource.Get(t) < 0) {
      return absl::InvalidArgumentError(Cat(kAddForeign, ": foreign pod ", id,
                                            ": resources must be registered types, not negative"));
    }
  }
  Resource occupied;
  if (AddExact(n.occupied, resource, &occupied) >= 0) {
    return absl::OutOfRangeError(Cat(kAddForeign, ": foreign pod ", id,
                                     ": the occupied total of node ", n.id,
                                     " would pass the int64 limit"));
  }
  (void)kind;  // changes no decision (see ForeignKind)
  foreign_[context_->names.Intern(id)] = {.node = node, .resource = resource};
  const Resource available_before = n.available;
  n.occupied = occupied;
  n.RecomputeAvailable();
  NodeFreeSpaceChanged(node, available_before);
  return absl::OkStatus();
}

absl::Status Partition::UpdateForeignAllocation(const ForeignAllocationUpdate& update,
                                                std::vector<Decision>* out) {
  (void)out;
  auto it = foreign_.find(update.id);
  if (it == foreign_.end()) {
    return absl::NotFoundError(Cat(kUpdateForeign, ": unknown foreign pod ", update.id));
  }
  const Node& n = nodes_[it->second.node];
  if (!update.node.empty() && update.node != n.id) {
    return absl::InvalidArgumentError(Cat(kUpdateForeign, ": foreign pod ", update.id,
                                          ": it runs on node ", n.id, ", not on ", update.node));
  }
  const int types_before = context_->types.size();
  absl::StatusOr<Resource> resource =
      ToResource(update.resources, kUpdateForeign, Cat(": foreign pod ", update.id));
  absl::Status updated =
      resource.ok() ? UpdateForeignAt(kUpdateForeign, it->first, *resource) : resource.status();
  if (!updated.ok()) context_->types.TruncateTo(types_before);
  return updated;
}

absl::Status Partition::UpdateForeignAt(std::string_view call, std::string_view id,
                                        const Resource& resource) {
  ForeignPod& foreign = foreign_.find(id)->second;
  Node& n = nodes_[foreign.node];
  Resource occupied;
  if (AddExact(SubClampNegative(n.occupied, foreign.resource), resource, &occupied) >= 0) {
    return absl::OutOfRangeError(Cat(call, ": foreign pod ", id, ": the occupied total of node ",
                                     n.id, " would pass the int64 limit"));
  }
  const Resource available_before = n.available;
  n.occupied = occupied;
  n.RecomputeAvailable();
  foreign.resource = resource;
  NodeFreeSpaceChanged(foreign.node, available_before);
  return absl::OkStatus();
}

absl::Status Partition::RemoveForeignAllocation(std::string_view id, std::vector<Decision>* out) {
  (void)out;
  auto it = foreign_.find(id);
  if (it == foreign_.end()) {
    return absl::NotFoundError(Cat("remove_foreign: unknown foreign pod ", id));
  }
  const uint32_t node = it->second.node;
  Node& n = nodes_[node];
  const Resource available_before = n.available;
  n.occupied = SubClampNegative(n.occupied, it->second.resource);
  n.RecomputeAvailable();
  foreign_.erase(it);
  NodeFreeSpaceChanged(node, available_before);
  return absl::OkStatus();
}

}  // namespace allocore::internal
