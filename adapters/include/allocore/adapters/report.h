// allocore/adapters/report.h — what a queue configuration does to a workload: pending times,
// usage against guarantee and max, fairness, preemptions and node packing, measured on a
// replay in logical time (share/doc/allocore/docs/report-format.md).
//
//   ReportCollector   a RunObserver: pass it to RunScenario / RunScenarioSteps, then Finish()
//   Report            the figures, per partition and per queue
//
// The collector keeps streaming aggregates only: a histogram per queue for pending times,
// time integrals per queue and resource type, a fixed number of time buckets for the pictures
// (adjacent buckets merge when the run outgrows them) and one entry per pending ask, live
// application and node. Memory does not grow with the number of records.
//
// Every figure is read from the kernel, never re-derived: queue usage is the kernel's queue
// usage after each step, node load is the node's, and the reason a waiter waited is the one
// Kernel::ExplainPending gave while it waited (what `allocore run --explain` prints).
#ifndef ALLOCORE_ADAPTERS_REPORT_H_
#define ALLOCORE_ADAPTERS_REPORT_H_

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "allocore/adapters/scenario.h"
#include "allocore/export.h"

namespace allocore::adapters {

// Pending times in logical milliseconds: exact below 256 ms, within 1/128 of the value above
// (a log-linear histogram), whatever the number of samples.
class ALLOCORE_EXPORT WaitHistogram {
 public:
  void Add(int64_t millis);
  void Merge(const WaitHistogram& other);
  int64_t count() const { return count_; }
  int64_t min() const { return min_; }
  int64_t max() const { return max_; }
  // Nearest rank: the smallest recorded value v with at least `percent`% of the samples <= v
  // (as the bucket's lowest value, clamped to [min, max]); 0 when empty.
  int64_t Percentile(double percent) const;
  // One point per non-empty bucket: its lowest value (clamped to [min, max]) and the share of
  // samples at or below the bucket.
  std::vector<std::pair<int64_t, double>> Cdf() const;

 private:
  std::vector<int64_t> buckets_;
  int64_t count_ = 0;
  int64_t min_ = 0;
  int64_t max_ = 0;
};

struct WaitSummary {
  int64_t count = 0;  // allocations of non-placeholder asks
  int64_t p50 = 0;
  int64_t p90 = 0;
  int64_t p99 = 0;
  int64_t max = 0;
  int64_t still_pending = 0;  // ask repeats pending when the run ended
};

// One of the longest waits of a partition, one per ask: the ask's longest wait for one of its
// allocations, or, for an ask still pending at the end, its wait up to the end.
struct Waiter {
  std::string queue;
  std::string app;
  std::string ask;
  int64_t submitted_millis = 0;
  int64_t wait_millis = 0;
  bool still_pending = false;
  // Why it waited: the walk's verdict on the ask (Kernel::ExplainAsk, in ExplainPending's
  // words) after the last `schedule` step that left it pending and at which the collector
  // sampled it (docs/report-format.md says when it samples), or at the end for an ask still
  // pending; kAllocatedByFirstSchedule when the first schedule after its submission allocated
  // it (no schedule left it pending).
  std::string reason;
  // When that verdict was taken (logical ms; the allocation's time for
  // kAllocatedByFirstSchedule; the end for an ask still pending). -1: none (a waiter whose every
  // verdict was refused, which the collector does not expect).
  int64_t reason_at_millis = -1;
};

// The reason of a waiter that no schedule left pending.
inline constexpr char kAllocatedByFirstSchedule[] =
    "no schedule left it pending: the first schedule after its submission allocated it";

// One queue, one resource type, over the run's time.
struct ResourceUsage {
  std::string type;
  double mean = 0;                    // time-weighted
  int64_t peak = 0;                   // highest value after any step
  std::optional<int64_t> guaranteed;  // as configured at the end of the run
  std::optional<int64_t> max;
  double above_guarantee = 0;  // share of the time with usage > the guarantee then configured
  double at_max = 0;           // share of the time with usage >= the max then configured
  std::vector<double> series;  // mean per time bucket (Report::bucket_millis)
};

struct QueueReport {
  std::string path;
  int parent = -1;  // index in PartitionReport::queues; -1 for root
  bool leaf = false;
  bool in_series = false;  // false past ReportOptions::max_series_queues: series left empty
  std::vector<ResourceUsage> usage;  // the partition's resource types, in type id order
  WaitSummary waits;
  std::vector<std::pair<int64_t, double>> wait_cdf;  // WaitHistogram::Cdf
  // Dominant share: the largest, over resource types, of usage / cluster capacity.
  double cluster_share = 0;               // time-weighted mean
  std::optional<double> guarantee_share;  // guarantee / capacity at the end (none: no guarantee)
  std::vector<double> share_series;       // per time bucket
  int64_t allocations = 0;
  int64_t preempted = 0;             // its allocations taken by general preemption
  int64_t preemptions = 0;           // preemption rounds its asks started
  int64_t placeholder_timeouts = 0;  // its placeholders released by a timeout
  int64_t quota_preempted = 0;       // its allocations taken back under a lowered max (1.9)
};

// Jain's index over a parent's children's usage-to-guarantee ratios (the largest, over
// resource types, of usage / guarantee), counting the children with a guarantee that run or
// wait for something: 1 when every such child holds the same fraction of its guarantee (the
// state YuniKorn's fair queue sort steers to, since it offers each allocation to the child
// with the lowest ratio), 1/n when one child holds everything.
struct FairnessIndex {
  int parent = -1;             // index in PartitionReport::queues
  std::optional<double> mean;  // time-weighted over the time at least two children counted
  double counted_share = 0;    // share of the run's time that was
  std::vector<double> series;  // per time bucket; NaN where fewer than two counted
};

// How packed the nodes were: the share of node-time spent at each utilisation (the largest,
// over resource types, of (allocated + occupied) / capacity).
struct NodeUtilisation {
  int64_t nodes = 0;  // every node seen, removed ones included
  double mean = 0;    // node-time-weighted
  // [0]: idle (nothing allocated); [1..10]: (0,10%], (10,20%], ..., (90%,100%] (above 100%
  // counts in [10]).
  std::array<double, 11> time_share{};
};

struct RejectionCount {
  std::string reason;
  int64_t count = 0;
};

struct PartitionReport {
  std::string name;
  std::string node_policy;              // fair | binpacking, as the scenario's config sets it
  std::vector<std::string> types;       // resource type names by id
  std::vector<int64_t> capacity;        // at the end, per type
  std::vector<double> capacity_mean;    // time-weighted, per type
  std::vector<QueueReport> queues;      // depth-first config order, root first
  std::vector<FairnessIndex> fairness;  // parents with at least two children, in queue order
  WaitSummary waits;
  std::vector<std::pair<int64_t, double>> wait_cdf;
  std::vector<Waiter> longest_waiters;     // longest first
  std::vector<RejectionCount> rejections;  // most first; reasons past the 32nd count as "other"
  int64_t rejected_apps = 0;
  NodeUtilisation nodes;
};

struct Report {
  std::string source;     // the scenario or log as named
  std::string semantics;  // the profile
  int64_t steps = 0;
  int64_t records = 0;
  int64_t end_millis = 0;     // the logical clock at the end (it starts at 0)
  int64_t bucket_millis = 1;  // width of a time bucket of the series
  std::vector<PartitionReport> partitions;
};

struct ReportOptions {
  int64_t longest_waiters = 10;
  int buckets = 120;  // time buckets of the series, at most
  // Queues (depth-first, per partition) that get time series; the figures cover every queue.
  int max_series_queues = 64;
};

// Measures a run. Pass to RunScenario / RunScenarioSteps as the observer, then call Finish
// with the run's result (once).
class ALLOCORE_EXPORT ReportCollector : public RunObserver {
 public:
  explicit ReportCollector(ReportOptions options = {});
  ~ReportCollector() override;
  ReportCollector(const ReportCollector&) = delete;
  ReportCollector& operator=(const ReportCollector&) = delete;

  void OnRecord(const Record& record, const Kernel& kernel) override;
  void BeforeStep(const ScenarioStep& step, const Kernel& kernel) override;
  void AfterStep(const ScenarioStep& step, const Kernel& kernel) override;

  // The figures up to the end of the run (`run.kernel` is its final state).
  Report Finish(const Scenario& scenario, const RunResult& run);
  // The queue usage and pending the collector tracks against the kernel's (for tests).
  absl::Status CheckUsage(const Kernel& kernel) const;

  class State;

 private:
  std::unique_ptr<State> state_;
};

}  // namespace allocore::adapters

#endif  // ALLOCORE_ADAPTERS_REPORT_H_
