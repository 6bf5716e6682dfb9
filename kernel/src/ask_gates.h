// kernel/src/ask_gates.h — the gates an ask passes in the regular scheduling walk, as one list
// in one order, for the walk (partition_schedule.cc, partition_required_node.cc) and for the
// verdict on an ask (partition_verdict.cc: --explain and Kernel::Probe). Partition::Refusal
// names each gate; each function here returns the first one that refuses.
//
//   1. The application (AppRefusal): stateaware, maxapplications, user/group maxapplications,
//      the yunikorn-1.9 backoff.
//   2. The ask (AskRefusal): placeholder replacement, user/group maxresources, the headroom.
//   3. The walk (WalkRefusal; the walk's end is found in ask_gates.cc): a required-node ask
//      before this one in the walk that can neither be allocated nor reserve its node ends every
//      walk there. The walk meets it by returning Outcome::kBlocked, so only the verdict looks
//      for it. It comes after 1 and 2, whose refusals hold the ask back whatever the walk meets
//      first (and a real ask waiting for its placeholders is served by the placeholder pass,
//      before the walk); an ask holding a reservation is not behind it either: the reserved pass
//      serves it first.
//   4. The nodes (NodeRefusal): the required node's own (registered; not reserved for a
//      required-node ask, this one included), then every level's max, then room on a node
//      (RoomRefusal: the required node, or the first in the node index's order that fits).
//
// A required-node ask refused at the max or for room reserves its node, or ends the walk when
// it cannot (RequiredNodeReservable). The walk calls these for every ask it tries: they are
// inline, and the callers pass constants where they know the answer (TryNodes: no required
// node), so the walk does the work it did before they were shared.
#ifndef ALLOCORE_KERNEL_SRC_ASK_GATES_H_
#define ALLOCORE_KERNEL_SRC_ASK_GATES_H_

#include "partition.h"

namespace allocore::internal {

inline Partition::Refusal Partition::AppRefusal(uint32_t app, bool accepted,
                                                uint32_t admitted) const {
  if (accepted) {
    const bool stateaware =
        queues_[apps_[app].queue].props.sort_policy == AppSortPolicy::kStateAware;
    if (stateaware && app != admitted) return Refusal::kStateAware;
    if (!CanRunApp(app)) return Refusal::kMaxApplications;
    if (!LimitsAllowNewApp(app, nullptr)) return Refusal::kUserMaxApplications;
  }
  if (BackedOff(app)) return Refusal::kBackedOff;
  return Refusal::kNone;
}

inline Partition::Refusal Partition::AskRefusal(bool awaits_replacement, const Resource& wanted,
                                                const std::optional<Resource>& user_headroom,
                                                const Resource& queue_headroom) {
  if (awaits_replacement) return Refusal::kAwaitsReplacement;
  if (user_headroom && !FitInMaxUndef(*user_headroom, wanted)) return Refusal::kUserHeadroom;
  if (!FitInMaxUndef(queue_headroom, wanted)) return Refusal::kQueueHeadroom;
  return Refusal::kNone;
}

inline Partition::Refusal Partition::WalkRefusal(int64_t reservations, const WalkEnd& end,
                                                 const WalkPosition& position) const {
  // The reserved pass, which runs before the walk, serves an ask holding a reservation.
  if (reservations == 0 && EndsBefore(end, position)) return Refusal::kWalkEndsEarlier;
  return Refusal::kNone;
}

inline Partition::Refusal Partition::NodeRefusal(uint32_t leaf, const Resource& wanted,
                                                 bool required, uint32_t required_node,
                                                 uint32_t* node) const {
  if (required) {
    if (required_node == kNoSlot) return Refusal::kRequiredNodeUnknown;
    const auto& held = nodes_[required_node].reservation;
    if (held && ask_hot_[held->second].has_required_node) return Refusal::kRequiredNodeHeld;
  }
  return RoomRefusal(leaf, wanted, required ? required_node : kNoSlot, node);
}

inline Partition::Refusal Partition::RoomRefusal(uint32_t leaf, const Resource& wanted,
                                                 uint32_t only_node, uint32_t* node) const {
  // The max does not depend on the node: when it refuses, no node can take the ask.
  if (!QueueMaxAllows(leaf, wanted)) return Refusal::kQueueMax;
  if (only_node != kNoSlot) {
    // The node as it is, neither its schedulable flag nor its reservation read: a DaemonSet pod
    // runs on a cordoned node, and a reserved ask is tried on the node it holds.
    if (!FitIn(nodes_[only_node].Available(), wanted)) return Refusal::kNoRoom;
    *node = only_node;
    return Refusal::kNone;
  }
  *node = node_index_.FirstFit(wanted,
                               [&](uint32_t slot) { return FitIn(nodes_[slot].capacity, wanted); });
  return *node == NodeIndex::kNotFound ? Refusal::kNoRoom : Refusal::kNone;
}

}  // namespace allocore::internal

#endif  // ALLOCORE_KERNEL_SRC_ASK_GATES_H_
