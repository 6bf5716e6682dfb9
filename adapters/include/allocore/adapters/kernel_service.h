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
// Handles: a manager behind the service can go by handle end to end. Type ids come from
// ResourceTypeId(), handles from the lookups (FindApplication, FindAsk, FindNode) or from the
// Receipt of an event submitted with SubmitWithReceipt (an added application, ask or node
// comes back with its handle). Lookups and Inspect() run between two batches, under the lock
// the scheduler thread holds while it applies one; snapshots never wait.
//
// Recording: with Options::record_path the service writes every applied event to an event log
// as it applies it, for an offline replay that gives the same decisions (`allocore run LOG`).
//
// Example:
//   auto service = KernelService::Create(config, {}, [](const KernelService::Batch& b) {...});
//   (*service)->Start();
//   (*service)->Submit(NodeSpec{.id = "n1", .capacity = {{"memory", 100}}});   // any thread
//   std::future<KernelService::Receipt> added =
//       (*service)->SubmitWithReceipt(AppSpec{.id = "app", .queue = "root.a", .user = "u"});
//   AppHandle app = added.get().app;                 // once the scheduler thread applied it
//   std::shared_ptr<const KernelService::Snapshot> now = (*service)->snapshot();  // any thread
//   (*service)->Stop();  // drains what is queued
#ifndef ALLOCORE_ADAPTERS_KERNEL_SERVICE_H_
#define ALLOCORE_ADAPTERS_KERNEL_SERVICE_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "allocore/adapters/durable_kernel.h"
#include "allocore/adapters/event_recorder.h"
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

  // What one applied event did: refused (status not OK, nothing changed) or accepted, with the
  // handles of the entities it added or named, as they are right after it (invalid() where the
  // event names none, or the entity is gone: an application rejected at admission has none).
  struct Receipt {
    uint64_t seq = 0;  // its submission sequence number (0: never queued, see SubmitWithReceipt)
    absl::Status status;
    AppHandle app;
    AskHandle ask;
    NodeHandle node;
  };

  // What one batch did. `decisions` view names the kernel holds: valid during the sink call.
  struct Batch {
    uint64_t first_seq = 0;  // submission sequence numbers [first_seq, last_seq]
    uint64_t last_seq = 0;
    std::vector<Decision> decisions;
    std::vector<std::pair<uint64_t, std::string>> refused;  // (seq, message) of refused events
    std::vector<Receipt> receipts;                          // one per event, in sequence order
    int64_t allocations = 0;
    // With Options::durable_dir: OK, or why the batch is not durable (its sync failed; its
    // OK receipts say the same).
    absl::Status durability;
  };
  using BatchSink = std::function<void(const Batch&)>;

  // An immutable picture of the kernel after a batch.
  struct Snapshot {
    uint64_t applied_seq = 0;  // every event up to this one is applied (0: none yet)
    int64_t now_millis = 0;
    // Resource type names by type id: a Resource's quantity of type t is named
    // resource_types[t] (Named() does it for a whole Resource).
    std::vector<std::string> resource_types;
    std::map<std::string, std::vector<QueueInfo>> queues;          // by partition
    std::map<std::pair<std::string, std::string>, AppState> apps;  // (partition, id): last state
    // With Options::snapshot_inventory only (empty otherwise), by partition: every node, every
    // application and every live allocation (with its seq) as Kernel::ListNodes,
    // ListApplications and ListAllocations answer.
    std::map<std::string, std::vector<NodeInfo>> nodes;
    std::map<std::string, std::vector<AppInfo>> applications;
    std::map<std::string, std::vector<AllocationInfo>> allocations;
    Kernel::Usage usage;

    // The quantities of `resource` by type name.
    std::map<std::string, int64_t> Named(const Resource& resource) const;
  };

  struct Options {
    // At most this many events per batch (0: everything queued).
    size_t max_batch = 0;
    // At most this many events waiting (0: no cap): producers faster than the scheduler are
    // refused rather than allowed to take the process's memory.
    size_t max_queued = 0;
    // Snapshots also hold every node, application and live allocation (O(nodes + applications
    // + allocations) per batch).
    bool snapshot_inventory = false;
    // Non-empty: every event the kernel accepts, and the Schedule(0) that ends each batch, is
    // recorded to this event log (allocore/adapters/event_recorder.h) on the scheduler thread;
    // `allocore run` on it gives the decisions the sink saw. A batch's records are written
    // before the sink sees its decisions. A log that cannot be created fails Create; a write
    // that fails stops the recording, and recording_status() says so.
    std::string record_path;
    // The recorder's options. Its buffer_bytes bounds what waits in memory within a batch:
    // the frames are written at the end of every batch in any case.
    EventRecorderOptions record_options = {.name = "kernel-service", .buffer_bytes = 1 << 20};
    // Non-empty: the kernel is a DurableKernel in this directory (allocore/adapters/
    // durable_kernel.h, docs/durability.md): Create restarts the kernel the directory holds,
    // or creates one there with the config when it holds none. Every accepted event is logged,
    // and the batch is synced before its receipts, its sink call and its snapshot, so a
    // receipt that says OK is durable; a sync that fails turns the batch's OK receipts into
    // DataLoss. Not with record_path (the directory logs the events itself).
    std::string durable_dir;
    DurabilityOptions durability = {.sync = SyncPolicy::kGroupCommit,
                                    .group_events = int64_t{1} << 30,
                                    .group_millis = int64_t{1} << 30,
                                    .checkpoint_every = 100000};
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
  // Any thread: Submit, and a future that holds the event's Receipt once it is applied. When
  // the queue is full the future is ready at once: seq 0, ResourceExhausted, nothing changed.
  std::future<Receipt> SubmitWithReceipt(Event event);
  // Any thread: the latest snapshot (never null).
  std::shared_ptr<const Snapshot> snapshot() const;
  // Any thread but the sink's: waits until every event up to `seq` is applied and returns the
  // snapshot that shows it. InvalidArgument, at once, for a seq never issued (0, or beyond
  // the last Submit); DeadlineExceeded when `timeout` passes first. Events are applied by the
  // scheduler thread, or by RunOnce when it is not started.
  absl::StatusOr<std::shared_ptr<const Snapshot>> WaitApplied(uint64_t seq) const;
  absl::StatusOr<std::shared_ptr<const Snapshot>> WaitApplied(
      uint64_t seq, std::chrono::milliseconds timeout) const;

  // Any thread, between two batches: the kernel's lookups (see Kernel) and type ids. A type
  // named for the first time is registered (at most kMaxResourceTypes).
  absl::StatusOr<int> ResourceTypeId(std::string_view name);
  std::vector<std::string> ResourceTypeNames() const;
  absl::StatusOr<AppHandle> FindApplication(std::string_view partition, std::string_view id) const;
  absl::StatusOr<AskHandle> FindAsk(AppHandle app, std::string_view id) const;
  absl::StatusOr<NodeHandle> FindNode(std::string_view partition, std::string_view id) const;
  // Runs `read` on the kernel between two batches, for any other query (ListAllocations,
  // ExplainPending, Probe, ...). `read` must not call back into the service.
  void Inspect(const std::function<void(const Kernel&)>& read) const;

  // Any thread, with Options::record_path: OK while every applied event is recorded, else the
  // error that stopped the recording (naming the log). OK when not recording. With
  // Options::durable_dir: the directory's status (StopRecording does not stop it).
  absl::Status recording_status() const;
  // Any thread: ends the log (its end record) between two batches, and returns the recording's
  // status. Events applied after it are not recorded. The destructor does it too.
  absl::Status StopRecording();
  // With Options::durable_dir: OK, or the write or sync failure that stopped the directory
  // (DurableKernel::status); what Create's restart found (zeros when it created the kernel);
  // the last durable event's sequence number (DurableKernel's numbering: accepted events and
  // the Schedule(0) of every batch).
  absl::Status durable_status() const;
  RestartReport restart_report() const;
  int64_t durable_seq() const;

  // Starts the scheduler thread. Stop() lets it apply everything queued, then joins it.
  void Start();
  void Stop();
  // Without a thread: applies one batch of what is queued on the calling thread (tests,
  // single-threaded embedders). Returns false when nothing was queued.
  bool RunOnce();

 private:
  struct Queued {
    uint64_t seq = 0;
    Event event;
    std::shared_ptr<std::promise<Receipt>> receipt;  // null: nobody waits for it
  };

  KernelService(std::unique_ptr<Kernel> kernel, std::unique_ptr<DurableKernel> durable,
                std::unique_ptr<EventRecorder> recorder, BatchSink sink, Options options);
  // The kernel, plain or durable (kernel_mutex_ held).
  const Kernel& kernel() const { return durable_ ? durable_->kernel() : *kernel_; }
  // ApplyEvent, recorded when recording (kernel_mutex_ held).
  absl::Status ApplyOne(const Event& event, std::vector<Decision>* out, int64_t* allocations);
  uint64_t Enqueue(Event event, std::shared_ptr<std::promise<Receipt>> receipt);
  // Takes up to max_batch queued events; false when none are queued.
  bool TakeBatch(std::vector<Queued>* batch);
  void Apply(std::vector<Queued>& events);
  void Loop();
  // The snapshot of the kernel as it is now (kernel_mutex_ held).
  std::shared_ptr<Snapshot> Picture(uint64_t applied_seq) const;
  Receipt Acknowledge(uint64_t seq, const Event& event) const;  // kernel_mutex_ held

  // Applied to by the scheduler thread (or RunOnce) with kernel_mutex_ held; the lookups take
  // the same lock.
  mutable std::mutex kernel_mutex_;
  std::unique_ptr<Kernel> kernel_;          // null with a durable directory
  std::unique_ptr<DurableKernel> durable_;  // null without one
  RestartReport restart_report_;
  std::unique_ptr<EventRecorder> recorder_;  // null when not recording
  BatchSink sink_;
  Options options_;
  std::map<std::pair<std::string, std::string>, AppState> app_states_;  // scheduler thread
  int64_t names_after_release_ = 0;                                     // scheduler thread

  mutable std::mutex queue_mutex_;
  std::condition_variable queue_signal_;
  std::vector<Queued> queue_;
  uint64_t next_seq_ = 1;
  bool stopping_ = false;

  mutable std::mutex snapshot_mutex_;
  mutable std::condition_variable snapshot_signal_;  // a new snapshot was published
  std::shared_ptr<const Snapshot> snapshot_;

  std::thread scheduler_;
};

}  // namespace allocore::adapters

#endif  // ALLOCORE_ADAPTERS_KERNEL_SERVICE_H_
