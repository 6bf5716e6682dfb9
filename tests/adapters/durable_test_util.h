// Helpers of the durability tests (durable_kernel_test, crash_test): a workload as the events a
// manager makes, and a digest of every query's answer to compare two kernels by.
#ifndef ALLOCORE_TESTS_ADAPTERS_DURABLE_TEST_UTIL_H_
#define ALLOCORE_TESTS_ADAPTERS_DURABLE_TEST_UTIL_H_

#include <string>
#include <vector>

#include "adapters/recording_test_util.h"
#include "allocore/adapters/scenario.h"
#include "allocore/adapters/workload_gen.h"
#include "allocore/events.h"
#include "allocore/kernel.h"
#include "support/scenarios.h"

namespace allocore::adapters::testing_util {

struct Workload {
  SchedulerConfig config;
  std::vector<Event> events;  // the nodes, then per step a 1 ms advance and the step's call
};

// A random scenario (workload_gen) as the calls a manager makes; probes are left out.
inline Workload RandomWorkload(uint64_t seed, int64_t steps) {
  RandomScenarioOptions options{.seed = seed,
                                .queues = 8,
                                .apps = steps / 8 + 4,
                                .asks = steps / 3 + 8,
                                .nodes = 8,
                                .steps = steps};
  absl::StatusOr<Scenario> scenario = test_support::LoadGeneratedScenario(options);
  Workload workload;
  if (!scenario.ok()) return workload;
  workload.config = scenario->config;
  workload.events = EventsOf(*scenario);
  return workload;
}

inline void AppendResource(const Resource& r, const ResourceTypes& types, std::string* out) {
  out->push_back('{');
  for (int t = 0; t < types.size(); ++t) {
    if (r.Get(t) == 0) continue;
    *out += std::string(types.Name(t)) + ":" + std::to_string(r.Get(t)) + ",";
  }
  out->push_back('}');
}

// Every query's answer: the clock, every partition's queues, nodes, applications and live
// allocations, and why every pending ask waits. Two kernels with equal digests answer alike.
inline std::string QueryDigest(const Kernel& kernel) {
  const ResourceTypes& types = kernel.resource_types();
  std::string out = "now " + std::to_string(kernel.now_millis()) + "\n";
  for (const std::string& partition : kernel.PartitionNames()) {
    out += "[" + partition + "]\n";
    if (auto queues = kernel.ListQueues(partition); queues.ok()) {
      for (const QueueInfo& q : *queues) {
        out += "queue " + q.path + " " + q.state + " p=" + std::to_string(q.priority) +
               " run=" + std::to_string(q.running_applications) + " a=";
        AppendResource(q.allocated, types, &out);
        out += " w=";
        AppendResource(q.pending, types, &out);
        out += "\n";
      }
    }
    if (auto nodes = kernel.ListNodes(partition); nodes.ok()) {
      for (const NodeInfo& n : *nodes) {
        out += "node " + n.id + (n.schedulable ? "" : " unschedulable") +
               (n.reserved ? " reserved" : "") + " n=" + std::to_string(n.allocations) + " av=";
        AppendResource(n.available, types, &out);
        out += "\n";
      }
    }
    if (auto apps = kernel.ListApplications(partition); apps.ok()) {
      for (const AppInfo& a : *apps) {
        out += "app " + a.id + " " + a.queue + " " + std::string(AppStateName(a.state)) + " a=";
        AppendResource(a.allocated, types, &out);
        out += " w=";
        AppendResource(a.pending, types, &out);
        out += "\n";
      }
    }
    if (auto allocations = kernel.ListAllocations(partition, "", ""); allocations.ok()) {
      for (const AllocationInfo& a : *allocations) {
        out += "alloc " + a.app + "/" + a.ask + "@" + a.node + " #" + std::to_string(a.seq) + "\n";
      }
    }
  }
  for (const PendingExplanation& e : kernel.ExplainPending()) {
    out += "pending " + e.app + "/" + e.ask + " x" + std::to_string(e.pending_count) + ": " +
           e.reason + "\n";
  }
  return out;
}

}  // namespace allocore::adapters::testing_util

#endif  // ALLOCORE_TESTS_ADAPTERS_DURABLE_TEST_UTIL_H_
