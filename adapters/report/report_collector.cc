// ReportCollector: streaming aggregates of a replay (allocore/adapters/report.h).
//
// Time: every value is a step function of the logical clock. A value's integral is brought up
// to date only when the value changes (and once at the end), so a run costs O(changes), not
// O(time). The series share one grid of time buckets; when the clock passes the last bucket,
// every series merges adjacent pairs and the width doubles, so the grid always covers the run
// with at most ReportOptions::buckets buckets.
//
// What changes and when:
//   queue usage and pending  re-read from the kernel after a step for the leaves the step or
//                            its records touched; parents take the leaves' differences
//   node load                re-read after a step for the nodes its records or its own node
//                            arguments name
//   waits                    an ask's submission is the time of its add_ask step; each
//                            allocation of a non-placeholder ask records now - submission
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "absl/container/btree_map.h"
#include "absl/container/flat_hash_map.h"
#include "allocore/adapters/report.h"
#include "allocore/adapters/scenario.h"
#include "allocore/kernel.h"
#include "allocore/semantics.h"

namespace allocore::adapters {
namespace {

std::string AskKey(std::string_view partition, std::string_view app, std::string_view ask) {
  std::string key;
  key.reserve(partition.size() + app.size() + ask.size() + 2);
  key.append(partition).push_back('\x1f');
  key.append(app).push_back('\x1f');
  key.append(ask);
  return key;
}

std::string AppKey(std::string_view partition, std::string_view app) {
  std::string key;
  key.reserve(partition.size() + app.size() + 1);
  key.append(partition).push_back('\x1f');
  key.append(app);
  return key;
}

// Abseil's string_view is its own type in Debian's build.
absl::string_view AsAbsl(std::string_view s) { return {s.data(), s.size()}; }

uint64_t NodeKey(const NodeHandle& node) { return (uint64_t{node.slot} << 32) | node.generation; }

// The largest, over the types `limit` has above zero, of value / limit; 0 when none.
double DominantRatio(const Resource& value, const Resource& limit) {
  double ratio = 0;
  for (int k = 0; k < kMaxResourceTypes; ++k) {
    if (!limit.Has(k) || limit.Get(k) <= 0) continue;
    ratio = std::max(ratio, static_cast<double>(value.Get(k)) / static_cast<double>(limit.Get(k)));
  }
  return ratio;
}

bool AnyPositive(const Resource& r) {
  for (int k = 0; k < kMaxResourceTypes; ++k) {
    if (r.Get(k) > 0) return true;
  }
  return false;
}

}  // namespace

// The shared grid of time buckets and the integrals laid on it.
class SeriesGrid {
 public:
  explicit SeriesGrid(int buckets) : buckets_(std::max(buckets, 2) & ~1) {}

  int NewSeries() {
    values_.resize(values_.size() + static_cast<size_t>(buckets_), 0.0);
    return series_++;
  }
  // Widens the buckets until `t` (ms) lies inside the grid.
  void Cover(int64_t t) {
    while (t >= width_ * buckets_) {
      for (int s = 0; s < series_; ++s) {
        double* v = &values_[static_cast<size_t>(s) * static_cast<size_t>(buckets_)];
        for (int b = 0; b < buckets_ / 2; ++b) v[b] = v[2 * b] + v[2 * b + 1];
        std::fill(v + buckets_ / 2, v + buckets_, 0.0);
      }
      width_ *= 2;
    }
  }
  // Adds value * |[from, to) ∩ bucket| to each bucket of the series (Cover(to - 1) first).
  void AddSpan(int series, int64_t from, int64_t to, double value) {
    if (to <= from || value == 0) return;
    Cover(to - 1);
    double* v = &values_[static_cast<size_t>(series) * static_cast<size_t>(buckets_)];
    for (int64_t b = from / width_; b * width_ < to; ++b) {
      const int64_t lo = std::max(from, b * width_);
      const int64_t hi = std::min(to, (b + 1) * width_);
      v[b] += value * static_cast<double>(hi - lo);
    }
  }
  // Per bucket up to `end`: the integral divided by the bucket's time before `end`.
  std::vector<double> Means(int series, int64_t end) const {
    std::vector<double> out;
    const double* v = &values_[static_cast<size_t>(series) * static_cast<size_t>(buckets_)];
    for (int64_t b = 0; b < buckets_ && b * width_ < end; ++b) {
      const int64_t span = std::min(end, (b + 1) * width_) - b * width_;
      out.push_back(v[b] / static_cast<double>(span));
    }
    return out;
  }
  std::vector<double> Sums(int series, int64_t end) const {
    std::vector<double> out;
    const double* v = &values_[static_cast<size_t>(series) * static_cast<size_t>(buckets_)];
    for (int64_t b = 0; b < buckets_ && b * width_ < end; ++b) out.push_back(v[b]);
    return out;
  }
  int64_t width() const { return width_; }

 private:
  int buckets_;
  int series_ = 0;
  int64_t width_ = 1;
  std::vector<double> values_;
};

class ReportCollector::State {
 public:
  explicit State(ReportOptions options) : options_(options), grid_(options.buckets) {}

  struct TypeStats {
    int64_t peak = 0;
    double integral = 0;
    int64_t above_guarantee = 0;  // ms
    int64_t at_max = 0;           // ms
    int series = -1;
  };

  struct QueueState {
    std::string path;
    int parent = -1;
    std::vector<int> children;
    QueueHandle handle;
    bool leaf = false;
    bool alive = true;
    std::optional<Resource> guaranteed;
    std::optional<Resource> max;
    Resource allocated;
    Resource pending;
    int64_t since = 0;  // the time the values above hold since (integrated up to it)
    std::array<TypeStats, kMaxResourceTypes> types;
    double share_integral = 0;  // dominant share of capacity
    int share_series = -1;
    WaitHistogram waits;
    int64_t allocations = 0;
    int64_t preempted = 0;
    int64_t preemptions = 0;
    int64_t placeholder_timeouts = 0;
    int64_t quota_preempted = 0;
    bool dirty = false;
    // As a parent: Jain's index over the children (sums over the children counted).
    double ratio = 0;      // this queue's usage / guarantee, as counted in its parent
    bool counted = false;  // counted in its parent's index
    double sum = 0, sum_squares = 0;
    int count = 0;
    int64_t index_since = 0;
    double index_integral = 0;
    int64_t index_time = 0;
    int index_series = -1, index_time_series = -1;
  };

  struct NodeState {
    Resource capacity;
    Resource load;  // allocated + occupied
    int64_t since = 0;
    bool alive = true;
  };

  struct PartitionState {
    std::string name;
    PartitionHandle handle;
    std::string node_policy;
    std::vector<QueueState> queues;
    absl::flat_hash_map<std::string, int> queue_by_path;
    absl::flat_hash_map<uint64_t, int> node_by_key;
    absl::flat_hash_map<std::string, uint64_t> node_key_by_id;
    std::vector<NodeState> nodes;
    Resource capacity;
    int64_t capacity_since = 0;
    std::array<double, kMaxResourceTypes> capacity_integral{};
    std::array<int, kMaxResourceTypes> capacity_series{};
    std::array<double, 11> node_time{};  // ms of node time per utilisation bin
    double node_load_integral = 0;       // utilisation * ms
    double node_time_total = 0;
    std::vector<int> dirty_queues;
    std::vector<int> dirty_nodes;
    WaitHistogram waits;
    std::vector<Waiter> longest;  // completed waits, longest first, at most K
    absl::flat_hash_map<std::string, int64_t> rejections;
    int64_t rejected = 0;
  };

  struct PendingAsk {
    int partition = 0;
    int leaf = -1;
    int64_t submitted = 0;
    int64_t remaining = 0;
    int64_t order = 0;  // key in by_submission_
    bool placeholder = false;
    size_t app_length = 0;  // the key is partition \x1f app \x1f ask
    // The walk's last verdict on it, taken after a `schedule` step that left it pending, and
    // when (-1: never); the next sample is due at `next_sample` (key in samples_).
    std::string reason;
    int64_t reason_at = -1;
    int64_t next_sample = 0;
    bool left_pending = false;  // a `schedule` step ended with it still pending
  };

  void Init(const Kernel& kernel) {
    if (initialised_) return;
    initialised_ = true;
    for (const std::string& name : kernel.PartitionNames()) {
      PartitionState& p = partitions_.emplace_back();
      p.name = name;
      absl::StatusOr<PartitionHandle> handle = kernel.FindPartition(name);
      if (handle.ok()) p.handle = *handle;
      for (int k = 0; k < kMaxResourceTypes; ++k) {
        p.capacity_series[static_cast<size_t>(k)] = grid_.NewSeries();
      }
      SyncQueues(p, kernel);
      absl::StatusOr<std::vector<NodeInfo>> nodes = kernel.ListNodes(name);
      if (nodes.ok()) {
        for (const NodeInfo& node : *nodes) TrackNode(p, kernel, node.id);
      }
    }
  }

  // Every queue of the kernel's tree: new ones get an entry, limits are re-read.
  void SyncQueues(PartitionState& p, const Kernel& kernel) {
    absl::StatusOr<std::vector<QueueInfo>> queues = kernel.ListQueues(p.name);
    if (!queues.ok()) return;
    for (const QueueInfo& info : *queues) {
      const int q = QueueIndex(p, kernel, info.path);
      if (q < 0) continue;
      Refresh(p, q, info);
    }
  }

  int QueueIndex(PartitionState& p, const Kernel& kernel, std::string_view path) {
    auto it = p.queue_by_path.find(AsAbsl(path));
    if (it != p.queue_by_path.end()) return it->second;
    absl::StatusOr<QueueHandle> handle = kernel.FindQueue(p.handle, path);
    if (!handle.ok()) return -1;
    int parent = -1;
    const size_t dot = path.rfind('.');
    if (dot != std::string_view::npos) parent = QueueIndex(p, kernel, path.substr(0, dot));
    const int q = static_cast<int>(p.queues.size());
    QueueState& queue = p.queues.emplace_back();
    queue.path = std::string(path);
    queue.parent = parent;
    queue.handle = *handle;
    queue.since = now_;
    queue.index_since = now_;
    if (q < options_.max_series_queues) {
      for (TypeStats& t : queue.types) t.series = grid_.NewSeries();
      queue.share_series = grid_.NewSeries();
      queue.index_series = grid_.NewSeries();
      queue.index_time_series = grid_.NewSeries();
    }
    if (parent >= 0) p.queues[static_cast<size_t>(parent)].children.push_back(q);
    p.queue_by_path.emplace(queue.path, q);
    absl::StatusOr<QueueInfo> info = kernel.GetQueue(*handle);
    if (info.ok()) {
      queue.leaf = info->is_leaf;
      queue.guaranteed = info->guaranteed;
      queue.max = info->max;
    }
    return q;
  }

  void MarkQueue(PartitionState& p, int q) {
    if (q < 0) return;
    QueueState& queue = p.queues[static_cast<size_t>(q)];
    if (queue.dirty) return;
    queue.dirty = true;
    p.dirty_queues.push_back(q);
  }

  // Re-reads a queue the step touched and hands the change up the tree.
  void ReadQueue(PartitionState& p, const Kernel& kernel, int q) {
    QueueState& queue = p.queues[static_cast<size_t>(q)];
    absl::StatusOr<QueueInfo> info = kernel.GetQueue(queue.handle);
    if (!info.ok()) {
      // Gone (a dynamic queue removed when it emptied), or re-created under a new handle.
      absl::StatusOr<QueueHandle> handle = kernel.FindQueue(p.handle, queue.path);
      if (handle.ok()) {
        queue.handle = *handle;
        info = kernel.GetQueue(*handle);
      }
    }
    if (!info.ok()) {
      QueueInfo empty;
      empty.is_leaf = queue.leaf;
      empty.guaranteed = queue.guaranteed;
      empty.max = queue.max;
      Refresh(p, q, empty);
      queue.alive = false;
      return;
    }
    queue.alive = true;
    Refresh(p, q, *info);
  }

  // Sets a queue's values from the kernel's, moving its ancestors by the leaf's difference
  // (parents hold the sum of their children).
  void Refresh(PartitionState& p, int q, const QueueInfo& info) {
    QueueState& queue = p.queues[static_cast<size_t>(q)];
    queue.leaf = info.is_leaf;
    const bool limits_changed = queue.guaranteed != info.guaranteed || queue.max != info.max;
    if (limits_changed) {
      Integrate(p, q);
      queue.guaranteed = info.guaranteed;
      queue.max = info.max;
    }
    if (!info.is_leaf) {
      if (limits_changed) UpdateCounted(p, q);
      return;
    }
    if (info.allocated == queue.allocated && info.pending == queue.pending && !limits_changed) {
      return;
    }
    Resource allocated_delta;
    Resource pending_delta;
    for (int k = 0; k < kMaxResourceTypes; ++k) {
      allocated_delta.value[static_cast<size_t>(k)] =
          info.allocated.Get(k) - queue.allocated.Get(k);
      pending_delta.value[static_cast<size_t>(k)] = info.pending.Get(k) - queue.pending.Get(k);
    }
    for (int at = q; at >= 0; at = p.queues[static_cast<size_t>(at)].parent) {
      QueueState& level = p.queues[static_cast<size_t>(at)];
      Integrate(p, at);
      for (int k = 0; k < kMaxResourceTypes; ++k) {
        const auto i = static_cast<size_t>(k);
        level.allocated.value[i] += allocated_delta.value[i];
        level.pending.value[i] += pending_delta.value[i];
        TypeStats& t = level.types[i];
        t.peak = std::max(t.peak, level.allocated.value[i]);
      }
      UpdateCounted(p, at);
    }
  }

  // Brings a queue's integrals up to now with the values it held since `since`.
  void Integrate(PartitionState& p, int q) {
    QueueState& queue = p.queues[static_cast<size_t>(q)];
    const int64_t from = queue.since;
    const int64_t dt = now_ - from;
    if (dt <= 0) return;
    for (int k = 0; k < kMaxResourceTypes; ++k) {
      TypeStats& t = queue.types[static_cast<size_t>(k)];
      const int64_t value = queue.allocated.Get(k);
      if (value != 0) {
        t.integral += static_cast<double>(value) * static_cast<double>(dt);
        if (t.series >= 0) grid_.AddSpan(t.series, from, now_, static_cast<double>(value));
      }
      if (queue.guaranteed && queue.guaranteed->Has(k) && value > queue.guaranteed->Get(k)) {
        t.above_guarantee += dt;
      }
      if (queue.max && queue.max->Has(k) && value >= queue.max->Get(k)) t.at_max += dt;
    }
    const double share = DominantRatio(queue.allocated, p.capacity);
    queue.share_integral += share * static_cast<double>(dt);
    if (queue.share_series >= 0) grid_.AddSpan(queue.share_series, from, now_, share);
    queue.since = now_;
  }

  // Re-decides whether a queue counts in its parent's index, and with which ratio.
  void UpdateCounted(PartitionState& p, int q) {
    QueueState& queue = p.queues[static_cast<size_t>(q)];
    if (queue.parent < 0) return;
    QueueState& parent = p.queues[static_cast<size_t>(queue.parent)];
    const bool has_guarantee = queue.guaranteed && AnyPositive(*queue.guaranteed);
    const bool counted =
        has_guarantee && (AnyPositive(queue.allocated) || AnyPositive(queue.pending));
    const double ratio = counted ? DominantRatio(queue.allocated, *queue.guaranteed) : 0;
    if (counted == queue.counted && ratio == queue.ratio) return;
    IntegrateIndex(parent);
    if (queue.counted) {
      parent.sum -= queue.ratio;
      parent.sum_squares -= queue.ratio * queue.ratio;
      --parent.count;
    }
    queue.counted = counted;
    queue.ratio = ratio;
    if (counted) {
      parent.sum += ratio;
      parent.sum_squares += ratio * ratio;
      ++parent.count;
    }
  }

  static double JainIndex(const QueueState& parent) {
    if (parent.sum_squares <= 1e-12) return 1.0;  // every counted child at zero: all equal
    const double index = parent.sum * parent.sum / (parent.count * parent.sum_squares);
    return std::clamp(index, 0.0, 1.0);
  }

  void IntegrateIndex(QueueState& parent) {
    const int64_t from = parent.index_since;
    const int64_t dt = now_ - from;
    parent.index_since = now_;
    if (dt <= 0 || parent.count < 2) return;
    const double index = JainIndex(parent);
    parent.index_integral += index * static_cast<double>(dt);
    parent.index_time += dt;
    if (parent.index_series >= 0) {
      grid_.AddSpan(parent.index_series, from, now_, index);
      grid_.AddSpan(parent.index_time_series, from, now_, 1.0);
    }
  }

  // --- nodes ---------------------------------------------------------------------------

  void TrackNode(PartitionState& p, const Kernel& kernel, std::string_view id) {
    absl::StatusOr<NodeHandle> handle = kernel.FindNode(p.handle, id);
    if (!handle.ok()) return;
    ReadNode(p, kernel, *handle);
  }

  void ReadNode(PartitionState& p, const Kernel& kernel, const NodeHandle& handle) {
    absl::StatusOr<NodeInfo> info = kernel.GetNode(handle);
    auto it = p.node_by_key.find(NodeKey(handle));
    const bool inserted = it == p.node_by_key.end();
    if (inserted) {
      if (!info.ok()) return;  // gone before we saw it, or already accounted as gone
      it = p.node_by_key.emplace(NodeKey(handle), static_cast<int>(p.nodes.size())).first;
      p.nodes.emplace_back().since = now_;
    }
    NodeState& node = p.nodes[static_cast<size_t>(it->second)];
    IntegrateNode(p, node);
    const Resource capacity = info.ok() ? info->capacity : Resource{};
    if (capacity != node.capacity) {
      // Every queue's share so far was measured against the capacity before the change.
      IntegrateCapacity(p);
      for (int k = 0; k < kMaxResourceTypes; ++k) {
        const auto i = static_cast<size_t>(k);
        p.capacity.value[i] += capacity.value[i] - node.capacity.value[i];
      }
      p.capacity.present |= capacity.present;
      node.capacity = capacity;
    }
    if (!info.ok()) {
      node.alive = false;
      node.load = {};
      p.node_by_key.erase(it);
      return;
    }
    if (inserted) p.node_key_by_id[info->id] = NodeKey(handle);
    node.load = Add(info->allocated, info->occupied);
  }

  static int UtilisationBin(const NodeState& node, double* utilisation) {
    *utilisation = DominantRatio(node.load, node.capacity);
    if (!AnyPositive(node.load)) return 0;
    const auto bin = static_cast<int>(std::ceil(*utilisation * 10.0 - 1e-9));
    return std::clamp(bin, 1, 10);
  }

  void IntegrateNode(PartitionState& p, NodeState& node) {
    const int64_t dt = now_ - node.since;
    node.since = now_;
    if (dt <= 0 || !node.alive) return;
    double utilisation = 0;
    const int bin = UtilisationBin(node, &utilisation);
    p.node_time[static_cast<size_t>(bin)] += static_cast<double>(dt);
    p.node_load_integral += std::min(utilisation, 1.0) * static_cast<double>(dt);
    p.node_time_total += static_cast<double>(dt);
  }

  void IntegrateCapacity(PartitionState& p) {
    const int64_t from = p.capacity_since;
    const int64_t dt = now_ - from;
    p.capacity_since = now_;
    if (dt <= 0) return;
    // The shares of every queue were integrated against the capacity they saw.
    for (int q = 0; q < static_cast<int>(p.queues.size()); ++q) Integrate(p, q);
    for (int k = 0; k < kMaxResourceTypes; ++k) {
      const auto i = static_cast<size_t>(k);
      const auto value = static_cast<double>(p.capacity.Get(k));
      p.capacity_integral[i] += value * static_cast<double>(dt);
      grid_.AddSpan(p.capacity_series[i], from, now_, value);
    }
  }

  // --- callbacks -----------------------------------------------------------------------

  int PartitionIndex(std::string_view name) const {
    for (size_t i = 0; i < partitions_.size(); ++i) {
      if (partitions_[i].name == name) return static_cast<int>(i);
    }
    return -1;
  }

  void OnRecord(const Record& record, const Kernel& kernel) {
    Init(kernel);
    now_ = kernel.now_millis();
    ++records_;
    if (record.type == RecordType::kError) {
      step_refused_ = true;
      return;
    }
    if (record.decision == nullptr) return;
    const Decision& d = *record.decision;
    const int pi = PartitionIndex(d.partition);
    if (pi < 0) return;
    PartitionState& p = partitions_[static_cast<size_t>(pi)];
    if (record.type == RecordType::kAppRejected) {
      ++p.rejected;
      std::string reason = d.reason;
      if (!p.rejections.contains(reason) && p.rejections.size() >= 32) reason = "other";
      ++p.rejections[reason];
      return;
    }
    const int q = d.queue.empty() ? -1 : QueueIndex(p, kernel, d.queue);
    MarkQueue(p, q);
    if (d.node_handle.valid()) MarkNode(p, d.node_handle);
    QueueState* queue = q >= 0 ? &p.queues[static_cast<size_t>(q)] : nullptr;
    switch (record.type) {
      case RecordType::kAllocation:
        if (queue != nullptr) ++queue->allocations;
        Allocated(pi, q, d, /*counts_as_wait=*/true);
        break;
      case RecordType::kRelease:
        if (queue == nullptr) break;
        if (d.release_reason == ReleaseReason::kPreempted) ++queue->preempted;
        if (d.release_reason == ReleaseReason::kTimeout && d.placeholder) {
          ++queue->placeholder_timeouts;
        }
        if (d.release_reason == ReleaseReason::kQuota) ++queue->quota_preempted;
        break;
      case RecordType::kPreemption:
        if (queue != nullptr) ++queue->preemptions;
        break;
      case RecordType::kRecovered:
        // Under yunikorn-1.9 a pending ask can be reported running: it waits no more.
        Allocated(pi, q, d, /*counts_as_wait=*/false);
        break;
      case RecordType::kAskRemoved:
        Forget(AskKey(d.partition, d.app, d.ask));
        break;
      default:
        break;
    }
  }

  void MarkNode(PartitionState& p, const NodeHandle& node) {
    pending_node_reads_.push_back({static_cast<int>(&p - partitions_.data()), node});
  }

  void Allocated(int pi, int q, const Decision& d, bool counts_as_wait) {
    auto it = pending_.find(AskKey(d.partition, d.app, d.ask));
    if (it == pending_.end()) return;  // recovered or restored before the collector saw it
    PendingAsk& ask = it->second;
    if (counts_as_wait && !ask.placeholder && !d.placeholder) {
      const int64_t wait = now_ - ask.submitted;
      PartitionState& p = partitions_[static_cast<size_t>(pi)];
      if (q >= 0) p.queues[static_cast<size_t>(q)].waits.Add(wait);
      p.waits.Add(wait);
      NoteWaiter(p, q, d, ask, wait);
    }
    if (--ask.remaining <= 0) Forget(it);
  }

  void NoteWaiter(PartitionState& p, int q, const Decision& d, const PendingAsk& ask,
                  int64_t wait) {
    const auto k = static_cast<size_t>(options_.longest_waiters);
    if (k == 0) return;
    if (p.longest.size() >= k && wait <= p.longest.back().wait_millis) return;
    // One row per ask: its longest wait (a later repeat of the same ask waited longer).
    for (auto it = p.longest.begin(); it != p.longest.end(); ++it) {
      if (it->app != d.app || it->ask != d.ask) continue;
      if (wait <= it->wait_millis) return;
      p.longest.erase(it);
      break;
    }
    // No `schedule` step left it pending: the first one after its submission allocated it.
    const bool first_schedule = !ask.left_pending;
    Waiter waiter{.queue = q >= 0 ? p.queues[static_cast<size_t>(q)].path : std::string(d.queue),
                  .app = std::string(d.app),
                  .ask = std::string(d.ask),
                  .submitted_millis = ask.submitted,
                  .wait_millis = wait,
                  .still_pending = false,
                  .reason = first_schedule ? std::string(kAllocatedByFirstSchedule) : ask.reason,
                  .reason_at_millis = first_schedule ? now_ : ask.reason_at};
    auto at =
        std::upper_bound(p.longest.begin(), p.longest.end(), wait,
                         [](int64_t w, const Waiter& other) { return w > other.wait_millis; });
    p.longest.insert(at, std::move(waiter));
    if (p.longest.size() > k) p.longest.pop_back();
  }

  void Forget(const std::string& key) {
    auto it = pending_.find(key);
    if (it != pending_.end()) Forget(it);
  }
  void Forget(absl::flat_hash_map<std::string, PendingAsk>::iterator it) {
    by_submission_.erase({it->second.submitted, it->second.order});
    samples_.erase({it->second.next_sample, it->second.order});
    pending_.erase(it);
  }

  void BeforeStep(const Kernel& kernel) {
    Init(kernel);
    now_ = kernel.now_millis();
    step_refused_ = false;
  }

  void AfterStep(const ScenarioStep& step, const Kernel& kernel) {
    now_ = kernel.now_millis();
    ++steps_;
    if (!step_refused_) ApplyStep(step, kernel);
    for (auto [pi, node] : pending_node_reads_) {
      ReadNode(partitions_[static_cast<size_t>(pi)], kernel, node);
    }
    pending_node_reads_.clear();
    for (PartitionState& p : partitions_) {
      for (int q : p.dirty_queues) {
        p.queues[static_cast<size_t>(q)].dirty = false;
        ReadQueue(p, kernel, q);
      }
      p.dirty_queues.clear();
    }
    if (step.kind() == StepKind::kSchedule) SampleWaiters(kernel);
  }

  // What the step changed that its records do not say.
  void ApplyStep(const ScenarioStep& step, const Kernel& kernel) {
    std::visit(
        [&](const auto& action) {
          using T = std::decay_t<decltype(action)>;
          if constexpr (std::is_same_v<T, AppSpec>) {
            AddedApp(action.partition, action.id, kernel);
          } else if constexpr (std::is_same_v<T, AskSpec>) {
            AddedAsk(action);
          } else if constexpr (std::is_same_v<T, RemoveAskStep>) {
            Forget(AskKey(action.partition, action.app, action.ask));
            TouchApp(action.partition, action.app);
          } else if constexpr (std::is_same_v<T, RemoveAppStep>) {
            RemovedApp(action.partition, action.id);
          } else if constexpr (std::is_same_v<T, UpdateAskStep> ||
                               std::is_same_v<T, UpdateAllocationStep>) {
            TouchApp(action.partition, action.app);
          } else if constexpr (std::is_same_v<T, RecoverAllocationStep>) {
            TouchApp(action.ask.partition, action.ask.app);
          } else if constexpr (std::is_same_v<T, AddNodeStep>) {
            NodeStep(action.node.partition, action.node.id, kernel);
          } else if constexpr (std::is_same_v<T, NodeUpdate> || std::is_same_v<T, RemoveNodeStep>) {
            NodeStep(action.partition, action.id, kernel);
          } else if constexpr (std::is_same_v<T, AddForeignStep>) {
            NodeStep(action.partition, action.node, kernel);
          } else if constexpr (std::is_same_v<T, UpdateForeignStep> ||
                               std::is_same_v<T, RemoveForeignStep>) {
            // The foreign pod's node is not named: re-read every node the partition has.
            const int pi = PartitionIndex(action.partition);
            if (pi >= 0) {
              PartitionState& p = partitions_[static_cast<size_t>(pi)];
              absl::StatusOr<std::vector<NodeInfo>> nodes = kernel.ListNodes(p.name);
              if (nodes.ok()) {
                for (const NodeInfo& node : *nodes) TrackNode(p, kernel, node.id);
              }
            }
          } else if constexpr (std::is_same_v<T, UpdateConfigStep>) {
            for (PartitionState& p : partitions_) {
              for (int q = 0; q < static_cast<int>(p.queues.size()); ++q) MarkQueue(p, q);
              SyncQueues(p, kernel);
            }
          }
        },
        step.action);
  }

  void NodeStep(std::string_view partition, std::string_view id, const Kernel& kernel) {
    const int pi = PartitionIndex(partition);
    if (pi < 0) return;
    PartitionState& p = partitions_[static_cast<size_t>(pi)];
    absl::StatusOr<NodeHandle> handle = kernel.FindNode(p.handle, id);
    if (handle.ok()) {
      ReadNode(p, kernel, *handle);
      return;
    }
    // Removed: the node the id named until now.
    auto known = p.node_key_by_id.find(AsAbsl(id));
    if (known == p.node_key_by_id.end()) return;
    const uint64_t key = known->second;
    p.node_key_by_id.erase(known);
    ReadNode(p, kernel,
             NodeHandle{.partition = p.handle,
                        .slot = static_cast<uint32_t>(key >> 32),
                        .generation = static_cast<uint32_t>(key & 0xffffffffu)});
  }

  void AddedApp(std::string_view partition, std::string_view id, const Kernel& kernel) {
    absl::StatusOr<AppInfo> app = kernel.GetApplication(partition, id);
    const int pi = PartitionIndex(partition);
    if (!app.ok() || pi < 0) return;
    PartitionState& p = partitions_[static_cast<size_t>(pi)];
    const int q = QueueIndex(p, kernel, app->queue);
    apps_[AppKey(partition, id)] = {pi, q};
    MarkQueue(p, q);
  }

  void TouchApp(std::string_view partition, std::string_view id) {
    auto it = apps_.find(AppKey(partition, id));
    if (it == apps_.end()) return;
    MarkQueue(partitions_[static_cast<size_t>(it->second.first)], it->second.second);
  }

  void RemovedApp(std::string_view partition, std::string_view id) {
    auto it = apps_.find(AppKey(partition, id));
    if (it == apps_.end()) return;
    MarkQueue(partitions_[static_cast<size_t>(it->second.first)], it->second.second);
    apps_.erase(it);
    // Its pending asks went with it: their keys start with the application's.
    std::string prefix = AppKey(partition, id);
    prefix.push_back('\x1f');
    auto app_asks = asks_of_app_.find(AppKey(partition, id));
    if (app_asks == asks_of_app_.end()) return;
    for (const std::string& ask : app_asks->second) Forget(prefix + ask);
    asks_of_app_.erase(app_asks);
  }

  void AddedAsk(const AskSpec& spec) {
    auto app = apps_.find(AppKey(spec.partition, spec.app));
    if (app == apps_.end()) return;
    const auto [pi, q] = app->second;
    std::string key = AskKey(spec.partition, spec.app, spec.id);
    Forget(key);
    // An ask whose repeats were all allocated in its own step is not pending any more.
    PendingAsk ask{.partition = pi,
                   .leaf = q,
                   .submitted = now_,
                   .remaining = spec.count,
                   .order = ++ask_order_,
                   .placeholder = spec.placeholder,
                   .app_length = spec.app.size(),
                   .reason = {},
                   .reason_at = -1,
                   .next_sample = now_};
    by_submission_.emplace(std::make_pair(ask.submitted, ask.order), key);
    // Placeholders are never listed, so they need no verdict.
    if (!ask.placeholder && options_.longest_waiters > 0) {
      samples_.emplace(std::make_pair(ask.next_sample, ask.order), key);
    }
    pending_.emplace(std::move(key), std::move(ask));
    std::vector<std::string>& asks = asks_of_app_[AppKey(spec.partition, spec.app)];
    if (std::find(asks.begin(), asks.end(), spec.id) == asks.end()) asks.push_back(spec.id);
    MarkQueue(partitions_[static_cast<size_t>(pi)], q);
  }

  // The shortest wait on the partition's full list of longest waits: an ask that has waited
  // longer is a candidate for it. -1 while the list has room (every ask is a candidate).
  int64_t ListThreshold(const PartitionState& p) const {
    const auto k = static_cast<size_t>(options_.longest_waiters);
    return p.longest.size() >= k && !p.longest.empty() ? p.longest.back().wait_millis : -1;
  }

  // After a `schedule` step: the walk's verdict on every pending ask whose sample is due, kept
  // with the ask until it is allocated. An ask is sampled after the first schedule that leaves
  // it pending, then again each time its wait has grown by a quarter (at least 1 s of logical
  // time) while it is a candidate for the list of longest waits; one that is not a candidate is
  // looked at again when its wait could first make it one. So an ask costs O(log(wait)) verdicts
  // of one ask each, however long the run, and a waiter that was a candidate all along carries
  // a verdict at most a fifth of its wait old. (A whole-kernel ExplainPending every now/32 of
  // logical time cost O(pending) each and missed every wait shorter than that.)
  void SampleWaiters(const Kernel& kernel) {
    while (!samples_.empty() && samples_.begin()->first.first <= now_) {
      auto entry = samples_.extract(samples_.begin());
      auto it = pending_.find(entry.mapped());
      if (it == pending_.end()) continue;
      PendingAsk& ask = it->second;
      ask.left_pending = true;  // its first sample is due at the first schedule after it
      const std::string& key = it->first;
      const PartitionState& p = partitions_[static_cast<size_t>(ask.partition)];
      const int64_t wait = now_ - ask.submitted;
      const int64_t threshold = ListThreshold(p);
      if (ask.reason_at < 0 || wait > threshold) {
        const std::string_view app =
            std::string_view(key).substr(p.name.size() + 1, ask.app_length);
        const std::string_view id =
            std::string_view(key).substr(p.name.size() + ask.app_length + 2);
        absl::StatusOr<PendingExplanation> verdict = kernel.ExplainAsk(p.name, app, id);
        if (verdict.ok()) {
          ask.reason = std::move(verdict->reason);
          ask.reason_at = now_;
        }
        ask.next_sample = now_ + std::max<int64_t>(1000, wait / 4);
      } else {
        ask.next_sample = ask.submitted + threshold + 1;
      }
      entry.key() = {ask.next_sample, ask.order};
      samples_.insert(std::move(entry));
    }
  }

  Report Finish(const Scenario& scenario, const RunResult& run) {
    const Kernel& kernel = *run.kernel;
    Init(kernel);
    now_ = kernel.now_millis();
    // The node policy as the scenario's config sets it (a reload's is not visible here).
    for (PartitionState& p : partitions_) {
      p.node_policy = "fair";
      for (const PartitionConfig& config : scenario.config.partitions) {
        if (config.name == p.name) {
          p.node_policy = config.node_sort_policy.type == "binpacking" ? "binpacking" : "fair";
        }
      }
    }
    // The explanations of the asks still pending, as they stand at the end.
    if (!pending_.empty()) {
      for (const PendingExplanation& e : kernel.ExplainPending()) {
        auto it = pending_.find(AskKey(e.partition, e.app, e.ask));
        if (it == pending_.end()) continue;
        it->second.reason = e.reason;
        it->second.reason_at = now_;
      }
    }
    Report report;
    report.source = scenario.source_name;
    report.semantics = std::string(SemanticsName(scenario.semantics));
    report.steps = steps_;
    report.records = records_;
    report.end_millis = now_;
    grid_.Cover(std::max<int64_t>(now_ - 1, 0));
    report.bucket_millis = grid_.width();
    const ResourceTypes& types = kernel.resource_types();
    const double elapsed = static_cast<double>(std::max<int64_t>(now_, 1));
    for (size_t pi = 0; pi < partitions_.size(); ++pi) {
      PartitionState& p = partitions_[pi];
      IntegrateCapacity(p);
      for (int q = 0; q < static_cast<int>(p.queues.size()); ++q) {
        Integrate(p, q);
        IntegrateIndex(p.queues[static_cast<size_t>(q)]);
      }
      for (NodeState& node : p.nodes) IntegrateNode(p, node);
      report.partitions.push_back(PartitionFigures(p, types, elapsed));
    }
    return report;
  }

  PartitionReport PartitionFigures(const PartitionState& p, const ResourceTypes& types,
                                   double elapsed) {
    PartitionReport out;
    out.name = p.name;
    out.node_policy = p.node_policy;
    const int type_count = types.size();
    std::vector<std::vector<double>> capacity_series;
    for (int k = 0; k < type_count; ++k) {
      out.types.push_back(types.Name(k));
      out.capacity.push_back(p.capacity.Get(k));
      out.capacity_mean.push_back(p.capacity_integral[static_cast<size_t>(k)] / elapsed);
      capacity_series.push_back(grid_.Means(p.capacity_series[static_cast<size_t>(k)], now_));
    }
    for (const QueueState& queue : p.queues) {
      QueueReport& q = out.queues.emplace_back();
      q.path = queue.path;
      q.parent = queue.parent;
      q.leaf = queue.leaf;
      q.in_series = queue.share_series >= 0;
      for (int k = 0; k < type_count; ++k) {
        const TypeStats& t = queue.types[static_cast<size_t>(k)];
        ResourceUsage& u = q.usage.emplace_back();
        u.type = types.Name(k);
        u.mean = t.integral / elapsed;
        u.peak = t.peak;
        if (queue.guaranteed && queue.guaranteed->Has(k)) u.guaranteed = queue.guaranteed->Get(k);
        if (queue.max && queue.max->Has(k)) u.max = queue.max->Get(k);
        u.above_guarantee = static_cast<double>(t.above_guarantee) / elapsed;
        u.at_max = static_cast<double>(t.at_max) / elapsed;
        if (t.series >= 0) u.series = grid_.Means(t.series, now_);
      }
      q.cluster_share = queue.share_integral / elapsed;
      if (queue.guaranteed && AnyPositive(*queue.guaranteed)) {
        q.guarantee_share = DominantRatio(*queue.guaranteed, p.capacity);
      }
      if (queue.share_series >= 0) q.share_series = grid_.Means(queue.share_series, now_);
      q.waits = Summary(queue.waits);
      q.wait_cdf = queue.waits.Cdf();
      q.allocations = queue.allocations;
      q.preempted = queue.preempted;
      q.preemptions = queue.preemptions;
      q.placeholder_timeouts = queue.placeholder_timeouts;
      q.quota_preempted = queue.quota_preempted;
      if (queue.children.size() >= 2) {
        FairnessIndex& f = out.fairness.emplace_back();
        f.parent = static_cast<int>(out.queues.size()) - 1;
        if (queue.index_time > 0) {
          f.mean = queue.index_integral / static_cast<double>(queue.index_time);
        }
        f.counted_share = static_cast<double>(queue.index_time) / elapsed;
        if (queue.index_series >= 0) {
          std::vector<double> sums = grid_.Sums(queue.index_series, now_);
          std::vector<double> times = grid_.Sums(queue.index_time_series, now_);
          for (size_t b = 0; b < sums.size(); ++b) {
            f.series.push_back(times[b] > 0 ? sums[b] / times[b]
                                            : std::numeric_limits<double>::quiet_NaN());
          }
        }
      }
    }
    // Still pending at the end: counted per leaf, and candidates for the longest waits.
    std::vector<Waiter> waiters = p.longest;
    const auto pi = static_cast<int>(&p - partitions_.data());
    size_t still_listed = 0;
    for (const auto& [order, key] : by_submission_) {
      const PendingAsk& ask = pending_.at(key);
      if (ask.partition != pi) continue;
      if (ask.leaf >= 0 && !ask.placeholder) {
        out.queues[static_cast<size_t>(ask.leaf)].waits.still_pending += ask.remaining;
        out.waits.still_pending += ask.remaining;
      }
      if (ask.placeholder || still_listed >= static_cast<size_t>(options_.longest_waiters)) {
        continue;
      }
      ++still_listed;
      const size_t app_end = key.find('\x1f', p.name.size() + 1);
      waiters.push_back(
          {.queue = ask.leaf >= 0 ? p.queues[static_cast<size_t>(ask.leaf)].path : std::string(),
           .app = key.substr(p.name.size() + 1, app_end - p.name.size() - 1),
           .ask = key.substr(app_end + 1),
           .submitted_millis = ask.submitted,
           .wait_millis = now_ - ask.submitted,
           .still_pending = true,
           .reason = ask.reason,
           .reason_at_millis = ask.reason_at});
    }
    std::stable_sort(waiters.begin(), waiters.end(), [](const Waiter& a, const Waiter& b) {
      return a.wait_millis > b.wait_millis;
    });
    // An ask partly allocated and partly still pending is listed once, with its longer wait.
    std::vector<Waiter> unique;
    for (Waiter& w : waiters) {
      const bool seen = std::any_of(unique.begin(), unique.end(), [&](const Waiter& u) {
        return u.app == w.app && u.ask == w.ask;
      });
      if (!seen) unique.push_back(std::move(w));
    }
    waiters = std::move(unique);
    if (waiters.size() > static_cast<size_t>(options_.longest_waiters)) {
      waiters.resize(static_cast<size_t>(options_.longest_waiters));
    }
    out.longest_waiters = std::move(waiters);
    const int64_t still = out.waits.still_pending;
    out.waits = Summary(p.waits);
    out.waits.still_pending = still;
    out.wait_cdf = p.waits.Cdf();
    for (const auto& [reason, count] : p.rejections) out.rejections.push_back({reason, count});
    std::sort(out.rejections.begin(), out.rejections.end(),
              [](const RejectionCount& a, const RejectionCount& b) {
                return a.count != b.count ? a.count > b.count : a.reason < b.reason;
              });
    out.rejected_apps = p.rejected;
    out.nodes.nodes = static_cast<int64_t>(p.nodes.size());
    if (p.node_time_total > 0) {
      out.nodes.mean = p.node_load_integral / p.node_time_total;
      for (size_t b = 0; b < out.nodes.time_share.size(); ++b) {
        out.nodes.time_share[b] = p.node_time[b] / p.node_time_total;
      }
    }
    return out;
  }

  static WaitSummary Summary(const WaitHistogram& waits) {
    return {.count = waits.count(),
            .p50 = waits.Percentile(50),
            .p90 = waits.Percentile(90),
            .p99 = waits.Percentile(99),
            .max = waits.max(),
            .still_pending = 0};
  }

  absl::Status CheckUsage(const Kernel& kernel) const {
    for (const PartitionState& p : partitions_) {
      absl::StatusOr<std::vector<QueueInfo>> queues = kernel.ListQueues(p.name);
      if (!queues.ok()) return queues.status();
      for (const QueueInfo& info : *queues) {
        auto it = p.queue_by_path.find(info.path);
        if (it == p.queue_by_path.end()) {
          return absl::InternalError("report: queue " + info.path + " not tracked");
        }
        const QueueState& queue = p.queues[static_cast<size_t>(it->second)];
        for (int k = 0; k < kMaxResourceTypes; ++k) {
          if (queue.allocated.Get(k) != info.allocated.Get(k) ||
              queue.pending.Get(k) != info.pending.Get(k)) {
            return absl::InternalError("report: queue " + info.path +
                                       " usage or pending differs from the kernel's");
          }
        }
      }
    }
    return absl::OkStatus();
  }

 private:
  ReportOptions options_;
  SeriesGrid grid_;
  bool initialised_ = false;
  int64_t now_ = 0;
  int64_t steps_ = 0;
  int64_t records_ = 0;
  bool step_refused_ = false;
  int64_t ask_order_ = 0;
  std::vector<PartitionState> partitions_;
  std::vector<std::pair<int, NodeHandle>> pending_node_reads_;
  absl::flat_hash_map<std::string, std::pair<int, int>> apps_;  // partition, leaf
  absl::flat_hash_map<std::string, std::vector<std::string>> asks_of_app_;
  absl::flat_hash_map<std::string, PendingAsk> pending_;
  absl::btree_map<std::pair<int64_t, int64_t>, std::string> by_submission_;
  // (next sample, order) -> key, for the pending asks that are not placeholders.
  absl::btree_map<std::pair<int64_t, int64_t>, std::string> samples_;
};

ReportCollector::ReportCollector(ReportOptions options)
    : state_(std::make_unique<State>(options)) {}
ReportCollector::~ReportCollector() = default;

void ReportCollector::OnRecord(const Record& record, const Kernel& kernel) {
  state_->OnRecord(record, kernel);
}
void ReportCollector::BeforeStep(const ScenarioStep& /*step*/, const Kernel& kernel) {
  state_->BeforeStep(kernel);
}
void ReportCollector::AfterStep(const ScenarioStep& step, const Kernel& kernel) {
  state_->AfterStep(step, kernel);
}
Report ReportCollector::Finish(const Scenario& scenario, const RunResult& run) {
  return state_->Finish(scenario, run);
}
absl::Status ReportCollector::CheckUsage(const Kernel& kernel) const {
  return state_->CheckUsage(kernel);
}

}  // namespace allocore::adapters
