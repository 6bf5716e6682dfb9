// Asks added, updated as pods, removed; allocations released by the manager (every method
// validates its whole input before changing anything).
#include <algorithm>

#include "allocore/status_macros.h"
#include "contract.h"
#include "message.h"
#include "partition.h"

namespace allocore::internal {
namespace {

// Stands for a node id no node has (it matches no allocation).
constexpr uint32_t kUnknownNode = kNoSlot - 1;

}  // namespace

absl::Status Partition::CheckAskArgs(const AskArgs& args) const {
  if (args.id.empty()) return absl::InvalidArgumentError("empty ask id");
  if (args.count <= 0) {
    return absl::InvalidArgumentError(
        Cat("ask ", args.id, ": count must be at least 1, got ", args.count));
  }
  if (args.placeholder && args.task_group.empty()) {
    return absl::InvalidArgumentError(Cat("ask ", args.id, ": a placeholder needs a task_group"));
  }
  if (args.creation_time_millis && *args.creation_time_millis < 0) {
    return absl::InvalidArgumentError(
        Cat("ask ", args.id, ": creation time ", *args.creation_time_millis, " ms is negative"));
  }
  return absl::OkStatus();
}

absl::Status Partition::AddAsk(const AskSpec& spec, std::vector<Decision>* out) {
  uint32_t app = FindApp(spec.app);
  if (app == kNoSlot) {
    return absl::NotFoundError(Cat("unknown application ", spec.app));
  }
  // `resources` stays empty until the call is known to go ahead: names become type ids then.
  AskArgs args = AskArgsOf(spec);
  ALLOCORE_RETURN_IF_ERROR(CheckAskArgs(args));
  // Names resolve to type ids here (a new name registers a type); a refused ask takes back the
  // types it registered.
  const int types_before = context_->types.size();
  auto resource = ToResource(spec.resources, "ask ", spec.id);
  if (!resource.ok()) {
    context_->types.TruncateTo(types_before);
    return resource.status();
  }
  args.resources = *resource;
  absl::StatusOr<uint32_t> added = AddAskTo(app, args, out);
  if (!added.ok()) context_->types.TruncateTo(types_before);
  return added.status();
}

absl::StatusOr<uint32_t> Partition::AddAskTo(uint32_t app, const AskArgs& args,
                                             std::vector<Decision>* out) {
  ALLOCORE_RETURN_IF_ERROR(CheckAskArgs(args));
  const Resource& resource = args.resources;
  for (int t = 0; t < kMaxResourceTypes; ++t) {
    if (!resource.Has(t)) continue;
    if (t >= context_->types.size()) {
      return absl::InvalidArgumentError(
          Cat("ask ", args.id, ": resource type id ", t, " is not registered"));
    }
    if (resource.Get(t) < 0) {
      return absl::InvalidArgumentError(Cat("ask ", args.id, ": negative quantity ",
                                            resource.Get(t), " for resource '",
                                            context_->types.Name(t), "'"));
    }
  }
  if (IsZero(resource)) {
    return absl::InvalidArgumentError(Cat("ask ", args.id, ": resources must not be zero"));
  }
  // Pending is kept exact (kernel/README.md decision 22): refuse what would not fit int64. The
  // root's pending bounds every app's and queue's, since quantities are never negative.
  AppSide& a_side = app_side_[app];
  auto existing = a_side.asks_by_id.find(args.id);
  if (existing != a_side.asks_by_id.end() && context_->profile->asks_are_pods) {
    const uint32_t known = existing->second;
    if (absl::StatusOr<bool> updated = UpdateKnownPod(known, resource, out); !updated.ok()) {
      return updated.status();
    } else if (*updated) {
      return known;
    }
  }
  Resource total;
  int type = MultiplyExact(resource, args.count, &total);
  if (type < 0) {
    Resource others = queues_[root_].pending;
    if (existing != a_side.asks_by_id.end()) {
      const AskHot& old_hot = ask_hot_[existing->second];
      others = Sub(others, Multiply(ResourceOf(old_hot), old_hot.pending));
    }
    type = AddExact(others, total, &total);
  }
  if (type >= 0) {
    return absl::OutOfRangeError(Cat("ask ", args.id, ": ", args.count,
                                     " repeat(s) would take the partition's pending ",
                                     context_->types.Name(type), " past the int64 limit"));
  }
  uint32_t ask;
  if (existing != a_side.asks_by_id.end()) {
    // Same key again replaces the ask (a new creation time). Live allocations and reservations
    // stay: YuniKorn keys both by the ask key, so they carry over to the new ask.
    ask = existing->second;
    SetPending(ask, 0);
  } else {
    ask = NewAskSlot();
    asks_[ask].id = context_->names.Intern(args.id);
    ask_hot_[ask].app = app;
    ask_hot_[ask].alive = true;
    app_side_[app].asks_by_id[asks_[ask].id] = ask;
    asks_[ask].first_add_seq = context_->next_ask_seq;  // the add_seq it takes below
    app_side_[app].asks.emplace(asks_[ask].first_add_seq, ask);
  }
  Ask& k = asks_[ask];
  AskHot& hot = ask_hot_[ask];
  hot.removed = false;
  uint32_t shape = shapes_.Acquire(resource);  // before the release: a re-add may keep its shape
  shapes_.Release(hot.shape);
  hot.shape = shape;
  DescribeAsk(ask, args);
  if (hot.placeholder) {
    TaskGroup* group = FindTaskGroup(app, k.task_group);
    if (group == nullptr) {
      app_side_[app].task_groups.push_back({.name = k.task_group});
      group = &app_side_[app].task_groups.back();
    }
    ++group->count;  // once per AddAsk call, not per repeat (YuniKorn's placeholderData.Count)
  }
  k.create_time = context_->now;
  if (args.creation_time_millis && context_->profile->ask_creation_time_counts) {
    // 1.7+: the pod's creation time orders the ask and is the earliest its app was submitted.
    k.create_time = *args.creation_time_millis;
    App& owner = apps_[app];
    owner.submission_time = std::min(owner.submission_time, k.create_time);
  }
  k.add_seq = context_->next_ask_seq++;
  SetPending(ask, args.count);
  {
    DeferredPathWalk once(this, app);  // the AppChanged below, once
    App& owner = apps_[app];
    if (owner.state == AppState::kNew) {
      Transition(app, AppState::kAccepted, out);
    } else if (owner.state == AppState::kCompleting) {
      Transition(app, AppState::kRunning, out);
    }
  }
  AppChanged(app);
  return ask;
}

absl::StatusOr<bool> Partition::UpdateKnownPod(uint32_t ask, const Resource& resource,
                                               std::vector<Decision>* out) {
  // An ask removed while its allocations live is gone from the application: the key is new.
  if (ask_hot_[ask].removed) return false;
  if (ask_hot_[ask].pending > 0) {
    absl::Status updated = UpdateAskAt(ask, resource, out);
    if (!updated.ok()) return updated;
    return true;
  }
  if (!asks_[ask].allocations.empty()) {
    absl::Status updated = UpdateAllocationAt(ask, kNoSlot, resource, out);
    if (!updated.ok()) return updated;
    return true;
  }
  return false;  // nothing pending, nothing live: a new ask under the old key
}

void Partition::ListRequiredNodeAsk(uint32_t ask, bool pending) {
  if (pending) {
    required_node_pending_.insert(ask);
  } else {
    required_node_pending_.erase(ask);
  }
}

void Partition::SetPending(uint32_t ask, int64_t pending) {
  ALLOCORE_DCHECK(pending >= 0);
  AskHot& hot = ask_hot_[ask];
  const Resource& resource = ResourceOf(hot);
  App& a = apps_[hot.app];
  // The order key reads the cold record: only when the ask joins or leaves its app's order, not
  // for each allocated repeat.
  if ((hot.pending > 0) != (pending > 0)) {
    const Ask& k = asks_[ask];
    AskKey key{-int64_t{hot.priority}, k.create_time, k.add_seq, ask};
    if (pending > 0) {
      a.ask_order.insert(key);
      if (hot.has_required_node) ListRequiredNodeAsk(ask, true);
    } else {
      a.ask_order.erase(key);
      if (hot.has_required_node) ListRequiredNodeAsk(ask, false);
    }
  }
  if (pending == hot.pending - 1) {
    // One repeat allocated: the hot path.
    SubFromClampNegative(&a.pending, resource);
    if (a.in_queue) SubFromPath(a.queue, &Queue::pending, resource);
  } else {
    // Old total off, new total on; a side that is zero is an empty resource, which changes
    // nothing, so it is skipped (adding an ask and dropping one, most calls, have one).
    if (hot.pending != 0) {
      const Resource old_total = Multiply(resource, hot.pending);
      SubFromClampNegative(&a.pending, old_total);
      if (a.in_queue) SubFromPath(a.queue, &Queue::pending, old_total);
    }
    if (pending != 0) {
      const Resource new_total = Multiply(resource, pending);
      AddTo(&a.pending, new_total);
      if (a.in_queue) AddToPath(a.queue, &Queue::pending, new_total);
    }
  }
  hot.pending = pending;
}

void Partition::RemoveAskSlot(uint32_t ask) {
  ALLOCORE_DCHECK(ask < ask_hot_.size() && ask_hot_[ask].alive);
  CancelReservationsOfAsk(ask);
  SetPending(ask, 0);
  Ask& k = asks_[ask];
  AskHot& hot = ask_hot_[ask];
  AppSide& a_side = app_side_[hot.app];
  a_side.asks_by_id.erase(k.id);
  a_side.asks.erase(k.first_add_seq);
  // Live allocations keep pointing at the slot until released; free it only when unused.
  hot.alive = false;
  if (k.allocations.empty()) {
    shapes_.Release(hot.shape);
    hot.shape = ResourceShapes::kNone;
    FreeSlot(ask, &free_asks_, &ask_generations_);
  }
}

void Partition::DescribeAsk(uint32_t ask, const AskArgs& args) {
  Ask& k = asks_[ask];
  AskHot& hot = ask_hot_[ask];
  hot.priority = args.priority;
  hot.placeholder = args.placeholder;
  k.allow_preemption = args.allow_preemption;
  k.originator = args.originator;
  hot.preemption_triggered = false;  // a new ask object in YuniKorn, even under the same key
  k.preempt_checked_at = kNeverChecked;
  k.task_group =
      args.task_group.empty() ? std::string_view() : context_->names.Intern(args.task_group);
  k.required_node =
      args.required_node.empty() ? std::string_view() : context_->names.Intern(args.required_node);
  hot.gang_member = !k.task_group.empty();
  hot.has_required_node = !k.required_node.empty();
}

absl::StatusOr<uint32_t> Partition::NamedAsk(std::string_view app_id,
                                             std::string_view ask_id) const {
  uint32_t app = FindApp(app_id);
  if (app == kNoSlot) return absl::NotFoundError(Cat("unknown application ", app_id));
  auto it = app_side_[app].asks_by_id.find(ask_id);
  if (it == app_side_[app].asks_by_id.end()) {
    return absl::NotFoundError(Cat("application ", app_id, " has no ask ", ask_id));
  }
  return it->second;
}

absl::Status Partition::RemoveAsk(std::string_view app_id, std::string_view ask_id,
                                  std::vector<Decision>* out) {
  absl::StatusOr<uint32_t> ask = NamedAsk(app_id, ask_id);
  if (!ask.ok()) return ask.status();
  return RemoveAskAt(*ask, out);
}

absl::Status Partition::RemoveAskAt(uint32_t ask, std::vector<Decision>* out) {
  if (ask_hot_[ask].removed) {
    return absl::NotFoundError(
        Cat("application ", app_side_[ask_hot_[ask].app].id, " has no ask ", asks_[ask].id));
  }
  const uint32_t app = ask_hot_[ask].app;
  DropAsk(ask);
  AppChanged(app);
  CheckCompletion(app, out, /*ask_removal=*/true);
  return absl::OkStatus();
}

void Partition::DropAsk(uint32_t ask) {
  CancelReservationsOfAsk(ask);
  SetPending(ask, 0);
  if (asks_[ask].allocations.empty()) {
    RemoveAskSlot(ask);
  } else {
    ask_hot_[ask].removed = true;  // releasable until its last allocation goes
  }
}

absl::Status Partition::ReleaseAllocation(std::string_view app_id, std::string_view ask_id,
                                          std::string_view node_id, int64_t seq,
                                          std::vector<Decision>* out) {
  absl::StatusOr<uint32_t> ask = NamedAsk(app_id, ask_id);
  if (!ask.ok()) return ask.status();
  uint32_t node = kNoSlot;
  if (!node_id.empty()) {
    auto n = nodes_by_id_.find(node_id);
    // An unknown node holds no allocation: the same refusal as a known node without one.
    node = n == nodes_by_id_.end() ? kUnknownNode : n->second;
  }
  return ReleaseAllocationAt(*ask, node, node_id, seq, out);
}

absl::Status Partition::ReleaseAllocationAt(uint32_t ask, uint32_t node, std::string_view node_id,
                                            int64_t seq, std::vector<Decision>* out) {
  const uint32_t app = ask_hot_[ask].app;
  uint32_t chosen = kNoSlot;
  for (uint32_t alloc : asks_[ask].allocations) {
    if ((node == kNoSlot || allocations_[alloc].node == node) &&
        (seq == 0 || allocations_[alloc].seq == seq)) {
      chosen = alloc;
      break;
    }
  }
  if (chosen == kNoSlot) {
    // A registered node names itself (calls by handle pass no id); an unknown one as given.
    std::string_view named = node < nodes_.size() ? nodes_[node].id : node_id;
    return absl::NotFoundError(Cat("ask ", asks_[ask].id, " of application ", app_side_[app].id,
                                   " has no live allocation", seq == 0 ? "" : " with seq ",
                                   seq == 0 ? std::string() : Cat(seq),
                                   node == kNoSlot ? "" : " on node ", named));
  }
  // v1.2.0: the ask stays (with no pending repeats) until it is removed or the app goes:
  // remove_ask on a fully served ask is not an error.
  bool placeholder = allocations_[chosen].placeholder;
  ReleaseAllocationSlot(chosen, ReleaseReason::kReleased, out);
  // 1.5+: the pod is gone, and with it its ask once no repeat is left pending or live.
  if (asks_[ask].allocations.empty() &&
      (ask_hot_[ask].removed || (context_->profile->asks_are_pods && ask_hot_[ask].pending == 0))) {
    RemoveAskSlot(ask);
  }
  if (placeholder) {
    PlaceholderGone(app, out);
  } else {
    CheckCompletion(app, out, /*ask_removal=*/false);
  }
  return absl::OkStatus();
}

void Partition::ReleaseAllocationSlot(uint32_t allocation, ReleaseReason reason,
                                      std::vector<Decision>* out, uint32_t by_ask) {
  ALLOCORE_DCHECK(allocation < allocations_.size() && allocations_[allocation].live);
  Allocation& alloc = allocations_[allocation];
  App& a = apps_[alloc.app];
  AppSide& a_side = app_side_[alloc.app];
  Ask& k = asks_[alloc.ask];
  if (alloc.placeholder) {
    a.allocated_placeholder = SubClampNegative(a.allocated_placeholder, alloc.resource);
    --a.live_placeholders;
    --live_placeholders_;
    // Every placeholder that leaves without being replaced counts as timed out for its group
    // (YUNIKORN-2926; v1.2.0 did not count the too-small ones, whose real ask then waited for
    // ever). Replacements are counted by ReplacePlaceholder.
    if (reason != ReleaseReason::kReplaced) {
      if (TaskGroup* group = FindTaskGroup(alloc.app, alloc.task_group)) ++group->timed_out;
    }
  }
  Node& n = nodes_[alloc.node];
  n.allocated = SubClampNegative(n.allocated, alloc.resource);
  n.RecomputeAvailable();
  auto on_node = std::find(n.allocations.begin(), n.allocations.end(), allocation);
  ALLOCORE_DCHECK(on_node != n.allocations.end());
  n.allocations.erase(on_node);
  RefreshNode(alloc.node);
  std::erase(k.allocations, allocation);
  a.allocated = SubClampNegative(a.allocated, alloc.resource);
  --a.live_allocations;
  if (a.in_queue) {
    SubFromPath(a.queue, &Queue::allocated, alloc.resource);
    TrackLimitUsage(alloc.app, alloc.resource, true, 0);
  }
  Decision d;
  d.type = DecisionType::kRelease;
  d.partition = name_;
  d.queue = a.in_queue ? queue_side_[a.queue].path : std::string_view();
  d.app = a_side.id;
  d.ask = k.id;
  d.node = n.id;
  d.app_handle = AppHandleOf(alloc.app);
  d.ask_handle = AskHandleOf(alloc.ask);
  d.node_handle = NodeHandleOf(alloc.node);
  d.release_reason = reason;
  d.seq = alloc.seq;  // which allocation goes (contract version 3)
  d.placeholder = alloc.placeholder;
  if (by_ask != kNoSlot) {
    d.by_app = app_side_[ask_hot_[by_ask].app].id;
    d.by_ask = asks_[by_ask].id;
  }
  out->push_back(d);
  alloc.live = false;
  free_allocations_.push_back(allocation);
  AppChanged(alloc.app);
}

}  // namespace allocore::internal
