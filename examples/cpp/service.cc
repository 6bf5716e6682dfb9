// A threaded manager's view of allocore: the kernel behind KernelService, driven by handle end
// to end. Type ids and handles come from the service, the manager waits until its events are
// applied, reads usage by type name from a snapshot, and stops one specific pod: it releases
// the allocation by the seq its decision carried, and the release record names that seq.
#include <cstdio>
#include <future>
#include <mutex>
#include <vector>

#include "allocore/adapters/kernel_service.h"
#include "allocore/events.h"

namespace {

allocore::SchedulerConfig OneQueue() {
  allocore::SchedulerConfig config;
  allocore::PartitionConfig& partition = config.partitions.emplace_back();
  partition.name = "default";
  allocore::QueueConfig& root = partition.queues.emplace_back();
  root.name = "root";
  root.parent = true;
  root.submit_acl = "*";
  root.queues.emplace_back().name = "a";
  return config;
}

int Fail(const char* what, const absl::Status& status) {
  std::fprintf(stderr, "%s: %s\n", what, status.ToString().c_str());
  return 1;
}

}  // namespace

int main() {
  using allocore::adapters::KernelService;
  // The sink runs on the scheduler thread; the manager keeps the seqs of its allocations and
  // the seqs its releases name.
  std::mutex mutex;
  std::vector<int64_t> allocated, released;
  auto created = KernelService::Create(OneQueue(), {}, [&](const KernelService::Batch& batch) {
    std::lock_guard<std::mutex> lock(mutex);
    for (const allocore::Decision& d : batch.decisions) {
      if (d.type == allocore::DecisionType::kAllocation) allocated.push_back(d.seq);
      if (d.type == allocore::DecisionType::kRelease) released.push_back(d.seq);
    }
  });
  if (!created.ok()) return Fail("create", created.status());
  KernelService& service = **created;
  service.Start();

  // Type ids from the service: vcore is in milli-cores, memory in bytes.
  absl::StatusOr<int> vcore = service.ResourceTypeId("vcore");
  absl::StatusOr<int> memory = service.ResourceTypeId("memory");
  if (!vcore.ok() || !memory.ok()) return Fail("resource type", vcore.status());

  service.Submit(
      allocore::NodeSpec{.id = "node-1", .capacity = {{"vcore", 8000}, {"memory", 16LL << 30}}});
  KernelService::Receipt app =
      service
          .SubmitWithReceipt(allocore::AppSpec{.id = "app-1", .queue = "root.a", .user = "alice"})
          .get();
  if (!app.status.ok() || !app.app.valid()) return Fail("add application", app.status);

  allocore::Resource executor;
  executor.Set(*vcore, 2000);
  executor.Set(*memory, 4LL << 30);
  KernelService::Receipt ask =
      service
          .SubmitWithReceipt(allocore::AddAskByHandleEvent{
              .app = app.app, .ask = {.id = "executors", .resources = executor, .count = 3}})
          .get();
  if (!ask.status.ok()) return Fail("add ask", ask.status);

  // The batch that applied the ask also scheduled it.
  absl::StatusOr<std::shared_ptr<const KernelService::Snapshot>> now = service.WaitApplied(ask.seq);
  if (!now.ok()) return Fail("wait", now.status());
  for (const allocore::QueueInfo& queue : (*now)->queues.at("default")) {
    std::printf("%s:", queue.path.c_str());
    for (const auto& [type, quantity] : (*now)->Named(queue.allocated)) {
      std::printf(" %s=%lld", type.c_str(), static_cast<long long>(quantity));
    }
    std::printf("\n");
  }

  int64_t stop_seq;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (allocated.size() != 3) return 1;
    stop_seq = allocated[1];  // not the oldest: "release the oldest" would pick another pod
  }
  uint64_t release =
      service.Submit(allocore::ReleaseByHandleEvent{.ask = ask.ask, .seq = stop_seq});
  if (absl::StatusOr<std::shared_ptr<const KernelService::Snapshot>> after =
          service.WaitApplied(release);
      !after.ok() || (*after)->usage.live_allocations != 2) {
    return 1;
  }
  service.Stop();
  std::lock_guard<std::mutex> lock(mutex);
  std::printf("released allocation %lld\n",
              static_cast<long long>(released.empty() ? 0 : released.front()));
  return released.size() == 1 && released.front() == stop_seq ? 0 : 1;
}
