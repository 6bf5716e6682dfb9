// bench/guard_workload.cc — the fixed workload of the instruction-count guard (bench/guard).
//
// YuniKorn's BenchmarkScheduling shape with 1,000 nodes and 10,000 pods, without Google
// Benchmark: setup (kernel, nodes, applications) in main, the measured part (the two asks and
// the Schedule call that allocates every pod) in allocore_guard_measured(), which bench/guard
// runs under `valgrind --tool=callgrind --toggle-collect=allocore_guard_measured` so that only
// it is counted. Prints "allocations=N"; exits non-zero unless every pod was allocated and
// the kernel is consistent.
//
// The guard runs it without arguments (yunikorn-1.2). `yunikorn-1.9` runs the same workload
// under that profile, and `yunikorn-1.9-idle-features` also configures the 1.8-1.9 features
// the walk must not pay for while they have nothing to do: quota-change preemption (switch and
// delay; no max is ever lowered) and the unschedulable-ask backoff (every ask is placed):
//   valgrind --tool=callgrind --toggle-collect=allocore_guard_measured
//       build/bin/allocore_guard_workload yunikorn-1.9-idle-features   (one command line)
#include <cstdio>
#include <string>
#include <vector>

#include "allocore/kernel.h"
#include "support/configs.h"

namespace {

constexpr int64_t kNodes = 1000;
constexpr int64_t kPods = 10000;

allocore::AskSpec Ask(const char* app, const char* id, int64_t count) {
  allocore::AskSpec ask;
  ask.app = app;
  ask.id = id;
  ask.resources = {{"memory", 10}, {"vcore", 1}};
  ask.count = count;
  return ask;
}

}  // namespace

// Not inlined and with C linkage, so that callgrind can toggle collection on its name.
extern "C" __attribute__((noinline)) int64_t allocore_guard_measured(
    allocore::Kernel* kernel, std::vector<allocore::Decision>* out) {
  if (!kernel->AddAsk(Ask("app-a", "ask-a", kPods / 2), out).ok()) return -1;
  if (!kernel->AddAsk(Ask("app-b", "ask-b", kPods - kPods / 2), out).ok()) return -1;
  auto made = kernel->Schedule(0, "", out);
  return made.ok() ? *made : -1;
}

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (!mode.empty() && mode != "yunikorn-1.9" && mode != "yunikorn-1.9-idle-features") {
    std::fprintf(stderr, "usage: %s [yunikorn-1.9 | yunikorn-1.9-idle-features]\n", argv[0]);
    return 2;
  }
  allocore::SchedulerConfig config = allocore::test_support::YunikornShapeConfig();
  allocore::QueueConfig& root = allocore::test_support::Root(config);
  if (mode == "yunikorn-1.9-idle-features") {
    config.partitions[0].quota_preemption_enabled = true;
    root.properties = {{"quota.preemption.delay", "10s"},
                       {"application.unschedasks.backoff", "3"},
                       {"application.unschedasks.backoff.delay", "30s"}};
  }

  allocore::KernelOptions options;
  if (!mode.empty()) options.semantics = allocore::Semantics::kYunikorn19;
  auto created = allocore::Kernel::Create(config, options);
  if (!created.ok()) {
    std::fprintf(stderr, "Kernel::Create: %s\n", std::string(created.status().message()).c_str());
    return 2;
  }
  allocore::Kernel& kernel = **created;
  std::vector<allocore::Decision> out;
  const int64_t per_node = kPods / kNodes + 1;
  for (int64_t i = 0; i < kNodes; ++i) {
    allocore::NodeSpec node;
    node.id = "node-" + std::to_string(i);
    node.capacity = {{"memory", 10 * per_node}, {"vcore", per_node}};
    if (!kernel.AddNode(node, &out).ok()) return 2;
  }
  for (const char* queue : {"a", "b"}) {
    allocore::AppSpec app;
    app.id = std::string("app-") + queue;
    app.queue = std::string("root.") + queue;
    app.user = "testuser";
    if (!kernel.AddApplication(app, &out).ok()) return 2;
  }
  out.reserve(out.size() + kPods + 16);

  int64_t made = allocore_guard_measured(&kernel, &out);
  std::printf("allocations=%lld\n", static_cast<long long>(made));
  if (made != kPods) return 1;
  if (absl::Status s = kernel.CheckConsistency(); !s.ok()) {
    std::fprintf(stderr, "CheckConsistency: %s\n", std::string(s.message()).c_str());
    return 1;
  }
  return 0;
}
