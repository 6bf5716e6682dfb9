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
#include <utility>

#include "bench_support.h"

namespace allocore::bench {
namespace {

constexpr int64_t kPods = 10000;

// The reference model replays at most this many node visits (allocations x nodes) in full;
// beyond it, the first allocations are compared (a prefix of the same run).
constexpr int64_t kReferenceBudget = 500 * 1000;

const Verification& VerifiedShape(int64_t nodes, int64_t pods) {
  static std::map<std::pair<int64_t, int64_t>, Verification> cache;
  auto it = cache.find({nodes, pods});
  if (it != cache.end()) return it->second;
  int64_t limit = kReferenceBudget / nodes;
  if (limit >= pods) limit = 0;
  return cache
      .emplace(std::make_pair(nodes, pods),
               VerifyWorkload(MakeYunikornShape(nodes, pods).Whole(), limit))
      .first->second;
}

void BM_YunikornShape_Schedule(benchmark::State& state) {
  const int64_t nodes = state.range(0);
  const int64_t pods = state.range(1);
  const YunikornShapeWorkload shape = MakeYunikornShape(nodes, pods);
  const Verification& verified = VerifiedShape(nodes, pods);
  if (!ReportVerification(state, verified)) return;

  int64_t allocations = 0;
  double seconds = 0;
  int64_t cpu_nanos = 0;
  bool checked = false;
  for (auto _ : state) {
    auto kernel = NewKernel(shape.config);
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

// Setup dominates the wall time of the big clusters; fewer timed seconds keep the suite short
// while every repetition still runs many iterations.
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
