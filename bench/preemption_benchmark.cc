// bench/preemption_benchmark.cc — general preemption (decision 34) at 5,000 nodes with
// 100,000 running allocations.
//
// Queues: root.parent with ten `busy-N` leaves (guarantee 1,000 slots each) running 10,000
// one-slot allocations each, filling every node (20 slots), and one `starved` leaf with a
// guarantee of 10,000 slots; preemption enabled, preemption.delay 1ms.
//
// BM_Preemption_Preempting: each iteration a one-slot ask arrives in `starved`, the clock moves
// 1 ms past its delay, and Schedule(0) is timed: the regular walk finds no node, the preemptor
// chooses one victim, the victim is released and the next cycle allocates the ask on the node
// it reserved. Counters: p50/p99 of that call, and victims per preemption (must be 1).
//
// BM_Preemption_NothingPreemptible: the same cluster with every busy leaf at its guarantee
// (guarantee 10,000 each): an arriving ask finds no node and no victim. Timed: Schedule(0) for
// an ask whose preemption attempt runs (a fresh ask past its delay), next to
// BM_Preemption_FailedAttemptOff, the same call with preemption disabled in the partition: the
// cost of an ordinary failed attempt.
//
// BM_QuotaPreemption_Pass (yunikorn-1.9, quota-change preemption): the same full cluster, the
// partition's quotapreemptionenabled on and quota.preemption.delay 1s on root.parent; a reload
// lowers root.parent's max from 100,000 to 90,000 slots, and the timed call is the Advance of
// 1 s whose check runs the pass: 10,000 slots shared among the ten busy leaves (1,000 each,
// their usage above their guarantee as weights), each leaf's 10,000 allocations sorted and
// 1,000 of them released. Counters: victims per pass (must be 10,000). The cluster is rebuilt
// (untimed) for every iteration.
//
// BM_QuotaPreemption_IdleAdvance: the same configuration, nothing above a max: the cost of an
// Advance of 1 s that crosses a check with nothing to do (what every advance pays once the
// feature is configured).
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "bench_support.h"
#include "support/configs.h"

namespace allocore::bench {
namespace {

constexpr int64_t kNodes = 5000;
constexpr int64_t kSlotsPerNode = 20;
constexpr int64_t kBusyLeaves = 10;

SchedulerConfig PreemptionConfig(bool enabled, int64_t busy_guarantee,
                                 std::optional<int64_t> parent_max = std::nullopt) {
  QueueConfig parent = test_support::Parent("parent", {});
  if (parent_max) {
    parent.resources.max = QuantityMap{{"slots", *parent_max}};
    parent.properties = {{"quota.preemption.delay", "1s"}};
  }
  for (int64_t i = 0; i < kBusyLeaves; ++i) {
    QueueConfig& leaf = parent.queues.emplace_back(test_support::Leaf("busy-" + std::to_string(i)));
    leaf.resources.guaranteed = QuantityMap{{"slots", busy_guarantee}};
  }
  QueueConfig& starved = parent.queues.emplace_back(test_support::Leaf("starved"));
  starved.resources.guaranteed = QuantityMap{{"slots", kNodes * kSlotsPerNode / kBusyLeaves}};
  starved.properties = {{"preemption.delay", "1ms"}};
  SchedulerConfig config = test_support::RootWith({std::move(parent)});
  config.partitions[0].preemption_enabled = enabled;
  if (parent_max) config.partitions[0].quota_preemption_enabled = true;
  return config;
}

struct Cluster {
  std::unique_ptr<Kernel> kernel;
  std::vector<Decision> out;
  int64_t next_ask = 0;
};

// Fills every slot with the busy leaves' one-slot allocations.
Cluster MakeFullCluster(bool enabled, int64_t busy_guarantee,
                        std::optional<int64_t> parent_max = std::nullopt) {
  Cluster c;
  c.kernel = NewKernel(PreemptionConfig(enabled, busy_guarantee, parent_max),
                       parent_max ? Semantics::kYunikorn19 : Semantics::kYunikorn12);
  for (int64_t i = 0; i < kNodes; ++i) {
    NodeSpec node;
    node.id = "node-" + std::to_string(100000 + i);
    node.capacity = {{"slots", kSlotsPerNode}};
    Apply(*c.kernel, node, &c.out);
  }
  const int64_t per_leaf = kNodes * kSlotsPerNode / kBusyLeaves;
  for (int64_t i = 0; i < kBusyLeaves; ++i) {
    AppSpec app{.id = "busy-app-" + std::to_string(i),
                .queue = "root.parent.busy-" + std::to_string(i),
                .user = "user"};
    Apply(*c.kernel, app, &c.out);
    AskSpec ask{.app = app.id, .id = "run", .resources = {{"slots", 1}}, .count = per_leaf};
    Apply(*c.kernel, ask, &c.out);
  }
  Apply(*c.kernel, ScheduleOp{}, &c.out);
  Apply(*c.kernel, AppSpec{.id = "starved-app", .queue = "root.parent.starved", .user = "user"},
        &c.out);
  c.out.clear();
  return c;
}

// One new one-slot ask in `starved`, past its delay; returns the Schedule(0) call's time.
int64_t ArriveAndSchedule(Cluster* c) {
  AskSpec ask{.app = "starved-app",
              .id = "ask-" + std::to_string(c->next_ask++),
              .resources = {{"slots", 1}}};
  Apply(*c->kernel, ask, &c->out);
  Apply(*c->kernel, AdvanceOp{.millis = 1}, &c->out);
  c->out.clear();
  Clock::time_point start = Clock::now();
  absl::StatusOr<int64_t> made = c->kernel->Schedule(0, "", &c->out);
  int64_t ns = Nanos(Clock::now() - start);
  if (!made.ok()) std::abort();
  return ns;
}

void Report(benchmark::State& state, std::vector<int64_t>* ns) {
  std::sort(ns->begin(), ns->end());
  state.SetItemsProcessed(static_cast<int64_t>(ns->size()));
  state.counters["p50_ns"] = static_cast<double>(Percentile(*ns, 50));
  state.counters["p99_ns"] = static_cast<double>(Percentile(*ns, 99));
}

void BM_Preemption_Preempting(benchmark::State& state) {
  Cluster c = MakeFullCluster(/*enabled=*/true, /*busy_guarantee=*/1000);
  std::vector<int64_t> ns;
  int64_t preemptions = 0, victims = 0, allocations = 0;
  for (auto _ : state) {
    const int64_t t = ArriveAndSchedule(&c);
    ns.push_back(t);
    state.SetIterationTime(static_cast<double>(t) * 1e-9);
    for (const Decision& d : c.out) {
      preemptions += d.type == DecisionType::kPreemption;
      victims += d.type == DecisionType::kPreemption ? d.count : 0;
      allocations += d.type == DecisionType::kAllocation;
    }
  }
  if (preemptions != static_cast<int64_t>(ns.size()) || allocations != preemptions) {
    state.SkipWithError("not one preemption and one allocation per arriving ask");
    return;
  }
  if (absl::Status s = c.kernel->CheckConsistency(); !s.ok()) {
    state.SkipWithError(("CheckConsistency: " + std::string(s.message())).c_str());
    return;
  }
  Report(state, &ns);
  state.counters["victims_per_preemption"] =
      static_cast<double>(victims) / static_cast<double>(std::max<int64_t>(1, preemptions));
}

void FailedAttempt(benchmark::State& state, bool enabled) {
  Cluster c = MakeFullCluster(enabled, /*busy_guarantee=*/kNodes * kSlotsPerNode / kBusyLeaves);
  std::vector<int64_t> ns;
  for (auto _ : state) {
    const int64_t t = ArriveAndSchedule(&c);
    ns.push_back(t);
    state.SetIterationTime(static_cast<double>(t) * 1e-9);
    if (!c.out.empty()) {
      state.SkipWithError("an ask was placed or preempted in a full cluster at its guarantees");
      return;
    }
    // The ask stays pending: drop it so that every iteration sees the same queue.
    Apply(*c.kernel,
          RemoveAskOp{.app = "starved-app", .ask = "ask-" + std::to_string(c.next_ask - 1)},
          &c.out);
  }
  Report(state, &ns);
}

constexpr int64_t kFullSlots = kNodes * kSlotsPerNode;

void BM_QuotaPreemption_Pass(benchmark::State& state) {
  int64_t victims = 0, passes = 0;
  for (auto _ : state) {
    Cluster c = MakeFullCluster(/*enabled=*/true, /*busy_guarantee=*/1000, kFullSlots);
    Apply(*c.kernel, UpdateConfigEvent{.config = PreemptionConfig(true, 1000, kFullSlots * 9 / 10)},
          &c.out);
    c.out.clear();
    Clock::time_point start = Clock::now();
    Apply(*c.kernel, AdvanceOp{.millis = 1000}, &c.out);
    state.SetIterationTime(static_cast<double>(Nanos(Clock::now() - start)) * 1e-9);
    for (const Decision& d : c.out) {
      passes += d.type == DecisionType::kQuotaPreemption;
      victims += d.type == DecisionType::kQuotaPreemption ? d.count : 0;
    }
  }
  if (passes != static_cast<int64_t>(state.iterations())) {
    state.SkipWithError("not one quota preemption per lowered max");
    return;
  }
  state.counters["victims_per_pass"] = static_cast<double>(victims) / static_cast<double>(passes);
}

void BM_QuotaPreemption_IdleAdvance(benchmark::State& state) {
  Cluster c = MakeFullCluster(/*enabled=*/true, /*busy_guarantee=*/1000, kFullSlots);
  for (auto _ : state) {
    Clock::time_point start = Clock::now();
    Apply(*c.kernel, AdvanceOp{.millis = 1000}, &c.out);
    state.SetIterationTime(static_cast<double>(Nanos(Clock::now() - start)) * 1e-9);
    if (!c.out.empty()) {
      state.SkipWithError("an idle advance decided something");
      return;
    }
  }
}

void BM_Preemption_NothingPreemptible(benchmark::State& state) { FailedAttempt(state, true); }
void BM_Preemption_FailedAttemptOff(benchmark::State& state) { FailedAttempt(state, false); }

BENCHMARK(BM_Preemption_Preempting)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond)
    ->Iterations(2000);
BENCHMARK(BM_Preemption_NothingPreemptible)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond)
    ->Iterations(2000);
BENCHMARK(BM_Preemption_FailedAttemptOff)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond)
    ->Iterations(2000);
BENCHMARK(BM_QuotaPreemption_Pass)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_QuotaPreemption_IdleAdvance)
    ->UseManualTime()
    ->Unit(benchmark::kNanosecond)
    ->Iterations(2000);

}  // namespace
}  // namespace allocore::bench
