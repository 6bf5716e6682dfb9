// A live kernel's applied events -> an event log (see event_recorder.h).
//
// Invariants:
//   1. A step record is written only for an event the kernel accepted, after it was applied;
//      the names of an event by handle are taken before it is applied.
//   2. Once a write fails nothing more is written: the log holds a prefix of the events, which
//      a reader reads (with a warning when a frame was cut).
#include "allocore/adapters/event_recorder.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

#include "allocore/adapters/scenario.h"
#include "decision_digest.h"
#include "event_log_codec.h"
#include "str_util.h"

namespace allocore::adapters {
namespace internal {

// The writer of one recorded log and the running digest of the decisions it has seen (neither
// is part of the public header).
class RecordingLog {
 public:
  explicit RecordingLog(bool with_digests)
      : writer(with_digests ? kLogFlagDecisionDigests : 0), digests(with_digests) {}
  LogWriter writer;
  bool digests;
  DecisionDigest digest;
  std::vector<Decision> scratch;  // the decisions of a caller that passes no vector
};

}  // namespace internal

namespace {

using internal::LogRecord;

// The StepKind whose action is `T` (the alternatives of StepAction are in StepKind order).
template <typename T, size_t I = 0>
constexpr StepKind StepKindOf() {
  if constexpr (I >= std::variant_size_v<StepAction>) {
    static_assert(I < std::variant_size_v<StepAction>, "not a step's action");
    return StepKind::kAddApp;
  } else if constexpr (std::is_same_v<std::variant_alternative_t<I, StepAction>, T>) {
    return static_cast<StepKind>(I);
  } else {
    return StepKindOf<T, I + 1>();
  }
}

const SourceLocation kNoLocation{};
const Tags kNoAttributes{};

// A resource by type id as the names a call by name takes.
Quantities Named(const Resource& resource, const ResourceTypes& types) {
  Quantities named;
  for (int t = 0; t < types.size(); ++t) {
    if (resource.Has(t)) named.emplace_back(types.Name(t), resource.Get(t));
  }
  return named;
}

// An event by handle as the same call by name, as the kernel is before the event; nullopt when
// a handle names nothing (the kernel refuses the event then, and nothing is recorded).
std::optional<StepAction> ByName(const Kernel& kernel, const AddAskByHandleEvent& e) {
  absl::StatusOr<HandleNames> app = kernel.NamesOf(e.app);
  if (!app.ok()) return std::nullopt;
  AskSpec ask{.partition = std::string(app->partition),
              .app = std::string(app->id),
              .id = e.ask.id,
              .resources = Named(e.ask.resources, kernel.resource_types())};
  CopyAskOptions(e.ask, ask);
  return ask;
}
std::optional<StepAction> ByName(const Kernel& kernel, const RemoveAskByHandleEvent& e) {
  absl::StatusOr<HandleNames> ask = kernel.NamesOf(e.ask);
  if (!ask.ok()) return std::nullopt;
  return RemoveAskStep{.partition = std::string(ask->partition),
                       .app = std::string(ask->app),
                       .ask = std::string(ask->id)};
}
std::optional<StepAction> ByName(const Kernel& kernel, const ReleaseByHandleEvent& e) {
  absl::StatusOr<HandleNames> ask = kernel.NamesOf(e.ask);
  if (!ask.ok()) return std::nullopt;
  ReleaseStep release{.partition = std::string(ask->partition),
                      .app = std::string(ask->app),
                      .ask = std::string(ask->id),
                      .node = {},
                      .seq = e.seq};
  if (e.node.valid()) {
    absl::StatusOr<HandleNames> node = kernel.NamesOf(e.node);
    if (!node.ok()) return std::nullopt;
    release.node = std::string(node->id);
  }
  return release;
}
std::optional<StepAction> ByName(const Kernel& kernel, const RemoveApplicationByHandleEvent& e) {
  absl::StatusOr<HandleNames> app = kernel.NamesOf(e.app);
  if (!app.ok()) return std::nullopt;
  return RemoveAppStep{.partition = std::string(app->partition), .id = std::string(app->id)};
}
std::optional<StepAction> ByName(const Kernel& kernel, const RemoveNodeByHandleEvent& e) {
  absl::StatusOr<HandleNames> node = kernel.NamesOf(e.node);
  if (!node.ok()) return std::nullopt;
  return RemoveNodeStep{.partition = std::string(node->partition), .id = std::string(node->id)};
}

template <typename E>
constexpr bool kByHandle =
    std::is_same_v<E, AddAskByHandleEvent> || std::is_same_v<E, RemoveAskByHandleEvent> ||
    std::is_same_v<E, ReleaseByHandleEvent> || std::is_same_v<E, RemoveApplicationByHandleEvent> ||
    std::is_same_v<E, RemoveNodeByHandleEvent>;

}  // namespace

EventRecorder::EventRecorder(std::string path, int fd, const EventRecorderOptions& options)
    : path_(std::move(path)),
      fd_(fd),
      buffer_bytes_(options.buffer_bytes),
      log_(std::make_unique<internal::RecordingLog>(options.decision_digests)) {}

EventRecorder::~EventRecorder() { Close().IgnoreError(); }

absl::StatusOr<std::unique_ptr<EventRecorder>> EventRecorder::Create(
    const std::string& path, const SchedulerConfig& config, const KernelOptions& kernel_options,
    const EventRecorderOptions& options) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int error = errno;
    std::string message =
        internal::Cat(path, ": cannot create the event log: ", std::strerror(error));
    return error == EACCES ? absl::PermissionDeniedError(message) : absl::NotFoundError(message);
  }
  std::unique_ptr<EventRecorder> recorder(new EventRecorder(path, fd, options));
  recorder->log_->writer.set_max_remembered_names(options.max_remembered_names);
  const internal::LogHeader header{
      .name = options.name,
      .semantics = kernel_options.semantics,
      .source_name = path,
      .config = config,
      .config_warnings = {},
      .clock = StepClock::kAdvanceStepsOnly,
      .budgets = {.max_applications = kernel_options.max_applications,
                  .max_asks = kernel_options.max_asks,
                  .max_live_allocations = kernel_options.max_live_allocations}};
  recorder->log_->writer.Record(LogRecord::kHeader, header);
  recorder->WritePending(0);
  if (!recorder->status_.ok()) return recorder->status_;
  return recorder;
}

void EventRecorder::Fail(absl::Status status) {
  if (status_.ok()) status_ = std::move(status);
  log_->writer.pending().Clear();
}

void EventRecorder::WritePending(size_t keep) {
  internal::LogBytes& pending = log_->writer.pending();
  if (pending.size() <= keep) return;
  if (!status_.ok()) {
    pending.Clear();
    return;
  }
  size_t written = 0;
  while (written < pending.size()) {
    const ssize_t n = ::write(fd_, pending.data() + written, pending.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      Fail(absl::DataLossError(internal::Cat(
          path_, ": writing the event log failed: ",
          n < 0 ? std::strerror(errno) : "nothing written", "; recording stopped after ", steps_,
          " events", buffer_bytes_ > 0 ? " (the last of them may be lost with the buffer)" : "")));
      return;
    }
    written += static_cast<size_t>(n);
  }
  pending.Clear();
}

absl::Status EventRecorder::Apply(Kernel& kernel, const Event& event, std::vector<Decision>* out,
                                  int64_t* allocations) {
  const bool recording = status_.ok() && !closed_;
  if (out == nullptr) {
    log_->scratch.clear();
    out = &log_->scratch;
  }
  const size_t decided_before = out->size();
  // Before the step record: the digest of everything decided up to and including the step
  // (the live kernel has applied it by now).
  auto digest = [&] {
    if (!log_->digests || out->size() == decided_before) return;
    log_->digest.Add(std::span<const Decision>(*out).subspan(decided_before));
    log_->writer.Record(LogRecord::kDigest, static_cast<uint64_t>(steps_ + 1),
                        static_cast<uint64_t>(log_->digest.count()),
                        static_cast<uint64_t>(log_->digest.value()));
  };
  return std::visit(
      [&](const auto& e) -> absl::Status {
        using E = std::decay_t<decltype(e)>;
        internal::LogWriter& writer = log_->writer;
        if constexpr (kByHandle<E>) {
          // Named before the call: a removal leaves nothing to name afterwards.
          std::optional<StepAction> by_name;
          if (recording) by_name = ByName(kernel, e);
          if (allocations != nullptr) *allocations = 0;
          absl::Status status = ApplyEvent(kernel, e, out);
          if (!status.ok() || !recording) return status;
          if (!by_name) {
            Fail(absl::InternalError(internal::Cat(
                path_,
                ": the kernel accepted an event by handle whose names it did not know; "
                "recording stopped")));
            return status;
          }
          digest();
          std::visit(
              [&](const auto& action) {
                writer.Record(LogRecord::kStep, static_cast<uint64_t>(by_name->index()), action,
                              kNoLocation);
              },
              *by_name);
          Recorded();
          return status;
        } else {
          absl::Status status;
          if constexpr (std::is_same_v<E, ScheduleEvent>) {
            status = ApplyEvent(kernel, e, out, allocations);
          } else {
            if (allocations != nullptr) *allocations = 0;
            status = ApplyEvent(kernel, e, out);
          }
          if (!status.ok() || !recording) return status;
          digest();
          if constexpr (std::is_same_v<E, NodeSpec>) {
            // AddNodeStep's fields: the node, then its attributes (none from a live kernel).
            writer.Record(LogRecord::kStep, static_cast<uint64_t>(StepKind::kAddNode), e,
                          kNoAttributes, kNoLocation);
          } else {
            writer.Record(LogRecord::kStep, static_cast<uint64_t>(StepKindOf<E>()), e, kNoLocation);
          }
          Recorded();
          return status;
        }
      },
      event);
}

void EventRecorder::Recorded() {
  WritePending(buffer_bytes_);
  if (status_.ok()) ++steps_;
}

absl::Status EventRecorder::Flush() {
  WritePending(0);
  return status_;
}

absl::Status EventRecorder::Sync() {
  WritePending(0);
  if (!status_.ok() || closed_) return status_;
  int result;
  do {
    result = ::fdatasync(fd_);
  } while (result != 0 && errno == EINTR);
  if (result != 0) {
    Fail(absl::DataLossError(internal::Cat(
        path_, ": syncing the event log failed: ", std::strerror(errno),
        "; recording stopped after ", steps_, " events, ", synced_steps_, " of them synced")));
    return status_;
  }
  synced_steps_ = steps_;
  return status_;
}

absl::Status EventRecorder::Close() {
  if (closed_) return status_;
  closed_ = true;
  if (status_.ok()) {
    log_->writer.Record(LogRecord::kEnd, static_cast<uint64_t>(steps_));
    WritePending(0);
  }
  if (fd_ >= 0 && ::close(fd_) != 0 && status_.ok()) {
    status_ = absl::DataLossError(
        internal::Cat(path_, ": closing the event log failed: ", std::strerror(errno)));
  }
  fd_ = -1;
  return status_;
}

// ---- RecordingKernel ---------------------------------------------------------------------------

absl::StatusOr<std::unique_ptr<RecordingKernel>> RecordingKernel::Create(
    SchedulerConfig config, KernelOptions kernel_options, const std::string& log_path,
    const EventRecorderOptions& recorder_options) {
  absl::StatusOr<std::unique_ptr<Kernel>> kernel = Kernel::Create(config, kernel_options);
  if (!kernel.ok()) return kernel.status();
  absl::StatusOr<std::unique_ptr<EventRecorder>> recorder =
      EventRecorder::Create(log_path, config, kernel_options, recorder_options);
  if (!recorder.ok()) return recorder.status();
  return std::unique_ptr<RecordingKernel>(
      new RecordingKernel(*std::move(kernel), *std::move(recorder)));
}

absl::Status RecordingKernel::Apply(const Event& event, std::vector<Decision>* out,
                                    int64_t* allocations) {
  return recorder_->Apply(*kernel_, event, out, allocations);
}

int64_t RecordingKernel::Apply(std::span<const Event> events, std::vector<Decision>* out,
                               std::vector<EventResult>* results) {
  int64_t refused = 0;
  for (const Event& event : events) {
    int64_t made = 0;
    absl::Status status = recorder_->Apply(*kernel_, event, out, &made);
    if (!status.ok()) ++refused;
    if (results != nullptr) results->push_back({.status = std::move(status), .allocations = made});
  }
  return refused;
}

absl::StatusOr<int64_t> RecordingKernel::Schedule(int64_t max, std::string_view partition,
                                                  std::vector<Decision>* out) {
  int64_t made = 0;
  absl::Status status = recorder_->Apply(
      *kernel_, ScheduleEvent{.partition = std::string(partition), .max = max}, out, &made);
  if (!status.ok()) return status;
  return made;
}

absl::Status RecordingKernel::Advance(int64_t millis, std::vector<Decision>* out) {
  return recorder_->Apply(*kernel_, AdvanceEvent{.millis = millis}, out);
}

}  // namespace allocore::adapters
