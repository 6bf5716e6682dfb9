// The README's embedding example, compiled against an installed allocore with -Werror.
#include <cstdio>
#include <vector>

#include "allocore/kernel.h"
#include "allocore/version.h"

int main() {
  // README: embedding
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
    status = kernel.AddAsk(
        {.app = "app-1", .id = "ask-1", .resources = {{"memory", 1 << 20}}, .count = 4}, &out);
  }
  if (!status.ok()) return 1;
  absl::StatusOr<int64_t> allocated = kernel.Schedule(/*max=*/0, /*partition=*/"", &out);
  if (!allocated.ok()) return 1;
  // `out` holds the decisions: app state changes and four allocations on node-1.
  // README: end
  std::printf("allocore %s: %lld allocations\n", allocore_version(),
              static_cast<long long>(*allocated));
  return *allocated == 4 ? 0 : 1;
}
