// allocore/adapters/event_recorder.h — a live kernel's applied events, recorded as an event log.
//
// The kernel takes time only from its Advance calls and decides deterministically, so the events
// it accepted, in order, are all a replay needs: `allocore run LOG` on a recorded log gives the
// decisions the live kernel gave, byte for byte. The log is the event log format
// (share/doc/allocore/docs/event-log-format.md): a header with the kernel's config, semantics
// profile and budgets, then one step record per applied event, then an end record at Close().
//
//   EventRecorder     appends the events a caller applies to its own kernel (KernelService
//                     records through one on its scheduler thread, Options::record_path)
//   RecordingKernel   a Kernel for a single-threaded manager that records every event it applies
//
// What is recorded:
//   - Every event the kernel accepted, as the scenario step that makes the same call. Events by
//     handle (AddAskByHandleEvent, RemoveAskByHandleEvent, ReleaseByHandleEvent,
//     RemoveApplicationByHandleEvent, RemoveNodeByHandleEvent) become the same call by name,
//     resolved against the kernel before the event is applied (afterwards a removed entity has
//     no names left), with resource type ids turned back into type names.
//   - Not refused events: a refused event changed nothing (allocore/kernel.h guarantee 2), so a
//     replay without it makes the same decisions; leaving it out also keeps stale handles, which
//     name nothing, out of the log. A replay's stream therefore has no error records for them.
//   - Not queries (Probe, ExplainPending, lookups) nor ResourceTypeId: they change no decision.
//     A resource type registered by ResourceTypeId is registered in the replay by the first
//     event that names it.
//   - The replay's clock moves only by the recorded advance steps (the header says so: no 1 ms
//     tick before each step, as scenario files have).
//
// Durability: frames are written with write(2) as they are recorded (or, with buffer_bytes, in
// blocks), so a crash of the process loses at most the frames not yet written; a log whose last
// frame is cut short is read up to the last whole frame, with a warning, and a log without its
// end record (no Close()) is read whole with a warning.
//
// Errors never throw: a log that cannot be created is an error of Create naming the path; a
// write that fails stops the recording (later events are not recorded) and is kept in status(),
// which also names the path. The kernel's calls go on either way: recording never changes a
// decision.
//
// Example:
//   auto kernel = allocore::adapters::RecordingKernel::Create(config, {}, "/var/log/k.alog");
//   std::vector<allocore::Decision> out;
//   (*kernel)->Apply(allocore::NodeSpec{.id = "n1", .capacity = {{"memory", 100}}}, &out);
//   (*kernel)->Schedule(0, "", &out);
//   absl::Status recorded = (*kernel)->Close();   // end record; OK when every event is in
//   // later: `allocore run /var/log/k.alog` prints the same decisions
#ifndef ALLOCORE_ADAPTERS_EVENT_RECORDER_H_
#define ALLOCORE_ADAPTERS_EVENT_RECORDER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "allocore/config.h"
#include "allocore/events.h"
#include "allocore/export.h"
#include "allocore/kernel.h"

namespace allocore::adapters {

namespace internal {
class RecordingLog;
}  // namespace internal

struct EventRecorderOptions {
  // The log's scenario name (what `allocore run` reports).
  std::string name = "recorded";
  // 0: every event's frames are written (one write(2)) as soon as it is recorded, so that a
  // crash of the process loses nothing recorded. N > 0: frames wait in memory until N bytes
  // are waiting, Flush() or Close(); fewer system calls, and a crash loses at most those bytes.
  size_t buffer_bytes = 0;
  // A log names every string once and refers to it by number; the writer remembers the names
  // it wrote. Past this many it forgets them all and writes a name again when it comes back,
  // so that a recorder of unique pod ids runs in bounded memory (0: remember every name).
  size_t max_remembered_names = size_t{1} << 20;
  // Write the running digest of the live kernel's decisions before every step that made one
  // (event log version 3), so that `allocore run LOG --check` can prove that the replay decided
  // as the live kernel did, and name the first step where it did not. Costs a CRC-32C over
  // each decision's names and numbers and a 10-byte record per deciding step.
  bool decision_digests = true;
};

class ALLOCORE_EXPORT EventRecorder {
 public:
  // Creates (or truncates) `path` and writes the header: `config` and `kernel_options` must be
  // those the kernel was created with (its semantics profile and budgets are replayed too).
  // Errors: the file cannot be created or written (the message names the path).
  static absl::StatusOr<std::unique_ptr<EventRecorder>> Create(
      const std::string& path, const SchedulerConfig& config, const KernelOptions& kernel_options,
      const EventRecorderOptions& options = {});
  ~EventRecorder();  // Close()
  EventRecorder(const EventRecorder&) = delete;
  EventRecorder& operator=(const EventRecorder&) = delete;

  // Applies `event` to `kernel` (ApplyEvent) and records it when the kernel accepts it. Returns
  // the kernel's status for the event, whatever becomes of the recording (see status()).
  [[nodiscard]] absl::Status Apply(Kernel& kernel, const Event& event, std::vector<Decision>* out,
                                   int64_t* allocations = nullptr);

  // Writes what waits in memory (buffer_bytes > 0). Returns status().
  absl::Status Flush();
  // Flush(), then fdatasync(2): every event recorded so far survives a power loss once it
  // returns OK (synced_steps() == steps()). A failure stops the recording, as a failed write.
  absl::Status Sync();
  // Writes the end record and closes the file; later calls return the same status.
  absl::Status Close();
  // OK, or the first error: recording stopped there (the log holds the events before it).
  const absl::Status& status() const { return status_; }
  // Events recorded so far (step records).
  int64_t steps() const { return steps_; }
  // Events the last successful Sync() made durable.
  int64_t synced_steps() const { return synced_steps_; }
  const std::string& path() const { return path_; }

 private:
  EventRecorder(std::string path, int fd, const EventRecorderOptions& options);
  // Writes the pending bytes when more than `keep` wait; a failure stops the recording.
  void WritePending(size_t keep);
  void Fail(absl::Status status);
  // After a step record: writes (unbuffered) and counts it.
  void Recorded();

  std::string path_;
  int fd_ = -1;
  size_t buffer_bytes_ = 0;
  std::unique_ptr<internal::RecordingLog> log_;
  absl::Status status_;
  int64_t steps_ = 0;
  int64_t synced_steps_ = 0;
  bool closed_ = false;
};

// A Kernel whose every applied event is recorded, for a manager that drives its kernel from
// one thread. State changes go through Apply, Schedule and Advance; queries through kernel().
class ALLOCORE_EXPORT RecordingKernel {
 public:
  // Creates the kernel (errors: as Kernel::Create) and the log (errors: as EventRecorder::Create).
  static absl::StatusOr<std::unique_ptr<RecordingKernel>> Create(
      SchedulerConfig config, KernelOptions kernel_options, const std::string& log_path,
      const EventRecorderOptions& recorder_options = {});

  // One event, as ApplyEvent (allocations: a ScheduleEvent's).
  [[nodiscard]] absl::Status Apply(const Event& event, std::vector<Decision>* out,
                                   int64_t* allocations = nullptr);
  // Events in order, as ApplyEvents: returns the number refused; `results` may be null.
  int64_t Apply(std::span<const Event> events, std::vector<Decision>* out,
                std::vector<EventResult>* results);
  // Kernel::Schedule and Kernel::Advance, recorded.
  absl::StatusOr<int64_t> Schedule(int64_t max, std::string_view partition,
                                   std::vector<Decision>* out);
  [[nodiscard]] absl::Status Advance(int64_t millis, std::vector<Decision>* out);
  // The calls that change no decision, so are not recorded.
  absl::StatusOr<int> ResourceTypeId(std::string_view name) {
    return kernel_->ResourceTypeId(name);
  }
  int64_t ReleaseUnusedNames() { return kernel_->ReleaseUnusedNames(); }

  // For queries (handles, lists, Probe, ExplainPending). Not for changes: they would not be
  // recorded.
  const Kernel& kernel() const { return *kernel_; }
  EventRecorder& recorder() { return *recorder_; }
  // The recording's status (EventRecorder::status): OK while every accepted event is recorded.
  const absl::Status& recording_status() const { return recorder_->status(); }
  // Ends the log (EventRecorder::Close). The kernel stays usable; later events are not recorded.
  absl::Status Close() { return recorder_->Close(); }

 private:
  RecordingKernel(std::unique_ptr<Kernel> kernel, std::unique_ptr<EventRecorder> recorder)
      : kernel_(std::move(kernel)), recorder_(std::move(recorder)) {}

  std::unique_ptr<Kernel> kernel_;
  std::unique_ptr<EventRecorder> recorder_;
};

}  // namespace allocore::adapters

#endif  // ALLOCORE_ADAPTERS_EVENT_RECORDER_H_
