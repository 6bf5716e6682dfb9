// Events fed to a partition: nodes, applications, asks, releases, timers.
//
// Every method validates its whole input before changing anything, so a refused call leaves
// the partition exactly as it was.
#include "absl/strings/ascii.h"
#include "message.h"
#include "partition.h"

namespace allocore::internal {
namespace {

// Stands for a node id no node has (it matches no allocation).
constexpr uint32_t kUnknownNode = kNoSlot - 1;

template <typename T>
uint32_t TakeSlot(std::vector<T>& slots, std::vector<uint32_t>& free) {
  if (!free.empty()) {
    uint32_t slot = free.back();
    free.pop_back();
    slots[slot] = T{};
    return slot;
  }
  slots.emplace_back();
  return static_cast<uint32_t>(slots.size() - 1);
}

// The other part (side or hot table) of the record TakeSlot just gave: fresh, whether the slot
// was reused or new (`slots`: the size of the table that gave it).
template <typename T>
void FreshPart(std::vector<T>& part, uint32_t slot, size_t slots) {
  if (slot < part.size()) {
    part[slot] = T{};
  } else {
    part.resize(slots);
  }
}

}  // namespace

std::vector<std::string_view> KernelContext::ResolveGroups(std::string_view user,
                                                           const std::vector<std::string>& given) {
  CachedGroups& entry = user_groups[user];
  bool fresh = !entry.groups.empty() && now - entry.stored_at < kUserGroupCacheMs;
  if (given.empty() && fresh) return entry.groups;
  entry.groups.clear();
  for (const std::string& g : given) entry.groups.push_back(names.Intern(g));
  if (entry.groups.empty()) entry.groups.push_back(user);
  entry.stored_at = now;
  return entry.groups;
}

void Partition::AddToPath(uint32_t queue, Resource Queue::*field, const Resource& delta) {
  for (uint32_t q = queue; q != kNoSlot; q = queues_[q].parent) AddTo(&(queues_[q].*field), delta);
}

void Partition::SubFromPath(uint32_t queue, Resource Queue::*field, const Resource& delta) {
  for (uint32_t q = queue; q != kNoSlot; q = queues_[q].parent) {
    SubFromClampNegative(&(queues_[q].*field), delta);
  }
}

uint32_t Partition::FindApp(std::string_view id) const {
  auto it = apps_by_id_.find(id);
  return it == apps_by_id_.end() ? kNoSlot : it->second;
}

uint32_t Partition::FindNode(std::string_view id) const {
  auto it = nodes_by_id_.find(id);
  return it == nodes_by_id_.end() ? kNoSlot : it->second;
}

uint32_t Partition::FindAsk(uint32_t app, std::string_view id) const {
  auto it = app_side_[app].asks_by_id.find(id);
  return it == app_side_[app].asks_by_id.end() ? kNoSlot : it->second;
}

uint32_t Partition::LiveApp(uint32_t app, uint32_t generation) const {
  if (app >= apps_.size() || AppGeneration(app) != generation) return kNoSlot;
  return apps_[app].alive && apps_[app].in_queue ? app : kNoSlot;
}

uint32_t Partition::LiveAsk(uint32_t ask, uint32_t generation) const {
  if (ask >= asks_.size() || AskGeneration(ask) != generation) return kNoSlot;
  return ask_hot_[ask].alive ? ask : kNoSlot;
}

uint32_t Partition::LiveNode(uint32_t node, uint32_t generation) const {
  if (node >= nodes_.size() || NodeGeneration(node) != generation) return kNoSlot;
  return nodes_[node].alive ? node : kNoSlot;
}

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

// --- nodes ------------------------------------------------------------------------------

absl::Status Partition::CapacityOverflow(std::string_view what, int type) const {
  const std::string& name = context_->types.Name(type);
  return absl::OutOfRangeError(
      Cat(what, ": the partition's total ", name, " capacity would pass the int64 limit"));
}

absl::Status Partition::AddNode(const NodeSpec& spec, std::vector<Decision>* out) {
  (void)out;
  if (spec.id.empty()) return absl::InvalidArgumentError("add_node: empty node id");
  if (nodes_by_id_.contains(spec.id)) {
    return absl::AlreadyExistsError(Cat("add_node: node ", spec.id, " already exists"));
  }
  const int types_before = context_->types.size();
  auto capacity = ToResource(spec.capacity, "add_node");
  absl::StatusOr<Resource> occupied =
      capacity.ok() ? ToResource(spec.occupied, "add_node") : capacity;
  if (!capacity.ok() || !occupied.ok()) {
    context_->types.TruncateTo(types_before);
    return capacity.ok() ? occupied.status() : capacity.status();
  }
  Resource total;
  if (int type = AddExact(cluster_capacity_, *capacity, &total); type >= 0) {
    absl::Status refused = CapacityOverflow(Cat("add_node ", spec.id), type);
    context_->types.TruncateTo(types_before);
    return refused;
  }
  uint32_t slot = TakeSlot(nodes_, free_nodes_);
  Node& n = nodes_[slot];
  n.id = context_->names.Intern(spec.id);
  n.capacity = *capacity;
  n.occupied = *occupied;
  n.schedulable = spec.schedulable;
  n.alive = true;
  n.RecomputeAvailable();
  ResolveDefaultNodeWeights();  // the node may have registered vcore or memory
  nodes_by_id_[n.id] = slot;
  nodes_in_id_order_.insert({n.id, slot});
  AssignIdRank(slot);
  cluster_capacity_ = total;
  has_nodes_ever_ = true;
  n.score = NodeScore(n);
  node_index_.Insert(n.key(slot), n.available, n.Eligible());
  ClusterCapacityChanged();
  return absl::OkStatus();
}

absl::Status Partition::UpdateNode(const NodeUpdate& update, std::vector<Decision>* out) {
  (void)out;
  auto it = nodes_by_id_.find(update.id);
  if (it == nodes_by_id_.end()) {
    return absl::NotFoundError(Cat("update_node: unknown node ", update.id));
  }
  const int types_before = context_->types.size();
  std::optional<Resource> capacity;
  std::optional<Resource> occupied;
  if (update.capacity) {
    auto r = ToResource(*update.capacity, "update_node");
    if (!r.ok()) {
      context_->types.TruncateTo(types_before);
      return r.status();
    }
    capacity = *r;
  }
  if (update.occupied) {
    auto r = ToResource(*update.occupied, "update_node");
    if (!r.ok()) {
      context_->types.TruncateTo(types_before);
      return r.status();
    }
    occupied = *r;
  }
  Node& n = nodes_[it->second];
  if (capacity) {
    Resource total;
    int type = AddExact(Sub(cluster_capacity_, n.capacity), *capacity, &total);
    if (type >= 0) {
      absl::Status refused = CapacityOverflow(Cat("update_node ", update.id), type);
      context_->types.TruncateTo(types_before);
      return refused;
    }
    cluster_capacity_ = total;
    n.capacity = *capacity;
  }
  if (occupied) n.occupied = *occupied;
  n.RecomputeAvailable();
  if (update.schedulable) n.schedulable = *update.schedulable;
  ResolveDefaultNodeWeights();
  RefreshNode(it->second);
  if (capacity) ClusterCapacityChanged();
  return absl::OkStatus();
}

absl::Status Partition::RemoveNode(std::string_view id, std::vector<Decision>* out) {
  auto it = nodes_by_id_.find(id);
  if (it == nodes_by_id_.end()) {
    return absl::NotFoundError(Cat("remove_node: unknown node ", id));
  }
  RemoveNodeAt(it->second, out);
  return absl::OkStatus();
}

void Partition::RemoveNodeAt(uint32_t slot, std::vector<Decision>* out) {
  CancelReservationOnNode(slot);
  std::vector<uint32_t> allocations = nodes_[slot].allocations;
  std::vector<std::pair<uint32_t, bool>> touched_apps;  // (app, a placeholder was released)
  for (uint32_t a : allocations) {
    touched_apps.push_back({allocations_[a].app, allocations_[a].placeholder});
    ReleaseAllocationSlot(a, ReleaseReason::kRemoved, out);
  }
  for (auto [app, placeholder] : touched_apps) {
    if (!apps_[app].alive || !apps_[app].in_queue) continue;
    if (placeholder) {
      PlaceholderGone(app, out);
    } else {
      CheckCompletion(app, out, /*ask_removal=*/false);
    }
  }
  Node& n = nodes_[slot];
  // Other schedulers' pods on the node go with it (a later remove_foreign names an unknown id).
  if (!foreign_.empty()) {
    absl::erase_if(foreign_, [slot](const auto& entry) { return entry.second.node == slot; });
  }
  score_basis_.erase(slot);
  cluster_capacity_ = Sub(cluster_capacity_, n.capacity);
  node_index_.Erase(n.key(slot));
  nodes_by_id_.erase(n.id);
  nodes_in_id_order_.erase({n.id, slot});
  n.alive = false;
  FreeSlot(slot, &free_nodes_, &node_generations_);
  ClusterCapacityChanged();
}

void Partition::AssignIdRank(uint32_t slot) {
  // Ranks are spaced 2^32 apart: appending (ids usually arrive in order) takes the next step,
  // inserting between two nodes takes the midpoint, and only when no gap is left are all
  // ranks dealt again, in id order (the node index keeps its order: the ranks keep theirs).
  constexpr uint64_t kStep = uint64_t{1} << 32;
  auto at = nodes_in_id_order_.find({nodes_[slot].id, slot});
  const bool has_prev = at != nodes_in_id_order_.begin();
  const bool has_next = std::next(at) != nodes_in_id_order_.end();
  const uint64_t low = has_prev ? nodes_[std::prev(at)->second].id_rank : 0;
  const uint64_t high =
      has_next ? nodes_[std::next(at)->second].id_rank : std::numeric_limits<uint64_t>::max();
  uint64_t rank = 0;
  bool found = false;
  if (!has_next && high - low > kStep) {
    rank = low + kStep;
    found = true;
  } else if (!has_prev && has_next && high > kStep) {
    rank = high - kStep;
    found = true;
  } else if (high - low > 1) {
    rank = low + (high - low) / 2;
    found = true;
  }
  if (found) {
    nodes_[slot].id_rank = rank;
    return;
  }
  uint64_t next_rank = 0;
  for (const auto& [id, node] : nodes_in_id_order_) {
    next_rank += nodes_in_id_order_.size() < kStep ? kStep : 1;
    nodes_[node].id_rank = next_rank;
  }
  node_index_.Rerank([&](uint32_t node) { return nodes_[node].id_rank; });
}

// --- applications -----------------------------------------------------------------------

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
    // DetachApp walks the queue path once, after the transitions and releases.
    DeferredPathWalk once(this);
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
  apps_[app].alive = false;
  FreeSlot(app, &free_apps_, &app_generations_);
}

// --- asks -------------------------------------------------------------------------------

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

AskArgs Partition::ArgsOf(const AskSpec& spec) {
  return {.id = spec.id,
          .priority = spec.priority,
          .count = spec.count,
          .task_group = spec.task_group,
          .placeholder = spec.placeholder,
          .required_node = spec.required_node,
          .allow_preemption = spec.allow_preemption,
          .originator = spec.originator,
          .creation_time_millis = spec.creation_time_millis};
}

absl::Status Partition::AddAsk(const AskSpec& spec, std::vector<Decision>* out) {
  uint32_t app = FindApp(spec.app);
  if (app == kNoSlot) {
    return absl::NotFoundError(Cat("unknown application ", spec.app));
  }
  AskArgs args = ArgsOf(spec);
  if (absl::Status shape = CheckAskArgs(args); !shape.ok()) return shape;
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
  if (absl::Status shape = CheckAskArgs(args); !shape.ok()) return shape;
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
  // Pending is kept exact (kernel/README.md decision 20): refuse what would not fit int64. The
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
    DeferredPathWalk once(this);  // the AppChanged below walks the path
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

void Partition::SetPending(uint32_t ask, int64_t pending) {
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
    } else {
      a.ask_order.erase(key);
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

absl::Status Partition::RemoveAsk(std::string_view app_id, std::string_view ask_id,
                                  std::vector<Decision>* out) {
  uint32_t app = FindApp(app_id);
  if (app == kNoSlot) return absl::NotFoundError(Cat("unknown application ", app_id));
  auto it = app_side_[app].asks_by_id.find(ask_id);
  if (it == app_side_[app].asks_by_id.end()) {
    return absl::NotFoundError(Cat("application ", app_id, " has no ask ", ask_id));
  }
  return RemoveAskAt(it->second, out);
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
  uint32_t app = FindApp(app_id);
  if (app == kNoSlot) return absl::NotFoundError(Cat("unknown application ", app_id));
  auto it = app_side_[app].asks_by_id.find(ask_id);
  if (it == app_side_[app].asks_by_id.end()) {
    return absl::NotFoundError(Cat("application ", app_id, " has no ask ", ask_id));
  }
  uint32_t node = kNoSlot;
  if (!node_id.empty()) {
    auto n = nodes_by_id_.find(node_id);
    // An unknown node holds no allocation: the same refusal as a known node without one.
    node = n == nodes_by_id_.end() ? kUnknownNode : n->second;
  }
  return ReleaseAllocationAt(it->second, node, node_id, seq, out);
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
  std::erase(n.allocations, allocation);
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

// --- application states -----------------------------------------------------------------

void Partition::SetTimer(uint32_t app, TimerKind kind, int64_t due) {
  AppSide& a_side = app_side_[app];
  if (a_side.timer != TimerKind::kNone) timers_.erase({a_side.timer_due, a_side.timer_seq, app});
  a_side.timer = kind;
  a_side.timer_due = due;
  a_side.timer_seq = context_->next_timer_seq++;
  if (kind != TimerKind::kNone) timers_.insert({due, a_side.timer_seq, app});
}

void Partition::Transition(uint32_t app, AppState to, std::vector<Decision>* out) {
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
