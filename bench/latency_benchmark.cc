// bench/latency_benchmark.cc — per-decision latency on a steady workload with churn.
//
// 5,000 nodes (room for 16 allocations each), 10 leaf queues x 10 applications, 100,000
// pending asks of a few shapes and priorities. Warm-up (untimed) fills the cluster to 50,000
// live allocations. Then every step: one new ask arrives (keeping 100,000 pending), the oldest
// live allocation is released, and Schedule(1) makes one allocation. Only the Schedule(1)
// calls are timed, each with std::chrono::steady_clock (the ~20 ns clock overhead is included);
// AddAsk and ReleaseAllocation latencies are reported alongside.
//
// Counters: p50/p99/p999/max in ns of Schedule(1) (and p50/p99 of add/release).
// BM_Latency_Probe runs the same steps and times, instead of Schedule(1), a Kernel::Probe of
// the ask that arrives next (before it arrives): the what-if query against one scheduling
// attempt.
// Verification: the same driver at 40 nodes / 400 pending asks / 1,000 steps records its calls,
// which are replayed on the reference model; the measured kernel passes CheckConsistency().
#include <algorithm>
#include <deque>
#include <map>
#include <random>
#include <string>

#include "bench_support.h"

namespace allocore::bench {
namespace {

struct ChurnParams {
  int64_t nodes = 5000;
  int64_t node_slots = 16;
  int64_t leaves = 10;
  int64_t apps_per_leaf = 10;
  int64_t pending = 100000;
  int64_t live = 50000;  // live allocations kept in the steady state
  std::string app_policy = "fair";
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
    for (int64_t i = 0; i < p.pending; ++i) Call(NextAsk());
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

  // Returns the allocations made.
  int64_t Call(const Op& op) {
    if (record_ != nullptr) record_->push_back(op);
    size_t before = out_.size();
    int64_t made = Apply(*kernel_, op, &out_);
    for (size_t i = before; i < out_.size(); ++i) {
      const Decision& d = out_[i];
      if (d.type == DecisionType::kAllocation) {
        live_.push_back({std::string(d.app), std::string(d.ask), std::string(d.node)});
      }
    }
    out_.clear();
    return made;
  }

  int64_t Schedule(int64_t max) { return Call(ScheduleOp{max}); }
  // The next ask, asked about without submitting it (the next NextAsk() is another one).
  absl::StatusOr<ProbeResult> ProbeNext() {
    const int64_t shape = static_cast<int64_t>(probe_rng_() % 4) + 1;
    probe_spec_.app = apps_[static_cast<size_t>(next_ask_) % apps_.size()];
    probe_spec_.resources = {{"memory", 10 * shape}, {"vcore", 1000 * shape}};
    probe_spec_.priority = static_cast<int32_t>(probe_rng_() % 4);
    return kernel_->Probe(probe_spec_);
  }
  void AddAsk() { Call(NextAsk()); }
  void ReleaseOldest() {
    ReleaseOp r = std::move(live_.front());
    live_.pop_front();
    Call(r);
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
  ChurnParams p_;
  std::vector<Op>* record_;
  SchedulerConfig config_;
  std::unique_ptr<Kernel> kernel_;
  std::vector<std::string> apps_;
  std::deque<ReleaseOp> live_;
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

void BM_Latency_ScheduleOne(benchmark::State& state, const std::string& app_policy) {
  if (!ReportVerification(state, VerifiedChurn(app_policy))) return;
  ChurnParams p;
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
  for (auto _ : state) {
    Clock::time_point t0 = Clock::now();
    driver.AddAsk();
    Clock::time_point t1 = Clock::now();
    driver.ReleaseOldest();
    Clock::time_point t2 = Clock::now();
    int64_t made = driver.Schedule(1);
    Clock::time_point t3 = Clock::now();
    state.SetIterationTime(Seconds(t3 - t2));
    add_ns.push_back(Nanos(t1 - t0));
    release_ns.push_back(Nanos(t2 - t1));
    schedule_ns.push_back(Nanos(t3 - t2));
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

BENCHMARK(BM_Latency_Probe)
    ->ArgNames({"nodes", "pending"})
    ->Args({5000, 100000})
    ->UseManualTime()
    ->Unit(benchmark::kNanosecond)
    ->Iterations(200000);
BENCHMARK_CAPTURE(BM_Latency_ScheduleOne, fair, std::string("fair"))
    ->ArgNames({"nodes", "pending"})
    ->Args({5000, 100000})
    ->UseManualTime()
    ->Unit(benchmark::kNanosecond)
    ->Iterations(200000);
BENCHMARK_CAPTURE(BM_Latency_ScheduleOne, fifo, std::string("fifo"))
    ->ArgNames({"nodes", "pending"})
    ->Args({5000, 100000})
    ->UseManualTime()
    ->Unit(benchmark::kNanosecond)
    ->Iterations(200000);

}  // namespace
}  // namespace allocore::bench
