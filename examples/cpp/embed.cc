// A manager's view of allocore: one queue, one node, one application asking for four
// containers; schedule and print the allocations.
#include <cstdio>
#include <vector>

#include "allocore/kernel.h"
#include "allocore/version.h"

int main() {
  allocore::SchedulerConfig config;  // or allocore::adapters::LoadConfigFile("queues.yaml")
  allocore::PartitionConfig& partition = config.partitions.emplace_back();
  partition.name = "default";
  allocore::QueueConfig& root = partition.queues.emplace_back();
  root.name = "root";
  root.parent = true;
  root.submit_acl = "*";
  root.queues.emplace_back().name = "a";

  absl::StatusOr<std::unique_ptr<allocore::Kernel>> created = allocore::Kernel::Create(config);
  if (!created.ok()) return 1;
  allocore::Kernel& kernel = **created;
  std::vector<allocore::Decision> out;
  absl::Status status =
      kernel.AddNode({.id = "node-1", .capacity = {{"memory", 1 << 30}, {"vcore", 8000}}}, &out);
  if (status.ok()) {
    status = kernel.AddApplication({.id = "app-1", .queue = "root.a", .user = "alice"}, &out);
  }
  if (status.ok()) {
    status = kernel.AddAsk({.app = "app-1",
                            .id = "ask-1",
                            .resources = {{"memory", 1 << 20}, {"vcore", 500}},
                            .count = 4},
                           &out);
  }
  if (!status.ok()) {
    std::fprintf(stderr, "%s\n", status.ToString().c_str());
    return 1;
  }
  absl::StatusOr<int64_t> allocated = kernel.Schedule(/*max=*/0, /*partition=*/"", &out);
  if (!allocated.ok()) return 1;

  std::printf("allocore %s\n", allocore_version());
  for (const allocore::Decision& d : out) {
    if (d.type != allocore::DecisionType::kAllocation) continue;
    std::printf("allocation %lld: %.*s/%.*s on %.*s (queue %.*s)\n", static_cast<long long>(d.seq),
                static_cast<int>(d.app.size()), d.app.data(), static_cast<int>(d.ask.size()),
                d.ask.data(), static_cast<int>(d.node.size()), d.node.data(),
                static_cast<int>(d.queue.size()), d.queue.data());
  }
  return *allocated == 4 ? 0 : 1;
}
