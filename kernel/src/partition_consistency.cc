// Every cached value against a recomputation from scratch, one invariant family at a time
// (partition.h lists the invariants).
#include <string>
#include <vector>

#include "allocore/status_macros.h"
#include "message.h"
#include "partition.h"

namespace allocore::internal {
namespace {

template <typename... Parts>
absl::Status Inconsistent(std::string_view partition, const Parts&... parts) {
  return absl::InternalError(Cat("partition ", partition, ": ", parts...));
}

}  // namespace

absl::Status Partition::CheckConsistency() const {
  ALLOCORE_RETURN_IF_ERROR(CheckAskShapes());
  ALLOCORE_RETURN_IF_ERROR(CheckTableSizes());
  RecomputedSums sums;
  ALLOCORE_RETURN_IF_ERROR(CheckApplications(&sums));
  ALLOCORE_RETURN_IF_ERROR(CheckQueues(sums));
  ALLOCORE_RETURN_IF_ERROR(CheckNodes());
  ALLOCORE_RETURN_IF_ERROR(CheckTimers());
  return CheckReservationsAndIds(sums);
}

// Timers: exactly one entry per running timer of a live application (its state timer and its
// placeholder timer), under the due time and start order the application holds — firing a timer
// erases the entry the application names, so any other entry would fire for ever.
absl::Status Partition::CheckTimers() const {
  size_t running = 0;
  for (uint32_t app = 0; app < apps_.size(); ++app) {
    const AppSide& a_side = app_side_[app];
    if (!apps_[app].alive) {
      if (a_side.timer != TimerKind::kNone || a_side.placeholder_timer) {
        return Inconsistent(name_, "app slot ", app, ": a timer on a free slot");
      }
      continue;
    }
    if (a_side.timer != TimerKind::kNone) {
      ++running;
      if (!timers_.contains({a_side.timer_due, a_side.timer_seq, app})) {
        return Inconsistent(name_, "app ", a_side.id, ": timer not scheduled as cached");
      }
    }
    if (a_side.placeholder_timer) {
      ++running;
      if (!timers_.contains({a_side.placeholder_timer_due, a_side.placeholder_timer_seq, app}) ||
          (a_side.timer != TimerKind::kNone && a_side.timer_seq == a_side.placeholder_timer_seq)) {
        return Inconsistent(name_, "app ", a_side.id,
                            ": placeholder timer not scheduled as cached");
      }
    }
  }
  if (running != timers_.size()) {
    return Inconsistent(name_, timers_.size(), " timers scheduled, ", running, " running");
  }
  return absl::OkStatus();
}

// Ask shapes: every reference an ask holds is counted, and each shape is found by its resource.
absl::Status Partition::CheckAskShapes() const {
  std::vector<uint32_t> shape_references;
  size_t required_node_pending = 0;
  for (uint32_t ask = 0; ask < ask_hot_.size(); ++ask) {
    const AskHot& hot = ask_hot_[ask];
    if (hot.shape != ResourceShapes::kNone) shape_references.push_back(hot.shape);
    if (hot.alive && hot.has_required_node && hot.pending > 0) {
      ++required_node_pending;
      if (!required_node_pending_.contains(ask)) {
        return Inconsistent(name_, "ask slot ", ask, ": a pending required-node ask not listed");
      }
    }
  }
  if (required_node_pending != required_node_pending_.size()) {
    return Inconsistent(name_, "the pending required-node asks list others");
  }
  std::string why;
  if (!shapes_.CheckFromScratch(shape_references, &why)) {
    return Inconsistent(name_, "ask shapes: ", why);
  }
  return absl::OkStatus();
}

absl::Status Partition::CheckTableSizes() const {
  if (app_keys_.size() != apps_.size() || queue_keys_.size() != queues_.size() ||
      ask_hot_.size() != asks_.size() || queue_side_.size() != queues_.size() ||
      app_side_.size() != apps_.size()) {
    return Inconsistent(
        name_,
        "side and dense tables (order keys, hot asks, queue sides) are not sized with their "
        "records");
  }
  return absl::OkStatus();
}

// Applications: pending, allocated, priority, position; their sums per queue go to `sums`.
absl::Status Partition::CheckApplications(RecomputedSums* sums) const {
  sums->pending.assign(queues_.size(), Resource{});
  sums->allocated.assign(queues_.size(), Resource{});
  for (uint32_t app = 0; app < apps_.size(); ++app) {
    const App& a = apps_[app];
    const AppSide& a_side = app_side_[app];
    if ((!a.alive || !a.in_queue) && app_keys_[app]) {
      return Inconsistent(name_, "app slot ", app, ": an order key without a leaf order");
    }
    if (!a.alive || !a.in_queue) continue;
    Resource pending;
    Resource allocated;
    Resource placeholders;
    int64_t live_placeholders = 0;
    int64_t live_allocations = 0;
    int32_t priority = kNoPriority;
    size_t pending_asks = 0;
    for (const auto& [first_seq, ask] : a_side.asks) {
      const Ask& k = asks_[ask];
      const AskHot& hot = ask_hot_[ask];
      // The walk reads the hot flags in place of the cold names they stand for.
      if (hot.app != app || !hot.alive || hot.shape == ResourceShapes::kNone ||
          hot.has_required_node == k.required_node.empty() ||
          hot.gang_member == k.task_group.empty()) {
        return Inconsistent(name_, "app ", a_side.id, ": ask ", k.id,
                            ": hot record out of step with the cold one");
      }
      if (first_seq != k.first_add_seq) {
        return Inconsistent(name_, "app ", a_side.id, ": ask ", k.id, ": listed under another seq");
      }
      if (hot.pending > 0) {
        ++pending_asks;
        pending = Add(pending, Multiply(ResourceOf(hot), hot.pending));
        if (priority == kNoPriority || hot.priority > priority) priority = hot.priority;
        // With the size check below: the ask order holds exactly the pending asks, each under
        // the key its removal will look for.
        if (!a.ask_order.contains(AskKey{-int64_t{hot.priority}, k.create_time, k.add_seq, ask})) {
          return Inconsistent(name_, "app ", a_side.id, ": ask ", k.id,
                              ": not in the ask order under its current key");
        }
      }
      for (uint32_t alloc : k.allocations) {
        const Allocation& allocation = allocations_[alloc];
        if (!allocation.live || allocation.ask != ask || allocation.app != app) {
          return Inconsistent(name_, "app ", a_side.id, ": ask ", k.id,
                              ": lists an allocation that is not its own live one");
        }
        allocated = Add(allocated, allocations_[alloc].resource);
        ++live_allocations;
        if (!allocations_[alloc].placeholder) continue;
        placeholders = Add(placeholders, allocations_[alloc].resource);
        ++live_placeholders;
      }
    }
    sums->placeholders += live_placeholders;
    if (live_allocations != a.live_allocations) {
      return Inconsistent(name_, "app ", a_side.id, ": allocation count");
    }
    if (live_placeholders != a.live_placeholders) {
      return Inconsistent(name_, "app ", a_side.id, ": placeholder count");
    }
    if (!IsZero(Sub(placeholders, a.allocated_placeholder))) {
      return Inconsistent(name_, "app ", a_side.id, ": cached placeholder total differs");
    }
    if (a_side.placeholder_timer !=
        (timers_.contains({a_side.placeholder_timer_due, a_side.placeholder_timer_seq, app}))) {
      return Inconsistent(name_, "app ", a_side.id, ": placeholder timer not scheduled as cached");
    }
    if (a_side.placeholder_timer && live_placeholders == 0) {
      return Inconsistent(name_, "app ", a_side.id,
                          ": placeholder timer running without placeholders");
    }
    if (pending_asks != a.ask_order.size()) {
      return Inconsistent(name_, "app ", a_side.id, ": ask order size differs");
    }
    // Presence of zero-valued types is not observable for pending (missing reads as 0).
    if (!IsZero(Sub(pending, a.pending))) {
      return Inconsistent(name_, "app ", a_side.id, ": cached pending differs");
    }
    if (!(IsZero(Sub(allocated, a.allocated)))) {
      return Inconsistent(name_, "app ", a_side.id, ": cached allocated differs");
    }
    if (priority != a.priority) {
      return Inconsistent(name_, "app ", a_side.id, ": cached priority ", a.priority,
                          " != recomputed ", priority);
    }
    bool member = StrictlyGreaterThanZero(a.pending);
    const std::optional<OrderKey>& key_in_leaf = app_keys_[app];
    if (member != key_in_leaf.has_value())
      return Inconsistent(name_, "app ", a_side.id, ": leaf membership");
    if (member && !(*key_in_leaf == AppKey(app))) {
      return Inconsistent(name_, "app ", a_side.id, ": stale leaf key");
    }
    if (member && !queues_[a.queue].order.contains(EntryOf(*key_in_leaf, /*app=*/true))) {
      return Inconsistent(name_, "app ", a_side.id, ": missing from leaf order");
    }
    for (uint32_t q = a.queue; q != kNoSlot; q = queues_[q].parent) {
      sums->pending[q] = Add(sums->pending[q], a.pending);
      sums->allocated[q] = Add(sums->allocated[q], a.allocated);
    }
  }
  return absl::OkStatus();
}

absl::Status Partition::CheckQueues(const RecomputedSums& sums) const {
  // Queues by path: exactly the live ones, each under its own path.
  size_t live_queues = 0;
  for (uint32_t q = 0; q < queues_.size(); ++q) {
    if (!queues_[q].alive) continue;
    ++live_queues;
    auto it = queues_by_path_.find(queue_side_[q].path);
    if (it == queues_by_path_.end() || it->second != q) {
      return Inconsistent(name_, "queue ", queue_side_[q].path, ": not found by its path");
    }
  }
  if (live_queues != queues_by_path_.size())
    return Inconsistent(name_, "the path index holds removed queues");
  // Queues: sums, priorities, positions, bottom-up.
  for (uint32_t q = 0; q < queues_.size(); ++q) {
    const Queue& queue = queues_[q];
    const QueueSide& queue_side = queue_side_[q];
    if (!queue.alive && queue_keys_[q]) {
      return Inconsistent(name_, "queue ", queue_side.path,
                          ": removed, but keeps a key in its parent's order");
    }
    if (!queue.alive) continue;
    if (!IsZero(Sub(sums.pending[q], queue.pending))) {
      return Inconsistent(name_, "queue ", queue_side.path, ": pending");
    }
    if (!IsZero(Sub(sums.allocated[q], queue.allocated))) {
      return Inconsistent(name_, "queue ", queue_side.path, ": allocated");
    }
    absl::btree_map<int32_t, int32_t> expected;
    size_t members = 0;
    if (queue.leaf) {
      for (auto [seq, app] : queue.apps) {
        if (apps_[app].priority != kNoPriority) ++expected[apps_[app].priority];
        if (app_keys_[app]) ++members;
      }
    } else {
      for (uint32_t c : queue.children) {
        if (!queues_[c].alive) continue;
        if (queues_[c].priority != kNoPriority) ++expected[queues_[c].priority];
        if (queue_keys_[c]) ++members;
      }
    }
    if (expected != queue.child_priorities) {
      return Inconsistent(name_, "queue ", queue_side.path, ": child priorities");
    }
    if (members != queue.order.size())
      return Inconsistent(name_, "queue ", queue_side.path, ": order size");
    // The btree's compact entries: each the entry of its member's full key, in full-key order.
    const OrderKey* previous = nullptr;
    for (const OrderEntry& entry : queue.order) {
      bool known =
          entry.app ? app_keys_[entry.slot].has_value() : queue_keys_[entry.slot].has_value();
      if (!known || !(entry == EntryOf(FullKey(entry), entry.app))) {
        return Inconsistent(name_, "queue ", queue_side.path,
                            ": order entry differs from its member's key");
      }
      if (previous != nullptr && !(*previous < FullKey(entry))) {
        return Inconsistent(name_, "queue ", queue_side.path, ": order entries out of key order");
      }
      previous = &FullKey(entry);
    }
    if (EffectivePriority(queue) != queue.priority) {
      return Inconsistent(name_, "queue ", queue_side.path, ": cached priority ", queue.priority,
                          " != recomputed ", EffectivePriority(queue));
    }
    if (queue.parent != kNoSlot) {
      bool member = queue.state != QueueState::kStopped && StrictlyGreaterThanZero(queue.pending);
      if (member != queue_keys_[q].has_value()) {
        return Inconsistent(name_, "queue ", queue_side.path, ": parent membership");
      }
      if (member && !(*queue_keys_[q] == ChildKey(q))) {
        return Inconsistent(name_, "queue ", queue_side.path, ": stale key in parent");
      }
    }
  }
  // Quota-change preemption: the index of start times the checks are planned by.
  absl::btree_set<std::pair<int64_t, uint32_t>> quota_starts;
  for (uint32_t q = 0; q < queues_.size(); ++q) {
    if (queue_side_[q].quota_start) quota_starts.insert({*queue_side_[q].quota_start, q});
  }
  if (quota_starts != quota_starts_) return Inconsistent(name_, "quota start time index");
  return absl::OkStatus();
}

absl::Status Partition::CheckNodes() const {
  // Foreign pods sit on registered nodes (a node's removal takes its foreign pods along).
  for (const auto& [id, foreign] : foreign_) {
    if (foreign.node >= nodes_.size() || !nodes_[foreign.node].alive) {
      return Inconsistent(name_, "foreign pod ", id, ": on a node that is gone");
    }
  }
  // Nodes: allocated, score, order.
  size_t live_nodes = 0;
  for (uint32_t n = 0; n < nodes_.size(); ++n) {
    const Node& node = nodes_[n];
    if (!node.alive) continue;
    ++live_nodes;
    Resource allocated;
    for (uint32_t alloc : node.allocations) {
      allocated = Add(allocated, allocations_[alloc].resource);
    }
    if (!IsZero(Sub(allocated, node.allocated)))
      return Inconsistent(name_, "node ", node.id, ": allocated");
    if (!(node.available == Sub(Sub(node.capacity, node.allocated), node.occupied))) {
      return Inconsistent(name_, "node ", node.id, ": cached available differs");
    }
    if (SeenNodeScore(n) != node.score)
      return Inconsistent(name_, "node ", node.id, ": stale score");
    if (score_basis_.contains(n) && !context_->profile->foreign_changes_keep_node_order) {
      return Inconsistent(name_, "node ", node.id,
                          ": a stale score under a profile that re-sorts every change");
    }
    const NodeIndex::Entry* entry = node_index_.Find(node.key(n));
    if (entry == nullptr)
      return Inconsistent(name_, "node ", node.id, ": missing from the node index");
    if (entry->eligible != node.Eligible() ||
        node_index_.Available(n) != ToFitQuantities(node.Available())) {
      return Inconsistent(name_, "node ", node.id,
                          ": node index holds stale availability or eligibility");
    }
  }
  if (live_nodes != node_index_.size()) return Inconsistent(name_, "node index size");
  if (std::string why; !node_index_.CheckFromScratch(&why)) return Inconsistent(name_, why);
  return absl::OkStatus();
}

absl::Status Partition::CheckReservationsAndIds(const RecomputedSums& sums) const {
  // Reservations: both sides agree.
  int64_t reservations = 0;
  for (uint32_t app = 0; app < apps_.size(); ++app) {
    if (!apps_[app].alive) continue;
    for (const Reservation& r : apps_[app].reservations) {
      ++reservations;
      if (!nodes_[r.node].reservation ||
          *nodes_[r.node].reservation != std::make_pair(app, r.ask)) {
        return Inconsistent(name_, "reservation of app ", app_side_[app].id, " not on node ",
                            nodes_[r.node].id);
      }
    }
  }
  if (reservations != total_reservations_) return Inconsistent(name_, "reservation count");
  if (sums.placeholders != live_placeholders_) return Inconsistent(name_, "placeholder count");
  if (!preempted_.empty()) return Inconsistent(name_, "preemption victims left over from a cycle");
  if (nodes_in_id_order_.size() != nodes_by_id_.size())
    return Inconsistent(name_, "node id order size");
  const Node* previous_node = nullptr;
  for (const auto& [id, node] : nodes_in_id_order_) {
    auto it = nodes_by_id_.find(id);
    if (it == nodes_by_id_.end() || it->second != node || !nodes_[node].alive) {
      return Inconsistent(name_, "node id order holds ", id,
                          ", not a registered node of that slot");
    }
    // The node index orders equal scores by these ranks: they must follow the ids.
    if (previous_node != nullptr && !(previous_node->id_rank < nodes_[node].id_rank)) {
      return Inconsistent(name_, "node ", id, ": id rank not above the rank of the id before it");
    }
    previous_node = &nodes_[node];
  }
  return absl::OkStatus();
}

}  // namespace allocore::internal
