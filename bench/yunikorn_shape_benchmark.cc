// bench/yunikorn_shape_benchmark.cc — the anchor: YuniKorn core v1.2.0's BenchmarkScheduling.
//
// Shape (pkg/scheduler/tests/performance_test.go): one partition, leaves root.a and root.b with
// guarantees, one application per leaf, one ask per application with count pods/2, each
// allocation {memory: 10, vcore: 1}, `nodes` nodes with room for pods/nodes + 1 allocations,
// default (fair) node sorting. Timed: from the asks being submitted until every pod is
// allocated. Kernel creation, nodes and applications are set up outside the timed region
// (manual time, a fresh kernel per iteration).
//
// Counters: allocs_per_s and ns_per_alloc (wall time) over all iterations of a repetition, and
// cpu_ns_per_alloc (thread CPU time of the same region, robust on a loaded machine); bench/run
// prints the medians as the machine-readable `yunikorn-shape` lines.
#include <map>
#include <tuple>
#include <utility>

#include "bench_support.h"

namespace allocore::bench {
namespace {

constexpr int64_t kPods = 10000;

// The reference model replays at most this many node visits (allocations x nodes) in full;
// beyond it, the first allocations are compared (a prefix of the same run).
constexpr int64_t kReferenceBudget = 500 * 1000;

const Verification& VerifiedShape(int64_t nodes, int64_t pods, Semantics semantics) {
  static std::map<std::tuple<int64_t, int64_t, Semantics>, Verification> cache;
  auto it = cache.find({nodes, pods, semantics});
  if (it != cache.end()) return it->second;
  int64_t limit = kReferenceBudget / nodes;
  if (limit >= pods) limit = 0;
  Workload whole = MakeYunikornShape(nodes, pods).Whole();
  whole.semantics = semantics;
  return cache.emplace(std::make_tuple(nodes, pods, semantics), VerifyWorkload(whole, limit))
      .first->second;
}

void ScheduleShape(benchmark::State& state, Semantics semantics) {
  const int64_t nodes = state.range(0);
  const int64_t pods = state.range(1);
  const YunikornShapeWorkload shape = MakeYunikornShape(nodes, pods);
  const Verification& verified = VerifiedShape(nodes, pods, semantics);
  if (!ReportVerification(state, verified)) return;

  int64_t allocations = 0;
  double seconds = 0;
  int64_t cpu_nanos = 0;
  bool checked = false;
  for (auto _ : state) {
    auto kernel = NewKernel(shape.config, semantics);
    std::vector<Decision> out;
    ApplyAll(*kernel, shape.setup, &out);
    out.reserve(out.size() + static_cast<size_t>(pods) + 16);

    Clock::time_point start = Clock::now();
    int64_t cpu_start = ThreadCpuNanos();
    int64_t made = 0;
    for (const Op& op : shape.timed) made += Apply(*kernel, op, &out);
    cpu_nanos += ThreadCpuNanos() - cpu_start;
    Clock::duration elapsed = Clock::now() - start;

    state.SetIterationTime(Seconds(elapsed));
    seconds += Seconds(elapsed);
    allocations += made;
    if (made != pods) {
      state.SkipWithError(
          ("allocated " + std::to_string(made) + " of " + std::to_string(pods) + " pods").c_str());
      break;
    }
    if (!checked) {
      checked = true;
      if (!MatchOrSkip(state, verified, out)) break;
      if (absl::Status s = kernel->CheckConsistency(); !s.ok()) {
        state.SkipWithError(("CheckConsistency: " + std::string(s.message())).c_str());
        break;
      }
    }
  }
  state.SetItemsProcessed(allocations);
  state.counters["nodes"] = static_cast<double>(nodes);
  state.counters["pods"] = static_cast<double>(pods);
  if (allocations > 0 && seconds > 0) {
    state.counters["allocs_per_s"] = static_cast<double>(allocations) / seconds;
    state.counters["ns_per_alloc"] = seconds * 1e9 / static_cast<double>(allocations);
    state.counters["cpu_ns_per_alloc"] =
        static_cast<double>(cpu_nanos) / static_cast<double>(allocations);
  }
}

void BM_YunikornShape_Schedule(benchmark::State& state) {
  ScheduleShape(state, Semantics::kYunikorn12);
}

// The same workload decided like YuniKorn 1.9: its fair child order reads the fair max and its
// quota check only the requested types (the profile's function pointers on the path).
void BM_YunikornShape_Schedule_V19(benchmark::State& state) {
  ScheduleShape(state, Semantics::kYunikorn19);
}

// Setup dominates the wall time of the big clusters; fewer timed seconds keep the suite short
// while every repetition still runs many iterations.
BENCHMARK(BM_YunikornShape_Schedule_V19)
    ->ArgNames({"nodes", "pods"})
    ->Args({500, kPods})
    ->Args({5000, kPods})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->MinTime(0.1)
    ->Repetitions(5)
    ->DisplayAggregatesOnly(true);

BENCHMARK(BM_YunikornShape_Schedule)
    ->ArgNames({"nodes", "pods"})
    ->Args({500, kPods})
    ->Args({1000, kPods})
    ->Args({2000, kPods})
    ->Args({5000, kPods})
    ->Args({20000, kPods})
    ->Args({50000, kPods})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->MinTime(0.1)
    ->Repetitions(5)
    ->DisplayAggregatesOnly(true);

}  // namespace
}  // namespace allocore::bench
