// Incremental caches of a partition: priorities, positions in the orders, node scores.
#include <algorithm>
#include <array>
#include <cmath>

#include "contract.h"
#include "partition.h"

namespace allocore::internal {
namespace {

void AddCount(absl::btree_map<int32_t, int32_t>& counts, int32_t priority) {
  if (priority != kNoPriority) ++counts[priority];
}

void RemoveCount(absl::btree_map<int32_t, int32_t>& counts, int32_t priority) {
  if (priority == kNoPriority) return;
  auto it = counts.find(priority);
  if (it != counts.end() && --it->second == 0) counts.erase(it);
}

}  // namespace

int32_t Partition::EffectivePriority(const Queue& queue) const {
  if (queue.child_priorities.empty()) return kNoPriority;
  int64_t raw = queue.child_priorities.rbegin()->first;
  if (queue.props.fenced) return queue.props.offset;
  int64_t sum = raw + queue.props.offset;
  return static_cast<int32_t>(std::clamp<int64_t>(sum, std::numeric_limits<int32_t>::min(),
                                                  std::numeric_limits<int32_t>::max()));
}

bool OrderEntryLess::FullLess(const OrderEntry& a, const OrderEntry& b) const {
  // Called once `first` and the top shares tie (operator() compared them), so the comparison
  // of the full keys (OrderKey's operator<) resumes at the second share.
  ALLOCORE_DCHECK(a.first == b.first && a.top_share == b.top_share);
  const OrderKey& ka = partition_->FullKey(a);
  const OrderKey& kb = partition_->FullKey(b);
  ALLOCORE_DCHECK(ka.first == a.first && ka.shares[0] == a.top_share && kb.first == b.first &&
                  kb.shares[0] == b.top_share);
  for (size_t i = 1; i < ka.shares.size(); ++i) {
    if (ka.shares[i] != kb.shares[i]) return ka.shares[i] < kb.shares[i];
  }
  if (ka.second != kb.second) return ka.second < kb.second;
  if (ka.pending != kb.pending) return ka.pending < kb.pending;
  if (ka.tiebreak != kb.tiebreak) return ka.tiebreak < kb.tiebreak;
  return ka.slot < kb.slot;
}

inline OrderKey Partition::ChildKey(uint32_t queue, const Resource* pending,
                                    const int32_t* priority) const {
  const Queue& q = queues_[queue];
  const Profile& profile = *context_->profile;
  std::optional<Resource> fair_max;
  if (profile.child_share_reads_fair_max) fair_max = FairMax(queue);
  return ChildQueueKey(profile.child_share(q.allocated, q.guaranteed, fair_max),
                       pending != nullptr ? *pending : q.pending,
                       priority != nullptr ? *priority : q.priority,
                       queues_[q.parent].props.priority_sort_enabled, q.sibling_order, queue);
}

OrderKey Partition::ChildKey(uint32_t queue) const { return ChildKey(queue, nullptr, nullptr); }

std::optional<Resource> Partition::FairMax(uint32_t queue) const {
  // The cluster without its zero quantities, then each max on the way down overrides the
  // types it names; nothing without nodes (YuniKorn 1.6+ GetFairMaxResource).
  Resource fair;
  for (int k = 0; k < kMaxResourceTypes; ++k) {
    if (cluster_capacity_.Has(k) && cluster_capacity_.Get(k) != 0) {
      fair.Set(k, cluster_capacity_.Get(k));
    }
  }
  if (fair.present == 0) return std::nullopt;
  std::array<uint32_t, kMaxQueueDepth + 1> path;
  size_t depth = 0;
  for (uint32_t q = queue; q != root_ && q != kNoSlot && depth < path.size();
       q = queues_[q].parent) {
    path[depth++] = q;
  }
  while (depth > 0) {
    const std::optional<Resource>& max = queues_[path[--depth]].max;
    if (!max || max->present == 0) continue;
    for (int k = 0; k < kMaxResourceTypes; ++k) {
      if (max->Has(k)) fair.Set(k, max->Get(k));
    }
  }
  return fair;
}

void Partition::ClusterCapacityChanged() {
  if (!context_->profile->child_share_reads_fair_max) return;
  // Every fair share reads the cluster: re-key the queues that sit in an order, deepest
  // first is not needed (a key does not read the keys below it).
  for (uint32_t q = 0; q < queues_.size(); ++q) {
    std::optional<OrderKey>& key_in_parent = queue_keys_[q];
    if (!queues_[q].alive || !key_in_parent) continue;
    OrderKey key = ChildKey(q);
    if (key == *key_in_parent) continue;
    Rekey(queues_[queues_[q].parent].order, key_in_parent, key, /*app=*/false);
  }
}

void Partition::Rekey(Order& order, std::optional<OrderKey>& held,
                      const std::optional<OrderKey>& key, bool app) {
  // The comparator reads the member's full key through `held`: the old one while the member is
  // found or erased, the new one while it is compared with its neighbours or inserted.
  if (!held) {
    held = key;
    if (key) order.insert(EntryOf(*key, app));
    return;
  }
  // A small order is scanned for the member's slot: no comparison, where find() would compare
  // full keys (the entries of members with pending in more than one type are never whole).
  constexpr size_t kScanUpTo = 8;
  auto it = order.begin();
  if (order.size() <= kScanUpTo) {
    while (it != order.end() && !(it->slot == held->slot && it->app == app)) ++it;
  } else {
    it = order.find(EntryOf(*held, app));
  }
  ALLOCORE_DCHECK(it != order.end() && it->slot == held->slot);
  held = key;
  if (!key) {
    order.erase(it);
    return;
  }
  const OrderEntry entry = EntryOf(*key, app);
  const OrderEntryLess less = order.key_comp();
  const bool after_previous = it == order.begin() || less(*std::prev(it), entry);
  if (after_previous) {
    auto next = std::next(it);
    if (next == order.end() || less(entry, *next)) {
      // Same place in the order: the btree's ordering invariant holds with the new entry, so
      // it is overwritten where it is (the element itself is not const, the set only hands
      // out const references).
      const_cast<OrderEntry&>(*it) = entry;
      return;
    }
  }
  order.erase(it);
  order.insert(entry);
}

inline OrderKey Partition::AppKey(uint32_t app, int32_t priority, int64_t submission_time) const {
  const App& a = apps_[app];
  const Queue& leaf = queues_[a.queue];
  // Submission order is the add order, unless asks' creation times can lower a submission time.
  return ApplicationKey(leaf.props.sort_policy, leaf.props.priority_sort_enabled, a.allocated,
                        a.allocated_placeholder, leaf.guaranteed, priority,
                        context_->profile->ask_creation_time_counts ? submission_time : 0,
                        a.submission_seq, app);
}

OrderKey Partition::AppKey(uint32_t app) const {
  return AppKey(app, apps_[app].priority, apps_[app].submission_time);
}

Partition::WalkPosition Partition::ProbePosition(const AskView& probe) const {
  const App& a = apps_[probe.app];
  WalkPosition at;
  at.app = probe.app;
  // AddAsk's key: the creation time (where the profile orders by it), then a later add order
  // than every ask's.
  int64_t create_time = context_->now;
  int64_t submission_time = a.submission_time;
  if (probe.creation_time && context_->profile->ask_creation_time_counts) {
    create_time = *probe.creation_time;
    submission_time = std::min(submission_time, create_time);
  }
  at.ask_key = {-int64_t{probe.priority}, create_time, context_->next_ask_seq, kNoSlot};
  if (!a.in_queue) {
    at.reachable = false;
    return at;
  }
  // Up the path, each level as AppChanged and QueuePathChanged would leave it with the probe's
  // repeats pending: the priority of the level below replaced, the pending total raised.
  int32_t old_priority = a.priority;
  int32_t new_priority = std::max(a.priority, probe.priority);
  at.app_key = AppKey(probe.app, new_priority, submission_time);
  const Resource added = Multiply(probe.resource, probe.pending);
  for (uint32_t q = a.queue; q != root_; q = queues_[q].parent) {
    const Queue& queue = queues_[q];
    const int32_t priority = EffectivePriorityWith(queue, old_priority, new_priority);
    if (queue.state == QueueState::kStopped) {
      at.reachable = false;
      return at;
    }
    const Resource pending = Add(queue.pending, added);
    at.queues.push_back({q, ChildKey(q, &pending, &priority)});
    old_priority = queue.priority;
    new_priority = priority;
  }
  std::reverse(at.queues.begin(), at.queues.end());
  return at;
}

void Partition::AppChanged(uint32_t app) {
  App& a = apps_[app];
  if (!a.in_queue || app == deferred_app_) return;
  Queue& leaf = queues_[a.queue];
  int32_t priority =
      a.ask_order.empty() ? kNoPriority : static_cast<int32_t>(-a.ask_order.begin()->neg_priority);
  if (priority != a.priority) {
    RemoveCount(leaf.child_priorities, a.priority);
    AddCount(leaf.child_priorities, priority);
    a.priority = priority;
  }
  const bool has_pending = StrictlyGreaterThanZero(a.pending);
  std::optional<OrderKey> key;
  if (has_pending) key = AppKey(app);
  std::optional<OrderKey>& key_in_leaf = app_keys_[app];
  if (key != key_in_leaf) Rekey(leaf.order, key_in_leaf, key, /*app=*/true);
  std::pair<int64_t, uint32_t> member{a.submission_seq, app};
  if (a.state == AppState::kAccepted && has_pending) {
    leaf.accepted_with_pending.insert(member);
  } else if (!leaf.accepted_with_pending.empty()) {
    leaf.accepted_with_pending.erase(member);
  }
  if (!defer_path_walk_) QueuePathChanged(a.queue);
}

void Partition::QueuePathChanged(uint32_t queue) {
  for (uint32_t q = queue; q != kNoSlot;) {
    Queue& current = queues_[q];
    int32_t priority = EffectivePriority(current);
    uint32_t parent_slot = current.parent;
    if (parent_slot == kNoSlot) {
      current.priority = priority;
      break;
    }
    Queue& parent = queues_[parent_slot];
    if (priority != current.priority) {
      RemoveCount(parent.child_priorities, current.priority);
      AddCount(parent.child_priorities, priority);
      current.priority = priority;
    }
    std::optional<OrderKey> key;
    if (current.state != QueueState::kStopped && StrictlyGreaterThanZero(current.pending)) {
      key = ChildKey(q);
    }
    std::optional<OrderKey>& key_in_parent = queue_keys_[q];
    if (key != key_in_parent) Rekey(parent.order, key_in_parent, key, /*app=*/false);
    q = parent_slot;
  }
}

double Partition::NodeScore(const Node& node) const {
  return NodeScore(node.capacity, node.Available());
}

double Partition::NodeScore(const Resource& capacity, const Resource& available) const {
  double usage = 0;
  double total_weight = 0;
  for (auto [type, weight] : node_weights_) {
    if (!capacity.Has(type)) continue;
    double share =
        1.0 - static_cast<double>(available.Get(type)) / static_cast<double>(capacity.Get(type));
    if (!std::isfinite(share)) continue;
    usage += share * weight;
    total_weight += weight;
  }
  double weighted = total_weight == 0 ? 0.0 : usage / total_weight;
  return node_policy_ == NodePolicy::kFair ? weighted : 1.0 - weighted;
}

void Partition::RefreshNode(uint32_t node) {
  if (!score_basis_.empty()) score_basis_.erase(node);  // a notified change: the score catches up
  Node& n = nodes_[node];
  double score = NodeScore(n);
  if (score == n.score) {
    node_index_.Update(n.key(node), n.available, n.Eligible());
    return;
  }
  node_index_.Move(n.key(node), score, n.available, n.Eligible());
  n.score = score;
}

void Partition::RebuildCaches() {
  for (Queue& q : queues_) {
    q.child_priorities.clear();
    q.order.clear();
    q.priority = kNoPriority;
    q.accepted_with_pending.clear();
  }
  for (App& a : apps_) {
    a.priority = kNoPriority;
  }
  queue_keys_.assign(queues_.size(), std::nullopt);
  app_keys_.assign(apps_.size(), std::nullopt);
  required_node_pending_.clear();
  for (uint32_t ask = 0; ask < ask_hot_.size(); ++ask) {
    const AskHot& hot = ask_hot_[ask];
    if (hot.alive && hot.has_required_node && hot.pending > 0) required_node_pending_.insert(ask);
  }
  // Leaves first (deepest first), so every parent sees final child values.
  std::vector<uint32_t> by_depth;
  for (uint32_t q = 0; q < queues_.size(); ++q) {
    if (queues_[q].alive) by_depth.push_back(q);
  }
  auto depth = [&](uint32_t q) {
    int d = 0;
    for (uint32_t p = queues_[q].parent; p != kNoSlot; p = queues_[p].parent) ++d;
    return d;
  };
  std::stable_sort(by_depth.begin(), by_depth.end(),
                   [&](uint32_t a, uint32_t b) { return depth(a) > depth(b); });
  for (uint32_t app = 0; app < apps_.size(); ++app) {
    if (apps_[app].alive && apps_[app].in_queue) AppChanged(app);
  }
  for (uint32_t q : by_depth) QueuePathChanged(q);
  node_index_.Clear();
  for (uint32_t n = 0; n < nodes_.size(); ++n) {
    Node& node = nodes_[n];
    if (!node.alive) continue;
    node.score = SeenNodeScore(n);  // a reload tells the node order nothing new (1.9)
    node_index_.Insert(node.key(n), node.available, node.Eligible());
  }
}

}  // namespace allocore::internal
