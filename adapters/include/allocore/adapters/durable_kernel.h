// allocore/adapters/durable_kernel.h — a kernel whose acknowledged events survive a crash of the
// process (SIGKILL, the OOM killer) or of the machine (power loss), and the one call that brings
// it back.
//
// A DurableKernel keeps its state in one directory of two kinds of files:
//
//   snapshot-<seq>.snap   Kernel::Snapshot() after event <seq> (docs/snapshot-format.md)
//   events-<seq>.alog     the events after <seq>, as a recorded event log
//                         (docs/event-log-format.md), one write(2) per event
//
// Every accepted event gets the next sequence number (1, 2, 3, ...; refused events change
// nothing and get none). The durability contract:
//
//   - SyncPolicy::kEveryEvent: Apply returns only after the event's record is on disk
//     (fdatasync), so every event Apply acknowledged survives a power loss.
//   - SyncPolicy::kGroupCommit: records are written at once (a crash of the process loses
//     nothing written) and made durable every `group_events` events or once the oldest
//     unsynced one is `group_millis` old (checked at each Apply and by SyncIfDue()).
//     durable_seq() says which events a power loss cannot take; tell clients only those.
//
// Files change only in ways a crash cannot tear: a snapshot or a new event log is written to a
// temporary file, synced, renamed over its name, and the directory is synced; an event log only
// grows. Checkpoint() starts a new event log at the current event, then writes the snapshot, then
// removes snapshots beyond `keep_snapshots` and the event logs no kept snapshot needs.
//
// Restart(dir) takes the newest snapshot that restores (an older one when it does not), replays
// the event logs after it up to their last whole record, reports what it recovered, and
// checkpoints there so that it never appends to a torn file. Recover(dir) does the same without
// writing anything (an inspection, or a read-only copy).
//
// Thread safety: none; one thread at a time (KernelService is the threaded front).
//
// Example:
//   auto durable = DurableKernel::Create("/var/lib/mgr", config, {}, {});
//   absl::StatusOr<int64_t> seq = (*durable)->Apply(allocore::NodeSpec{...}, &out);  // durable
//   ...after a crash:
//   RestartReport report;
//   auto again = DurableKernel::Restart("/var/lib/mgr", {}, &report);
//   // report.recovered_seq >= every seq Apply returned before the crash
#ifndef ALLOCORE_ADAPTERS_DURABLE_KERNEL_H_
#define ALLOCORE_ADAPTERS_DURABLE_KERNEL_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "allocore/adapters/event_recorder.h"
#include "allocore/config.h"
#include "allocore/events.h"
#include "allocore/export.h"
#include "allocore/kernel.h"

namespace allocore::adapters {

enum class SyncPolicy : uint8_t {
  kEveryEvent,   // durable before Apply returns
  kGroupCommit,  // durable every group_events events or group_millis ms
};

struct DurabilityOptions {
  SyncPolicy sync = SyncPolicy::kEveryEvent;
  int64_t group_events = 64;  // kGroupCommit, >= 1
  int64_t group_millis = 10;  // kGroupCommit, >= 0
  int keep_snapshots = 2;     // >= 1
  // Checkpoint() after this many events since the last one (0: only when called).
  int64_t checkpoint_every = 0;
};

// What Restart and Recover found.
struct RestartReport {
  int64_t recovered_seq = 0;    // the state is the one after this event
  int64_t snapshot_seq = 0;     // the snapshot it started from
  int64_t replayed_events = 0;  // events replayed from the logs after it
  // 1 when the last log ended in bytes that are not a whole event (cut short, or zeros or stale
  // bytes after a power loss): under kEveryEvent the one event being written, which was never
  // acknowledged; 0 otherwise.
  int64_t torn_tail_events = 0;
  // Snapshots that did not restore (and were passed over), a tail cut short.
  std::vector<std::string> warnings;
};

class ALLOCORE_EXPORT DurableKernel {
 public:
  // A new kernel in `dir` (created when missing). Refused when `dir` already holds a snapshot
  // (AlreadyExists: Restart it); files a creation that never finished left are removed.
  static absl::StatusOr<std::unique_ptr<DurableKernel>> Create(const std::string& dir,
                                                               SchedulerConfig config,
                                                               KernelOptions kernel_options,
                                                               DurabilityOptions options = {});
  // The kernel `dir` holds, continued: see the header comment. Errors: NotFound when `dir`
  // holds no snapshot; DataLoss naming the file when no snapshot restores or the logs after it
  // do not hold together.
  static absl::StatusOr<std::unique_ptr<DurableKernel>> Restart(const std::string& dir,
                                                                DurabilityOptions options = {},
                                                                RestartReport* report = nullptr);
  // The same kernel, read only: nothing in `dir` changes.
  static absl::StatusOr<std::unique_ptr<Kernel>> Recover(const std::string& dir,
                                                         RestartReport* report = nullptr);
  ~DurableKernel();
  DurableKernel(const DurableKernel&) = delete;
  DurableKernel& operator=(const DurableKernel&) = delete;

  // Applies the event (ApplyEvent) and records it. Returns its sequence number once it is as
  // durable as the policy says; the kernel's error when it refuses the event (nothing changed,
  // nothing recorded); DataLoss when writing or syncing failed: the event was applied but may
  // not be durable, and every later call fails the same way (Restart the directory).
  absl::StatusOr<int64_t> Apply(const Event& event, std::vector<Decision>* out,
                                int64_t* allocations = nullptr);
  // Every applied event durable now.
  absl::Status Sync();
  // kGroupCommit: Sync() when the oldest unsynced event is group_millis old.
  absl::Status SyncIfDue();
  // A snapshot of the state after applied_seq(), a new event log from there, and the removal
  // of what no kept snapshot needs.
  absl::Status Checkpoint();

  // The calls that change no decision, so are not logged (as RecordingKernel's): a type
  // registered here is registered in a replay by the first event that names it.
  absl::StatusOr<int> ResourceTypeId(std::string_view name) {
    return kernel_->ResourceTypeId(name);
  }
  int64_t ReleaseUnusedNames() { return kernel_->ReleaseUnusedNames(); }

  int64_t applied_seq() const;
  int64_t durable_seq() const;
  const Kernel& kernel() const { return *kernel_; }
  const std::string& dir() const { return dir_; }
  // OK, or the first write or sync failure (then every change fails with it).
  const absl::Status& status() const { return status_; }

 private:
  DurableKernel(std::string dir, std::unique_ptr<Kernel> kernel, SchedulerConfig config,
                DurabilityOptions options);
  absl::Status StartSegment();
  absl::Status Fail(absl::Status status);

  std::string dir_;
  std::unique_ptr<Kernel> kernel_;
  SchedulerConfig config_;  // the config in force, for the next event log's header
  DurabilityOptions options_;
  std::unique_ptr<EventRecorder> recorder_;
  int64_t segment_base_ = 0;     // the events before the current log
  int64_t last_checkpoint_ = 0;  // applied_seq() at the last checkpoint
  std::chrono::steady_clock::time_point oldest_unsynced_{};
  int lock_fd_ = -1;  // the directory's lock, held for the kernel's life
  absl::Status status_;
};

}  // namespace allocore::adapters

#endif  // ALLOCORE_ADAPTERS_DURABLE_KERNEL_H_
