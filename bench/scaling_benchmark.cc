// bench/scaling_benchmark.cc — cost per allocation as one parameter grows, the others fixed.
//
// Every case builds a backlog (queues, applications, asks, nodes: outside the timed region),
// then times Schedule(max = kAllocations). The backlog always holds more than kAllocations
// pending repeats, so every timed call makes exactly kAllocations allocations and the cost per
// allocation is comparable across sizes. Cost should stay flat or grow logarithmically.
//
// Families (BM_Scale_<Parameter>_<policy>/...):
//   Leaves       leaf queues 1 -> 10,000 (balanced tree, depth 1 -> 6), one app per leaf
//   FlatLeaves   leaf queues 1 -> 10,000 directly under the root (siblings that tie)
//   Apps         applications per leaf 1 -> 100,000
//   Asks         asks per application 1 -> 1,000,000
//   Nodes        nodes 100 -> 100,000, each with room for 1,000 allocations (fair, binpacking)
//   TightNodes   nodes 100 -> 100,000 with room for kAllocations/nodes + 1 (YuniKorn sizing)
//
// Verification: the same generator at a small size (at most 24 queues, apps and nodes, 64 asks)
// is compared with the reference model once per family and policy; every measured run must
// make exactly kAllocations allocations and pass Kernel::CheckConsistency().
#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "bench_support.h"

namespace allocore::bench {
namespace {

constexpr int64_t kAllocations = 10000;
constexpr auto kTimeBox = std::chrono::milliseconds(250);

struct ScaleParams {
  int64_t leaves = 1;
  int depth = 1;
  int64_t apps_per_leaf = 1;
  int64_t asks_per_app = 1;
  int64_t nodes = 1000;
  int64_t node_slots = 0;  // allocations a node can hold; 0: 2 * allocations / nodes + 2
  std::string app_policy = "fifo";
  std::string node_policy = "fair";
  int64_t allocations = kAllocations;
};

Workload MakeScaleWorkload(const ScaleParams& p) {
  TreeOptions tree;
  tree.leaves = p.leaves;
  tree.depth = p.depth;
  tree.app_policy = p.app_policy;
  tree.node_policy = p.node_policy;
  TreeConfig config = MakeTreeConfig(tree);
  Workload w;
  w.config = std::move(config.config);
  const int64_t slots = p.node_slots > 0 ? p.node_slots : 2 * p.allocations / p.nodes + 2;
  for (int64_t i = 0; i < p.nodes; ++i) w.ops.push_back(MakeNode(i, 10 * slots, slots));
  // Enough pending repeats for `allocations`, whatever the split: at least 2 per app so that
  // stateaware apps leave Starting (the second allocation makes them Running).
  const int64_t apps = static_cast<int64_t>(config.leaves.size()) * p.apps_per_leaf;
  const int64_t asks = apps * p.asks_per_app;
  const int64_t count = std::max<int64_t>(apps == asks ? 2 : 1, p.allocations / asks + 1);
  int64_t app_index = 0;
  for (const std::string& leaf : config.leaves) {
    for (int64_t a = 0; a < p.apps_per_leaf; ++a, ++app_index) {
      AppSpec app;
      app.id = "app-" + std::to_string(app_index);
      app.queue = leaf;
      app.user = "user";
      w.ops.push_back(app);
    }
  }
  // Asks round-robin over the applications, as they would arrive.
  for (int64_t k = 0; k < p.asks_per_app; ++k) {
    for (int64_t a = 0; a < apps; ++a) {
      w.ops.push_back(MakeAsk("app-" + std::to_string(a), "ask-" + std::to_string(k), 10, 1, count,
                              static_cast<int32_t>(k % 10)));
    }
  }
  w.ops.push_back(ScheduleOp{.max = p.allocations});
  return w;
}

ScaleParams Shrink(ScaleParams p) {
  const int64_t slots = p.node_slots > 0 ? p.node_slots : 2 * p.allocations / p.nodes + 2;
  const double capacity_ratio =
      static_cast<double>(slots * p.nodes) / static_cast<double>(p.allocations);
  p.leaves = std::min<int64_t>(p.leaves, 24);
  p.depth = std::min(p.depth, static_cast<int>(p.leaves));
  p.apps_per_leaf = std::min<int64_t>(p.apps_per_leaf, 24);
  p.asks_per_app = std::min<int64_t>(p.asks_per_app, 64);
  p.nodes = std::min<int64_t>(p.nodes, 24);
  p.allocations = std::min<int64_t>(p.allocations, 300);
  // Same total capacity relative to the allocations as the full case (tight stays tight).
  p.node_slots = static_cast<int64_t>(std::ceil(
      capacity_ratio * static_cast<double>(p.allocations) / static_cast<double>(p.nodes)));
  return p;
}

const Verification& VerifiedFamily(const std::string& family, const ScaleParams& p) {
  static std::map<std::string, Verification> cache;
  auto it = cache.find(family);
  if (it != cache.end()) return it->second;
  return cache.emplace(family, VerifyWorkload(MakeScaleWorkload(Shrink(p)))).first->second;
}

void RunScale(benchmark::State& state, const std::string& family, const ScaleParams& p) {
  const Verification& verified = VerifiedFamily(family, p);
  if (!ReportVerification(state, verified)) return;
  Workload w = MakeScaleWorkload(p);
  ScheduleOp timed = std::get<ScheduleOp>(w.ops.back());
  w.ops.pop_back();

  int64_t allocations = 0;
  double seconds = 0;
  bool checked = false;
  bool timeboxed = false;
  int64_t cpu_nanos = 0;
  for (auto _ : state) {
    auto kernel = NewKernel(w.config);
    std::vector<Decision> out;
    ApplyAll(*kernel, w.ops, &out);
    out.clear();
    out.reserve(static_cast<size_t>(timed.max) * 3 + 16);
    // Chunked (1, 2, 4, ... 1024 allocations per call; the decisions are the same as one call)
    // so that a pathological case stops after kTimeBox instead of stalling the suite.
    Clock::time_point start = Clock::now();
    int64_t cpu_start = ThreadCpuNanos();
    int64_t made = 0;
    bool boxed = false;
    for (int64_t chunk = 1; made < timed.max; chunk = std::min<int64_t>(chunk * 2, 1024)) {
      int64_t step = Apply(*kernel, ScheduleOp{.max = std::min(chunk, timed.max - made)}, &out);
      made += step;
      if (step == 0) break;
      if (made < timed.max && Clock::now() - start > kTimeBox) {
        boxed = true;
        break;
      }
    }
    cpu_nanos += ThreadCpuNanos() - cpu_start;
    Clock::duration elapsed = Clock::now() - start;
    state.SetIterationTime(Seconds(elapsed));
    seconds += Seconds(elapsed);
    allocations += made;
    timeboxed = timeboxed || boxed;
    if (made != timed.max && !boxed) {
      state.SkipWithError(
          ("made " + std::to_string(made) + " allocations, want " + std::to_string(timed.max))
              .c_str());
      break;
    }
    if (!checked) {
      checked = true;
      if (absl::Status s = kernel->CheckConsistency(); !s.ok()) {
        state.SkipWithError(("CheckConsistency: " + std::string(s.message())).c_str());
        break;
      }
    }
  }
  state.SetItemsProcessed(allocations);
  if (allocations > 0 && seconds > 0) {
    state.counters["ns_per_alloc"] = seconds * 1e9 / static_cast<double>(allocations);
    state.counters["allocs_per_s"] = static_cast<double>(allocations) / seconds;
    state.counters["cpu_ns_per_alloc"] =
        static_cast<double>(cpu_nanos) / static_cast<double>(allocations);
  }
  // 1: an iteration stopped at kTimeBox before kAllocations (the cost is still per allocation).
  state.counters["timeboxed"] = timeboxed ? 1 : 0;
}

// Fewer iterations where the backlog takes long to build.
int64_t IterationsFor(const ScaleParams& p) {
  int64_t setup = p.leaves * p.apps_per_leaf * p.asks_per_app + p.nodes + p.leaves;
  if (setup >= 500000) return 2;
  if (setup >= 50000) return 5;
  return 10;
}

void Register(const std::string& family, const std::string& args, const ScaleParams& p) {
  benchmark::RegisterBenchmark(("BM_Scale_" + family + "/" + args).c_str(),
                               [family, p](benchmark::State& state) { RunScale(state, family, p); })
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond)
      ->Iterations(IterationsFor(p));
}

const char* const kAppPolicies[] = {"fifo", "fair", "stateaware"};

bool RegisterAll() {
  for (const char* policy : kAppPolicies) {
    const std::string suffix = std::string("_") + policy;
    // Balanced trees: depth grows with the number of leaves, up to 6.
    const std::pair<int64_t, int> trees[] = {{1, 1},    {10, 1},    {100, 2},
                                             {1000, 3}, {10000, 4}, {10000, 6}};
    for (auto [leaves, depth] : trees) {
      ScaleParams p;
      p.leaves = leaves;
      p.depth = depth;
      p.app_policy = policy;
      Register("Leaves" + suffix,
               "leaves:" + std::to_string(leaves) + "/depth:" + std::to_string(depth), p);
    }
    for (int64_t leaves : {1, 10, 100, 1000, 10000}) {
      ScaleParams p;
      p.leaves = leaves;
      p.app_policy = policy;
      Register("FlatLeaves" + suffix, "leaves:" + std::to_string(leaves), p);
    }
    for (int64_t apps : {1, 10, 100, 1000, 10000, 100000}) {
      ScaleParams p;
      p.apps_per_leaf = apps;
      p.app_policy = policy;
      Register("Apps" + suffix, "apps:" + std::to_string(apps), p);
    }
    for (int64_t asks : {1, 10, 100, 1000, 10000, 100000, 1000000}) {
      ScaleParams p;
      p.asks_per_app = asks;
      p.app_policy = policy;
      Register("Asks" + suffix, "asks:" + std::to_string(asks), p);
    }
  }
  for (const char* node_policy : {"fair", "binpacking"}) {
    for (int64_t nodes : {100, 1000, 10000, 100000}) {
      ScaleParams p;
      p.nodes = nodes;
      p.node_slots = 1000;
      p.node_policy = node_policy;
      Register(std::string("Nodes_") + node_policy, "nodes:" + std::to_string(nodes), p);
      ScaleParams tight = p;
      tight.node_slots = kAllocations / nodes + 1;
      Register(std::string("TightNodes_") + node_policy, "nodes:" + std::to_string(nodes), tight);
    }
  }
  return true;
}

const bool kRegistered = RegisterAll();

}  // namespace
}  // namespace allocore::bench
