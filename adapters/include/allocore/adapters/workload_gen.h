// allocore/adapters/workload_gen.h — synthetic scenario files, deterministic for their inputs.
//
// Both generators return scenario YAML (share/doc/allocore/docs/scenario-format.md) so that what a
// benchmark runs is exactly what `allocore gen` writes and `allocore run` replays. Load the
// text with LoadScenarioText (outside any timed section).
//
// Example:
//   auto yaml = allocore::adapters::GenerateYunikornShapeScenario({.nodes = 500, .pods = 10000});
//   auto scenario = allocore::adapters::LoadScenarioText(*yaml, "yunikorn-shape");
#ifndef ALLOCORE_ADAPTERS_WORKLOAD_GEN_H_
#define ALLOCORE_ADAPTERS_WORKLOAD_GEN_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "allocore/export.h"

namespace allocore::adapters {

// The shape of YuniKorn core's BenchmarkScheduling: queues root.a (guaranteed memory 100000,
// vcore 10000 milli) and root.b (guaranteed memory 1000000, vcore 10000 milli), one app per
// queue with one ask of {memory: 10, vcore: 1} (raw), counts pods/2 and pods - pods/2, `nodes`
// nodes each with room for pods/nodes + 1 allocations, then one `schedule: {}` step.
struct YunikornShapeOptions {
  int64_t nodes = 500;
  int64_t pods = 10000;
};
// InvalidArgument unless 1 <= nodes <= 10^7 and 0 <= pods <= 10^12.
ALLOCORE_EXPORT absl::StatusOr<std::string> GenerateYunikornShapeScenario(
    const YunikornShapeOptions& options);

// A random workload for differential testing and profiling: a deep queue tree (offsets,
// fences, sort policies, max/guaranteed, maxapplications), nodes of mixed sizes and `steps`
// steps of churn (apps and asks added, schedules, releases, ask and app removals, clock
// advances, node changes, config reloads). The same options always give the same text; the
// steps may name things that no longer exist, which the kernel refuses (error records).
struct RandomScenarioOptions {
  uint64_t seed = 1;
  int64_t queues = 12;  // queues below the root
  int64_t apps = 16;    // add_app steps at most
  int64_t asks = 48;    // add_ask steps at most
  int64_t nodes = 6;    // nodes registered up front
  int64_t steps = 150;  // steps in total, the last one a `schedule: {}`
};
// InvalidArgument unless every count is >= 1 (queues, apps, asks, nodes <= 10^6; steps <= 10^7).
ALLOCORE_EXPORT absl::StatusOr<std::string> GenerateRandomScenario(
    const RandomScenarioOptions& options);

}  // namespace allocore::adapters

#endif  // ALLOCORE_ADAPTERS_WORKLOAD_GEN_H_
