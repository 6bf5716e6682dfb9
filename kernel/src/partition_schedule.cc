// The scheduling walk of a partition (§6): reserved allocations first, then the regular walk
// from the root down the cached orders, one allocation (or reservation) per cycle.
#include <algorithm>
#include <limits>

#include "ask_gates.h"
#include "contract.h"

namespace allocore::internal {
namespace {

// max − allocated over `types` of max only (types the limit does not name stay unlimited).
Resource Remaining(const Resource& max, ResourceMask types, const Resource& allocated) {
  Resource out;
  for (ResourceMask m = types; m != 0; m &= m - 1) {
    const int k = __builtin_ctz(m);
    out.Set(k, SaturatingSub(max.Get(k), allocated.Get(k)));
  }
  return out;
}

// §1.6: the fraction of the node's free space that stays free per type; lower is tighter.
double FitInScore(const Resource& ask, const Resource& available) {
  double score = 0;
  for (int k = 0; k < kMaxResourceTypes; ++k) {
    if (!available.Has(k)) continue;
    int64_t free = available.Get(k);
    int64_t want = ask.Get(k);
    if (free <= 0) continue;
    if (want <= 0) {
      score += 1;
    } else if (free > want) {
      score += static_cast<double>(free - want) / static_cast<double>(free);
    }
  }
  return score;
}

}  // namespace

template <typename Fn>
bool Partition::ForEachChildInOrder(uint32_t parent, Fn&& fn) const {
  // fn returns true after a result, which may have changed the order: stop at once.
  for (const OrderEntry& key : queues_[parent].order) {
    if (fn(key.slot)) return true;
  }
  return false;
}

ResourceMask Partition::RootMaxTypes() const {
  ResourceMask types = cluster_capacity_.present;
  if (!context_->profile->root_max_prunes_zeros) return types;
  for (ResourceMask m = types; m != 0; m &= m - 1) {
    const int k = __builtin_ctz(m);
    if (cluster_capacity_.Get(k) == 0) types &= ~(ResourceMask{1} << k);
  }
  return types;
}

bool Partition::RootHasMax() const {
  return has_nodes_ever_ &&
         (!context_->profile->root_max_prunes_zeros || StrictlyGreaterThanZero(cluster_capacity_));
}

Resource Partition::Headroom(uint32_t leaf) const {
  // The permissive minimum is commutative, so the levels can be folded from the leaf up.
  Resource headroom = Remaining(cluster_capacity_, RootMaxTypes(), queues_[root_].allocated);
  for (uint32_t q = leaf; q != root_; q = queues_[q].parent) {
    const Queue& queue = queues_[q];
    if (queue.max) {
      headroom =
          PermissiveMin(Remaining(*queue.max, queue.max->present, queue.allocated), headroom);
    }
  }
  return headroom;
}

bool Partition::LevelMaxAllows(uint32_t q, const Resource& delta) const {
  const Queue& queue = queues_[q];
  const bool root = q == root_;
  const Resource* max = root ? &cluster_capacity_ : (queue.max ? &*queue.max : nullptr);
  return max == nullptr || context_->profile->level_max_allows(*max, queue.allocated, delta, root);
}

bool Partition::QueueMaxAllows(uint32_t leaf, const Resource& delta) const {
  for (uint32_t q = leaf; q != kNoSlot; q = queues_[q].parent) {
    if (!LevelMaxAllows(q, delta)) return false;
  }
  return true;
}

uint32_t Partition::OverMaxLevel(uint32_t leaf, const Resource& delta) const {
  uint32_t over = kNoSlot;
  for (uint32_t q = leaf; q != kNoSlot; q = queues_[q].parent) {
    if (!LevelMaxAllows(q, delta)) over = q;
  }
  return over;
}

uint32_t Partition::MaxApplicationsBlocker(uint32_t app) const {
  for (uint32_t q = apps_[app].queue; q != kNoSlot; q = queues_[q].parent) {
    const Queue& queue = queues_[q];
    if (queue.max_apps == 0 || queue.allocating_accepted.contains(app)) continue;
    if (queue.running_apps + queue.allocating_accepted.size() + 1 > queue.max_apps) return q;
  }
  return kNoSlot;
}

uint32_t Partition::AdmittedAcceptedApp(const Queue& leaf, uint32_t candidate) const {
  if (leaf.props.sort_policy != AppSortPolicy::kStateAware || leaf.starting_apps > 0) {
    return kNoSlot;
  }
  if (leaf.accepted_with_pending.empty()) return candidate;
  const auto& [first_seq, first_app] = *leaf.accepted_with_pending.begin();
  const bool candidate_first =
      candidate != kNoSlot && !(first_seq < apps_[candidate].submission_seq);
  return candidate_first ? candidate : first_app;
}

void Partition::MarkAllocatingAccepted(uint32_t app) {
  for (uint32_t q = apps_[app].queue; q != kNoSlot; q = queues_[q].parent) {
    queues_[q].allocating_accepted.insert(app);
  }
}

std::pair<int64_t, bool> Partition::Cycle(std::vector<Decision>* out) {
  if (!RootHasMax() || root_ == kNoSlot) return {0, false};
  if (!StrictlyGreaterThanZero(queues_[root_].pending)) return {0, false};
  // §6.2 and seed 002: reservations, then placeholder replacements, then the regular walk.
  // Victims a required-node ask preempted are released by the resource manager after the
  // cycle, so they go when it ends.
  bool changed = false;
  auto finish = [&](int64_t allocated) -> std::pair<int64_t, bool> {
    if (!preempted_.empty()) {
      ReleasePreempted(out);
      changed = true;
    }
    return {allocated, changed || allocated > 0};
  };
  if (total_reservations_ > 0) {
    if (TryReservedAllocate(root_, &changed, out) == Outcome::kAllocated) return finish(1);
  }
  if (live_placeholders_ > 0 && StrictlyGreaterThanZero(queues_[root_].pending)) {
    bool released = false;
    Outcome result = TryPlaceholderAllocate(root_, &released, out);
    changed = changed || released;
    if (result == Outcome::kAllocated) return finish(1);
  }
  if (!StrictlyGreaterThanZero(queues_[root_].pending)) return finish(0);
  walk_changed_ = false;
  Outcome walked = TryAllocate(root_, out);
  changed = changed || walk_changed_;
  switch (walked) {
    case Outcome::kAllocated:
      return finish(1);
    case Outcome::kReserved:
      changed = true;
      return finish(0);
    case Outcome::kBlocked:
    case Outcome::kNone:
      break;
  }
  return finish(0);
}

Partition::Outcome Partition::TryAllocate(uint32_t queue, std::vector<Decision>* out) {
  const Queue& q = queues_[queue];
  if (!q.leaf) {
    Outcome result = Outcome::kNone;
    ForEachChildInOrder(queue, [&](uint32_t child) {
      result = TryAllocate(child, out);
      return result != Outcome::kNone;
    });
    return result;
  }
  Resource headroom = Headroom(queue);
  uint32_t admitted = AdmittedAcceptedApp(q);
  preemption_attempts_left_ = kMaxPreemptionAttemptsPerLeaf;
  for (const OrderEntry& key : q.order) {
    uint32_t app = key.slot;
    if (AppRefusal(app, apps_[app].state == AppState::kAccepted, admitted) != Refusal::kNone) {
      continue;
    }
    Outcome result = TryAllocateApp(app, headroom, out);
    if (result != Outcome::kNone) {
      if (apps_[app].state == AppState::kAccepted) MarkAllocatingAccepted(app);
      return result;
    }
  }
  return Outcome::kNone;
}

// YuniKorn 1.9 visits every request of the application in order, allocated ones included, and
// backs the application off at the top of a visit once `backoff` tried ones found no node: so
// the Nth unschedulable pod backs it off only when any request follows it. Allocated pods sort
// before the pending ones of their ask; those of later asks may follow the last pending one.
bool Partition::RequestAfter(uint32_t app, const AskKey& last) const {
  for (const auto& [seq, ask] : app_side_[app].asks) {
    // A removed ask's pods are no request any more.
    if (asks_[ask].allocations.empty() || ask_hot_[ask].removed) continue;
    const AskKey key{-int64_t{ask_hot_[ask].priority}, asks_[ask].create_time, asks_[ask].add_seq,
                     ask};
    if (last < key) return true;
  }
  return false;
}

Partition::Outcome Partition::TryAllocateApp(uint32_t app, const Resource& headroom,
                                             std::vector<Decision>* out) {
  // The walk without the backoff's bookkeeping unless the leaf asks for it.
  const uint32_t leaf = apps_[app].queue;
  return queues_[leaf].props.unsched_ask_backoff_on
             ? TryAllocateAppAsks<true>(app, headroom, queue_side_[leaf].backoff.asks, out)
             : TryAllocateAppAsks<false>(app, headroom, 0, out);
}

template <bool kCountsUnschedulable>
inline Partition::Outcome Partition::TryAllocateAppAsks(uint32_t app, const Resource& headroom,
                                                        uint64_t backoff,
                                                        std::vector<Decision>* out) {
  std::optional<Resource> limit_headroom = LimitHeadroom(app);
  uint64_t unschedulable = 0;
  auto back_off = [&] { return BackOff(app); };
  const absl::btree_set<AskKey>& order = apps_[app].ask_order;
  for (const AskKey& key : order) {
    if (kCountsUnschedulable && unschedulable >= backoff) return back_off();
    const AskHot& hot = ask_hot_[key.slot];
    const Resource& wanted = ResourceOf(hot);
    switch (AskRefusal(hot.gang_member && WaitsForReplacement(key.slot), wanted, limit_headroom,
                       headroom)) {
      case Refusal::kNone:
        break;
      case Refusal::kQueueHeadroom:
        // Preemption in other queues can make room under a queue max (never under a user's
        // own limit).
        if (preemption_enabled_) {
          Outcome result = TryGeneralPreemption(key.slot, /*nodes_tried=*/false, out);
          if (result != Outcome::kNone) return result;
        }
        continue;
      default:
        continue;
    }
    if (hot.has_required_node) {
      Outcome result = TryRequiredNode(key.slot, out);
      if (result != Outcome::kNone) return result;
      continue;
    }
    Outcome result = TryNodes(key.slot, out);
    if (result == Outcome::kNone && preemption_enabled_) {
      result = TryGeneralPreemption(key.slot, /*nodes_tried=*/true, out);
    }
    if (result != Outcome::kNone) return result;
    if (kCountsUnschedulable) {
      // Each pending repeat is a pod of its own, tried with the same outcome.
      const uint64_t repeats = static_cast<uint64_t>(hot.pending);
      if (unschedulable + repeats - 1 >= backoff && repeats > 1) return back_off();
      unschedulable += repeats;
    }
  }
  // Every pending ask was tried: the last one in the order is where the walk stopped.
  if (kCountsUnschedulable && unschedulable >= backoff && !order.empty() &&
      RequestAfter(app, *order.rbegin())) {
    return back_off();
  }
  return Outcome::kNone;
}

Partition::Outcome Partition::BackOff(uint32_t app) {
  const int64_t delay = queue_side_[apps_[app].queue].backoff.delay_ms;
  const int64_t deadline = SaturatingAdd(context_->now, delay);
  app_side_[app].backoff_deadline = deadline;
  latest_backoff_deadline_ = std::max(latest_backoff_deadline_, deadline);
  return Outcome::kNone;
}

Partition::Outcome Partition::TryNodes(uint32_t ask, std::vector<Decision>* out) {
  const AskHot& hot = ask_hot_[ask];
  const Resource& resource = ResourceOf(hot);
  // Gate 4 without a required node (TryAllocateAppAsks sent those to TryRequiredNode).
  uint32_t node;  // set when nothing refuses
  if (RoomRefusal(apps_[hot.app].queue, resource, /*only_node=*/kNoSlot, &node) == Refusal::kNone) {
    std::optional<uint32_t> reserved_node;
    if (hot.reservations > 0) {
      for (const Reservation& r : apps_[hot.app].reservations) {
        if (r.ask == ask) {
          reserved_node = r.node;
          break;
        }
      }
    }
    Allocate(ask, node, reserved_node, out);
    return Outcome::kAllocated;
  }
  bool may_reserve = hot.reservations < hot.pending &&
                     context_->now - asks_[ask].create_time > kReservationDelayMs;
  if (!may_reserve) return Outcome::kNone;
  // No node can take it: reserve the eligible node it would fit tightest (§1.6), the first in
  // order among equals.
  uint32_t best = kNoSlot;
  double best_score = std::numeric_limits<double>::infinity();
  node_index_.ForEach([&](uint32_t slot) {
    const Node& n = nodes_[slot];
    if (!n.Eligible() || !FitIn(n.capacity, resource)) return;
    double score = FitInScore(resource, n.Available());
    if (score < best_score) {
      best_score = score;
      best = slot;
    }
  });
  // A reservation that could not be made is no progress (the model counts reservations).
  if (best != kNoSlot && Reserve(ask, best)) return Outcome::kReserved;
  return Outcome::kNone;
}

void Partition::FillAllocation(Allocation* a, uint32_t ask, uint32_t node, const Resource& resource,
                               int64_t seq) const {
  const Ask& k = asks_[ask];
  const AskHot& hot = ask_hot_[ask];
  a->app = hot.app;
  a->ask = ask;
  a->node = node;
  a->resource = resource;
  a->seq = seq;
  a->live = true;
  a->placeholder = hot.placeholder;
  a->required_node = hot.has_required_node;
  a->allow_preemption = k.allow_preemption;
  a->originator = k.originator;
  a->priority = hot.priority;
  a->task_group = k.task_group;
  a->ask_create_time = k.create_time;
  a->ask_add_seq = k.add_seq;
}

void Partition::Allocate(uint32_t ask, uint32_t node, std::optional<uint32_t> reservation_node,
                         std::vector<Decision>* out) {
  uint32_t app = ask_hot_[ask].app;
  if (reservation_node) {
    const auto& reservations = apps_[app].reservations;
    for (size_t i = 0; i < reservations.size(); ++i) {
      if (reservations[i].ask == ask && reservations[i].node == *reservation_node) {
        Unreserve(app, i);
        break;
      }
    }
  }
  PlaceAllocation(ask, node, {}, out);
  {
    // The AppChanged below re-derives the app's caches and walks the path, once.
    DeferredPathWalk once(this, app);
    AllocationJoined(app, ask_hot_[ask].placeholder, ResourceOf(ask_hot_[ask]), out);
  }
  AppChanged(app);
}

void Partition::AllocationJoined(uint32_t app, bool placeholder, const Resource& resource,
                                 std::vector<Decision>* out) {
  if (placeholder) {
    PlaceholderAllocated(app, resource, out);
  } else {
    RunApplication(app, out);
  }
}

uint32_t Partition::AttachAllocation(uint32_t ask, uint32_t node, const Resource& resource,
                                     int64_t seq) {
  uint32_t slot;
  if (!free_allocations_.empty()) {
    slot = free_allocations_.back();
    free_allocations_.pop_back();
  } else {
    slot = static_cast<uint32_t>(allocations_.size());
    allocations_.emplace_back();
  }
  const uint32_t app = ask_hot_[ask].app;
  App& a = apps_[app];
  Node& n = nodes_[node];
  // Every field is written (a reused slot holds a released allocation).
  Allocation& alloc = allocations_[slot];
  FillAllocation(&alloc, ask, node, resource, seq);
  alloc.age = context_->next_allocation_age++;
  AddTo(&n.allocated, resource);
  SubFrom(&n.available, resource);
  n.allocations.push_back(slot);
  RefreshNode(node);
  asks_[ask].allocations.push_back(slot);
  AddTo(&a.allocated, resource);
  ++a.live_allocations;
  AddToPath(a.queue, &Queue::allocated, resource);
  TrackLimitUsage(app, resource, false, 0);
  return slot;
}

void Partition::PlaceAllocation(uint32_t ask, uint32_t node, std::string_view replaces,
                                std::vector<Decision>* out) {
  AskHot& hot = ask_hot_[ask];
  const int64_t seq = context_->next_allocation_seq++;
  AttachAllocation(ask, node, ResourceOf(hot), seq);
  // Filled in place: a Decision is too large to copy on every allocation.
  Decision& d = out->emplace_back();
  FillPlacement(&d, DecisionType::kAllocation, ask, node);
  d.seq = seq;
  d.placeholder = hot.placeholder;
  d.replaces = replaces;
  SetPending(ask, hot.pending - 1);
}

Decision Partition::PlacementDecision(DecisionType type, uint32_t ask, uint32_t node) const {
  Decision d;
  FillPlacement(&d, type, ask, node);
  return d;
}

void Partition::FillPlacement(Decision* out, DecisionType type, uint32_t ask, uint32_t node) const {
  const Ask& k = asks_[ask];
  const AskHot& hot = ask_hot_[ask];
  const App& a = apps_[hot.app];
  const AppSide& a_side = app_side_[hot.app];
  Decision& d = *out;
  d.type = type;
  d.partition = name_;
  d.queue = queue_side_[a.queue].path;
  d.app = a_side.id;
  d.ask = k.id;
  d.node = nodes_[node].id;
  d.priority = hot.priority;
  d.app_handle = AppHandleOf(hot.app);
  d.ask_handle = AskHandleOf(ask);
  d.node_handle = NodeHandleOf(node);
}

// YuniKorn's RunApplication event after an allocation.
void Partition::RunApplication(uint32_t app, std::vector<Decision>* out) {
  switch (apps_[app].state) {
    case AppState::kAccepted:
      // Starting (v1.2.0) or straight to Running (1.6+): the profile's state model.
      Transition(app, context_->profile->started_state, out);
      if (apps_[app].state == AppState::kStarting && apps_[app].stateaware_disabled) {
        Transition(app, AppState::kRunning, out);
      }
      break;
    case AppState::kStarting:
    case AppState::kCompleting:
      Transition(app, AppState::kRunning, out);
      break;
    default:
      break;
  }
}

bool Partition::Reserve(uint32_t ask, uint32_t node) {
  AskHot& hot = ask_hot_[ask];
  App& a = apps_[hot.app];
  Node& n = nodes_[node];
  for (const Reservation& r : a.reservations) {
    if (r.node == node) return false;
  }
  if (hot.reservations >= hot.pending || n.reservation || !FitIn(n.capacity, ResourceOf(hot))) {
    return false;
  }
  a.reservations.push_back({.ask = ask, .node = node, .created = context_->now});
  ++hot.reservations;
  n.reservation = std::make_pair(hot.app, ask);
  RefreshNode(node);
  ++total_reservations_;
  for (uint32_t q = a.queue; q != kNoSlot; q = queues_[q].parent) ++queues_[q].reservations;
  return true;
}

bool Partition::ReservationTimedOut(const Reservation& r) const {
  return context_->profile->reservations_time_out &&
         SaturatingSub(context_->now, r.created) > kReservationCancelAfterMs;
}

void Partition::Unreserve(uint32_t app, size_t index) {
  ALLOCORE_DCHECK(index < apps_[app].reservations.size());
  App& a = apps_[app];
  Reservation r = a.reservations[index];
  a.reservations.erase(a.reservations.begin() + static_cast<std::ptrdiff_t>(index));
  --ask_hot_[r.ask].reservations;
  nodes_[r.node].reservation.reset();
  RefreshNode(r.node);
  --total_reservations_;
  if (a.in_queue) {
    for (uint32_t q = a.queue; q != kNoSlot; q = queues_[q].parent) --queues_[q].reservations;
  }
}

void Partition::CancelReservationsOfAsk(uint32_t ask) {
  uint32_t app = ask_hot_[ask].app;
  for (size_t i = apps_[app].reservations.size(); i-- > 0;) {
    if (apps_[app].reservations[i].ask == ask) Unreserve(app, i);
  }
}

void Partition::CancelReservationOnNode(uint32_t node) {
  if (!nodes_[node].reservation) return;
  uint32_t app = nodes_[node].reservation->first;
  for (size_t i = apps_[app].reservations.size(); i-- > 0;) {
    if (apps_[app].reservations[i].node == node) Unreserve(app, i);
  }
}

Partition::Outcome Partition::TryReservedAllocate(uint32_t queue, bool* changed,
                                                  std::vector<Decision>* out) {
  const Queue& q = queues_[queue];
  if (q.reservations == 0) return Outcome::kNone;
  if (!q.leaf) {
    Outcome result = Outcome::kNone;
    ForEachChildInOrder(queue, [&](uint32_t child) {
      result = TryReservedAllocate(child, changed, out);
      return result != Outcome::kNone || *changed;
    });
    return result;
  }
  Resource headroom = Headroom(queue);
  for (auto [seq, app] : q.apps) {
    if (apps_[app].reservations.empty()) continue;
    if (apps_[app].state == AppState::kAccepted &&
        (!CanRunApp(app) || !LimitsAllowNewApp(app, nullptr))) {
      continue;
    }
    Outcome result = TryReservedAllocateApp(app, headroom, changed, out);
    if (result != Outcome::kNone) {
      if (apps_[app].state == AppState::kAccepted) MarkAllocatingAccepted(app);
      return result;
    }
    if (*changed) return Outcome::kNone;
  }
  return Outcome::kNone;
}

Partition::Outcome Partition::TryReservedAllocateApp(uint32_t app, const Resource& headroom,
                                                     bool* changed, std::vector<Decision>* out) {
  const std::vector<Reservation>& reservations = apps_[app].reservations;
  std::optional<Resource> limit_headroom = LimitHeadroom(app);
  auto fits = [&](const Resource& wanted) {
    return FitInMaxUndef(headroom, wanted) &&
           (!limit_headroom || FitInMaxUndef(*limit_headroom, wanted));
  };
  for (size_t i = 0; i < reservations.size(); ++i) {
    Reservation r = reservations[i];
    const AskHot& hot = ask_hot_[r.ask];
    if (!hot.alive || hot.pending == 0) {
      Unreserve(app, i);  // one clean-up per call
      *changed = true;
      return Outcome::kNone;
    }
    const Resource& resource = ResourceOf(hot);  // a live ask holds its shape
    if (!fits(resource)) {
      // The node goes free for others in this very cycle; the pass goes on.
      if (ReservationTimedOut(r)) Unreserve(app, i--);
      continue;
    }
    if (hot.has_required_node && !FitIn(nodes_[r.node].Available(), resource) &&
        !hot.preemption_triggered) {
      TryPreemption(r.ask, r.node);  // victims go when the cycle ends; the walk goes on
      continue;
    }
    uint32_t node = kNoSlot;
    if (RoomRefusal(apps_[app].queue, resource, r.node, &node) == Refusal::kNone) {
      Allocate(r.ask, r.node, r.node, out);
      return Outcome::kAllocated;
    }
  }
  // Second pass: the reserved ask on any other node (never for a required node).
  for (size_t i = 0; i < reservations.size(); ++i) {
    Reservation r = reservations[i];
    const AskHot& hot = ask_hot_[r.ask];
    const Resource& resource = ResourceOf(hot);
    if (hot.has_required_node) continue;
    if (!fits(resource)) continue;
    uint32_t node = kNoSlot;
    if (RoomRefusal(apps_[app].queue, resource, /*only_node=*/kNoSlot, &node) == Refusal::kNone) {
      Allocate(r.ask, node, r.node, out);
      return Outcome::kAllocated;
    }
  }
  return Outcome::kNone;
}

}  // namespace allocore::internal
