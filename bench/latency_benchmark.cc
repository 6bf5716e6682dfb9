// bench/latency_benchmark.cc — per-decision latency on a steady workload with churn.
//
// 5,000 nodes (room for 16 allocations each), 10 leaf queues x 10 applications, 100,000
// pending asks of a few shapes and priorities. Warm-up (untimed) fills the cluster to 50,000
// live allocations. Then every step: one new ask arrives (keeping 100,000 pending), the oldest
// live allocation is released, and Schedule(1) makes one allocation. Only the kernel calls are
// timed, each with std::chrono::steady_clock (the ~20 ns clock overhead is included; the
// driver's own bookkeeping is not); AddAsk and ReleaseAllocation latencies are reported
// alongside. The `handles` variants add and release through the handle API (AppHandle and
// AskHandle, resource type ids resolved once) instead of by name: the difference is the cost
// of the string API.
//
// The `recorded` variants record every call to an event log in the temporary directory
// (allocore/adapters/event_recorder.h), the timed calls including their recording: `recorded`
// writes each call's frames as it is made (one write(2) each), `recorded_buffered` in 64 KiB
// blocks. step_ns is the kernel time of one step (add + release + Schedule(1)): against the
// plain variant's it is what recording adds.
//
// Counters: p50/p99/p999/max in ns of Schedule(1) (and p50/p99 of add/release), step_ns.
// BM_Latency_Probe runs the same steps and times, instead of Schedule(1), a Kernel::Probe of
// the ask that arrives next (before it arrives): the what-if query against one scheduling
// attempt.
// Verification: the same driver at 40 nodes / 400 pending asks / 1,000 steps records its calls,
// which are replayed on the reference model; the measured kernel passes CheckConsistency().
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <deque>
#include <map>
#include <random>
#include <string>

#include "allocore/adapters/event_recorder.h"
#include "bench_support.h"

namespace allocore::bench {
namespace {

struct ChurnParams {
  bool handles = false;  // add and release asks through the handle API
  int64_t nodes = 5000;
  int64_t node_slots = 16;
  int64_t leaves = 10;
  int64_t apps_per_leaf = 10;
  int64_t pending = 100000;
  int64_t live = 50000;  // live allocations kept in the steady state
  std::string app_policy = "fair";
  // Non-empty: every call is recorded to this event log (buffered as `record_buffer_bytes`).
  std::string record_path;
  size_t record_buffer_bytes = 0;
};

// Drives a kernel through the churn workload; records every call when `record` is set.
class ChurnDriver {
 public:
  ChurnDriver(const ChurnParams& p, std::vector<Op>* record) : p_(p), record_(record) {
    TreeOptions tree;
    tree.leaves = p.leaves;
    tree.depth = 2;
    tree.app_policy = p.app_policy;
    TreeConfig config = MakeTreeConfig(tree);
    config_ = config.config;
    kernel_ = NewKernel(config_);
    if (!p.record_path.empty()) {
      absl::StatusOr<std::unique_ptr<adapters::EventRecorder>> recorder =
          adapters::EventRecorder::Create(p.record_path, config_, kernel_->options(),
                                          {.buffer_bytes = p.record_buffer_bytes});
      if (!recorder.ok()) {
        std::fprintf(stderr, "churn: %s\n", recorder.status().ToString().c_str());
        std::abort();
      }
      recorder_ = *std::move(recorder);
    }
    for (int64_t i = 0; i < p.nodes; ++i) {
      Call(MakeNode(i, 40 * p.node_slots, 4000 * p.node_slots));
    }
    for (const std::string& leaf : config.leaves) {
      for (int64_t a = 0; a < p.apps_per_leaf; ++a) {
        AppSpec app;
        app.id = "app-" + std::to_string(apps_.size());
        app.queue = leaf;
        app.user = "user";
        apps_.push_back(app.id);
        Call(app);
      }
    }
    if (p.handles) {
      partition_ = *kernel_->FindPartition(kDefaultPartition);
      for (const std::string& app : apps_) {
        app_handles_.push_back(*kernel_->FindApplication(partition_, app));
      }
      memory_ = *kernel_->ResourceTypeId("memory");
      vcore_ = *kernel_->ResourceTypeId("vcore");
    }
    for (int64_t i = 0; i < p.pending; ++i) AddAsk();
  }

  const SchedulerConfig& config() const { return config_; }
  Kernel& kernel() { return *kernel_; }

  AskSpec NextAsk() {
    // Shapes from 10 to 40 memory / 1000 to 4000 milli-vcore: at most 16 fit on a node.
    int64_t shape = static_cast<int64_t>(rng_() % 4) + 1;
    const std::string& app = apps_[static_cast<size_t>(next_ask_) % apps_.size()];
    return MakeAsk(app, "ask-" + std::to_string(next_ask_++), 10 * shape, 1000 * shape, 1,
                   static_cast<int32_t>(rng_() % 4));
  }

  // Returns the allocations made; last_call_ns() is the kernel call's time.
  int64_t Call(const Op& op) {
    if (record_ != nullptr) record_->push_back(op);
    Clock::time_point start = Clock::now();
    int64_t made = recorder_ ? Recorded(op) : Apply(*kernel_, op, &out_);
    last_call_ns_ = Nanos(Clock::now() - start);
    Consume();
    return made;
  }
  int64_t last_call_ns() const { return last_call_ns_; }

  int64_t Schedule(int64_t max) { return Call(ScheduleOp{.max = max}); }
  // The next ask, asked about without submitting it (the next NextAsk() is another one).
  absl::StatusOr<ProbeResult> ProbeNext() {
    const int64_t shape = static_cast<int64_t>(probe_rng_() % 4) + 1;
    probe_spec_.app = apps_[static_cast<size_t>(next_ask_) % apps_.size()];
    probe_spec_.resources = {{"memory", 10 * shape}, {"vcore", 1000 * shape}};
    probe_spec_.priority = static_cast<int32_t>(probe_rng_() % 4);
    return kernel_->Probe(probe_spec_);
  }
  void AddAsk() {
    AskSpec spec = NextAsk();
    if (!p_.handles) {
      Call(spec);
      return;
    }
    AskArgs args = AskArgsOf(spec);
    args.resources.Set(memory_, spec.resources[0].second);
    args.resources.Set(vcore_, spec.resources[1].second);
    const AppHandle app = app_handles_[static_cast<size_t>(next_ask_ - 1) % apps_.size()];
    Clock::time_point start = Clock::now();
    absl::StatusOr<AskHandle> ask = kernel_->AddAsk(app, args, &out_);
    last_call_ns_ = Nanos(Clock::now() - start);
    if (ask.ok()) ask_handles_[spec.id] = *ask;
    Consume();
  }
  void ReleaseOldest() {
    Live oldest = std::move(live_.front());
    live_.pop_front();
    if (!p_.handles) {
      Call(oldest.by_name);
      return;
    }
    Clock::time_point start = Clock::now();
    (void)kernel_->ReleaseAllocation(oldest.ask, oldest.node, &out_);
    last_call_ns_ = Nanos(Clock::now() - start);
    Consume();
  }

  // Allocates until `live` allocations are held, replacing every allocated ask by a new one.
  void WarmUp() {
    while (static_cast<int64_t>(live_.size()) < p_.live) {
      int64_t made =
          Schedule(std::min<int64_t>(1000, p_.live - static_cast<int64_t>(live_.size())));
      if (made == 0) break;
      for (int64_t i = 0; i < made; ++i) AddAsk();
    }
  }
  int64_t live() const { return static_cast<int64_t>(live_.size()); }

 private:
  struct Live {
    ReleaseOp by_name;
    AskHandle ask;
    NodeHandle node;
  };

  // Apply's contract (allocations made, abort on a refused call), through the recorder.
  int64_t Recorded(const Op& op) {
    int64_t made = 0;
    if (absl::Status status = recorder_->Apply(*kernel_, op, &out_, &made); !status.ok()) {
      std::fprintf(stderr, "churn: %s\n", status.ToString().c_str());
      std::abort();
    }
    return made;
  }

  // The driver's bookkeeping of the decisions, outside the timed calls.
  void Consume() {
    for (const Decision& d : out_) {
      if (d.type != DecisionType::kAllocation) continue;
      Live live{.by_name = {.app = std::string(d.app),
                            .ask = std::string(d.ask),
                            .node = std::string(d.node)}};
      if (p_.handles) {
        live.ask = ask_handles_.at(live.by_name.ask);
        auto node = node_handles_.find(live.by_name.node);
        if (node == node_handles_.end()) {
          node = node_handles_
                     .emplace(live.by_name.node, *kernel_->FindNode(partition_, live.by_name.node))
                     .first;
        }
        live.node = node->second;
      }
      live_.push_back(std::move(live));
    }
    out_.clear();
  }

  ChurnParams p_;
  std::vector<Op>* record_;
  PartitionHandle partition_;
  std::vector<AppHandle> app_handles_;
  std::map<std::string, AskHandle> ask_handles_;
  std::map<std::string, NodeHandle> node_handles_;
  int memory_ = -1;
  int vcore_ = -1;
  int64_t last_call_ns_ = 0;
  SchedulerConfig config_;
  std::unique_ptr<Kernel> kernel_;
  std::unique_ptr<adapters::EventRecorder> recorder_;
  std::vector<std::string> apps_;
  std::deque<Live> live_;
  std::vector<Decision> out_;
  std::mt19937_64 rng_{42};
  std::mt19937_64 probe_rng_{7};
  AskSpec probe_spec_;
  int64_t next_ask_ = 0;
};

const Verification& VerifiedChurn(const std::string& app_policy) {
  static std::map<std::string, Verification> cache;
  auto it = cache.find(app_policy);
  if (it != cache.end()) return it->second;
  ChurnParams small;
  small.nodes = 40;
  small.leaves = 4;
  small.apps_per_leaf = 3;
  small.pending = 400;
  small.live = 400;
  small.app_policy = app_policy;
  Workload w;
  ChurnDriver driver(small, &w.ops);
  driver.WarmUp();
  for (int i = 0; i < 1000; ++i) {
    driver.AddAsk();
    driver.ReleaseOldest();
    driver.Schedule(1);
  }
  w.config = driver.config();
  return cache.emplace(app_policy, VerifyWorkload(w)).first->second;
}

enum class Recording { kNone, kEveryCall, kBuffered };

void BM_Latency_ScheduleOne(benchmark::State& state, const std::string& app_policy, bool handles,
                            Recording recording) {
  if (!ReportVerification(state, VerifiedChurn(app_policy))) return;
  ChurnParams p;
  p.handles = handles;
  if (recording != Recording::kNone) {
    const char* dir = std::getenv("TMPDIR");
    p.record_path = std::string(dir != nullptr ? dir : "/tmp") + "/allocore-churn-" +
                    std::to_string(::getpid()) + ".alog";
    p.record_buffer_bytes = recording == Recording::kBuffered ? size_t{64} << 10 : 0;
  }
  p.nodes = state.range(0);
  p.pending = state.range(1);
  p.app_policy = app_policy;
  ChurnDriver driver(p, nullptr);
  driver.WarmUp();
  if (driver.live() < p.live) {
    state.SkipWithError("warm-up did not reach the live allocation target");
    return;
  }
  std::vector<int64_t> schedule_ns, add_ns, release_ns;
  const size_t expected = static_cast<size_t>(state.max_iterations);
  schedule_ns.reserve(expected);
  add_ns.reserve(expected);
  release_ns.reserve(expected);
  int64_t step_ns = 0;
  for (auto _ : state) {
    driver.AddAsk();
    add_ns.push_back(driver.last_call_ns());
    driver.ReleaseOldest();
    release_ns.push_back(driver.last_call_ns());
    int64_t made = driver.Schedule(1);
    schedule_ns.push_back(driver.last_call_ns());
    step_ns += add_ns.back() + release_ns.back() + schedule_ns.back();
    state.SetIterationTime(static_cast<double>(driver.last_call_ns()) * 1e-9);
    if (made != 1) {
      state.SkipWithError("Schedule(1) made no allocation in the steady state");
      break;
    }
  }
  if (absl::Status s = driver.kernel().CheckConsistency(); !s.ok()) {
    state.SkipWithError(("CheckConsistency: " + std::string(s.message())).c_str());
    return;
  }
  for (auto* v : {&schedule_ns, &add_ns, &release_ns}) std::sort(v->begin(), v->end());
  state.SetItemsProcessed(static_cast<int64_t>(schedule_ns.size()));
  auto ns = [](int64_t v) { return static_cast<double>(v); };
  state.counters["p50_ns"] = ns(Percentile(schedule_ns, 50));
  state.counters["p99_ns"] = ns(Percentile(schedule_ns, 99));
  state.counters["p999_ns"] = ns(Percentile(schedule_ns, 99.9));
  state.counters["max_ns"] = ns(schedule_ns.empty() ? 0 : schedule_ns.back());
  state.counters["add_p50_ns"] = ns(Percentile(add_ns, 50));
  state.counters["add_p99_ns"] = ns(Percentile(add_ns, 99));
  state.counters["release_p50_ns"] = ns(Percentile(release_ns, 50));
  state.counters["release_p99_ns"] = ns(Percentile(release_ns, 99));
  state.counters["step_ns"] =
      schedule_ns.empty() ? 0.0 : ns(step_ns) / static_cast<double>(schedule_ns.size());
  if (!p.record_path.empty()) std::remove(p.record_path.c_str());
}

void BM_Latency_Probe(benchmark::State& state) {
  ChurnParams p;
  p.nodes = state.range(0);
  p.pending = state.range(1);
  ChurnDriver driver(p, nullptr);
  driver.WarmUp();
  std::vector<int64_t> probe_ns;
  probe_ns.reserve(static_cast<size_t>(state.max_iterations));
  int64_t placed = 0;
  for (auto _ : state) {
    driver.AddAsk();
    driver.ReleaseOldest();
    Clock::time_point t0 = Clock::now();
    absl::StatusOr<ProbeResult> answer = driver.ProbeNext();
    Clock::time_point t1 = Clock::now();
    state.SetIterationTime(Seconds(t1 - t0));
    probe_ns.push_back(Nanos(t1 - t0));
    if (!answer.ok()) {
      state.SkipWithError(("Probe: " + std::string(answer.status().message())).c_str());
      break;
    }
    placed += answer->node.empty() ? 0 : 1;
    driver.Schedule(1);
  }
  std::sort(probe_ns.begin(), probe_ns.end());
  state.SetItemsProcessed(static_cast<int64_t>(probe_ns.size()));
  state.counters["p50_ns"] = static_cast<double>(Percentile(probe_ns, 50));
  state.counters["p99_ns"] = static_cast<double>(Percentile(probe_ns, 99));
  state.counters["placed_share"] =
      probe_ns.empty() ? 0.0 : static_cast<double>(placed) / static_cast<double>(probe_ns.size());
}

// Snapshot, restore and fork of the churn workload's steady state (5,000 nodes, 100,000 pending
// asks, 50,000 live allocations): what a manager's periodic snapshot, its restart and a what-if
// copy cost. The counters give the snapshot's size; restored and forked kernels are checked to
// snapshot to the same bytes once, outside the timing.
enum class SnapshotOp { kWrite, kRestore, kFork };

void BM_Snapshot(benchmark::State& state, SnapshotOp op) {
  ChurnParams p;
  p.nodes = state.range(0);
  p.pending = state.range(1);
  ChurnDriver driver(p, nullptr);
  driver.WarmUp();
  const Kernel& kernel = driver.kernel();
  const std::string snapshot = kernel.Snapshot();
  {
    absl::StatusOr<std::unique_ptr<Kernel>> copy =
        op == SnapshotOp::kFork ? kernel.Fork() : Kernel::Restore(snapshot);
    if (!copy.ok() || (*copy)->Snapshot() != snapshot) {
      state.SkipWithError("the copy does not snapshot to the original's bytes");
      return;
    }
  }
  for (auto _ : state) {
    switch (op) {
      case SnapshotOp::kWrite:
        benchmark::DoNotOptimize(kernel.Snapshot());
        break;
      case SnapshotOp::kRestore:
        benchmark::DoNotOptimize(Kernel::Restore(snapshot));
        break;
      case SnapshotOp::kFork:
        benchmark::DoNotOptimize(kernel.Fork());
        break;
    }
  }
  const Kernel::Usage usage = kernel.usage();
  state.counters["snapshot_bytes"] = static_cast<double>(snapshot.size());
  state.counters["asks"] = static_cast<double>(usage.asks);
  state.counters["live_allocations"] = static_cast<double>(usage.live_allocations);
  state.counters["bytes_per_s"] = benchmark::Counter(static_cast<double>(snapshot.size()),
                                                     benchmark::Counter::kIsIterationInvariantRate);
}

BENCHMARK_CAPTURE(BM_Snapshot, write, SnapshotOp::kWrite)
    ->ArgNames({"nodes", "pending"})
    ->Args({5000, 100000})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(5);
BENCHMARK_CAPTURE(BM_Snapshot, restore, SnapshotOp::kRestore)
    ->ArgNames({"nodes", "pending"})
    ->Args({5000, 100000})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(5);
BENCHMARK_CAPTURE(BM_Snapshot, fork, SnapshotOp::kFork)
    ->ArgNames({"nodes", "pending"})
    ->Args({5000, 100000})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(5);

BENCHMARK(BM_Latency_Probe)
    ->ArgNames({"nodes", "pending"})
    ->Args({5000, 100000})
    ->UseManualTime()
    ->Unit(benchmark::kNanosecond)
    ->Iterations(200000);
BENCHMARK_CAPTURE(BM_Latency_ScheduleOne, fair, std::string("fair"), false, Recording::kNone)
    ->ArgNames({"nodes", "pending"})
    ->Args({5000, 100000})
    ->UseManualTime()
    ->Unit(benchmark::kNanosecond)
    ->Iterations(200000);
BENCHMARK_CAPTURE(BM_Latency_ScheduleOne, fifo, std::string("fifo"), false, Recording::kNone)
    ->ArgNames({"nodes", "pending"})
    ->Args({5000, 100000})
    ->UseManualTime()
    ->Unit(benchmark::kNanosecond)
    ->Iterations(200000);
BENCHMARK_CAPTURE(BM_Latency_ScheduleOne, fair_handles, std::string("fair"), true, Recording::kNone)
    ->ArgNames({"nodes", "pending"})
    ->Args({5000, 100000})
    ->UseManualTime()
    ->Unit(benchmark::kNanosecond)
    ->Iterations(200000);
BENCHMARK_CAPTURE(BM_Latency_ScheduleOne, fair_recorded, std::string("fair"), false,
                  Recording::kEveryCall)
    ->ArgNames({"nodes", "pending"})
    ->Args({5000, 100000})
    ->UseManualTime()
    ->Unit(benchmark::kNanosecond)
    ->Iterations(200000);
BENCHMARK_CAPTURE(BM_Latency_ScheduleOne, fair_recorded_buffered, std::string("fair"), false,
                  Recording::kBuffered)
    ->ArgNames({"nodes", "pending"})
    ->Args({5000, 100000})
    ->UseManualTime()
    ->Unit(benchmark::kNanosecond)
    ->Iterations(200000);

}  // namespace
}  // namespace allocore::bench
