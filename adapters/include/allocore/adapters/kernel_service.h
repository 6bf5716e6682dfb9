// allocore/adapters/kernel_service.h — the kernel inside a multi-threaded resource manager.
//
// The kernel stays single-threaded and deterministic. A KernelService owns one and a scheduler
// thread: any number of producer threads Submit() events (a lightly locked queue: one mutex held
// for a push); the scheduler thread takes everything queued as one batch, applies the events in
// submission order, runs Schedule(), hands the batch's decisions to the sink and publishes a
// snapshot. Other threads read snapshots (queue state, application states) without stopping
// the scheduler: a snapshot is immutable and replaced whole.
//
// Determinism: every event gets a submission sequence number when it is queued; a batch is a
// contiguous range of them. Applying the same events in sequence order, with Schedule(0) after
// each batch, to a fresh kernel gives the same decisions (kernel_service_test checks this under
// ThreadSanitizer).
//
// Example:
//   auto service = KernelService::Create(config, {}, [](const KernelService::Batch& b) {...});
//   (*service)->Start();
//   (*service)->Submit(NodeSpec{.id = "n1", .capacity = {{"memory", 100}}});   // any thread
//   std::shared_ptr<const KernelService::Snapshot> now = (*service)->snapshot();  // any thread
//   (*service)->Stop();  // drains what is queued
#ifndef ALLOCORE_ADAPTERS_KERNEL_SERVICE_H_
#define ALLOCORE_ADAPTERS_KERNEL_SERVICE_H_

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "allocore/events.h"
#include "allocore/export.h"
#include "allocore/kernel.h"

namespace allocore::adapters {

class ALLOCORE_EXPORT KernelService {
 public:
  // The calls of Kernel that change state, as values a producer can queue: the kernel's own
  // event vocabulary (allocore/events.h), applied with ApplyEvents. A ScheduleEvent is allowed
  // but not needed: every batch ends with Schedule(0).
  using Event = allocore::Event;
  using RemoveNode = RemoveNodeEvent;
  using RemoveApplication = RemoveApplicationEvent;
  using RemoveAsk = RemoveAskEvent;
  using ReleaseAllocation = ReleaseEvent;
  using AdvanceClock = AdvanceEvent;

  // What one batch did. `decisions` view names the kernel holds: valid during the sink call.
  struct Batch {
    uint64_t first_seq = 0;  // submission sequence numbers [first_seq, last_seq]
    uint64_t last_seq = 0;
    std::vector<Decision> decisions;
    std::vector<std::pair<uint64_t, std::string>> refused;  // (seq, message) of refused events
    int64_t allocations = 0;
  };
  using BatchSink = std::function<void(const Batch&)>;

  // An immutable picture of the kernel after a batch.
  struct Snapshot {
    uint64_t applied_seq = 0;  // every event up to this one is applied (0: none yet)
    int64_t now_millis = 0;
    std::map<std::string, std::vector<QueueInfo>> queues;          // by partition
    std::map<std::pair<std::string, std::string>, AppState> apps;  // (partition, id): last state
    Kernel::Usage usage;
  };

  struct Options {
    // At most this many events per batch (0: everything queued).
    size_t max_batch = 0;
    // At most this many events waiting (0: no cap): producers faster than the scheduler are
    // refused rather than allowed to take the process's memory.
    size_t max_queued = 0;
  };

  // The sink runs on the scheduler thread, once per batch, in order.
  static absl::StatusOr<std::unique_ptr<KernelService>> Create(SchedulerConfig config,
                                                               KernelOptions kernel_options,
                                                               BatchSink sink, Options options);
  static absl::StatusOr<std::unique_ptr<KernelService>> Create(SchedulerConfig config,
                                                               KernelOptions kernel_options,
                                                               BatchSink sink) {
    return Create(std::move(config), kernel_options, std::move(sink), Options());
  }
  ~KernelService();  // stops the scheduler thread (draining the queue)
  KernelService(const KernelService&) = delete;
  KernelService& operator=(const KernelService&) = delete;

  // Any thread. Returns the event's submission sequence number (1, 2, 3, ...), or 0 when
  // Options::max_queued events are already waiting (the event is dropped; nothing changed).
  uint64_t Submit(Event event);
  // Any thread: the latest snapshot (never null).
  std::shared_ptr<const Snapshot> snapshot() const;

  // Starts the scheduler thread. Stop() lets it apply everything queued, then joins it.
  void Start();
  void Stop();
  // Without a thread: applies one batch of what is queued on the calling thread (tests,
  // single-threaded embedders). Returns false when nothing was queued.
  bool RunOnce();

 private:
  KernelService(std::unique_ptr<Kernel> kernel, BatchSink sink, Options options);
  // Takes up to max_batch queued events; false when none are queued.
  bool TakeBatch(std::vector<std::pair<uint64_t, Event>>* batch);
  void Apply(const std::vector<std::pair<uint64_t, Event>>& events);
  void Loop();

  std::unique_ptr<Kernel> kernel_;  // the scheduler thread's alone
  BatchSink sink_;
  Options options_;
  std::map<std::pair<std::string, std::string>, AppState> app_states_;  // scheduler thread
  int64_t names_after_release_ = 0;                                     // scheduler thread

  mutable std::mutex queue_mutex_;
  std::condition_variable queue_signal_;
  std::vector<std::pair<uint64_t, Event>> queue_;
  uint64_t next_seq_ = 1;
  bool stopping_ = false;

  mutable std::mutex snapshot_mutex_;
  std::shared_ptr<const Snapshot> snapshot_;

  std::thread scheduler_;
};

}  // namespace allocore::adapters

#endif  // ALLOCORE_ADAPTERS_KERNEL_SERVICE_H_
