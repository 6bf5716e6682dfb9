// Read-only views of a partition: queues, applications, nodes and allocations as the queries
// and ExplainPending see them (the consistency check is partition_consistency.cc).
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

NodeInfo Partition::NodeInfoOf(uint32_t node) const {
  const Node& n = nodes_[node];
  int64_t foreign_count = 0;
  for (const auto& [id, foreign] : foreign_) foreign_count += foreign.node == node ? 1 : 0;
  return {.id = std::string(n.id),
          .capacity = n.capacity,
          .allocated = n.allocated,
          .occupied = n.occupied,
          .available = n.available,
          .schedulable = n.schedulable,
          .reserved = n.reservation.has_value(),
          .allocations = static_cast<int64_t>(n.allocations.size()),
          .foreign_allocations = foreign_count};
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

}  // namespace allocore::internal
