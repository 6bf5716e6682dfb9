// The walk's gates as one verdict per ask: the node the next scheduling attempt would give it,
// or the rule that stops it. ExplainPending reports it for every pending ask, Probe for an ask
// that was never submitted. Both run the walk's own gates, in its order and by the functions
// the walk calls (ask_gates.h), so neither can drift from what Schedule does.
#include "ask_gates.h"
#include "message.h"

namespace allocore::internal {

Partition::AskView Partition::ViewOf(uint32_t ask) const {
  const Ask& k = asks_[ask];
  const AskHot& hot = ask_hot_[ask];
  return {.app = hot.app,
          .slot = ask,
          .resource = ResourceOf(hot),
          .priority = hot.priority,
          .required_node = k.required_node,
          .task_group = k.task_group,
          .placeholder = hot.placeholder,
          .pending = hot.pending,
          .reservations = hot.reservations,
          .preemption_triggered = hot.preemption_triggered};
}

Partition::Verdict Partition::Judge(const AskView& k, const WalkEnd& end,
                                    const WalkPosition& position) const {
  const ResourceTypes& types = context_->types;
  const App& a = apps_[k.app];
  const Queue& leaf = queues_[a.queue];
  if (!has_nodes_ever_) return {.reason = "no nodes registered in the partition"};
  if (!RootHasMax()) {
    return {.reason = "no resources in the partition: no node reports a quantity above zero"};
  }
  // Gate 1. An application without asks (New) turns Accepted with its first one.
  const bool accepted = a.state == AppState::kAccepted || a.state == AppState::kNew;
  switch (AppRefusal(k.app, accepted, AdmittedAcceptedApp(leaf, k.app))) {
    case Refusal::kNone:
      break;
    case Refusal::kStateAware:
      return {.reason = leaf.starting_apps > 0
                            ? "stateaware: another application of the queue is Starting"
                            : "stateaware: an older Accepted application of the queue goes first"};
    case Refusal::kMaxApplications: {
      const uint32_t q = MaxApplicationsBlocker(k.app);
      return {.reason =
                  Cat("maxapplications ", queues_[q].max_apps, " of queue ", queue_side_[q].path,
                      " reached (", queues_[q].running_apps, " running)")};
    }
    case Refusal::kUserMaxApplications: {
      std::string why;
      LimitsAllowNewApp(k.app, &why);
      return {.reason = why};
    }
    case Refusal::kBackedOff:
      return {.reason = Cat("application backed off for ",
                            FormatMillis(app_side_[k.app].backoff_deadline - context_->now),
                            " more (until t=", app_side_[k.app].backoff_deadline,
                            "ms): too many unschedulable asks in one visit "
                            "(application.unschedasks.backoff ",
                            queue_side_[a.queue].backoff.asks, " of queue ",
                            queue_side_[a.queue].path, ")")};
    default:
      break;  // ask-level refusals come next
  }
  // Gate 2. An ask that holds a reservation the headroom refuses: when 1.9 cancels it.
  const std::string cancel_note =
      k.reservations > 0 && k.slot != kNoSlot ? ReservationCancelNote(k.app, k.slot) : "";
  const std::optional<Resource> user_headroom = LimitHeadroom(k.app);
  const Resource headroom = Headroom(a.queue);
  switch (AskRefusal(WaitsForReplacement(k.app, k.task_group, k.placeholder), k.resource,
                     user_headroom, headroom)) {
    case Refusal::kNone:
      break;
    case Refusal::kAwaitsReplacement:
      return {.reason = a.live_placeholders > 0
                            ? Cat("waiting for placeholder replacement: task group ", k.task_group,
                                  " still holds placeholders (", a.live_placeholders,
                                  " allocated in the app)")
                            : Cat("waiting for placeholder replacement: no placeholder of task "
                                  "group ",
                                  k.task_group, " is allocated yet")};
    case Refusal::kUserHeadroom:
      return {.reason = Cat("user/group maxresources reached: the ask needs ",
                            ToString(k.resource, types), ", the limits leave ",
                            ToString(*user_headroom, types), cancel_note)};
    default:  // kQueueHeadroom
      return {.reason = Cat(HeadroomBlocker(a.queue, k.resource),
                            ExplainPreemption(k, /*nodes_tried=*/false), cancel_note)};
  }
  // Gate 3.
  if (WalkRefusal(k.reservations, end, position) == Refusal::kWalkEndsEarlier) {
    return {.reason = WalkEndReason(end.ask)};
  }
  // Gate 4.
  const bool required = !k.required_node.empty();
  const uint32_t required_node = required ? FindNode(k.required_node) : kNoSlot;
  uint32_t node = kNoSlot;
  Refusal refusal = NodeRefusal(a.queue, k.resource, required, required_node, &node);
  bool own_reservation = false;
  if (refusal == Refusal::kRequiredNodeHeld) {
    const auto [holder_app, holder] = *nodes_[required_node].reservation;
    if (holder != k.slot) {
      return {.reason = Cat("required node ", nodes_[required_node].id, " is reserved for ",
                            app_side_[holder_app].id, "/", asks_[holder].id,
                            ", another required-node ask")};
    }
    // Its own reservation: the reserved pass tries it there first, with the gates after this one.
    own_reservation = true;
    refusal = RoomRefusal(a.queue, k.resource, required_node, &node);
  }
  // A required-node ask its node refuses reserves the node, or ends the walk when it cannot.
  const std::string ends_walk =
      required && !own_reservation && (refusal == Refusal::kQueueMax || refusal == Refusal::kNoRoom)
          ? EndsWalkNote(k, required_node)
          : "";
  switch (refusal) {
    case Refusal::kRequiredNodeUnknown:
      return {.reason = Cat("required node ", k.required_node, " is not registered")};
    case Refusal::kQueueMax: {
      // The headroom took the ask, yet a level's max refuses it (the profile's rule for a max
      // that names some types only).
      const uint32_t over = OverMaxLevel(a.queue, k.resource);
      return {.reason = Cat("queue ", queue_side_[over].path,
                            " cannot take the ask: its allocated plus the ask exceeds its max ",
                            over == root_ ? "(the cluster capacity)" : "", " on some resource type",
                            ends_walk)};
    }
    case Refusal::kNoRoom:
      if (required) return JudgeRequiredNode(k, required_node, ends_walk);
      break;
    default:  // kNone
      if (required) return {.node = node};
      break;
  }
  if (k.reservations > 0) {
    return {.reason = Cat("holds a reservation and waits for the reserved node to free up",
                          ExplainPreemption(k, /*nodes_tried=*/true))};
  }
  if (refusal == Refusal::kNone) return {.node = node};
  return {.reason = Cat(ClosestNode(k.resource), ExplainPreemption(k, /*nodes_tried=*/true))};
}

// Gate 3's reason: the ask the walk ends at every cycle.
std::string Partition::WalkEndReason(uint32_t ask) const {
  const AskHot& hot = ask_hot_[ask];
  return Cat("the scheduling walk ends before this ask at ", app_side_[hot.app].id, "/",
             asks_[ask].id, " in ", queue_side_[apps_[hot.app].queue].path,
             ", a required-node ask that can neither be allocated on ", asks_[ask].required_node,
             " nor reserve it; the walk ends there every cycle while it is pending");
}

std::string Partition::EndsWalkNote(const AskView& k, uint32_t node) const {
  if (RequiredNodeReservable(k.reservations, k.pending, k.resource, node)) return "";
  return Cat("; it cannot reserve ", nodes_[node].id, " either (",
             FitIn(nodes_[node].capacity, k.resource)
                 ? "it holds as many reservations as it has pending repeats"
                 : "it exceeds the node's capacity",
             "), so the scheduling walk ends at it every cycle and the asks after it wait");
}

// Names the highest queue whose own remaining limit is too small, and what it lacks.
std::string Partition::HeadroomBlocker(uint32_t leaf, const Resource& wanted) const {
  std::vector<uint32_t> path = PathToRoot(leaf);
  for (auto it = path.rbegin(); it != path.rend(); ++it) {
    const Queue& queue = queues_[*it];
    const QueueSide& queue_side = queue_side_[*it];
    const Resource* max = *it == root_ ? &cluster_capacity_ : (queue.max ? &*queue.max : nullptr);
    if (max == nullptr) continue;
    const ResourceMask types = *it == root_ ? RootMaxTypes() : max->present;
    Resource remaining;
    for (int t = 0; t < kMaxResourceTypes; ++t) {
      if ((types >> t) & 1u) remaining.Set(t, SaturatingSub(max->Get(t), queue.allocated.Get(t)));
    }
    if (FitInMaxUndef(remaining, wanted)) continue;
    Resource lacking;
    Resource over = SubClampNegative(wanted, remaining);
    for (int t = 0; t < kMaxResourceTypes; ++t) {
      if (remaining.Has(t) && over.Has(t)) lacking.Set(t, over.Get(t));
    }
    return Cat("queue ", queue_side.path, " headroom too small: lacks ",
               ToString(lacking, context_->types), QuotaPreemptionNote(*it));
  }
  return "queue root (cluster capacity) headroom too small: lacks " +
         ToString(Resource(), context_->types);
}

// No node fits: the closest eligible node and what it lacks.
std::string Partition::ClosestNode(const Resource& wanted) const {
  uint32_t closest = kNoSlot;
  WideInt best_gap = 0;
  Resource best_lack;
  node_index_.ForEach([&](uint32_t slot) {
    const Node& n = nodes_[slot];
    if (!n.Eligible()) return;
    Resource available = n.Available();
    Resource lack;
    WideInt gap = 0;
    for (int t = 0; t < kMaxResourceTypes; ++t) {
      if (!wanted.Has(t)) continue;
      int64_t have = available.Get(t) > 0 ? available.Get(t) : 0;
      if (wanted.Get(t) > have) {
        lack.Set(t, wanted.Get(t) - have);
        gap += wanted.Get(t) - have;
      }
    }
    if (closest == kNoSlot || gap < best_gap) {
      closest = slot;
      best_gap = gap;
      best_lack = lack;
    }
  });
  // A node that has the room but is reserved for another ask is the likelier answer.
  std::string reserved;
  node_index_.ForEach([&](uint32_t slot) {
    const Node& n = nodes_[slot];
    if (!reserved.empty() || !n.reservation || !n.schedulable || !FitIn(n.Available(), wanted)) {
      return;
    }
    const auto [app, ask] = *n.reservation;
    reserved = Cat("; ", n.id, " has the room but is reserved for ", app_side_[app].id, "/",
                   asks_[ask].id, ReservationCancelNote(app, ask));
  });
  if (closest == kNoSlot) return Cat("no schedulable node without a reservation", reserved);
  return Cat("no node fits; closest is ", nodes_[closest].id, ", which lacks ",
             ToString(best_lack, context_->types), reserved);
}

std::string Partition::ReservationCancelNote(uint32_t app, uint32_t ask) const {
  if (!context_->profile->reservations_time_out) return "";
  const App& a = apps_[app];
  for (const Reservation& r : a.reservations) {
    if (r.ask != ask) continue;
    const Resource& wanted = ResourceOf(ask_hot_[ask]);
    std::optional<Resource> limit = LimitHeadroom(app);
    const bool refused =
        !FitInMaxUndef(Headroom(a.queue), wanted) || (limit && !FitInMaxUndef(*limit, wanted));
    if (!refused) return "";
    return Cat(" (its ask does not fit its headroom: the reservation is cancelled after t=",
               SaturatingAdd(r.created, kReservationCancelAfterMs), "ms)");
  }
  return "";
}

// Why a required-node ask its node lacks room for waits: the preemptor's view (it runs in the
// reserved pass, once the ask holds the node). `ends_walk`: EndsWalkNote.
Partition::Verdict Partition::JudgeRequiredNode(const AskView& k, uint32_t node,
                                                std::string_view ends_walk) const {
  const Node& n = nodes_[node];
  std::string lacks =
      Cat("required node ", n.id, " lacks ",
          ToString(SubClampNegative(k.resource, n.Available()), context_->types), ends_walk);
  // The preemptor runs for an ask that holds the node: not for one that cannot reserve it.
  if (!ends_walk.empty()) return {.reason = std::move(lacks)};
  if (k.preemption_triggered) {
    return {.reason = Cat(lacks,
                          "; its preemption already ran there and the ask keeps the node "
                          "reserved (YuniKorn does not preempt twice for one ask)")};
  }
  std::vector<uint32_t> victims = PreemptionVictims(k.resource, k.priority, node);
  if (victims.empty()) {
    return {.reason = Cat(lacks,
                          "; no allocation there may be preempted for it (higher priority, "
                          "required-node, or too little even all together)")};
  }
  return {.victims = static_cast<int64_t>(victims.size()),
          .reason = Cat(lacks, "; preempting ", victims.size(), " allocation(s) on ", n.id,
                        " at the next schedule")};
}

PendingExplanation Partition::ExplainPendingAsk(uint32_t app, uint32_t ask,
                                                const WalkEnd& end) const {
  const App& a = apps_[app];
  const Ask& k = asks_[ask];
  // Where the ask sits matters only when an ask ends the walk.
  const WalkPosition position = end.ask != kNoSlot ? PositionOf(ask, nullptr) : WalkPosition{};
  Verdict verdict = Judge(ViewOf(ask), end, position);
  if (verdict.node != kNoSlot) {
    verdict.reason = Cat("fits ", k.required_node.empty() ? "" : "required ", "node ",
                         nodes_[verdict.node].id, " now: will be allocated by the next schedule");
  }
  return {.partition = std::string(name_),
          .queue = std::string(queue_side_[a.queue].path),
          .app = std::string(app_side_[app].id),
          .ask = std::string(k.id),
          .pending_count = ask_hot_[ask].pending,
          .reason = std::move(verdict.reason)};
}

void Partition::ExplainPending(std::vector<PendingExplanation>* out) const {
  std::vector<std::pair<int64_t, uint32_t>> apps;
  for (const auto& [id, app] : apps_by_id_) apps.push_back({apps_[app].submission_seq, app});
  std::sort(apps.begin(), apps.end());
  const WalkEnd end = WalkEndOf(nullptr);  // once: the orders stay as they are
  for (auto [seq, app] : apps) {
    for (const AskKey& key : apps_[app].ask_order) {
      out->push_back(ExplainPendingAsk(app, key.slot, end));
    }
  }
}

absl::StatusOr<PendingExplanation> Partition::ExplainAsk(std::string_view app_id,
                                                         std::string_view ask_id) const {
  const uint32_t app = FindApp(app_id);
  if (app == kNoSlot) return absl::NotFoundError(Cat("unknown application ", app_id));
  const uint32_t ask = FindAsk(app, ask_id);
  if (ask == kNoSlot || !ask_hot_[ask].alive) {
    return absl::NotFoundError(Cat("application ", app_id, " has no ask ", ask_id));
  }
  if (ask_hot_[ask].pending <= 0) {
    return absl::FailedPreconditionError(
        Cat("ask ", ask_id, " of application ", app_id, " has no pending repeats"));
  }
  return ExplainPendingAsk(app, ask, WalkEndOf(nullptr));
}

absl::StatusOr<ProbeResult> Partition::Probe(const AskSpec& spec) const {
  uint32_t app = FindApp(spec.app);
  if (app == kNoSlot) return absl::NotFoundError(Cat("unknown application ", spec.app));
  // The ask's own shape is checked as AddAsk checks it; a probe needs no id.
  if (absl::Status shape = CheckAskArgs({.id = spec.id.empty() ? "(probe)" : spec.id,
                                         .count = spec.count,
                                         .task_group = spec.task_group,
                                         .placeholder = spec.placeholder});
      !shape.ok()) {
    return shape;
  }
  ProbeResult result{.partition = std::string(name_),
                     .queue = std::string(queue_side_[apps_[app].queue].path)};
  // Types are looked up, never registered: a type no node or queue has ever named is one no
  // node has, and nothing may change.
  AskView view{.app = app,
               .priority = spec.priority,
               .required_node = spec.required_node,
               .task_group = spec.task_group,
               .placeholder = spec.placeholder,
               .pending = spec.count,
               .creation_time = spec.creation_time_millis};
  std::string_view unknown_type;
  for (const auto& [name, value] : spec.resources) {
    if (value < 0) {
      return absl::InvalidArgumentError(
          Cat("probe: negative quantity ", value, " for resource '", name, "'"));
    }
    int type = context_->types.Find(name);
    if (type < 0) {
      if (value > 0 && unknown_type.empty()) unknown_type = name;
      continue;
    }
    view.resource.Set(type, value);
  }
  if (IsZero(view.resource) && unknown_type.empty()) {
    return absl::InvalidArgumentError("probe: resources must not be zero");
  }
  if (!unknown_type.empty()) {
    result.reason = Cat("no node has resource type ", unknown_type);
    return result;
  }
  // Submitted, the probe would move its queues in their orders (more pending, maybe a higher
  // priority): the walk's end is found with them there. Only when an ask may end the walk.
  WalkPosition position;
  WalkEnd end;
  if (!required_node_pending_.empty()) {
    position = ProbePosition(view);
    end = WalkEndOf(&position);
  }
  Verdict verdict = Judge(view, end, position);
  if (verdict.node != kNoSlot) {
    result.node = std::string(nodes_[verdict.node].id);
  } else {
    result.reason = std::move(verdict.reason);
    result.preemption_victims = verdict.victims;
  }
  return result;
}

}  // namespace allocore::internal
