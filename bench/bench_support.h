// bench/bench_support.h — workloads, timing and verification shared by the benchmarks.
//
// A benchmark describes its workload as a Workload: a configuration plus a list of kernel calls
// (Op). The same list drives the kernel under measurement and, once and outside any timed
// region, the checks that make a fast wrong kernel fail the benchmark:
//   - with the reference model built in (tests/reference), its decisions are compared with the
//     kernel's, one by one;
//   - without it, a second, independent kernel run must give the same decisions and
//     Kernel::CheckConsistency() must pass.
//
// Invariants:
//   1. Every helper here is deterministic: the same arguments give the same workload.
//   2. A kernel call that a benchmark expects to succeed and that fails aborts the process
//      (a refused call means the benchmark is broken, not slow).
#ifndef ALLOCORE_BENCH_BENCH_SUPPORT_H_
#define ALLOCORE_BENCH_BENCH_SUPPORT_H_

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "allocore/config.h"
#include "allocore/events.h"
#include "allocore/kernel.h"
#include "benchmark/benchmark.h"
#include "support/configs.h"

namespace allocore::bench {

using Clock = std::chrono::steady_clock;

inline double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }
inline int64_t Nanos(Clock::duration d) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(d).count();
}

// CPU time of the calling thread: unlike wall time, not inflated when a loaded machine
// deschedules the benchmark (reported next to wall time as cpu_ns_per_*).
int64_t ThreadCpuNanos();

// Aborts with `what` and the status message unless `status` is OK.
void CheckOk(const absl::Status& status, std::string_view what);
template <typename T>
T ValueOrDie(absl::StatusOr<T> value, std::string_view what) {
  CheckOk(value.status(), what);
  return *std::move(value);
}

// --- Configurations -------------------------------------------------------------------------

// The partition of YuniKorn's BenchmarkScheduling (shared with the guard workload).
using test_support::YunikornShapeConfig;

struct TreeOptions {
  int64_t leaves = 1;
  int depth = 1;                     // levels below the root; every leaf sits at this depth
  std::string app_policy = "fifo";   // application.sort.policy of every leaf
  std::string node_policy = "fair";  // nodesortpolicy type
  int fence_depth = 0;               // > 0: queues at this depth get priority.policy fence
  std::vector<int32_t> offsets;      // optional priority.offset per depth (index 0 = depth 1)
};
struct TreeConfig {
  SchedulerConfig config;
  std::vector<std::string> leaves;  // fully qualified leaf paths, configuration order
};
// A balanced tree: fanout ceil(leaves^(1/depth)), filled depth-first until `leaves` leaves.
TreeConfig MakeTreeConfig(const TreeOptions& options);

// --- Workloads ----------------------------------------------------------------------------

// A workload is the kernel's own event vocabulary (allocore/events.h).
using Op = Event;
using ScheduleOp = ScheduleEvent;
using ReleaseOp = ReleaseEvent;
using RemoveAskOp = RemoveAskEvent;
using AdvanceOp = AdvanceEvent;

struct Workload {
  SchedulerConfig config;
  std::vector<Op> ops;
  Semantics semantics = Semantics::kYunikorn12;  // the kernel's (and the reference model's)
};

NodeSpec MakeNode(int64_t index, int64_t memory, int64_t vcore);
AskSpec MakeAsk(std::string app, std::string id, int64_t memory, int64_t vcore, int64_t count,
                int32_t priority = 0);

// YuniKorn's BenchmarkScheduling shape. `setup` gets the nodes and applications, `timed` the
// two asks and the schedule call that allocates all `pods`.
struct YunikornShapeWorkload {
  SchedulerConfig config;
  std::vector<Op> setup;
  std::vector<Op> timed;
  Workload Whole() const;
};
YunikornShapeWorkload MakeYunikornShape(int64_t nodes, int64_t pods);

std::unique_ptr<Kernel> NewKernel(const SchedulerConfig& config,
                                  Semantics semantics = Semantics::kYunikorn12);
// Applies `op`; returns the allocations a ScheduleOp made (0 for other ops). Aborts on error.
int64_t Apply(Kernel& kernel, const Op& op, std::vector<Decision>* out);
void ApplyAll(Kernel& kernel, const std::vector<Op>& ops, std::vector<Decision>* out);

// --- Decisions and verification -----------------------------------------------------------

// A decision with owned strings, reduced to the fields that matter for its type.
struct OwnedDecision {
  DecisionType type = DecisionType::kAllocation;
  std::string partition, queue, app, ask, node;
  int32_t priority = 0;
  int64_t seq = 0;
  AppState from = AppState::kNew;
  AppState to = AppState::kNew;
  bool operator==(const OwnedDecision&) const = default;
  std::string ToString() const;
};
OwnedDecision Own(const Decision& d);
std::vector<OwnedDecision> Own(const std::vector<Decision>& decisions);

struct Verification {
  bool ok = true;
  std::string detail;                           // what was compared, or the first difference
  std::string method;                           // "reference" or "self"
  int64_t compared = 0;                         // decisions compared
  std::vector<OwnedDecision> kernel_decisions;  // the full kernel run
};
// Runs `workload` on a fresh kernel and checks it (see the file comment). When the reference
// model is used and `reference_max_allocations` > 0, the reference replays the workload with
// its last ScheduleOp capped at that many allocations (the naive model is slow on big
// clusters) and its decisions must be a prefix of the kernel's.
Verification VerifyWorkload(const Workload& workload, int64_t reference_max_allocations = 0);
bool ReferenceModelAvailable();

// Compares a measured run with a verified one; reports the first difference via SkipWithError.
bool MatchOrSkip(benchmark::State& state, const Verification& verified,
                 const std::vector<Decision>& measured);
// Calls SkipWithError unless `v.ok`; sets the label to the verification summary.
bool ReportVerification(benchmark::State& state, const Verification& v);

// --- Timing ----------------------------------------------------------------------------------

// Percentile (0..100) of `sorted` (ascending), nearest rank.
int64_t Percentile(const std::vector<int64_t>& sorted, double percentile);

// Bytes currently allocated through operator new while counting is on (see alloc_counter.cc).
struct AllocCounter {
  static void Start();  // resets and turns counting on
  static void Stop();
  static int64_t LiveBytes();  // allocated minus freed since Start (usable sizes)
  static int64_t PeakBytes();  // highest LiveBytes since Start
  static int64_t Allocations();
};

// Adds the allocator in use ("mimalloc" or "glibc malloc") to the benchmark context.
void AddAllocatorContext();
std::string AllocatorName();

}  // namespace allocore::bench

#endif  // ALLOCORE_BENCH_BENCH_SUPPORT_H_
