// General preemption: an ask whose queue is below its guarantee takes resources back from
// queues above theirs, as YuniKorn's guarantee-based preemptor does (objects/preemption.go
// and the preemption snapshot of objects/queue.go, v1.8.0; the fence rule of its master).
// The rules, step by step, are in kernel/preemption-semantics.md; the decisions taken where
// YuniKorn is random or differs between versions are decision 34 of kernel/README.md.
//
// Everything here is const except TryGeneralPreemption, so that --explain and Probe run the
// very same search the walk runs and only the walk acts on its result.
#include <algorithm>
#include <limits>
#include <tuple>

#include "message.h"
#include "partition.h"

namespace allocore::internal {
namespace {

constexpr int64_t kPreemptAttemptFrequencyMs = 15'000;
// A reservation older than this (from its ask's creation) may be cancelled for a preemptor of a
// higher priority: YuniKorn's reservation wait timeout (60 min) counted past the reservation
// delay and the timeout again.
constexpr int64_t kReservationCancelAgeMs = 2 * 60 * 60 * 1'000 + 2'000;

// YuniKorn's FitInActual: the types of `ask` that `remaining` names fit in it.
bool FitsActual(const Resource& remaining, const Resource& ask) {
  for (int t = 0; t < kMaxResourceTypes; ++t) {
    if (ask.Has(t) && remaining.Has(t) && ask.Get(t) > remaining.Get(t)) return false;
  }
  return true;
}

// No type the ask requests is below zero in the queue's remaining guarantee.
bool AskQueueUnderGuarantee(const Resource& ask, const Resource& remaining) {
  for (int t = 0; t < kMaxResourceTypes; ++t) {
    if (ask.Has(t) && remaining.Has(t) && remaining.Get(t) < 0) return false;
  }
  return true;
}

// Some type the ask requests is below zero in the victim queue's remaining guarantee.
bool VictimQueueOverGuarantee(const Resource& ask, const Resource& remaining) {
  return !AskQueueUnderGuarantee(ask, remaining);
}

bool SameQuantities(const Resource& a, const Resource& b) {
  for (int t = 0; t < kMaxResourceTypes; ++t) {
    if ((a.Has(t) || b.Has(t)) && a.Get(t) != b.Get(t)) return false;
  }
  return true;
}

// YuniKorn's !ask.StrictlyGreaterThanOnlyExisting(total): the victims so far are enough.
bool Covers(const Resource& total, const Resource& ask) {
  if (total.present == 0) {
    for (int t = 0; t < kMaxResourceTypes; ++t) {
      if (ask.Has(t) && ask.Get(t) <= 0) return true;
    }
    return ask.present == 0;
  }
  bool shared = false;
  bool all_equal = true;
  for (int t = 0; t < kMaxResourceTypes; ++t) {
    if (!ask.Has(t) || !total.Has(t)) continue;
    shared = true;
    if (total.Get(t) > ask.Get(t)) return true;
    if (total.Get(t) != ask.Get(t)) all_equal = false;
  }
  return shared && all_equal;
}

// The victim lowers what the node still lacks for the ask in some type.
bool LowersShortfall(const Resource& ask, const Resource& available, const Resource& victim) {
  for (int t = 0; t < kMaxResourceTypes; ++t) {
    if (!ask.Has(t) && !available.Has(t) && !victim.Has(t)) continue;
    int64_t short_now = std::max<int64_t>(0, SaturatingSub(ask.Get(t), available.Get(t)));
    int64_t short_after = std::max<int64_t>(
        0, SaturatingSub(ask.Get(t), SaturatingAdd(available.Get(t), victim.Get(t))));
    if (short_now != short_after) return true;
  }
  return false;
}

}  // namespace

// An allocation that may be preempted, with its place in the victim order (§3.2, decision 34.6).
struct Partition::VictimCandidate {
  int score;  // 0 normal, 1 originator, 2 opted out, 3 both
  int64_t neg_create_time;
  int64_t neg_age;  // younger allocations first
  uint32_t allocation;
  uint32_t leaf;
  bool operator<(const VictimCandidate& o) const {
    return std::tie(score, neg_create_time, neg_age) <
           std::tie(o.score, o.neg_create_time, o.neg_age);
  }
};

// Queue usage for one attempt: allocated, minus the victims already chosen in this cycle,
// plus what the search moves around speculatively (cleared by Reset, YuniKorn's fresh copy
// of the snapshot).
class Partition::PreemptionUsage {
 public:
  PreemptionUsage(const Partition& partition) : partition_(partition) {
    for (const Victim& v : partition.preempted_) {
      const Allocation& a = partition.allocations_[v.allocation];
      if (!a.live || a.age != v.age) continue;
      Walk(&base_, partition.apps_[a.app].queue, a.resource, -1);
    }
  }
  Resource Used(uint32_t queue) const {
    Resource used = partition_.queues_[queue].allocated;
    if (auto it = base_.find(queue); it != base_.end()) used = Add(used, it->second);
    if (auto it = delta_.find(queue); it != delta_.end()) used = Add(used, it->second);
    return used;
  }
  void Remove(uint32_t leaf, const Resource& r) { Walk(&delta_, leaf, r, -1); }
  void Put(uint32_t leaf, const Resource& r) { Walk(&delta_, leaf, r, +1); }
  void Reset() { delta_.clear(); }

 private:
  void Walk(absl::flat_hash_map<uint32_t, Resource>* deltas, uint32_t leaf, const Resource& r,
            int sign) {
    for (uint32_t q = leaf; q != kNoSlot; q = partition_.queues_[q].parent) {
      Resource& d = (*deltas)[q];
      d = sign > 0 ? Add(d, r) : Sub(d, r);
    }
  }
  const Partition& partition_;
  absl::flat_hash_map<uint32_t, Resource> base_;
  absl::flat_hash_map<uint32_t, Resource> delta_;
};

bool Partition::IsAncestorOrSelf(uint32_t queue, uint32_t of) const {
  for (uint32_t q = of; q != kNoSlot; q = queues_[q].parent) {
    if (q == queue) return true;
  }
  return false;
}

// YuniKorn's remaining guarantee of `queue` (semantics §2.2), nullopt where no guarantee
// applies: the queue's guarantee minus its usage, bounded by its ancestors', except that the
// ask's own guarantee, when it has one, shields it from its ancestors and stops the chain at
// every ancestor it shares.
std::optional<Resource> Partition::RemainingGuarantee(uint32_t queue, uint32_t ask_leaf,
                                                      const PreemptionUsage& usage) const {
  const std::optional<Resource>& ask_guarantee = queues_[ask_leaf].guaranteed;
  const bool ask_has_guarantee = ask_guarantee && ask_guarantee->present != 0;
  const Queue& node = queues_[queue];
  std::optional<Resource> up;
  if (node.parent != kNoSlot) up = RemainingGuarantee(node.parent, ask_leaf, usage);
  const bool has_own = node.guaranteed && node.guaranteed->present != 0;
  if (!has_own) return up;  // nothing of its own: the ancestors' (or none)
  Resource own;
  const Resource used = usage.Used(queue);
  for (int t = 0; t < kMaxResourceTypes; ++t) {
    if (node.guaranteed->Has(t)) own.Set(t, SaturatingSub(node.guaranteed->Get(t), used.Get(t)));
  }
  if (queue == ask_leaf) {
    // The ask's own guarantee counts; its ancestors only fill in types it does not name.
    if (up) {
      for (int t = 0; t < kMaxResourceTypes; ++t) {
        if (up->Has(t) && !own.Has(t)) own.Set(t, up->Get(t));
      }
    }
    return own;
  }
  // A guarantee shared with an ask that has its own does not protect anything below it.
  if (queue != root_ && ask_has_guarantee && IsAncestorOrSelf(queue, ask_leaf)) {
    return std::nullopt;
  }
  if (up) {
    for (int t = 0; t < kMaxResourceTypes; ++t) {
      if (!up->Has(t)) continue;
      own.Set(t, own.Has(t) ? std::min(own.Get(t), up->Get(t)) : up->Get(t));
    }
  }
  return own;
}

// Why the ask may not try preemption now (semantics §1.4), or empty when it may.
// `retry_wait`: the only reason is the attempt frequency.
std::string Partition::PreemptionPreconditions(uint32_t ask, bool* retry_wait) const {
  *retry_wait = false;
  const Ask& k = asks_[ask];
  const AskHot& hot = ask_hot_[ask];
  if (hot.preemption_triggered) return "it already preempted once (an ask preempts only once)";
  if (!k.required_node.empty()) return "a required-node ask preempts only on its node";
  const int64_t delay = queues_[apps_[hot.app].queue].props.preemption_delay_ms;
  if (context_->now < SaturatingAdd(k.create_time, delay)) {
    return Cat("its preemption.delay (", FormatMillis(delay), ") has not passed (",
               FormatMillis(SaturatingSub(SaturatingAdd(k.create_time, delay), context_->now)),
               " left)");
  }
  if (k.preempt_checked_at != kNeverChecked &&
      context_->now < SaturatingAdd(k.preempt_checked_at, kPreemptAttemptFrequencyMs)) {
    *retry_wait = true;
    return Cat("it tried less than 15s ago (next try in ",
               FormatMillis(SaturatingSub(
                   SaturatingAdd(k.preempt_checked_at, kPreemptAttemptFrequencyMs), context_->now)),
               ")");
  }
  return {};
}

// One general preemption search: the state PlanPreemption's phases share, each phase a member
// function in the order the search runs them (kernel/preemption-semantics.md §2-§3).
class Partition::PreemptionSearch {
 public:
  PreemptionSearch(const Partition& p, uint32_t app, uint32_t ask_slot, const Resource& ask,
                   int32_t priority, bool nodes_tried)
      : p_(p),
        ask_slot_(ask_slot),
        ask_(ask),
        priority_(priority),
        nodes_tried_(nodes_tried),
        leaf_(p.apps_[app].queue),
        usage_(p) {}

  PreemptionPlan Run() {
    // The guarantee gate needs a remaining guarantee for the ask's queue; whether it has one
    // depends on the configured guarantees only, so without one nothing below can help.
    ask_remaining_ = p_.RemainingGuarantee(leaf_, leaf_, usage_);
    if (!ask_remaining_) {
      plan_.why_not = Cat("queue ", p_.queue_side_[leaf_].path,
                          " has no guaranteed resources on its path (only a queue below its "
                          "guarantee may preempt)");
      return std::move(plan_);
    }
    // An ask queue with a guarantee of its own answers to it alone (RemainingGuarantee): taking
    // victims elsewhere never moves it, which lets the search below stop early.
    shielded_ = p_.queues_[leaf_].guaranteed && p_.queues_[leaf_].guaranteed->present != 0;
    FindFenceAndFrames();
    CollectVictimLeaves(fence_, frames_[fence_], false);
    detail_ = std::make_shared<PreemptionDetail>();
    detail_->fence = p_.queue_side_[fence_].path;
    detail_->remaining_guarantee = ask_remaining_;
    plan_.detail = detail_;
    if (!PassesGuaranteeGate()) {
      plan_.why_not =
          Cat("the ask (", ToString(ask_, Types()), ") does not fit the remaining guarantee ",
              LimitToString(*ask_remaining_, Types()), " of queue ", p_.queue_side_[leaf_].path,
              victim_leaves_.empty() ? "" : ", even with every candidate victim gone");
      return std::move(plan_);
    }
    FindCancellableReservations();
    if (victim_leaves_.empty()) {
      plan_.why_not = Cat("no allocation below fence ", p_.queue_side_[fence_].path,
                          " may be preempted for it (queues within their guarantee, "
                          "preemption.policy disabled, higher priority, required-node, or no "
                          "shared resource type)");
      return std::move(plan_);
    }
    ChooseNode();
    if (best_.node == kNoSlot) {
      plan_.why_not =
          Cat("no node can be freed for it by preempting below fence ", p_.queue_side_[fence_].path,
              " (", usable_nodes_, " node(s) could hold it)");
      return std::move(plan_);
    }
    if (!FinalVictims()) return std::move(plan_);
    plan_.node = best_.node;
    DescribeVictimQueues();
    return std::move(plan_);
  }

 private:
  // How a leaf that may give victims compares their priorities (§2.4).
  struct VictimLeaf {
    int64_t frame;
    bool fenced;
  };
  // The node the search settles on (§3.3, §3.4) and its victims; index: victims needed - 1
  // (-1: none), what the fewest-victims rule compares.
  struct Choice {
    int64_t index = std::numeric_limits<int64_t>::max();
    uint32_t node = kNoSlot;
    std::vector<VictimCandidate> victims;
  };

  const ResourceTypes& Types() const { return p_.context_->types; }

  // Fence root and priority frames (§2.4): up from the ask's leaf.
  void FindFenceAndFrames() {
    fence_ = leaf_;
    int64_t frame = priority_;
    for (uint32_t q = leaf_; q != kNoSlot; q = p_.queues_[q].parent) {
      const Queue& queue = p_.queues_[q];
      frame = queue.props.fenced ? int64_t{queue.props.offset} : frame + queue.props.offset;
      frames_[q] = frame;
      fence_ = q;
      if (q == p_.root_ || queue.props.preemption_policy == PreemptionPolicy::kFence) break;
      if (OverEffectiveMax(q)) break;
    }
  }

  // Fenced by its effective max (its own and every ancestor's, the root's being the cluster):
  // victims outside a queue the ask cannot fit in would not make room for it.
  bool OverEffectiveMax(uint32_t q) const {
    Resource effective_max = p_.cluster_capacity_;
    for (uint32_t a = q; a != p_.root_; a = p_.queues_[a].parent) {
      if (p_.queues_[a].max) effective_max = PermissiveMin(effective_max, *p_.queues_[a].max);
    }
    const Resource projected = Add(p_.queues_[q].allocated, ask_);
    for (int t = 0; t < kMaxResourceTypes; ++t) {
      if (effective_max.Has(t) && projected.Has(t) && projected.Get(t) > effective_max.Get(t)) {
        return true;
      }
    }
    return false;
  }

  // The leaves that may give victims (§2.5), depth-first from the fence root, the ask's own
  // leaf skipped, with the priority frame each allocation is compared with.
  void CollectVictimLeaves(uint32_t q, int64_t frame, bool fenced) {
    if (q == leaf_) return;
    const Queue& queue = p_.queues_[q];
    if (queue.leaf) {
      if (queue.props.preemption_policy == PreemptionPolicy::kDisabled) return;
      if (std::optional<Resource> r = p_.RemainingGuarantee(q, leaf_, usage_)) {
        bool within = true;
        for (int t = 0; t < kMaxResourceTypes; ++t) {
          if (r->Has(t) && r->Get(t) < 0) within = false;
        }
        if (within) return;
      }
      victim_leaves_[q] = {frame, fenced};
      victim_types_ |= queue.allocated.present;
      return;
    }
    for (uint32_t child : queue.children) {
      const Queue& c = p_.queues_[child];
      if (!c.alive) continue;
      if (auto it = frames_.find(child); it != frames_.end()) {
        CollectVictimLeaves(child, it->second, fenced);
      } else if (c.props.fenced) {
        if (int64_t{c.props.offset} > frame) continue;
        CollectVictimLeaves(child, frame, true);
      } else {
        CollectVictimLeaves(child, frame - c.props.offset, fenced);
      }
    }
  }

  // One allocation as a candidate victim, or nullopt (§2.5 and the order of §3.2).
  std::optional<VictimCandidate> Candidate(uint32_t alloc) const {
    const Allocation& al = p_.allocations_[alloc];
    if ((al.resource.present & ask_.present) == 0 || al.required_node) return std::nullopt;
    const uint32_t q = p_.apps_[al.app].queue;
    auto it = victim_leaves_.find(q);
    if (it == victim_leaves_.end()) return std::nullopt;
    if (!it->second.fenced && al.priority > it->second.frame) return std::nullopt;
    for (const Victim& v : p_.preempted_) {
      if (v.allocation == alloc && v.age == al.age) return std::nullopt;
    }
    const int score = (al.originator ? 1 : 0) | (al.allow_preemption ? 0 : 2);
    return VictimCandidate{score, -al.ask_create_time, -al.age, alloc, q};
  }

  // Every candidate, in leaf order (callers sort when order matters); computed once, when a
  // phase needs all of them.
  const std::vector<VictimCandidate>& Everyone() {
    if (everyone_) return *everyone_;
    everyone_.emplace();
    for (const auto& [q, rule] : victim_leaves_) {
      for (const auto& [seq, a] : p_.queues_[q].apps) {
        for (const auto& [first_seq, k] : p_.app_side_[a].asks) {
          for (uint32_t alloc : p_.asks_[k].allocations) {
            if (std::optional<VictimCandidate> c = Candidate(alloc)) everyone_->push_back(*c);
          }
        }
      }
    }
    return *everyone_;
  }

  // The guarantee gate (§2.3): the ask fits its queue's remaining guarantee, or would once every
  // candidate went (removals add up, so they are applied per leaf).
  bool PassesGuaranteeGate() {
    if (FitsActual(*ask_remaining_, ask_)) return true;
    if (shielded_ || victim_leaves_.empty()) return false;
    absl::flat_hash_map<uint32_t, Resource> freed;
    for (const VictimCandidate& c : Everyone()) {
      AddTo(&freed[c.leaf], p_.allocations_[c.allocation].resource);
    }
    if (freed.empty()) return false;
    usage_.Put(leaf_, ask_);
    for (const auto& [q, r] : freed) usage_.Remove(q, r);
    std::optional<Resource> r = p_.RemainingGuarantee(leaf_, leaf_, usage_);
    usage_.Reset();
    return r && AskQueueUnderGuarantee(ask_, *r);
  }

  // Nodes (§3.1): every reserved node is looked at, and reservations that may be cancelled for
  // this ask are (decision 34.12), whether or not the node is then chosen.
  void FindCancellableReservations() {
    if (p_.total_reservations_ == 0) return;
    for (uint32_t node = 0; node < p_.nodes_.size(); ++node) {
      const Node& n = p_.nodes_[node];
      if (!n.alive || !n.reservation || n.reservation->second == ask_slot_) continue;
      const Ask& holder = p_.asks_[n.reservation->second];
      const AskHot& holder_hot = p_.ask_hot_[n.reservation->second];
      if (holder.required_node.empty() && !holder_hot.preemption_triggered &&
          holder_hot.priority < priority_ &&
          SaturatingSub(p_.context_->now, holder.create_time) > kReservationCancelAgeMs) {
        plan_.cancel_reservations_on.push_back(node);
      }
    }
  }

  bool Usable(uint32_t node) const {
    const Node& n = p_.nodes_[node];
    if (n.reservation && n.reservation->second != ask_slot_ &&
        std::find(plan_.cancel_reservations_on.begin(), plan_.cancel_reservations_on.end(), node) ==
            plan_.cancel_reservations_on.end()) {
      return false;
    }
    return n.schedulable && FitIn(n.capacity, ask_);
  }

  // The victim test (§3.3 step 2): `c` leaves its queue in `usage_` when that queue, judged
  // before the removal, is over its guarantee in a type the ask uses; false (nothing changed)
  // otherwise.
  bool LeaveQueue(const VictimCandidate& c) {
    const Resource& res = p_.allocations_[c.allocation].resource;
    std::optional<Resource> r = p_.RemainingGuarantee(c.leaf, leaf_, usage_);
    usage_.Remove(c.leaf, res);
    if (r && !VictimQueueOverGuarantee(ask_, *r)) {
      usage_.Put(c.leaf, res);
      return false;
    }
    return true;
  }

  // The ask-queue test (step 3), after LeaveQueue: the ask's queue takes `c` when its remaining
  // guarantee (`before`, as it was) holds it; false puts `c` back where it was, and the scan
  // ends there.
  bool JoinAskQueue(const VictimCandidate& c, std::optional<Resource>* before) {
    const Resource& res = p_.allocations_[c.allocation].resource;
    *before = p_.RemainingGuarantee(leaf_, leaf_, usage_);
    if (!*before || !FitsActual(**before, res)) {
      usage_.Put(c.leaf, res);
      return false;
    }
    usage_.Put(leaf_, res);
    return true;
  }

  // The node (§3.3, §3.4): the fewest victims, then the lowest id. Nodes are visited in id
  // order, so the first node that fits without victims (offered on the headroom path only), or
  // failing that the first that needs exactly one, ends the search.
  void ChooseNode() {
    if (!nodes_tried_) {
      for (const auto& [id, node] : p_.nodes_in_id_order_) {
        if (Usable(node) && FitIn(p_.nodes_[node].Available(), ask_)) {
          best_.index = -1;
          best_.node = node;
          break;
        }
      }
    }
    for (const auto& [id, node] : p_.nodes_in_id_order_) {
      if (best_.index <= 0) break;
      if (!Usable(node)) continue;
      ++usable_nodes_;
      if (FitIn(p_.nodes_[node].Available(), ask_)) continue;  // offered above, or not at all
      TryNode(node);
    }
  }

  // The victims `node` would need (§3.3), kept in best_ when they are fewer than best_'s.
  void TryNode(uint32_t node) {
    const Resource& available = p_.nodes_[node].Available();
    on_node_.clear();
    for (uint32_t alloc : p_.nodes_[node].allocations) {
      if (std::optional<VictimCandidate> c = Candidate(alloc)) on_node_.push_back(*c);
    }
    if (on_node_.empty()) return;
    std::sort(on_node_.begin(), on_node_.end());
    // Pass 1: keep the victims whose queues are over their guarantee and that fit the ask
    // queue's remaining guarantee; those that do not lower the node's shortfall go last.
    std::vector<const VictimCandidate*> head, tail;
    Resource avail = available;
    usage_.Reset();
    for (const VictimCandidate& c : on_node_) {
      const Resource& res = p_.allocations_[c.allocation].resource;
      std::optional<Resource> unused_before;
      if (!LeaveQueue(c)) continue;
      if (!JoinAskQueue(c, &unused_before)) break;
      if (LowersShortfall(ask_, avail, res)) {
        AddTo(&avail, res);
        head.push_back(&c);
      } else {
        usage_.Remove(leaf_, res);
        usage_.Put(c.leaf, res);
        tail.push_back(&c);
      }
    }
    head.insert(head.end(), tail.begin(), tail.end());
    // Pass 2: the victim test again, in this order; the node is done at the first prefix of
    // victims after which the ask fits.
    usage_.Reset();
    avail = available;
    std::vector<VictimCandidate> result;
    int64_t index = -1;
    for (const VictimCandidate* c : head) {
      if (!LeaveQueue(*c)) continue;
      AddTo(&avail, p_.allocations_[c->allocation].resource);
      if (index < 0 && FitIn(avail, ask_)) index = static_cast<int64_t>(result.size());
      result.push_back(*c);
    }
    usage_.Reset();
    if (index >= 0 && index < best_.index) {
      result.resize(static_cast<size_t>(index) + 1);
      best_ = {index, node, std::move(result)};
    }
  }

  // A victim of the final list (§3.6): only victims on the chosen node count unless it already
  // has room, and they are taken while they do not yet cover the ask (the node's free space is
  // not counted).
  void Offer(const VictimCandidate& c) {
    const Allocation& al = p_.allocations_[c.allocation];
    if (!node_has_room_ && al.node != best_.node) return;
    if (!Covers(total_, ask_)) plan_.victims.push_back(c.allocation);
    AddTo(&total_, al.resource);
  }

  // For a shielded ask queue the additional victims can never fail the attempt (they only take
  // what its remaining guarantee holds), so they matter only while they can still change the
  // final list: until it covers the ask for good (some type beyond the ask, or no candidate
  // left with an ask type the total lacks).
  bool Settled() const {
    if (!Covers(total_, ask_)) return false;
    for (int t = 0; t < kMaxResourceTypes; ++t) {
      if (ask_.Has(t) && total_.Has(t) && total_.Get(t) > ask_.Get(t)) return true;
    }
    return (victim_types_ & ask_.present & ~total_.present) == 0;
  }

  // The final list (§3.6) grows with the additional victims (§3.5) in candidate order: the
  // chosen node's victims first, then others while the ask queue stays over its guarantee.
  // False (with why_not) when the list does not make the attempt.
  bool FinalVictims() {
    node_has_room_ = FitIn(p_.nodes_[best_.node].Available(), ask_);
    for (const VictimCandidate& c : best_.victims) Offer(c);
    if (!(shielded_ && Settled()) && !AddExtraVictims()) return false;
    if (plan_.victims.empty() && total_.present == 0) {
      plan_.why_not = Cat("none of the candidate victims below fence ", p_.queue_side_[fence_].path,
                          " may go: their queues are not over their guarantee in the ask's "
                          "types, or the ask's queue cannot take them within its own");
      return false;
    }
    if (!Covers(total_, ask_)) {
      plan_.victims.clear();
      plan_.why_not = Cat(
          node_has_room_ ? "the victims (" : Cat("the victims on ", p_.nodes_[best_.node].id, " ("),
          ToString(total_, Types()), ") would not cover the ask (", ToString(ask_, Types()), ")");
      return false;
    }
    return true;
  }

  // §3.5: candidates beyond the chosen node's, in candidate order (lazily: a shielded search
  // usually stops after a few). False (with why_not) when they leave the ask's queue outside
  // its guarantee.
  bool AddExtraVictims() {
    usage_.Reset();
    absl::flat_hash_set<uint32_t> taken;
    for (const VictimCandidate& c : best_.victims) {
      usage_.Remove(c.leaf, p_.allocations_[c.allocation].resource);
      taken.insert(c.allocation);
    }
    std::vector<const VictimCandidate*> heap;
    heap.reserve(Everyone().size());
    for (const VictimCandidate& c : Everyone()) {
      if (!taken.contains(c.allocation)) heap.push_back(&c);
    }
    auto later = [](const VictimCandidate* l, const VictimCandidate* r) { return *r < *l; };
    std::make_heap(heap.begin(), heap.end(), later);
    bool extras = false;
    while (!heap.empty() && !(shielded_ && Settled())) {
      std::pop_heap(heap.begin(), heap.end(), later);
      const VictimCandidate& c = *heap.back();
      heap.pop_back();
      const Resource& res = p_.allocations_[c.allocation].resource;
      std::optional<Resource> before;
      if (!LeaveQueue(c)) continue;
      if (!JoinAskQueue(c, &before)) break;
      std::optional<Resource> after = p_.RemainingGuarantee(leaf_, leaf_, usage_);
      if (after && !SameQuantities(*before, *after)) {
        extras = true;
        Offer(c);
      } else {
        usage_.Remove(leaf_, res);
        usage_.Put(c.leaf, res);
      }
    }
    if (extras && !shielded_) {
      std::optional<Resource> final_remaining = p_.RemainingGuarantee(leaf_, leaf_, usage_);
      if (!final_remaining || !AskQueueUnderGuarantee(ask_, *final_remaining)) {
        plan_.victims.clear();
        plan_.why_not = Cat("preempting on ", p_.nodes_[best_.node].id, " would not bring queue ",
                            p_.queue_side_[leaf_].path, " back within its guarantee");
        return false;
      }
    }
    usage_.Reset();
    return true;
  }

  // What made each victim eligible, queue by queue, in path order.
  void DescribeVictimQueues() {
    absl::btree_map<std::string_view, std::pair<uint32_t, int64_t>> victim_queues;
    for (uint32_t alloc : plan_.victims) {
      uint32_t q = p_.apps_[p_.allocations_[alloc].app].queue;
      auto& entry = victim_queues[p_.queue_side_[q].path];
      entry.first = q;
      ++entry.second;
    }
    for (const auto& [path, entry] : victim_queues) {
      detail_->victim_queues.push_back(
          {.queue = path,
           .remaining_guarantee = p_.RemainingGuarantee(entry.first, leaf_, usage_),
           .victims = entry.second});
    }
  }

  const Partition& p_;
  const uint32_t ask_slot_;
  const Resource& ask_;
  const int32_t priority_;
  const bool nodes_tried_;
  const uint32_t leaf_;
  PreemptionUsage usage_;
  PreemptionPlan plan_;
  std::shared_ptr<PreemptionDetail> detail_;
  std::optional<Resource> ask_remaining_;
  bool shielded_ = false;
  uint32_t fence_ = kNoSlot;
  absl::flat_hash_map<uint32_t, int64_t> frames_;
  absl::flat_hash_map<uint32_t, VictimLeaf> victim_leaves_;
  ResourceMask victim_types_ = 0;  // every type a candidate may have
  std::optional<std::vector<VictimCandidate>> everyone_;
  Choice best_;
  size_t usable_nodes_ = 0;
  std::vector<VictimCandidate> on_node_;
  bool node_has_room_ = false;
  Resource total_;  // what the final list's victims hold
};

Partition::PreemptionPlan Partition::PlanPreemption(uint32_t app, uint32_t ask_slot,
                                                    const Resource& ask, int32_t priority,
                                                    bool nodes_tried) const {
  return PreemptionSearch(*this, app, ask_slot, ask, priority, nodes_tried).Run();
}

Partition::Outcome Partition::TryGeneralPreemption(uint32_t ask, bool nodes_tried,
                                                   std::vector<Decision>* out) {
  if (preemption_attempts_left_ == 0) return Outcome::kNone;
  bool retry_wait = false;
  if (!PreemptionPreconditions(ask, &retry_wait).empty()) return Outcome::kNone;
  --preemption_attempts_left_;
  Ask& k = asks_[ask];
  AskHot& hot = ask_hot_[ask];
  k.preempt_checked_at = context_->now;
  PreemptionPlan plan = PlanPreemption(hot.app, ask, ResourceOf(hot), hot.priority, nodes_tried);
  // Reservations given up for the search go even when it then fails (decision 34.12).
  for (uint32_t node : plan.cancel_reservations_on) {
    CancelReservationOnNode(node);
    walk_changed_ = true;
  }
  if (plan.node == kNoSlot) return Outcome::kNone;
  hot.preemption_triggered = true;
  for (uint32_t victim : plan.victims) {
    preempted_.push_back({victim, allocations_[victim].age, ask});
  }
  Decision d = PlacementDecision(DecisionType::kPreemption, ask, plan.node);
  d.count = static_cast<int64_t>(plan.victims.size());
  d.preemption = std::move(plan.detail);
  out->push_back(std::move(d));
  // The ask holds the chosen node from now on, and only that one (decision 34.8).
  const uint32_t app = hot.app;
  bool holds = false;
  for (size_t i = apps_[app].reservations.size(); i-- > 0;) {
    const Reservation& r = apps_[app].reservations[i];
    if (r.ask != ask) continue;
    if (r.node == plan.node) {
      holds = true;
    } else {
      Unreserve(app, i);
    }
  }
  if (!holds) Reserve(ask, plan.node);
  return Outcome::kReserved;
}

std::string Partition::ExplainPreemption(const AskView& k, bool nodes_tried) const {
  if (!preemption_enabled_) return {};
  std::string waiting;
  if (k.slot != kNoSlot) {
    bool retry_wait = false;
    if (std::string why = PreemptionPreconditions(k.slot, &retry_wait); !why.empty()) {
      if (!retry_wait) return Cat("; not preempting: ", why);
      waiting = std::move(why);
    }
  } else if (!k.required_node.empty()) {
    return {};
  }
  PreemptionPlan plan = PlanPreemption(k.app, k.slot, k.resource, k.priority, nodes_tried);
  if (!waiting.empty()) {
    return plan.node == kNoSlot
               ? Cat("; not preempting: ", waiting, "; now it would find that ", plan.why_not)
               : Cat("; not preempting yet: ", waiting, "; then it would preempt ",
                     plan.victims.size(), " allocation(s) and reserve ", nodes_[plan.node].id);
  }
  if (k.slot == kNoSlot) {
    // A probed ask was never submitted: it would wait its leaf's delay first.
    const int64_t delay = queues_[apps_[k.app].queue].props.preemption_delay_ms;
    return plan.node == kNoSlot
               ? Cat("; could not preempt: ", plan.why_not)
               : Cat("; after its preemption.delay (", FormatMillis(delay), ") it could preempt ",
                     plan.victims.size(), " allocation(s) (fence ", plan.detail->fence,
                     ") and reserve ", nodes_[plan.node].id);
  }
  if (plan.node == kNoSlot) return Cat("; not preempting: ", plan.why_not);
  return Cat("; preempting ", plan.victims.size(), " allocation(s) for it (fence ",
             plan.detail->fence, ") and reserving ", nodes_[plan.node].id, " at the next schedule");
}

}  // namespace allocore::internal
