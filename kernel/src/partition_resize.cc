// In-place resize (YuniKorn 1.6+, YUNIKORN-2367; Kubernetes' in-place pod vertical scaling):
// a live allocation or the pending part of an ask takes new resources. The new amount is taken
// as the manager reports it: the pod already runs with it, so no queue max, user limit or node
// capacity is checked (a queue or node over its limit takes no new ask needing the exceeded
// type until usage drops). YuniKorn does not tell the node order of a resize: the node keeps
// its place until its next notified change. v1.2.0 could not resize; under yunikorn-1.2 both
// calls are refused. kernel/README "Recovery, resize and foreign pods".
#include "allocore/status_macros.h"
#include "message.h"
#include "partition.h"

namespace allocore::internal {
namespace {

constexpr std::string_view kUpdateAllocation = "update_allocation";
constexpr std::string_view kUpdateAsk = "update_ask";

absl::Status NoResizeUnder12(std::string_view call) {
  return absl::FailedPreconditionError(
      Cat(call,
          ": yunikorn-1.2 cannot resize in place (YuniKorn 1.6+ can); release the "
          "allocation or remove the ask, and add the ask again"));
}

}  // namespace

absl::Status Partition::PendingOverflow(std::string_view call, uint32_t ask,
                                        const Resource& resource) const {
  const AskHot& hot = ask_hot_[ask];
  Resource total;
  int type = MultiplyExact(resource, hot.pending, &total);
  if (type < 0) {
    const Resource others =
        SubClampNegative(queues_[root_].pending, Multiply(ResourceOf(hot), hot.pending));
    type = AddExact(others, total, &total);
  }
  if (type < 0) return absl::OkStatus();
  return absl::OutOfRangeError(Cat(call, ": ", hot.pending, " pending repeat(s) of ask ",
                                   asks_[ask].id, " would take the partition's pending ",
                                   context_->types.Name(type), " past the int64 limit"));
}

void Partition::NodeFreeSpaceChanged(uint32_t node, const Resource& available_before) {
  Node& n = nodes_[node];
  if (!context_->profile->foreign_changes_keep_node_order) {
    RefreshNode(node);
    return;
  }
  // The score keeps the free space of the last notified change (the first unnotified change
  // records it); the index's free space is current (the walk must not try a node the pod no
  // longer fits, nor skip one it fits).
  score_basis_.try_emplace(node, available_before);
  node_index_.Update(n.key(node), n.available, n.Eligible());
}

double Partition::SeenNodeScore(uint32_t node) const {
  const Node& n = nodes_[node];
  auto basis = score_basis_.find(node);
  return NodeScore(n.capacity, basis == score_basis_.end() ? n.available : basis->second);
}

void Partition::ResizeAllocation(uint32_t allocation, const Resource& resource) {
  Allocation& alloc = allocations_[allocation];
  const Resource old = alloc.resource;
  App& a = apps_[alloc.app];
  Node& n = nodes_[alloc.node];
  const Resource available_before = n.available;
  n.allocated = SubClampNegative(n.allocated, old);
  AddTo(&n.allocated, resource);
  n.RecomputeAvailable();
  NodeFreeSpaceChanged(alloc.node, available_before);
  a.allocated = SubClampNegative(a.allocated, old);
  AddTo(&a.allocated, resource);
  if (alloc.placeholder) {
    // YuniKorn 1.9 adds a resized placeholder's change to the app's real allocation total, a
    // bug its own comment admits; the placeholder total is the one that changes here.
    a.allocated_placeholder = SubClampNegative(a.allocated_placeholder, old);
    AddTo(&a.allocated_placeholder, resource);
  }
  if (a.in_queue) {
    SubFromPath(a.queue, &Queue::allocated, old);
    AddToPath(a.queue, &Queue::allocated, resource);
    TrackLimitUsage(alloc.app, old, /*release=*/true, 0);
    TrackLimitUsage(alloc.app, resource, /*release=*/false, 0);
  }
  alloc.resource = resource;
  if (a.in_queue && !IsZero(Sub(resource, old))) QuotaUsageRaised(a.queue);
}

void Partition::ResizePending(uint32_t ask, const Resource& resource) {
  AskHot& hot = ask_hot_[ask];
  const int64_t pending = hot.pending;
  SetPending(ask, 0);
  const uint32_t shape = shapes_.Acquire(resource);
  shapes_.Release(hot.shape);
  hot.shape = shape;
  SetPending(ask, pending);  // back in the order under the same key
}

absl::Status Partition::UpdateAllocation(const AllocationUpdate& update,
                                         std::vector<Decision>* out) {
  if (!context_->profile->resize_in_place) return NoResizeUnder12(kUpdateAllocation);
  const uint32_t app = FindApp(update.app);
  if (app == kNoSlot) return absl::NotFoundError(Cat("unknown application ", update.app));
  const uint32_t ask = FindAsk(app, update.ask);
  if (ask == kNoSlot) {
    return absl::NotFoundError(Cat("application ", update.app, " has no ask ", update.ask));
  }
  uint32_t node = kNoSlot;
  if (!update.node.empty()) {
    node = FindNode(update.node);
    if (node == kNoSlot) {
      // An unknown node holds no allocation: the same refusal as a known node without one.
      return absl::NotFoundError(Cat("ask ", update.ask, " of application ", update.app,
                                     " has no live allocation on node ", update.node));
    }
  }
  const int types_before = context_->types.size();
  auto resource = PodResources(update.resources, kUpdateAllocation, update.ask);
  if (!resource.ok()) return resource.status();
  absl::Status updated = UpdateAllocationAt(ask, node, *resource, out);
  if (!updated.ok()) context_->types.TruncateTo(types_before);
  return updated;
}

absl::Status Partition::UpdateAllocationAt(uint32_t ask, uint32_t node, const Resource& resource,
                                           std::vector<Decision>* out) {
  (void)out;  // a resize changes no state and decides nothing (YuniKorn sends nothing either)
  if (!context_->profile->resize_in_place) return NoResizeUnder12(kUpdateAllocation);
  const uint32_t app = ask_hot_[ask].app;
  uint32_t chosen = kNoSlot;
  for (uint32_t alloc : asks_[ask].allocations) {
    if (node == kNoSlot || allocations_[alloc].node == node) {
      chosen = alloc;
      break;
    }
  }
  if (chosen == kNoSlot) {
    return absl::NotFoundError(Cat("ask ", asks_[ask].id, " of application ", app_side_[app].id,
                                   " has no live allocation", node == kNoSlot ? "" : " on node ",
                                   node == kNoSlot ? std::string_view() : nodes_[node].id));
  }
  ALLOCORE_RETURN_IF_ERROR(CheckPodResource(resource, kUpdateAllocation, asks_[ask].id));
  if (absl::Status overflow = AllocationOverflow(kUpdateAllocation, allocations_[chosen].node,
                                                 allocations_[chosen].resource, resource);
      !overflow.ok()) {
    return overflow;
  }
  if (resource == allocations_[chosen].resource) return absl::OkStatus();
  ResizeAllocation(chosen, resource);
  AppChanged(app);
  return absl::OkStatus();
}

absl::Status Partition::UpdateAsk(const AskUpdate& update, std::vector<Decision>* out) {
  if (!context_->profile->resize_in_place) return NoResizeUnder12(kUpdateAsk);
  const uint32_t app = FindApp(update.app);
  if (app == kNoSlot) return absl::NotFoundError(Cat("unknown application ", update.app));
  const uint32_t ask = FindAsk(app, update.id);
  if (ask == kNoSlot) {
    return absl::NotFoundError(Cat("application ", update.app, " has no ask ", update.id));
  }
  const int types_before = context_->types.size();
  auto resource = PodResources(update.resources, kUpdateAsk, update.id);
  if (!resource.ok()) return resource.status();
  absl::Status updated = UpdateAskAt(ask, *resource, out);
  if (!updated.ok()) context_->types.TruncateTo(types_before);
  return updated;
}

absl::Status Partition::UpdateAskAt(uint32_t ask, const Resource& resource,
                                    std::vector<Decision>* out) {
  (void)out;
  if (!context_->profile->resize_in_place) return NoResizeUnder12(kUpdateAsk);
  const uint32_t app = ask_hot_[ask].app;
  if (ask_hot_[ask].pending == 0) {
    return absl::FailedPreconditionError(
        Cat("ask ", asks_[ask].id, " of application ", app_side_[app].id, " has nothing pending"));
  }
  ALLOCORE_RETURN_IF_ERROR(CheckPodResource(resource, kUpdateAsk, asks_[ask].id));
  ALLOCORE_RETURN_IF_ERROR(PendingOverflow(kUpdateAsk, ask, resource));
  if (resource == ResourceOf(ask_hot_[ask])) return absl::OkStatus();
  ResizePending(ask, resource);
  AppChanged(app);
  return absl::OkStatus();
}

}  // namespace allocore::internal
