// Applications admitted (placement, ACLs, limits, forced creation), removed and forgotten
// (every method validates its whole input before changing anything).
#include "absl/strings/ascii.h"
#include "contract.h"
#include "message.h"
#include "partition.h"
#include "slots.h"

namespace allocore::internal {

absl::Status Partition::AddApplication(const AppSpec& spec, std::vector<Decision>* out) {
  if (spec.id.empty()) return absl::InvalidArgumentError("add_app: empty application id");
  if (spec.placeholder_timeout_millis < 0) {
    return absl::InvalidArgumentError(Cat("add_app: application ", spec.id,
                                          ": placeholder_timeout must not be negative, got ",
                                          spec.placeholder_timeout_millis, " ms"));
  }
  const int types_before = context_->types.size();
  Resource placeholder_ask;
  if (!spec.placeholder_ask.empty()) {
    auto converted =
        ToResource(spec.placeholder_ask, Cat("application ", spec.id, " placeholder_ask"));
    if (!converted.ok()) {
      context_->types.TruncateTo(types_before);
      return converted.status();
    }
    placeholder_ask = *converted;
  }
  auto reject = [&](std::string reason) {
    context_->types.TruncateTo(types_before);
    const std::string_view id = context_->names.Intern(spec.id);
    Decision d;
    d.type = DecisionType::kAppRejected;
    d.partition = name_;
    d.app = id;
    d.reason = std::move(reason);
    out->push_back(std::move(d));
    // Rejected applications are remembered until they expire, like completed ones.
    uint32_t slot = NewAppSlot();
    App& rejected = apps_[slot];
    AppSide& rejected_side = app_side_[slot];
    rejected_side.id = id;
    rejected.state = AppState::kRejected;
    rejected.alive = true;
    rejected.submission_seq = context_->next_submission_seq++;
    terminated_apps_.push_back(slot);
    SetTimer(slot, TimerKind::kExpire, SaturatingAdd(context_->now, kTerminatedTimeoutMs));
    return absl::OkStatus();
  };
  const Profile& profile = *context_->profile;
  const bool forced =
      profile.placement_fallback == PlacementFallback::kRootDefault && IsCreateForced(spec.tags);
  std::string_view user;
  std::vector<std::string_view> groups;
  if (spec.user.empty() && forced) {
    // 1.6+: a forced application without a user runs as the anonymous user.
    user = context_->names.Intern(kAnonymousUser);
    groups.push_back(context_->names.Intern(kAnonymousGroup));
  } else if (spec.user.empty()) {
    return reject(Cat("application ", spec.id, " has no user: empty user cannot resolve"));
  } else {
    if (profile.name_charset == NameCharset::kWide && !spec.groups.empty() &&
        !IsValidUserName(spec.user, NameCharset::kWide)) {
      // 1.6+ check a user that comes with its groups (YUNIKORN-2656).
      return reject(Cat("application ", spec.id, " rejected: invalid username ", spec.user,
                        ", it contains invalid characters"));
    }
    // The user is resolved (and the cache updated) before any other check, as in YuniKorn.
    user = context_->names.Intern(spec.user);
    groups = context_->ResolveGroups(user, spec.groups);
  }
  if (apps_by_id_.contains(spec.id)) {
    return reject(Cat("application ", spec.id, " already exists in partition ", name_));
  }
  uint32_t queue = kNoSlot;
  bool recovery_queue = false;
  if (!placement_.empty()) {
    auto target = PlaceApplication(spec, user, groups);
    if (!target.ok()) return reject(std::string(target.status().message()));
    recovery_queue = forced && *target == kRecoveryQueuePath;
    queue = FindQueue(*target);
    if (queue == kNoSlot) {
      auto created = recovery_queue ? RecoveryQueue() : CreateDynamicQueues(*target);
      if (!created.ok()) {
        return reject(Cat("failed to create rule based queue ", *target, " for application ",
                          spec.id, " of user ", spec.user, ": ", created.status().message()));
      }
      queue = *created;
    }
  } else {
    queue = FindQueue(spec.queue);
    if (queue == kNoSlot) {
      return reject(Cat("application ", spec.id, " rejected: queue '", spec.queue,
                        "' does not exist and there are no placement rules to create it"));
    }
  }
  if (!queues_[queue].leaf) {
    return reject(Cat("application ", spec.id, " rejected: queue ", queue_side_[queue].path,
                      " is a parent queue, applications need a leaf"));
  }
  if (!recovery_queue && !SubmitAllowed(queue, user, groups)) {
    return reject(Cat("no submit permission on queue ", queue_side_[queue].path, " for user ",
                      spec.user,
                      " (submitacl and adminacl of the queue and its ancestors deny it)"));
  }
  // Before the gang check, as in YuniKorn: the limits the tags set count for it.
  ApplyNamespaceTags(queue, spec.tags, recovery_queue);
  if (!IsZero(placeholder_ask)) {
    // YuniKorn: task groups only in fifo or stateaware queues, within every max on the path. A
    // dynamic queue created for the refused app goes with it.
    auto reject_gang = [&](std::string reason) {
      absl::Status status = reject(std::move(reason));
      if (queues_[queue].dynamic) RemoveDrainedQueues();
      return status;
    };
    if (queues_[queue].props.sort_policy == AppSortPolicy::kFair) {
      return reject_gang(
          Cat("queue ", queue_side_[queue].path, " cannot run application ", spec.id,
              " with task group request: unsupported sort type (gang scheduling needs "
              "a fifo or stateaware queue)"));
    }
    for (uint32_t q = queue; q != root_; q = queues_[q].parent) {
      if (queues_[q].max && !FitInMaxUndef(*queues_[q].max, placeholder_ask)) {
        return reject_gang(Cat("queue ", queue_side_[queue].path, " cannot fit application ",
                               spec.id, ": task group request is larger than the max of queue ",
                               queue_side_[q].path));
      }
    }
  }
  uint32_t slot = NewAppSlot();
  App& a = apps_[slot];
  AppSide& a_side = app_side_[slot];
  a_side.id = context_->names.Intern(spec.id);
  a.queue = queue;
  a_side.gang_hard = spec.gang_style == GangStyle::kHard;
  a_side.placeholder_ask = placeholder_ask;
  if (spec.placeholder_timeout_millis > 0) {
    a_side.placeholder_timeout = spec.placeholder_timeout_millis;
  }
  a_side.user = user;
  a_side.groups = std::move(groups);
  a.submission_seq = context_->next_submission_seq++;
  a.submission_time = context_->now;
  a.alive = true;
  a.in_queue = true;
  for (const auto& [key, value] : spec.tags) {
    if (absl::AsciiStrToLower(key) == "application.stateaware.disable" && !value.empty()) {
      a.stateaware_disabled = true;
    }
  }
  apps_by_id_[a_side.id] = slot;
  queues_[queue].apps.insert({a.submission_seq, slot});
  if (has_limits_) app_side_[slot].limit_group = ChooseLimitGroup(slot);
  return absl::OkStatus();
}

absl::Status Partition::RemoveApplication(std::string_view id, std::vector<Decision>* out) {
  uint32_t app = FindApp(id);
  if (app == kNoSlot) {
    return absl::NotFoundError(Cat("remove_app: unknown application ", id));
  }
  RemoveApplicationAt(app, out);
  return absl::OkStatus();
}

void Partition::RemoveApplicationAt(uint32_t app, std::vector<Decision>* out) {
  {
    // DetachApp re-derives the app's caches and walks the queue path once, after the
    // transitions and releases.
    DeferredPathWalk once(this, app);
    // Records in causal order (contract version 3): an app that holds allocations completes
    // because its last one goes, so its releases come before the state change.
    const bool held_allocations = apps_[app].live_allocations > 0;
    if (!held_allocations) ReportRemovalStates(app, held_allocations, out);
    // Oldest allocation first.
    absl::InlinedVector<std::pair<int64_t, uint32_t>, 8> live;
    for (const auto& [first_seq, ask] : app_side_[app].asks) {
      for (uint32_t alloc : asks_[ask].allocations) {
        live.push_back({allocations_[alloc].age, alloc});
      }
    }
    std::sort(live.begin(), live.end());
    for (auto [age, alloc] : live) ReleaseAllocationSlot(alloc, ReleaseReason::kRemoved, out);
    if (held_allocations) ReportRemovalStates(app, held_allocations, out);
  }
  const Queue& leaf = queues_[apps_[app].queue];
  bool leaf_may_go = leaf.dynamic || leaf.state == QueueState::kDraining;
  DetachApp(app);
  FreeApp(app);
  if (leaf_may_go) RemoveDrainedQueues();
}

// YuniKorn's removeApplication drops the asks first (an app with nothing allocated completes
// then), then every allocation (the app completes again): Accepted -> Completing -> Completed,
// Starting/Running -> Completing. `held_allocations`: the app held allocations (released now).
void Partition::ReportRemovalStates(uint32_t app, bool held_allocations,
                                    std::vector<Decision>* out) {
  const AppSide& a_side = app_side_[app];
  auto working = [&] {
    AppState s = apps_[app].state;
    return s == AppState::kAccepted || s == AppState::kStarting || s == AppState::kRunning;
  };
  bool has_asks = std::any_of(a_side.asks.begin(), a_side.asks.end(),
                              [&](const std::pair<const int64_t, uint32_t>& entry) {
                                return !ask_hot_[entry.second].removed;
                              });
  if (has_asks && !held_allocations && working()) {
    Transition(app, AppState::kCompleting, out);
  }
  if (working()) {
    Transition(app, AppState::kCompleting, out);
  } else if (apps_[app].state == AppState::kCompleting) {
    Transition(app, AppState::kCompleted, out);
  }
}

void Partition::DetachApp(uint32_t app) {
  // Its AppChanged below must run: no scope may defer this app's (DeferredPathWalk).
  ALLOCORE_DCHECK(deferred_app_ != app);
  App& a = apps_[app];
  AppSide& a_side = app_side_[app];
  while (!a.reservations.empty()) Unreserve(app, a.reservations.size() - 1);
  for (uint32_t ask : a_side.AskSlots()) RemoveAskSlot(ask);
  if (!a.in_queue) return;
  Queue& leaf = queues_[a.queue];
  if (a.state == AppState::kStarting || a.state == AppState::kRunning) {
    for (uint32_t q = a.queue; q != kNoSlot; q = queues_[q].parent) {
      if (queues_[q].running_apps > 0) --queues_[q].running_apps;
    }
  }
  if (a.state == AppState::kStarting) --leaf.starting_apps;
  if (a_side.counted_in_limits) {
    TrackLimitUsage(app, a.allocated, true, -1);
    a_side.counted_in_limits = false;
  }
  for (uint32_t q = a.queue; q != kNoSlot; q = queues_[q].parent) {
    // Most queues hold no allocating Accepted app: skip hashing into an empty set.
    if (!queues_[q].allocating_accepted.empty()) queues_[q].allocating_accepted.erase(app);
  }
  SubFromPath(a.queue, &Queue::pending, a.pending);
  SubFromPath(a.queue, &Queue::allocated, a.allocated);
  a.pending = Resource{};
  a.allocated = Resource{};
  {
    DeferredPathWalk once(this);  // the QueuePathChanged below walks the path
    AppChanged(app);              // drops it from the orders (nothing pending)
  }
  auto it = leaf.child_priorities.find(a.priority);
  if (a.priority != kNoPriority && it != leaf.child_priorities.end() && --it->second == 0) {
    leaf.child_priorities.erase(it);
  }
  leaf.apps.erase({a.submission_seq, app});
  leaf.accepted_with_pending.erase({a.submission_seq, app});
  a.in_queue = false;
  QueuePathChanged(a.queue);
  apps_by_id_.erase(a_side.id);
  if (a_side.timer != TimerKind::kNone) timers_.erase({a_side.timer_due, a_side.timer_seq, app});
  a_side.timer = TimerKind::kNone;
  SetPlaceholderTimer(app, false, 0);
}

uint32_t Partition::NewAppSlot() {
  uint32_t slot = TakeSlot(apps_, free_apps_);
  FreshPart(app_side_, slot, apps_.size());
  app_keys_.resize(apps_.size());
  return slot;
}

uint32_t Partition::NewAskSlot() {
  uint32_t slot = TakeSlot(asks_, free_asks_);
  FreshPart(ask_hot_, slot, asks_.size());
  return slot;
}

void Partition::FreeApp(uint32_t app) {
  ALLOCORE_DCHECK(apps_[app].reservations.empty() && app_side_[app].asks.empty());
  apps_[app].alive = false;
  FreeSlot(app, &free_apps_, &app_generations_);
}

}  // namespace allocore::internal
