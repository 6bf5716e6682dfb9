// Gang scheduling (YuniKorn core v1.2.0, objects/application.go): placeholders are allocated
// like any ask; a real ask of the same task group takes an allocated placeholder's place in
// the placeholder pass (after reservations, before the regular walk); a per-application timer
// releases the placeholders that were never replaced. The resource manager's confirmation of a
// replacement or a release is immediate here. Decisions taken: kernel/README.md, decision 23.
#include <algorithm>

#include "message.h"
#include "partition.h"

namespace allocore::internal {
namespace {

// Resources.Equals: every type of either side, a missing type reads 0.
bool SameQuantities(const Resource& a, const Resource& b) {
  for (int k = 0; k < kMaxResourceTypes; ++k) {
    if (a.Get(k) != b.Get(k)) return false;
  }
  return true;
}

// The real ask fits the placeholder when no type of it is larger (a type the placeholder
// lacks reads 0).
bool NotLarger(const Resource& real, const Resource& placeholder) {
  for (int k = 0; k < kMaxResourceTypes; ++k) {
    if (real.Get(k) > placeholder.Get(k)) return false;
  }
  return true;
}

}  // namespace

TaskGroup* Partition::FindTaskGroup(uint32_t app, std::string_view name) {
  for (TaskGroup& group : app_side_[app].task_groups) {
    if (group.name == name) return &group;
  }
  return nullptr;
}

bool Partition::WaitsForReplacement(uint32_t ask) const {
  const Ask& k = asks_[ask];
  const AskHot& hot = ask_hot_[ask];
  return WaitsForReplacement(hot.app, k.task_group, hot.placeholder);
}

bool Partition::WaitsForReplacement(uint32_t app, std::string_view task_group,
                                    bool placeholder) const {
  if (placeholder || task_group.empty()) return false;
  for (const TaskGroup& group : app_side_[app].task_groups) {
    if (group.name == task_group) return group.count > group.replaced + group.timed_out;
  }
  return false;
}

void Partition::SetPlaceholderTimer(uint32_t app, bool on, int64_t due) {
  AppSide& a_side = app_side_[app];
  if (a_side.placeholder_timer) {
    timers_.erase({a_side.placeholder_timer_due, a_side.placeholder_timer_seq, app});
  }
  a_side.placeholder_timer = on;
  if (!on) return;
  a_side.placeholder_timer_due = due;
  a_side.placeholder_timer_seq = context_->next_timer_seq++;
  timers_.insert({due, a_side.placeholder_timer_seq, app});
}

std::vector<uint32_t> Partition::PlaceholderAllocations(uint32_t app) const {
  std::vector<std::pair<int64_t, uint32_t>> found;
  for (const auto& [first_seq, ask] : app_side_[app].asks) {
    for (uint32_t alloc : asks_[ask].allocations) {
      if (allocations_[alloc].placeholder) found.push_back({allocations_[alloc].age, alloc});
    }
  }
  std::sort(found.begin(), found.end());
  std::vector<uint32_t> out;
  out.reserve(found.size());
  for (auto [seq, alloc] : found) out.push_back(alloc);
  return out;
}

// addAllocationInternal for a placeholder: the first one starts the timer (only while the app
// is Accepted); the app moves on once its placeholders add up to its placeholder_ask.
void Partition::PlaceholderAllocated(uint32_t app, const Resource& resource,
                                     std::vector<Decision>* out) {
  App& a = apps_[app];
  AppSide& a_side = app_side_[app];
  if (a.live_placeholders == 0 && !a_side.placeholder_timer && a.state == AppState::kAccepted) {
    SetPlaceholderTimer(app, true, SaturatingAdd(context_->now, a_side.placeholder_timeout));
  }
  AddTo(&a.allocated_placeholder, resource);
  ++a.live_placeholders;
  ++live_placeholders_;
  if (SameQuantities(a.allocated_placeholder, a_side.placeholder_ask)) RunApplication(app, out);
}

// removeAllocationInternal once the app's placeholders are all gone: the timer stops, and a
// failing app fails, a resuming one is accepted again, an app with nothing left completes.
void Partition::PlaceholderGone(uint32_t app, std::vector<Decision>* out) {
  App& a = apps_[app];
  AppSide& a_side = app_side_[app];
  if (!a.alive || !a.in_queue || a.live_placeholders > 0) return;
  SetPlaceholderTimer(app, false, 0);
  bool nothing_left = IsZero(a.pending) && a.live_allocations == 0;
  switch (a.state) {
    case AppState::kFailing:
      Terminate(app, AppState::kFailed, out);
      return;
    case AppState::kResuming:
      Transition(app, AppState::kAccepted, out);
      return;
    case AppState::kCompleting:
      // removeAllocationInternal: with the timer stopped, or with nothing pending and no real
      // allocation left (hasZeroAllocations), the app completes at once.
      if (a_side.timer == TimerKind::kNone || nothing_left) {
        Terminate(app, AppState::kCompleted, out);
      }
      return;
    case AppState::kAccepted:
    case AppState::kStarting:
    case AppState::kRunning:
      if (nothing_left) Transition(app, AppState::kCompleting, out);
      return;
    default:
      return;
  }
}

template <typename Fn>
static bool ForEachChild(const Order& order, Fn&& fn) {
  for (const OrderEntry& key : order) {
    if (fn(key.slot)) return true;
  }
  return false;
}

// Queue.TryPlaceholderAllocate: the regular walk's order, without headroom or
// maxapplications checks.
Partition::Outcome Partition::TryPlaceholderAllocate(uint32_t queue, bool* released,
                                                     std::vector<Decision>* out) {
  const Queue& q = queues_[queue];
  if (!q.leaf) {
    Outcome result = Outcome::kNone;
    ForEachChild(q.order, [&](uint32_t child) {
      result = TryPlaceholderAllocate(child, released, out);
      return result != Outcome::kNone || *released;
    });
    return result;
  }
  uint32_t admitted = AdmittedAcceptedApp(q);
  bool stateaware = q.props.sort_policy == AppSortPolicy::kStateAware;
  for (const OrderEntry& key : q.order) {
    uint32_t app = key.slot;
    if (apps_[app].live_placeholders == 0) continue;
    if (stateaware && apps_[app].state == AppState::kAccepted && app != admitted) continue;
    Outcome result = TryPlaceholderAllocateApp(app, released, out);
    if (result != Outcome::kNone || *released) return result;
  }
  return Outcome::kNone;
}

// Application.tryPlaceholderAllocate: real asks of a task group in ask order, each against the
// group's placeholders, oldest first. A placeholder smaller than the real ask is released
// (YuniKorn sends it back as a timeout, and counts it as one) and the search goes on; one that
// is large enough is replaced on its node.
Partition::Outcome Partition::TryPlaceholderAllocateApp(uint32_t app, bool* released,
                                                        std::vector<Decision>* out) {
  std::vector<uint32_t> candidates;
  for (const AskKey& key : apps_[app].ask_order) {
    const Ask& k = asks_[key.slot];
    const AskHot& hot = ask_hot_[key.slot];
    if (!hot.placeholder && !k.task_group.empty()) candidates.push_back(key.slot);
  }
  for (uint32_t ask : candidates) {
    for (uint32_t placeholder : PlaceholderAllocations(app)) {
      const Allocation& p = allocations_[placeholder];
      if (p.task_group != asks_[ask].task_group) continue;
      if (!NotLarger(ResourceOf(ask_hot_[ask]), p.resource)) {
        uint32_t placeholder_ask = p.ask;
        ReleaseAllocationSlot(placeholder, ReleaseReason::kTimeout, out);
        if (ask_hot_[placeholder_ask].removed && asks_[placeholder_ask].allocations.empty()) {
          RemoveAskSlot(placeholder_ask);
        }
        PlaceholderGone(app, out);
        *released = true;
        if (!apps_[app].alive || !apps_[app].in_queue) return Outcome::kNone;
        continue;
      }
      ReplacePlaceholder(ask, placeholder, out);
      return Outcome::kAllocated;
    }
  }
  return Outcome::kNone;
}

// The replacement as confirmed by the resource manager: the placeholder leaves (node, queue,
// app and user accounting), then the real allocation takes its node. The node's free space is
// the difference, exactly (v1.2.0 leaked it when the real ask was smaller; fixed later).
void Partition::ReplacePlaceholder(uint32_t ask, uint32_t placeholder, std::vector<Decision>* out) {
  const uint32_t app = ask_hot_[ask].app;
  const uint32_t node = allocations_[placeholder].node;
  const uint32_t placeholder_ask = allocations_[placeholder].ask;
  const std::string_view replaced_id = asks_[placeholder_ask].id;  // the slot may be freed below
  const bool had_real = apps_[app].live_allocations > apps_[app].live_placeholders;
  if (TaskGroup* group = FindTaskGroup(app, asks_[ask].task_group)) ++group->replaced;

  std::vector<Decision> released;
  ReleaseAllocationSlot(placeholder, ReleaseReason::kReplaced, &released);
  if (ask_hot_[placeholder_ask].removed && asks_[placeholder_ask].allocations.empty()) {
    RemoveAskSlot(placeholder_ask);
  }
  if (apps_[app].live_placeholders == 0) SetPlaceholderTimer(app, false, 0);

  // The decision stream shows the real allocation first, then the placeholder's release.
  PlaceAllocation(ask, node, replaced_id, out);
  out->insert(out->end(), released.begin(), released.end());
  // YuniKorn: the first replacement does not move the app (no real allocation yet), later
  // ones do, like any allocation.
  if (had_real) RunApplication(app, out);
  AppChanged(app);
}

// timeoutPlaceholderProcessing. A started app only loses its unused placeholders; an app still
// waiting for its gang resumes (soft) or fails (hard): every ask is dropped and every
// placeholder released, and the last release moves it on.
void Partition::PlaceholderTimeout(uint32_t app, std::vector<Decision>* out) {
  App& a = apps_[app];
  AppSide& a_side = app_side_[app];
  if (!a.alive || !a.in_queue) return;
  bool started = a.state == AppState::kStarting || a.state == AppState::kRunning ||
                 a.state == AppState::kCompleting;
  if (started && a.live_placeholders > 0) {
    for (uint32_t alloc : PlaceholderAllocations(app)) {
      uint32_t ask = allocations_[alloc].ask;
      ReleaseAllocationSlot(alloc, ReleaseReason::kTimeout, out);  // counts it as timed out
      if (ask_hot_[ask].removed && asks_[ask].allocations.empty()) RemoveAskSlot(ask);
      PlaceholderGone(app, out);
      if (!apps_[app].alive || !apps_[app].in_queue) return;
    }
    return;
  }
  if (a_side.gang_hard) {
    if (a.state == AppState::kNew || a.state == AppState::kAccepted ||
        a.state == AppState::kStarting || a.state == AppState::kRunning) {
      Transition(app, AppState::kFailing, out);
    }
  } else if (a.state == AppState::kNew || a.state == AppState::kAccepted) {
    Transition(app, AppState::kResuming, out);
  }
  std::vector<uint32_t> dropped;  // in the order the current asks were added
  for (const auto& [first_seq, ask] : app_side_[app].asks) {
    if (!ask_hot_[ask].removed && ask_hot_[ask].pending > 0) dropped.push_back(ask);
  }
  std::sort(dropped.begin(), dropped.end(),
            [&](uint32_t l, uint32_t r) { return asks_[l].add_seq < asks_[r].add_seq; });
  for (uint32_t ask : dropped) {
    const Ask& k = asks_[ask];
    const AskHot& hot = ask_hot_[ask];
    Decision d;
    d.type = DecisionType::kAskRemoved;
    d.partition = name_;
    d.queue = queue_side_[apps_[app].queue].path;
    d.app = app_side_[app].id;
    d.ask = k.id;
    d.app_handle = AppHandleOf(app);
    d.ask_handle = AskHandleOf(ask);
    d.count = hot.pending;
    d.release_reason = ReleaseReason::kTimeout;
    out->push_back(d);
  }
  RemoveAllAsks(app);
  for (uint32_t alloc : PlaceholderAllocations(app)) {
    uint32_t ask = allocations_[alloc].ask;
    ReleaseAllocationSlot(alloc, ReleaseReason::kTimeout, out);
    if (ask_hot_[ask].removed && asks_[ask].allocations.empty()) RemoveAskSlot(ask);
  }
  if (apps_[app].alive && apps_[app].in_queue) {
    for (TaskGroup& group : app_side_[app].task_groups) group.timed_out = group.count;
    PlaceholderGone(app, out);
  }
}

void Partition::RemoveAllAsks(uint32_t app) {
  for (uint32_t ask : app_side_[app].AskSlots()) {
    if (!ask_hot_[ask].removed) DropAsk(ask);
  }
  AppChanged(app);
}

}  // namespace allocore::internal
