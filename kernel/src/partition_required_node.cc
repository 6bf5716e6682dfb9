// Asks that must run on one node (DaemonSet pods), as YuniKorn core v1.2.0 handles them
// (objects/application.go tryAllocate's required-node branch and tryReservedAllocate,
// objects/required_node_preemptor.go). Decisions taken: kernel/README.md, decision 24.
#include <algorithm>
#include <tuple>

#include "ask_gates.h"

namespace allocore::internal {

// The required node only (gate 4, ask_gates.h): no schedulable check and no capacity
// pre-check (a DaemonSet pod runs on a cordoned node), no reservation delay. A normal
// reservation on the node is cancelled, whoever holds it; when the ask does not fit, it
// reserves the node.
Partition::Outcome Partition::TryRequiredNode(uint32_t ask, std::vector<Decision>* out) {
  const Ask& k = asks_[ask];
  const AskHot& hot = ask_hot_[ask];
  const Resource& wanted = ResourceOf(hot);
  auto it = nodes_by_id_.find(k.required_node);
  const uint32_t required = it == nodes_by_id_.end() ? kNoSlot : it->second;
  uint32_t node = kNoSlot;
  switch (NodeRefusal(apps_[hot.app].queue, wanted, /*required=*/true, required, &node)) {
    case Refusal::kRequiredNodeUnknown:
      // A node that is not registered (yet): the app's next ask is tried (the YUNIKORN-2976
      // fix; v1.2.0 ended the app's turn).
    case Refusal::kRequiredNodeHeld:
      // A node reserved for a required-node ask (this one included) stays with it: this ask
      // waits for the reserved pass, and the app's other asks go on.
      return Outcome::kNone;
    case Refusal::kNone:
      CancelReservationOnNode(node);
      Allocate(ask, node, std::nullopt, out);
      return Outcome::kAllocated;
    default:
      break;
  }
  // YuniKorn returns a reservation result whether or not the partition can then reserve the
  // node: the walk ends here in every release up to 1.9, so the queues after it wait. An ask
  // that cannot reserve the node (it exceeds the node's capacity, or holds as many reservations
  // as it has pending repeats) leaves another ask's reservation there alone (YuniKorn cancels it
  // first; against an ask that reserves the node again that would never settle).
  if (!RequiredNodeReservable(hot.reservations, hot.pending, wanted, required)) {
    return Outcome::kBlocked;
  }
  CancelReservationOnNode(required);
  return Reserve(ask, required) ? Outcome::kReserved : Outcome::kBlocked;
}

// RequiredNodePreemptor: candidates are the node's allocations that are not required-node
// allocations themselves, not of a higher priority, and share a resource type with the ask.
// Order: normal before opted-out (allow_preemption: false) before originators, lower priority
// first, younger ask first. Victims are added until they alone cover the ask
// (the node's free space is ignored while adding, as in YuniKorn); the set is taken when
// victims plus free space cover it.
std::vector<uint32_t> Partition::PreemptionVictims(const Resource& wanted, int32_t priority,
                                                   uint32_t node) const {
  struct Candidate {
    int rank;
    int32_t priority;
    int64_t neg_create_time;
    int64_t neg_add_seq;
    uint32_t allocation;
  };
  std::vector<Candidate> candidates;
  for (uint32_t alloc : nodes_[node].allocations) {
    const Allocation& a = allocations_[alloc];
    if (a.required_node) continue;
    if (a.priority > priority) continue;
    if ((a.resource.present & wanted.present) == 0) continue;
    if (std::any_of(preempted_.begin(), preempted_.end(),
                    [&](const Victim& v) { return v.allocation == alloc && v.age == a.age; })) {
      continue;
    }
    int rank = a.originator ? 3 : (!a.allow_preemption ? 2 : 1);
    candidates.push_back({rank, a.priority, -a.ask_create_time, -a.ask_add_seq, alloc});
  }
  // Asks are unique by (create time, add order), so only repeats of one ask tie past that:
  // they have the same size, and the younger allocation goes first.
  std::sort(candidates.begin(), candidates.end(), [&](const Candidate& l, const Candidate& r) {
    auto lk = std::tie(l.rank, l.priority, l.neg_create_time, l.neg_add_seq);
    auto rk = std::tie(r.rank, r.priority, r.neg_create_time, r.neg_add_seq);
    if (lk != rk) return lk < rk;
    return allocations_[l.allocation].age > allocations_[r.allocation].age;
  });
  auto covers = [&](const Resource& have) {
    for (int t = 0; t < kMaxResourceTypes; ++t) {
      if (wanted.Has(t) && have.Get(t) < wanted.Get(t)) return false;
    }
    return true;
  };
  std::vector<uint32_t> victims;
  Resource freed;
  for (const Candidate& c : candidates) {
    if (covers(freed)) break;
    AddTo(&freed, allocations_[c.allocation].resource);
    victims.push_back(c.allocation);
  }
  if (victims.empty() || !covers(Add(freed, nodes_[node].Available()))) return {};
  return victims;
}

bool Partition::TryPreemption(uint32_t ask, uint32_t node) {
  std::vector<uint32_t> victims =
      PreemptionVictims(ResourceOf(ask_hot_[ask]), ask_hot_[ask].priority, node);
  if (victims.empty()) return false;  // tried again next cycle
  ask_hot_[ask].preemption_triggered = true;
  for (uint32_t victim : victims) preempted_.push_back({victim, allocations_[victim].age, ask});
  return true;
}

// The resource manager releases the victims after the cycle; they are reported oldest
// allocation first, as every multi-release is.
void Partition::ReleasePreempted(std::vector<Decision>* out) {
  std::vector<Victim> victims = std::move(preempted_);
  preempted_.clear();
  std::sort(victims.begin(), victims.end(),
            [](const Victim& l, const Victim& r) { return l.age < r.age; });
  for (auto [alloc, age, by] : victims) {
    if (!allocations_[alloc].live || allocations_[alloc].age != age) continue;
    uint32_t app = allocations_[alloc].app;
    uint32_t ask = allocations_[alloc].ask;
    bool placeholder = allocations_[alloc].placeholder;
    ReleaseAllocationSlot(alloc, ReleaseReason::kPreempted, out, by);
    if (ask_hot_[ask].removed && asks_[ask].allocations.empty()) RemoveAskSlot(ask);
    if (placeholder) {
      PlaceholderGone(app, out);
    } else {
      CheckCompletion(app, out, /*ask_removal=*/false);
    }
  }
}

}  // namespace allocore::internal
