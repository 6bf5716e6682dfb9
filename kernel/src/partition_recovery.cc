// Allocations a manager reports running: the pods it finds after a restart (YuniKorn v1.2.0
// took them with the node's registration, 1.5+ as allocations that arrive with a node), or a
// pod it placed itself. They are taken as reported, without the checks a new allocation
// passes: queue max and headroom, user and group limits, node fit, reservations, admission
// (maxapplications). What must hold: the application is known and not finished, the node is
// registered, the pod asks for something. kernel/README "Recovery, resize and foreign pods".
#include <algorithm>

#include "allocore/status_macros.h"
#include "message.h"
#include "partition.h"

namespace allocore::internal {
namespace {

constexpr std::string_view kRecover = "recover_allocation";

bool Finished(AppState state) {
  return state == AppState::kCompleted || state == AppState::kFailed ||
         state == AppState::kRejected || state == AppState::kExpired;
}

}  // namespace

absl::StatusOr<Resource> Partition::PodResources(const Quantities& quantities,
                                                 std::string_view call, std::string_view ask) {
  const int types_before = context_->types.size();
  const std::string what = Cat(call, ": ask ", ask);
  absl::StatusOr<Resource> resource = ToResource(quantities, what);
  if (resource.ok() && IsZero(*resource)) {
    resource = absl::InvalidArgumentError(Cat(what, ": resources must not be zero"));
  }
  if (!resource.ok()) context_->types.TruncateTo(types_before);
  return resource;
}

absl::Status Partition::AllocationOverflow(std::string_view call, uint32_t node,
                                           const Resource& removed, const Resource& added) const {
  Resource total;
  int type = AddExact(SubClampNegative(nodes_[node].allocated, removed), added, &total);
  if (type < 0) {
    type = AddExact(SubClampNegative(queues_[root_].allocated, removed), added, &total);
  }
  if (type < 0) return absl::OkStatus();
  return absl::OutOfRangeError(Cat(call, ": the allocated ", context_->types.Name(type),
                                   " of node ", nodes_[node].id,
                                   " or of the partition would pass the int64 limit"));
}

void Partition::PlaceRecovered(uint32_t ask, uint32_t node, const Resource& resource,
                               std::vector<Decision>* out) {
  // Not a scheduling decision: it takes no seq (allocation records number only those).
  AttachAllocation(ask, node, resource, /*seq=*/0);
  // Usage reported by the manager is taken as it is, over a max too (yunikorn-1.9 then starts
  // the queue's quota-change preemption delay).
  if (apps_[ask_hot_[ask].app].in_queue) QuotaUsageRaised(apps_[ask_hot_[ask].app].queue);
  Decision d = PlacementDecision(DecisionType::kRecovered, ask, node);
  d.placeholder = ask_hot_[ask].placeholder;
  out->push_back(d);
}

absl::Status Partition::CheckPodResource(const Resource& resource, std::string_view call,
                                         std::string_view ask) const {
  for (int t = 0; t < kMaxResourceTypes; ++t) {
    if (!resource.Has(t)) continue;
    if (t >= context_->types.size()) {
      return absl::InvalidArgumentError(
          Cat(call, ": ask ", ask, ": resource type id ", t, " is not registered"));
    }
    if (resource.Get(t) < 0) {
      return absl::InvalidArgumentError(Cat(call, ": ask ", ask, ": negative quantity ",
                                            resource.Get(t), " for resource '",
                                            context_->types.Name(t), "'"));
    }
  }
  if (IsZero(resource)) {
    return absl::InvalidArgumentError(Cat(call, ": ask ", ask, ": resources must not be zero"));
  }
  return absl::OkStatus();
}

absl::Status Partition::RecoverAllocation(const RecoverSpec& spec, std::vector<Decision>* out) {
  const AskSpec& pod = spec.ask;
  const uint32_t app = FindApp(pod.app);
  if (app == kNoSlot) return absl::NotFoundError(Cat("unknown application ", pod.app));
  if (spec.node.empty()) {
    return absl::InvalidArgumentError(Cat("ask ", pod.id, ": the node it runs on is required"));
  }
  const uint32_t node = FindNode(spec.node);
  if (node == kNoSlot) return absl::NotFoundError(Cat("unknown node ", spec.node));
  // Names resolve to type ids here (a new name registers a type); a refusal takes them back.
  const int types_before = context_->types.size();
  auto resource = PodResources(pod.resources, kRecover, pod.id);
  if (!resource.ok()) return resource.status();
  AskArgs args = AskArgsOf(pod);
  args.resources = *resource;
  absl::Status recovered = RecoverAllocationAt(app, args, node, out);
  if (!recovered.ok()) context_->types.TruncateTo(types_before);
  return recovered;
}

absl::Status Partition::RecoverAllocationAt(uint32_t app, const AskArgs& args, uint32_t node,
                                            std::vector<Decision>* out) {
  const std::string_view app_id = app_side_[app].id;
  if (Finished(apps_[app].state) || !apps_[app].in_queue) {
    return absl::FailedPreconditionError(Cat("application ", app_id, " is ",
                                             AppStateName(apps_[app].state),
                                             ": it takes no allocation"));
  }
  ALLOCORE_RETURN_IF_ERROR(CheckAskArgs(args));
  if (args.count != 1) {
    return absl::InvalidArgumentError(Cat(
        "ask ", args.id, ": a running allocation is one pod, count must be 1, got ", args.count));
  }
  ALLOCORE_RETURN_IF_ERROR(CheckPodResource(args.resources, kRecover, args.id));
  const Resource& resource = args.resources;

  // An id the application still holds: 1.6+ take the report as the manager placing the pending
  // ask, or as a resize of the live allocation; v1.2.0 recovers new ids only.
  const uint32_t known = FindAsk(app, args.id);
  if (known != kNoSlot) {
    const bool pending = ask_hot_[known].pending > 0;
    const bool live = !asks_[known].allocations.empty();
    if ((pending || live) && !context_->profile->recovery_updates_known_asks) {
      return absl::FailedPreconditionError(
          Cat("ask ", args.id, " of application ", app_id,
              pending ? " is pending" : " has a live allocation",
              ": yunikorn-1.2 recovers allocations under new ids only"));
    }
    if (live && !pending) {
      // The report of a running pod: its resources are what it runs with now (a resize).
      return UpdateAllocationAt(known, kNoSlot, resource, out);
    }
    if (pending) {
      absl::Status overflow = AllocationOverflow(kRecover, node, {}, resource);
      if (overflow.ok()) overflow = PendingOverflow(kRecover, known, resource);
      if (!overflow.ok()) return overflow;
      // Placed where the manager put it ("external allocation placed"), with the resources it
      // reports (a changed amount resizes the pending ask first, as one update would).
      if (!(resource == ResourceOf(ask_hot_[known]))) ResizePending(known, resource);
      AskHot& hot = ask_hot_[known];
      if (hot.reservations >= hot.pending) CancelReservationsOfAsk(known);
      SetPending(known, hot.pending - 1);
      {
        DeferredPathWalk once(this);
        PlaceRecovered(known, node, resource, out);
        AllocationJoined(app, hot.placeholder, resource, out);
      }
      AppChanged(app);
      return absl::OkStatus();
    }
    // Known but idle (nothing pending, nothing live): a new ask under an old id, as add_ask.
  }
  ALLOCORE_RETURN_IF_ERROR(AllocationOverflow(kRecover, node, {}, resource));
  // Every check passed: from here on the call changes state.
  if (known != kNoSlot) RemoveAskSlot(known);
  const uint32_t ask = NewAskSlot();
  Ask& k = asks_[ask];
  AskHot& hot = ask_hot_[ask];
  AppSide& a_side = app_side_[app];
  k.id = context_->names.Intern(args.id);
  hot.app = app;
  hot.alive = true;
  a_side.asks_by_id[k.id] = ask;
  k.first_add_seq = context_->next_ask_seq;
  a_side.asks.emplace(k.first_add_seq, ask);
  hot.shape = shapes_.Acquire(resource);
  DescribeAsk(ask, args);
  if (hot.placeholder && context_->profile->recovered_placeholder_joins_task_group) {
    TaskGroup* group = FindTaskGroup(app, k.task_group);
    if (group == nullptr) {
      a_side.task_groups.push_back({.name = k.task_group});
      group = &a_side.task_groups.back();
    }
    ++group->count;
  }
  k.create_time = context_->now;
  if (args.creation_time_millis && context_->profile->ask_creation_time_counts) {
    k.create_time = *args.creation_time_millis;
  }
  k.add_seq = context_->next_ask_seq++;
  {
    DeferredPathWalk once(this, app);  // the AppChanged below, once
    if (context_->profile->ask_creation_time_counts) {
      // 1.7+: the app was submitted no later than its earliest pod was created.
      apps_[app].submission_time = std::min(apps_[app].submission_time, k.create_time);
    }
    if (apps_[app].state == AppState::kNew) Transition(app, AppState::kAccepted, out);
    PlaceRecovered(ask, node, resource, out);
    AllocationJoined(app, hot.placeholder, resource, out);
  }
  AppChanged(app);
  return absl::OkStatus();
}

}  // namespace allocore::internal
