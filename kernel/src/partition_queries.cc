// Read-only views of a partition and the from-scratch consistency check of every cached
// value.
#include <algorithm>

#include "message.h"
#include "partition.h"

namespace allocore::internal {
namespace {

std::string_view StateName(QueueState state) {
  switch (state) {
    case QueueState::kActive:
      return "Active";
    case QueueState::kDraining:
      return "Draining";
    case QueueState::kStopped:
      return "Stopped";
  }
  return "Active";
}

}  // namespace

QueueInfo Partition::Info(uint32_t queue) const {
  const Queue& q = queues_[queue];
  const QueueSide& q_side = queue_side_[queue];
  QueueInfo info;
  info.path = std::string(q_side.path);
  info.is_leaf = q.leaf;
  info.dynamic = q.dynamic;
  info.state = std::string(StateName(q.state));
  info.priority = q.priority;
  info.has_pending_priority = q.priority != kNoPriority;
  info.offset = q.props.offset;
  info.fenced = q.props.fenced;
  info.priority_sort_enabled = q.props.priority_sort_enabled;
  info.sort_policy = q.leaf ? std::string(AppSortPolicyName(q.props.sort_policy)) : "fair";
  info.guaranteed = q.guaranteed;
  info.max = queue == root_ && has_nodes_ever_ ? std::optional<Resource>(cluster_capacity_) : q.max;
  info.allocated = q.allocated;
  info.pending = q.pending;
  info.max_applications = q.max_apps;
  info.running_applications = q.running_apps;
  for (uint32_t p = q.parent; p != kNoSlot; p = queues_[p].parent) ++info.depth;
  return info;
}

std::vector<QueueInfo> Partition::ListQueues() const {
  std::vector<QueueInfo> out;
  if (root_ == kNoSlot) return out;
  std::vector<uint32_t> stack{root_};
  while (!stack.empty()) {
    uint32_t q = stack.back();
    stack.pop_back();
    out.push_back(Info(q));
    std::vector<uint32_t> children;
    for (uint32_t c : queues_[q].children) {
      if (queues_[c].alive) children.push_back(c);
    }
    std::stable_sort(children.begin(), children.end(), [&](uint32_t a, uint32_t b) {
      return queues_[a].sibling_order < queues_[b].sibling_order;
    });
    for (auto it = children.rbegin(); it != children.rend(); ++it) stack.push_back(*it);
  }
  return out;
}

absl::StatusOr<QueueInfo> Partition::GetQueue(std::string_view path) const {
  uint32_t q = FindQueue(path);
  if (q == kNoSlot) return absl::NotFoundError(Cat("unknown queue ", path));
  return Info(q);
}

std::optional<QueueInfo> Partition::LiveQueueInfo(uint32_t queue) const {
  if (queue >= queues_.size() || !queues_[queue].alive) return std::nullopt;
  return Info(queue);
}

absl::StatusOr<AppInfo> Partition::GetApplication(std::string_view id) const {
  uint32_t app = FindApp(id);
  if (app == kNoSlot) {
    // Completed applications stay visible until they expire; rejected ones never entered.
    for (uint32_t t : terminated_apps_) {
      if (app_side_[t].id == id && apps_[t].state != AppState::kRejected) app = t;
    }
  }
  if (app == kNoSlot) return absl::NotFoundError(Cat("unknown application ", id));
  return AppInfoOf(app);
}

AppInfo Partition::AppInfoOf(uint32_t app) const {
  const App& a = apps_[app];
  const AppSide& a_side = app_side_[app];
  AppInfo info;
  info.id = std::string(a_side.id);
  info.queue = a.queue == kNoSlot ? std::string() : std::string(queue_side_[a.queue].path);
  info.state = a.state;
  info.priority = a.priority;
  info.allocated = a.allocated;
  info.pending = a.pending;
  return info;
}

std::vector<NodeInfo> Partition::ListNodes() const {
  absl::flat_hash_map<uint32_t, int64_t> foreign_count;
  for (const auto& [id, foreign] : foreign_) ++foreign_count[foreign.node];
  std::vector<NodeInfo> nodes;
  nodes.reserve(nodes_by_id_.size());
  for (const auto& [id, slot] : nodes_in_id_order_) {
    const Node& n = nodes_[slot];
    auto foreign = foreign_count.find(slot);
    nodes.push_back({.id = std::string(n.id),
                     .capacity = n.capacity,
                     .allocated = n.allocated,
                     .occupied = n.occupied,
                     .available = n.available,
                     .schedulable = n.schedulable,
                     .reserved = n.reservation.has_value(),
                     .allocations = static_cast<int64_t>(n.allocations.size()),
                     .foreign_allocations = foreign == foreign_count.end() ? 0 : foreign->second});
  }
  return nodes;
}

std::vector<AppInfo> Partition::ListApplications() const {
  // What GetApplication answers for: the active applications and the finished ones not yet
  // expired (never the rejected), by submission.
  std::vector<std::pair<int64_t, uint32_t>> order;
  for (uint32_t app = 0; app < apps_.size(); ++app) {
    if (!apps_[app].alive || apps_[app].state == AppState::kRejected) continue;
    order.push_back({apps_[app].submission_seq, app});
  }
  std::sort(order.begin(), order.end());
  std::vector<AppInfo> apps;
  apps.reserve(order.size());
  for (auto [seq, app] : order) apps.push_back(AppInfoOf(app));
  return apps;
}

absl::StatusOr<std::vector<AllocationInfo>> Partition::ListAllocations(
    std::string_view app_id, std::string_view node_id) const {
  std::vector<std::pair<int64_t, uint32_t>> found;  // (age, allocation)
  uint32_t node = kNoSlot;
  if (!node_id.empty()) {
    node = FindNode(node_id);
    if (node == kNoSlot) return absl::NotFoundError(Cat("unknown node ", node_id));
  }
  if (!app_id.empty()) {
    const uint32_t app = FindApp(app_id);
    if (app == kNoSlot) return absl::NotFoundError(Cat("unknown application ", app_id));
    for (const auto& [first_seq, ask] : app_side_[app].asks) {
      for (uint32_t alloc : asks_[ask].allocations) {
        if (node == kNoSlot || allocations_[alloc].node == node) {
          found.push_back({allocations_[alloc].age, alloc});
        }
      }
    }
  } else if (node != kNoSlot) {
    for (uint32_t alloc : nodes_[node].allocations)
      found.push_back({allocations_[alloc].age, alloc});
  } else {
    for (uint32_t alloc = 0; alloc < allocations_.size(); ++alloc) {
      if (allocations_[alloc].live) found.push_back({allocations_[alloc].age, alloc});
    }
  }
  std::sort(found.begin(), found.end());
  std::vector<AllocationInfo> out;
  out.reserve(found.size());
  for (auto [age, slot] : found) {
    const Allocation& a = allocations_[slot];
    out.push_back({.app = std::string(app_side_[a.app].id),
                   .ask = std::string(asks_[a.ask].id),
                   .node = std::string(nodes_[a.node].id),
                   .seq = a.seq,
                   .resources = a.resource,
                   .priority = a.priority,
                   .placeholder = a.placeholder,
                   .task_group = std::string(a.task_group)});
  }
  return out;
}

Kernel::Usage Partition::Usage() const {
  return {.applications = static_cast<int64_t>(apps_.size() - free_apps_.size()),
          .asks = static_cast<int64_t>(asks_.size() - free_asks_.size()),
          .live_allocations = static_cast<int64_t>(allocations_.size() - free_allocations_.size())};
}

bool Partition::HasAsk(std::string_view app, std::string_view ask) const {
  uint32_t slot = FindApp(app);
  return slot != kNoSlot && app_side_[slot].asks_by_id.contains(ask);
}

bool Partition::HasPending() const {
  return root_ != kNoSlot && StrictlyGreaterThanZero(queues_[root_].pending);
}

absl::Status Partition::CheckConsistency() const {
  auto fail = [&](auto&&... parts) {
    return absl::InternalError(Cat("partition ", name_, ": ", parts...));
  };
  // Ask shapes: every reference an ask holds is counted, and each shape is found by its resource.
  {
    std::vector<uint32_t> shape_references;
    for (const AskHot& hot : ask_hot_) {
      if (hot.shape != ResourceShapes::kNone) shape_references.push_back(hot.shape);
    }
    std::string why;
    if (!shapes_.CheckFromScratch(shape_references, &why)) return fail("ask shapes: ", why);
  }
  // Applications: pending, allocated, priority, position.
  std::vector<Resource> queue_pending(queues_.size());
  std::vector<Resource> queue_allocated(queues_.size());
  int64_t partition_placeholders = 0;
  if (app_keys_.size() != apps_.size() || queue_keys_.size() != queues_.size() ||
      ask_hot_.size() != asks_.size() || queue_side_.size() != queues_.size() ||
      app_side_.size() != apps_.size()) {
    return fail(
        "side and dense tables (order keys, hot asks, queue sides) are not sized with their "
        "records");
  }
  for (uint32_t app = 0; app < apps_.size(); ++app) {
    const App& a = apps_[app];
    const AppSide& a_side = app_side_[app];
    if ((!a.alive || !a.in_queue) && app_keys_[app]) {
      return fail("app slot ", app, ": an order key without a leaf order");
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
        return fail("app ", a_side.id, ": ask ", k.id,
                    ": hot record out of step with the cold one");
      }
      if (hot.pending > 0) {
        ++pending_asks;
        pending = Add(pending, Multiply(ResourceOf(hot), hot.pending));
        if (priority == kNoPriority || hot.priority > priority) priority = hot.priority;
      }
      for (uint32_t alloc : k.allocations) {
        allocated = Add(allocated, allocations_[alloc].resource);
        ++live_allocations;
        if (!allocations_[alloc].placeholder) continue;
        placeholders = Add(placeholders, allocations_[alloc].resource);
        ++live_placeholders;
      }
    }
    partition_placeholders += live_placeholders;
    if (live_allocations != a.live_allocations) {
      return fail("app ", a_side.id, ": allocation count");
    }
    if (live_placeholders != a.live_placeholders) {
      return fail("app ", a_side.id, ": placeholder count");
    }
    if (!IsZero(Sub(placeholders, a.allocated_placeholder))) {
      return fail("app ", a_side.id, ": cached placeholder total differs");
    }
    if (a_side.placeholder_timer !=
        (timers_.contains({a_side.placeholder_timer_due, a_side.placeholder_timer_seq, app}))) {
      return fail("app ", a_side.id, ": placeholder timer not scheduled as cached");
    }
    if (a_side.placeholder_timer && live_placeholders == 0) {
      return fail("app ", a_side.id, ": placeholder timer running without placeholders");
    }
    if (pending_asks != a.ask_order.size()) {
      return fail("app ", a_side.id, ": ask order size differs");
    }
    // Presence of zero-valued types is not observable for pending (missing reads as 0).
    if (!IsZero(Sub(pending, a.pending))) {
      return fail("app ", a_side.id, ": cached pending differs");
    }
    if (!(IsZero(Sub(allocated, a.allocated)))) {
      return fail("app ", a_side.id, ": cached allocated differs");
    }
    if (priority != a.priority) {
      return fail("app ", a_side.id, ": cached priority ", a.priority, " != recomputed ", priority);
    }
    bool member = StrictlyGreaterThanZero(a.pending);
    const std::optional<OrderKey>& key_in_leaf = app_keys_[app];
    if (member != key_in_leaf.has_value()) return fail("app ", a_side.id, ": leaf membership");
    if (member && !(*key_in_leaf == AppKey(app))) {
      return fail("app ", a_side.id, ": stale leaf key");
    }
    if (member && !queues_[a.queue].order.contains(EntryOf(*key_in_leaf, /*app=*/true))) {
      return fail("app ", a_side.id, ": missing from leaf order");
    }
    for (uint32_t q = a.queue; q != kNoSlot; q = queues_[q].parent) {
      queue_pending[q] = Add(queue_pending[q], a.pending);
      queue_allocated[q] = Add(queue_allocated[q], a.allocated);
    }
  }
  // Queues by path: exactly the live ones, each under its own path.
  size_t live_queues = 0;
  for (uint32_t q = 0; q < queues_.size(); ++q) {
    if (!queues_[q].alive) continue;
    ++live_queues;
    auto it = queues_by_path_.find(queue_side_[q].path);
    if (it == queues_by_path_.end() || it->second != q) {
      return fail("queue ", queue_side_[q].path, ": not found by its path");
    }
  }
  if (live_queues != queues_by_path_.size()) return fail("the path index holds removed queues");
  // Queues: sums, priorities, positions, bottom-up.
  for (uint32_t q = 0; q < queues_.size(); ++q) {
    const Queue& queue = queues_[q];
    const QueueSide& queue_side = queue_side_[q];
    if (!queue.alive && queue_keys_[q]) {
      return fail("queue ", queue_side.path, ": removed, but keeps a key in its parent's order");
    }
    if (!queue.alive) continue;
    if (!IsZero(Sub(queue_pending[q], queue.pending))) {
      return fail("queue ", queue_side.path, ": pending");
    }
    if (!IsZero(Sub(queue_allocated[q], queue.allocated))) {
      return fail("queue ", queue_side.path, ": allocated");
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
      return fail("queue ", queue_side.path, ": child priorities");
    }
    if (members != queue.order.size()) return fail("queue ", queue_side.path, ": order size");
    // The btree's compact entries: each the entry of its member's full key, in full-key order.
    const OrderKey* previous = nullptr;
    for (const OrderEntry& entry : queue.order) {
      bool known =
          entry.app ? app_keys_[entry.slot].has_value() : queue_keys_[entry.slot].has_value();
      if (!known || !(entry == EntryOf(FullKey(entry), entry.app))) {
        return fail("queue ", queue_side.path, ": order entry differs from its member's key");
      }
      if (previous != nullptr && !(*previous < FullKey(entry))) {
        return fail("queue ", queue_side.path, ": order entries out of key order");
      }
      previous = &FullKey(entry);
    }
    if (EffectivePriority(queue) != queue.priority) {
      return fail("queue ", queue_side.path, ": cached priority ", queue.priority,
                  " != recomputed ", EffectivePriority(queue));
    }
    if (queue.parent != kNoSlot) {
      bool member = queue.state != QueueState::kStopped && StrictlyGreaterThanZero(queue.pending);
      if (member != queue_keys_[q].has_value()) {
        return fail("queue ", queue_side.path, ": parent membership");
      }
      if (member && !(*queue_keys_[q] == ChildKey(q))) {
        return fail("queue ", queue_side.path, ": stale key in parent");
      }
    }
  }
  // Foreign pods sit on registered nodes (a node's removal takes its foreign pods along).
  for (const auto& [id, foreign] : foreign_) {
    if (foreign.node >= nodes_.size() || !nodes_[foreign.node].alive) {
      return fail("foreign pod ", id, ": on a node that is gone");
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
    if (!IsZero(Sub(allocated, node.allocated))) return fail("node ", node.id, ": allocated");
    if (!(node.available == Sub(Sub(node.capacity, node.allocated), node.occupied))) {
      return fail("node ", node.id, ": cached available differs");
    }
    if (SeenNodeScore(n) != node.score) return fail("node ", node.id, ": stale score");
    if (score_basis_.contains(n) && !context_->profile->foreign_changes_keep_node_order) {
      return fail("node ", node.id, ": a stale score under a profile that re-sorts every change");
    }
    const NodeIndex::Entry* entry = node_index_.Find(node.key(n));
    if (entry == nullptr) return fail("node ", node.id, ": missing from the node index");
    if (entry->eligible != node.Eligible() ||
        node_index_.Available(n) != ToFitQuantities(node.Available())) {
      return fail("node ", node.id, ": node index holds stale availability or eligibility");
    }
  }
  if (live_nodes != node_index_.size()) return fail("node index size");
  if (std::string why; !node_index_.CheckFromScratch(&why)) return fail(why);
  // Reservations: both sides agree.
  int64_t reservations = 0;
  for (uint32_t app = 0; app < apps_.size(); ++app) {
    if (!apps_[app].alive) continue;
    for (const Reservation& r : apps_[app].reservations) {
      ++reservations;
      if (!nodes_[r.node].reservation ||
          *nodes_[r.node].reservation != std::make_pair(app, r.ask)) {
        return fail("reservation of app ", app_side_[app].id, " not on node ", nodes_[r.node].id);
      }
    }
  }
  if (reservations != total_reservations_) return fail("reservation count");
  if (partition_placeholders != live_placeholders_) return fail("placeholder count");
  if (!preempted_.empty()) return fail("preemption victims left over from a cycle");
  if (nodes_in_id_order_.size() != nodes_by_id_.size()) return fail("node id order size");
  const Node* previous_node = nullptr;
  for (const auto& [id, node] : nodes_in_id_order_) {
    auto it = nodes_by_id_.find(id);
    if (it == nodes_by_id_.end() || it->second != node || !nodes_[node].alive) {
      return fail("node id order holds ", id, ", not a registered node of that slot");
    }
    // The node index orders equal scores by these ranks: they must follow the ids.
    if (previous_node != nullptr && !(previous_node->id_rank < nodes_[node].id_rank)) {
      return fail("node ", id, ": id rank not above the rank of the id before it");
    }
    previous_node = &nodes_[node];
  }
  return absl::OkStatus();
}

}  // namespace allocore::internal
