// The application state machine (YuniKorn's application states) and its timers: Starting,
// Completing, expiry, and the placeholder timer's firing.
#include "contract.h"
#include "message.h"
#include "partition.h"

namespace allocore::internal {

void Partition::EmitState(uint32_t app, AppState from, AppState to,
                          std::vector<Decision>* out) const {
  Decision& d = out->emplace_back();  // filled in place: a Decision is too large to copy cheaply
  d.type = DecisionType::kAppState;
  d.partition = name_;
  d.app = app_side_[app].id;
  d.app_handle = AppHandleOf(app);
  d.queue = apps_[app].queue == kNoSlot ? std::string_view() : queue_side_[apps_[app].queue].path;
  d.from = from;
  d.to = to;
}

void Partition::SetTimer(uint32_t app, TimerKind kind, int64_t due) {
  ALLOCORE_DCHECK(kind == TimerKind::kNone || due >= 0);
  AppSide& a_side = app_side_[app];
  if (a_side.timer != TimerKind::kNone) timers_.erase({a_side.timer_due, a_side.timer_seq, app});
  a_side.timer = kind;
  a_side.timer_due = due;
  a_side.timer_seq = context_->next_timer_seq++;
  if (kind != TimerKind::kNone) timers_.insert({due, a_side.timer_seq, app});
}

void Partition::Transition(uint32_t app, AppState to, std::vector<Decision>* out) {
  ALLOCORE_DCHECK(app < apps_.size() && apps_[app].alive);
  App& a = apps_[app];
  AppSide& a_side = app_side_[app];
  AppState from = a.state;
  if (from == to) return;
  SetTimer(app, TimerKind::kNone, 0);
  bool was_running = from == AppState::kStarting || from == AppState::kRunning;
  bool is_running = to == AppState::kStarting || to == AppState::kRunning;
  if (a.in_queue) {
    Queue& leaf = queues_[a.queue];
    if (from == AppState::kStarting) --leaf.starting_apps;
    if (to == AppState::kStarting) ++leaf.starting_apps;
    for (uint32_t q = a.queue; q != kNoSlot; q = queues_[q].parent) {
      Queue& queue = queues_[q];
      if (!was_running && is_running) {
        if (queue.max_apps == 0 || queue.running_apps < queue.max_apps) ++queue.running_apps;
        if (!queue.allocating_accepted.empty()) queue.allocating_accepted.erase(app);
      } else if (was_running && !is_running && queue.running_apps > 0) {
        --queue.running_apps;
      }
    }
  }
  if (a.in_queue && !was_running && is_running && !a_side.counted_in_limits) {
    TrackLimitUsage(app, Resource{}, false, +1);
    a_side.counted_in_limits = true;
  } else if (a_side.counted_in_limits && was_running && !is_running) {
    TrackLimitUsage(app, Resource{}, true, -1);
    a_side.counted_in_limits = false;
  }
  a.state = to;
  EmitState(app, from, to, out);
  switch (to) {
    case AppState::kStarting:
      SetTimer(app, TimerKind::kStarting, SaturatingAdd(context_->now, kStartingTimeoutMs));
      break;
    case AppState::kCompleting:
      SetTimer(app, TimerKind::kCompleting, SaturatingAdd(context_->now, kCompletingTimeoutMs));
      break;
    default:
      break;
  }
  if (a.in_queue) AppChanged(app);
}

void Partition::CheckCompletion(uint32_t app, std::vector<Decision>* out, bool ask_removal) {
  App& a = apps_[app];
  if (!a.alive || !a.in_queue) return;
  // YuniKorn: an ask removal completes an app with no allocation at all (placeholders
  // included); a release one with no real allocation left (hasZeroAllocations).
  int64_t held = ask_removal ? a.live_allocations : a.live_allocations - a.live_placeholders;
  if (!IsZero(a.pending) || held > 0) return;
  if (a.state == AppState::kAccepted || a.state == AppState::kStarting ||
      a.state == AppState::kRunning) {
    Transition(app, AppState::kCompleting, out);
  }
}

std::optional<std::pair<int64_t, int64_t>> Partition::NextTimer() const {
  if (timers_.empty()) return std::nullopt;
  const auto& [due, start_order, app] = *timers_.begin();
  return std::make_pair(due, start_order);
}

void Partition::FireTimers(std::vector<Decision>* out) {
  while (!timers_.empty() && std::get<0>(*timers_.begin()) <= context_->now) FireNextTimer(out);
}

void Partition::Terminate(uint32_t app, AppState to, std::vector<Decision>* out) {
  Transition(app, to, out);
  DetachApp(app);
  terminated_apps_.push_back(app);
  SetTimer(app, TimerKind::kExpire, SaturatingAdd(context_->now, kTerminatedTimeoutMs));
  RemoveDrainedQueues();
}

void Partition::FireNextTimer(std::vector<Decision>* out) {
  auto [due, start_order, app] = *timers_.begin();
  if (app_side_[app].placeholder_timer && app_side_[app].placeholder_timer_seq == start_order) {
    SetPlaceholderTimer(app, false, 0);
    int64_t saved = context_->now;
    context_->now = due;
    PlaceholderTimeout(app, out);
    context_->now = saved;
    return;
  }
  TimerKind kind = app_side_[app].timer;
  SetTimer(app, TimerKind::kNone, 0);
  int64_t saved_now = context_->now;
  context_->now = due;  // follow-up timers count from when this one fired
  switch (kind) {
    case TimerKind::kStarting:
      if (apps_[app].state == AppState::kStarting) Transition(app, AppState::kRunning, out);
      break;
    case TimerKind::kCompleting:
      if (apps_[app].state != AppState::kCompleting) break;
      if (apps_[app].live_placeholders > 0) {
        // YuniKorn releases the placeholders first; the last one's release completes the app.
        for (uint32_t alloc : PlaceholderAllocations(app)) {
          ReleaseAllocationSlot(alloc, ReleaseReason::kTimeout, out);
        }
        PlaceholderGone(app, out);
      } else {
        Terminate(app, AppState::kCompleted, out);
      }
      break;
    case TimerKind::kExpire: {
      AppState from = apps_[app].state;
      apps_[app].state = AppState::kExpired;
      EmitState(app, from, AppState::kExpired, out);
      std::erase(terminated_apps_, app);
      FreeApp(app);
      break;
    }
    case TimerKind::kNone:
      break;
  }
  context_->now = saved_now;
}

void Partition::Shutdown(std::vector<Decision>* out) {
  for (uint32_t app = 0; app < apps_.size(); ++app) {
    if (apps_[app].alive && apps_[app].in_queue) (void)RemoveApplication(app_side_[app].id, out);
  }
}

}  // namespace allocore::internal
