// allocore/adapters/alibaba_trace.h — the Alibaba GPU cluster trace (v2023, "openb") as a
// replay scenario.
//
// The trace (data/alibaba-gpu-v2023 in the repository) lists 1,523 real nodes and 8,152 real pods
// with creation and deletion times. The scenario it becomes:
//   - one node per trace node: vcore = cpu_milli, memory = memory_mib MiB in bytes, and
//     gpu = whole GPUs x 1000 (milli-GPUs) when the node has any;
//   - queues root.ls, root.guaranteed, root.burstable and root.be (the pods' QoS classes),
//     no placement rules, the node sort policy asked for;
//   - per pod an application (queue by QoS) with one ask: vcore = cpu_milli, memory =
//     memory_mib MiB, gpu = num_gpu x gpu_milli when it asks for GPUs;
//   - in time order, per distinct second: `advance` to it, the removal of the pods deleted then
//     that were created earlier, the new pods, one `schedule: {}`, then the removal of pods
//     deleted in the second they were created.
// `scale` N repeats every node and pod N times (ids suffixed -r1 .. -rN, pods at the same
// times), the "ten times over" of the replay benchmark.
//
// Example:
//   std::FILE* out = std::fopen("alibaba-x10.yaml", "w");
//   auto written = allocore::adapters::WriteAlibabaScenario({.data_dir = dir, .scale = 10}, out);
#ifndef ALLOCORE_ADAPTERS_ALIBABA_TRACE_H_
#define ALLOCORE_ADAPTERS_ALIBABA_TRACE_H_

#include <cstdint>
#include <cstdio>
#include <string>

#include "absl/status/statusor.h"
#include "allocore/export.h"

namespace allocore::adapters {

struct AlibabaTraceOptions {
  // Holds openb_node_list_all_node.csv and openb_pod_list_default.csv.
  std::string data_dir;
  int64_t scale = 1;                 // 1 to 1000
  std::string node_policy = "fair";  // fair | binpacking
};

struct AlibabaTraceSummary {
  int64_t nodes = 0;
  int64_t pods = 0;
  int64_t steps = 0;
};

// Writes the scenario to `out`. Errors: NotFound (a CSV file is missing), InvalidArgument (a
// malformed row, named by file and line; bad options), DataLoss (a write failed).
ALLOCORE_EXPORT absl::StatusOr<AlibabaTraceSummary> WriteAlibabaScenario(
    const AlibabaTraceOptions& options, std::FILE* out);

}  // namespace allocore::adapters

#endif  // ALLOCORE_ADAPTERS_ALIBABA_TRACE_H_
