// Gate 3 of ask_gates.h: a required-node ask that ends the regular walk. The walk meets it and
// returns Outcome::kBlocked (TryRequiredNode), every cycle while it stays so; the verdict has to
// find it without running the walk. The asks that may end the walk are the pending required-node
// asks (Partition::required_node_pending_); for each, EndsWalk runs the gates the walk runs
// before it reaches the ask, and the first in walk order is the walk's end. Where an ask sits in
// the walk is read from the keys the orders hold, so that no order is walked.
#include "ask_gates.h"

#include <algorithm>
#include <limits>

namespace allocore::internal {

// At the first queue where the paths part, the parent's order decides; in one leaf, the leaf's
// order; in one application, the ask order.
bool Partition::WalkPosition::VisitedBefore(const WalkPosition& other) const {
  const size_t depth = std::min(queues.size(), other.queues.size());
  for (size_t i = 0; i < depth; ++i) {
    if (queues[i].first != other.queues[i].first) return queues[i].second < other.queues[i].second;
  }
  if (app != other.app) return app_key < other.app_key;
  return ask_key < other.ask_key;
}

Partition::WalkPosition Partition::PositionOf(uint32_t ask, const WalkPosition* probe) const {
  const AskHot& hot = ask_hot_[ask];
  const Ask& k = asks_[ask];
  WalkPosition at;
  at.app = hot.app;
  at.ask_key = {-int64_t{hot.priority}, k.create_time, k.add_seq, ask};
  auto probe_key = [&](uint32_t queue) -> const OrderKey* {
    if (probe == nullptr) return nullptr;
    for (const auto& [slot, key] : probe->queues) {
      if (slot == queue) return &key;
    }
    return nullptr;
  };
  const App& a = apps_[hot.app];
  if (probe != nullptr && hot.app == probe->app) {
    at.app_key = probe->app_key;
  } else if (a.in_queue && app_keys_[hot.app]) {
    at.app_key = *app_keys_[hot.app];
  } else {
    at.reachable = false;
    return at;
  }
  for (uint32_t q = a.queue; q != root_; q = queues_[q].parent) {
    if (const OrderKey* key = probe_key(q)) {
      at.queues.push_back({q, *key});
    } else if (queue_keys_[q]) {
      at.queues.push_back({q, *queue_keys_[q]});
    } else {
      at.reachable = false;  // a stopped queue (or nothing pending below it)
      return at;
    }
  }
  std::reverse(at.queues.begin(), at.queues.end());
  return at;
}

int32_t Partition::EffectivePriorityWith(const Queue& queue, int32_t old_child,
                                         int32_t new_child) const {
  int64_t raw = kNoPriority;  // below every priority a child may have
  for (auto it = queue.child_priorities.rbegin(); it != queue.child_priorities.rend(); ++it) {
    if (it->second - (it->first == old_child ? 1 : 0) > 0) {
      raw = it->first;
      break;
    }
  }
  raw = std::max<int64_t>(raw, new_child);
  if (raw == kNoPriority) return kNoPriority;
  // EffectivePriority's rule. Not shared: a second caller of the btree's reverse step in that
  // file takes it out of line, and the walk repairs priorities with EffectivePriority.
  if (queue.props.fenced) return queue.props.offset;
  return static_cast<int32_t>(std::clamp<int64_t>(raw + queue.props.offset,
                                                  std::numeric_limits<int32_t>::min(),
                                                  std::numeric_limits<int32_t>::max()));
}

uint64_t Partition::UnschedulableBefore(uint32_t app, const AskKey& before) const {
  // The walk's count (TryAllocateAppAsks): an ask the ask gates refuse is not counted, nor is a
  // required-node ask that lets the walk go on; every other ask found no node.
  const std::optional<Resource> limit_headroom = LimitHeadroom(app);
  const Resource headroom = Headroom(apps_[app].queue);
  uint64_t unschedulable = 0;
  for (const AskKey& key : apps_[app].ask_order) {
    if (!(key < before)) break;
    const AskHot& hot = ask_hot_[key.slot];
    if (hot.has_required_node) continue;
    if (AskRefusal(hot.gang_member && WaitsForReplacement(key.slot), ResourceOf(hot),
                   limit_headroom, headroom) != Refusal::kNone) {
      continue;
    }
    unschedulable += static_cast<uint64_t>(hot.pending);
  }
  return unschedulable;
}

bool Partition::EndsWalk(uint32_t ask, uint32_t probe_app) const {
  const AskHot& hot = ask_hot_[ask];
  const uint32_t app = hot.app;
  const App& a = apps_[app];
  const Queue& leaf = queues_[a.queue];
  // Gate 1, with the application a probe would admit in a stateaware leaf.
  const uint32_t candidate =
      probe_app != kNoSlot && apps_[probe_app].queue == a.queue ? probe_app : kNoSlot;
  if (AppRefusal(app, a.state == AppState::kAccepted, AdmittedAcceptedApp(leaf, candidate)) !=
      Refusal::kNone) {
    return false;
  }
  // Gate 2.
  const Resource& wanted = ResourceOf(hot);
  if (AskRefusal(hot.gang_member && WaitsForReplacement(ask), wanted, LimitHeadroom(app),
                 Headroom(a.queue)) != Refusal::kNone) {
    return false;
  }
  // Gate 4, and no reservation in its place.
  const uint32_t required = FindNode(asks_[ask].required_node);
  uint32_t node = kNoSlot;
  switch (NodeRefusal(a.queue, wanted, /*required=*/true, required, &node)) {
    case Refusal::kQueueMax:
    case Refusal::kNoRoom:
      break;
    default:
      return false;
  }
  if (RequiredNodeReservable(hot.reservations, hot.pending, wanted, required)) return false;
  // The yunikorn-1.9 backoff: once as many repeats before it found no node, the application
  // backs off before the walk reaches it, every visit.
  if (leaf.props.unsched_ask_backoff_on) {
    const Ask& k = asks_[ask];
    const AskKey key{-int64_t{hot.priority}, k.create_time, k.add_seq, ask};
    if (UnschedulableBefore(app, key) >= queue_side_[a.queue].backoff.asks) return false;
  }
  return true;
}

Partition::WalkEnd Partition::WalkEndOf(const WalkPosition* probe) const {
  WalkEnd end;
  if (required_node_pending_.empty() || (probe != nullptr && !probe->reachable)) return end;
  // A probe's application joins its stateaware leaf's Accepted applications with pending asks.
  uint32_t probe_app = kNoSlot;
  if (probe != nullptr && (apps_[probe->app].state == AppState::kAccepted ||
                           apps_[probe->app].state == AppState::kNew)) {
    probe_app = probe->app;
  }
  for (uint32_t ask : required_node_pending_) {
    WalkPosition at = PositionOf(ask, probe);
    if (!at.reachable) continue;
    if (end.ask != kNoSlot && !at.VisitedBefore(end.at)) continue;
    if (!EndsWalk(ask, probe_app)) continue;
    end.ask = ask;
    end.at = std::move(at);
  }
  return end;
}

bool Partition::EndsBefore(const WalkEnd& end, const WalkPosition& position) const {
  return end.ask != kNoSlot && position.reachable && end.at.VisitedBefore(position);
}

}  // namespace allocore::internal
