// Nodes registered, updated and removed (every method validates its whole input before
// changing anything: a refused call leaves the partition as it was).
#include "message.h"
#include "partition.h"
#include "slots.h"

namespace allocore::internal {

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
  std::vector<uint32_t> allocations(nodes_[slot].allocations.begin(),
                                    nodes_[slot].allocations.end());
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

}  // namespace allocore::internal
