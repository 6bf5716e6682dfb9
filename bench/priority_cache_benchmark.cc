// bench/priority_cache_benchmark.cc — the priority caches in isolation, through the public API.
//
// The queue tree is a chain root -> c1 -> ... -> cD (the leaf holding the measured application
// "target"), with kSiblings sibling leaves at every level, each with one application and one
// pending ask, so that every level has an order to repair.
//
//   BM_PriorityCache_AskAdd        AddAsk with a random priority next to N pending asks
//   BM_PriorityCache_AskRemove     RemoveAsk of the highest-priority ask (worst case: the
//                                  application's priority falls) or of a random one
//   BM_PriorityCache_Allocate      Schedule: each allocation consumes the top ask, so the
//                                  application priority changes on every allocation
//   BM_PriorityCache_Propagation   a new top priority in the deepest leaf and its removal,
//                                  propagated up D levels, without a fence, with a fence at
//                                  depth 1 and with the leaf itself fenced
//
// Timing is per call (manual time around the measured calls only; the calls that restore the
// state between batches are untimed). Verification: the same tree and call pattern at a small
// size, ending with a Schedule, against the reference model; CheckConsistency() (which
// recomputes every priority from scratch) after the measured loop.
#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <tuple>

#include "bench_support.h"

namespace allocore::bench {
namespace {

constexpr int kSiblings = 4;
constexpr int kBatch = 1000;

enum Fence : int { kNoFence = 0, kFenceTop = 1, kFenceLeaf = 2 };

struct Chain {
  SchedulerConfig config;
  std::string leaf;
  std::vector<Op> setup;  // a node, the applications and the siblings' asks
};

Chain MakeChain(int depth, int fence) {
  Chain chain;
  chain.config = test_support::RootWith({});
  QueueConfig* queue = &test_support::Root(chain.config);
  std::string path = "root";
  std::vector<std::string> sibling_leaves;
  for (int level = 1; level <= depth; ++level) {
    for (int s = 0; s < kSiblings; ++s) {
      QueueConfig sibling;
      sibling.name = "s" + std::to_string(s);
      queue->queues.push_back(sibling);
      sibling_leaves.push_back(path + "." + sibling.name);
    }
    QueueConfig next;
    next.name = "c" + std::to_string(level);
    next.parent = level < depth;
    if ((fence == kFenceTop && level == 1) || (fence == kFenceLeaf && level == depth)) {
      next.properties.emplace_back("priority.policy", "fence");
    }
    queue->queues.push_back(next);
    queue = &queue->queues.back();
    path += "." + next.name;
  }
  chain.leaf = path;
  chain.setup.push_back(MakeNode(0, int64_t{1} << 40, int64_t{1} << 40));
  AppSpec target;
  target.id = "target";
  target.queue = chain.leaf;
  target.user = "user";
  chain.setup.push_back(target);
  for (size_t i = 0; i < sibling_leaves.size(); ++i) {
    AppSpec app;
    app.id = "sib-" + std::to_string(i);
    app.queue = sibling_leaves[i];
    app.user = "user";
    chain.setup.push_back(app);
    chain.setup.push_back(MakeAsk(app.id, "ask", 10, 1, 1000000, static_cast<int32_t>(i * 7 % 50)));
  }
  return chain;
}

// The call pattern of every benchmark here at a small size, then a Schedule that shows the
// resulting order: compared with the reference model once per (depth, fence).
const Verification& VerifiedChain(int depth, int fence) {
  static std::map<std::pair<int, int>, Verification> cache;
  auto it = cache.find({depth, fence});
  if (it != cache.end()) return it->second;
  Chain chain = MakeChain(depth, fence);
  Workload w{chain.config, chain.setup};
  std::mt19937 rng(7);
  for (int i = 0; i < 40; ++i) {
    w.ops.push_back(
        MakeAsk("target", "t" + std::to_string(i), 10, 1, 1, static_cast<int32_t>(rng() % 100)));
  }
  for (int i = 0; i < 40; i += 3)
    w.ops.push_back(RemoveAskOp{.app = "target", .ask = "t" + std::to_string(i)});
  w.ops.push_back(MakeAsk("target", "top", 10, 1, 2, 100000));
  w.ops.push_back(ScheduleOp{.max = 60});
  w.ops.push_back(RemoveAskOp{.app = "target", .ask = "t1"});
  w.ops.push_back(ScheduleOp{.max = 20});
  return cache.emplace(std::make_pair(depth, fence), VerifyWorkload(w)).first->second;
}

std::unique_ptr<Kernel> SetUp(const Chain& chain, int64_t asks, std::mt19937& rng) {
  auto kernel = NewKernel(chain.config);
  std::vector<Decision> out;
  ApplyAll(*kernel, chain.setup, &out);
  for (int64_t i = 0; i < asks; ++i) {
    Apply(*kernel,
          MakeAsk("target", "base-" + std::to_string(i), 10, 1, 1,
                  static_cast<int32_t>(rng() % 1000)),
          &out);
  }
  return kernel;
}

bool FinalCheck(benchmark::State& state, const Kernel& kernel) {
  if (absl::Status s = kernel.CheckConsistency(); !s.ok()) {
    state.SkipWithError(("CheckConsistency: " + std::string(s.message())).c_str());
    return false;
  }
  return true;
}

void SetPerCall(benchmark::State& state, int64_t calls, double seconds) {
  state.SetItemsProcessed(calls);
  if (calls > 0) state.counters["ns_per_call"] = seconds * 1e9 / static_cast<double>(calls);
}

void BM_PriorityCache_AskAdd(benchmark::State& state) {
  const int64_t asks = state.range(0);
  const int depth = static_cast<int>(state.range(1));
  if (!ReportVerification(state, VerifiedChain(depth, kNoFence))) return;
  Chain chain = MakeChain(depth, kNoFence);
  std::mt19937 rng(1);
  auto kernel = SetUp(chain, asks, rng);
  std::vector<Decision> out;
  std::vector<AskSpec> batch;
  int64_t next = 0, calls = 0;
  double seconds = 0;
  for (auto _ : state) {
    batch.clear();
    for (int i = 0; i < kBatch; ++i) {
      batch.push_back(MakeAsk("target", "x-" + std::to_string(next++), 10, 1, 1,
                              static_cast<int32_t>(rng() % 1000)));
    }
    Clock::time_point start = Clock::now();
    for (const AskSpec& ask : batch) CheckOk(kernel->AddAsk(ask, &out), "AddAsk");
    Clock::duration elapsed = Clock::now() - start;
    state.SetIterationTime(Seconds(elapsed));
    seconds += Seconds(elapsed);
    calls += kBatch;
    for (const AskSpec& ask : batch) {
      CheckOk(kernel->RemoveAsk(kDefaultPartition, ask.app, ask.id, &out), "RemoveAsk");
    }
    out.clear();
  }
  if (!FinalCheck(state, *kernel)) return;
  SetPerCall(state, calls, seconds);
}

void BM_PriorityCache_AskRemove(benchmark::State& state) {
  const int64_t asks = state.range(0);
  const int depth = static_cast<int>(state.range(1));
  const bool top = state.range(2) != 0;
  if (!ReportVerification(state, VerifiedChain(depth, kNoFence))) return;
  Chain chain = MakeChain(depth, kNoFence);
  std::mt19937 rng(2);
  auto kernel = SetUp(chain, asks, rng);
  std::vector<Decision> out;
  std::vector<AskSpec> batch;
  int64_t next = 0, calls = 0;
  double seconds = 0;
  for (auto _ : state) {
    batch.clear();
    for (int i = 0; i < kBatch; ++i) {
      // top: priorities above every base ask, removed highest first, so every removal lowers
      // the application's priority; otherwise random priorities removed in random order.
      int32_t priority = top ? 2000 + i : static_cast<int32_t>(rng() % 1000);
      batch.push_back(MakeAsk("target", "x-" + std::to_string(next++), 10, 1, 1, priority));
    }
    for (const AskSpec& ask : batch) CheckOk(kernel->AddAsk(ask, &out), "AddAsk");
    if (top) {
      std::reverse(batch.begin(), batch.end());
    } else {
      std::shuffle(batch.begin(), batch.end(), rng);
    }
    Clock::time_point start = Clock::now();
    for (const AskSpec& ask : batch) {
      CheckOk(kernel->RemoveAsk(kDefaultPartition, ask.app, ask.id, &out), "RemoveAsk");
    }
    Clock::duration elapsed = Clock::now() - start;
    state.SetIterationTime(Seconds(elapsed));
    seconds += Seconds(elapsed);
    calls += kBatch;
    out.clear();
  }
  if (!FinalCheck(state, *kernel)) return;
  SetPerCall(state, calls, seconds);
}

void BM_PriorityCache_Allocate(benchmark::State& state) {
  const int64_t asks = state.range(0);
  const int depth = static_cast<int>(state.range(1));
  if (!ReportVerification(state, VerifiedChain(depth, kNoFence))) return;
  Chain chain = MakeChain(depth, kNoFence);
  const int64_t allocations = std::min<int64_t>(asks, 5000);
  int64_t calls = 0;
  double seconds = 0;
  for (auto _ : state) {
    auto kernel = NewKernel(chain.config);
    std::vector<Decision> out;
    ApplyAll(*kernel, chain.setup, &out);
    // Distinct priorities above the siblings': every allocation takes the target's top ask.
    for (int64_t i = 0; i < asks; ++i) {
      Apply(*kernel,
            MakeAsk("target", "a-" + std::to_string(i), 10, 1, 1,
                    static_cast<int32_t>(1000 + (i * 7919) % asks)),
            &out);
    }
    out.clear();
    out.reserve(static_cast<size_t>(allocations) * 3 + 16);
    Clock::time_point start = Clock::now();
    int64_t made = ValueOrDie(kernel->Schedule(allocations, "", &out), "Schedule");
    Clock::duration elapsed = Clock::now() - start;
    state.SetIterationTime(Seconds(elapsed));
    seconds += Seconds(elapsed);
    calls += made;
    if (made != allocations || out.front().app != "target") {
      state.SkipWithError("the target application did not get the allocations");
      break;
    }
    if (calls == made && !FinalCheck(state, *kernel)) break;
  }
  SetPerCall(state, calls, seconds);
}

void BM_PriorityCache_Propagation(benchmark::State& state) {
  const int depth = static_cast<int>(state.range(0));
  const int fence = static_cast<int>(state.range(1));
  if (!ReportVerification(state, VerifiedChain(depth, fence))) return;
  Chain chain = MakeChain(depth, fence);
  std::mt19937 rng(3);
  auto kernel = SetUp(chain, 100, rng);
  std::vector<Decision> out;
  std::vector<AskSpec> batch;
  for (int i = 0; i < kBatch; ++i) {
    batch.push_back(MakeAsk("target", "p-" + std::to_string(i), 10, 1, 1, 100000 + i));
  }
  int64_t calls = 0;
  double seconds = 0;
  for (auto _ : state) {
    Clock::time_point start = Clock::now();
    for (const AskSpec& ask : batch) {
      CheckOk(kernel->AddAsk(ask, &out), "AddAsk");
      CheckOk(kernel->RemoveAsk(kDefaultPartition, ask.app, ask.id, &out), "RemoveAsk");
    }
    Clock::duration elapsed = Clock::now() - start;
    state.SetIterationTime(Seconds(elapsed));
    seconds += Seconds(elapsed);
    calls += 2 * kBatch;
    out.clear();
  }
  if (!FinalCheck(state, *kernel)) return;
  SetPerCall(state, calls, seconds);
}

BENCHMARK(BM_PriorityCache_AskAdd)
    ->ArgNames({"asks", "depth"})
    ->ArgsProduct({{1000, 100000}, {1, 6}})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond)
    ->MinTime(0.1);
BENCHMARK(BM_PriorityCache_AskRemove)
    ->ArgNames({"asks", "depth", "top"})
    ->ArgsProduct({{1000, 100000}, {1, 6}, {0, 1}})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond)
    ->MinTime(0.1);
BENCHMARK(BM_PriorityCache_Allocate)
    ->ArgNames({"asks", "depth"})
    ->ArgsProduct({{1000, 100000}, {1, 6}})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond)
    ->Iterations(5);
BENCHMARK(BM_PriorityCache_Propagation)
    ->ArgNames({"depth", "fence"})
    ->ArgsProduct({{1, 2, 4, 8, 16}, {kNoFence, kFenceTop, kFenceLeaf}})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond)
    ->MinTime(0.1);

}  // namespace
}  // namespace allocore::bench
