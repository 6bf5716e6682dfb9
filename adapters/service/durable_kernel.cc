// A kernel in a directory of snapshots and event logs (see durable_kernel.h).
//
// Invariants, each kept at every moment a crash may stop the process:
//   1. Every snapshot-S has its events-S (the log is made before the snapshot), so the events
//      after any snapshot that restores are on disk.
//   2. A log other than the last holds at least the events up to the next log's start: it was
//      synced before the next one was made. Records after those (a torn tail an earlier
//      restart passed over) are never read.
//   3. A file appears whole or not at all: written to a .tmp name, synced, renamed, and the
//      directory synced; only the last log grows in place.
#include "allocore/adapters/durable_kernel.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string_view>
#include <utility>
#include <variant>

#include "allocore/adapters/event_log.h"
#include "allocore/adapters/scenario.h"
#include "allocore/crc32c.h"
#include "str_util.h"

namespace allocore::adapters {
namespace {

constexpr std::string_view kSnapshotPrefix = "snapshot-";
constexpr std::string_view kSnapshotSuffix = ".snap";
constexpr std::string_view kLogPrefix = "events-";
constexpr std::string_view kLogSuffix = ".alog";
constexpr std::string_view kTempSuffix = ".tmp";
// A snapshot larger than this is not read (the snapshot reader's own bound).
constexpr uint64_t kMaxFileBytes = uint64_t{16} << 30;

std::string FileName(std::string_view prefix, int64_t seq, std::string_view suffix) {
  char digits[24];
  std::snprintf(digits, sizeof(digits), "%020" PRId64, seq);
  return internal::Cat(prefix, digits, suffix);
}

std::string PathIn(const std::string& dir, std::string_view name) {
  return internal::Cat(dir, "/", name);
}

absl::Status Errno(std::string_view what, const std::string& path) {
  const int error = errno;
  std::string message = internal::Cat(path, ": ", what, ": ", std::strerror(error));
  if (error == ENOENT) return absl::NotFoundError(message);
  if (error == EACCES || error == EPERM) return absl::PermissionDeniedError(message);
  return absl::DataLossError(message);
}

// The sequence number a file name carries, when it is one of `prefix`<digits>`suffix`.
std::optional<int64_t> SeqOf(std::string_view name, std::string_view prefix,
                             std::string_view suffix) {
  if (!name.starts_with(prefix) || !name.ends_with(suffix)) return std::nullopt;
  std::string_view digits = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  if (digits.size() != 20) return std::nullopt;
  int64_t seq = 0;
  for (char c : digits) {
    if (c < '0' || c > '9' || seq > (INT64_MAX - 9) / 10) return std::nullopt;
    seq = seq * 10 + (c - '0');
  }
  return seq;
}

struct Listing {
  std::vector<int64_t> snapshots;  // ascending
  std::vector<int64_t> logs;       // ascending
  std::vector<std::string> temporaries;
};

absl::StatusOr<Listing> List(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return Errno("cannot read the directory", dir);
  Listing listing;
  while (const dirent* entry = ::readdir(d)) {
    const std::string_view name = entry->d_name;
    // Only regular files count: a directory or a link named like a snapshot is not one.
    struct stat info {};
    if (::fstatat(::dirfd(d), entry->d_name, &info, AT_SYMLINK_NOFOLLOW) != 0 ||
        !S_ISREG(info.st_mode)) {
      continue;
    }
    if (auto seq = SeqOf(name, kSnapshotPrefix, kSnapshotSuffix)) {
      listing.snapshots.push_back(*seq);
    } else if (auto log = SeqOf(name, kLogPrefix, kLogSuffix)) {
      listing.logs.push_back(*log);
    } else if (name.ends_with(kTempSuffix)) {
      // Only the temporaries this code makes: another program's .tmp files are not touched.
      const std::string_view base = name.substr(0, name.size() - kTempSuffix.size());
      if (SeqOf(base, kSnapshotPrefix, kSnapshotSuffix) || SeqOf(base, kLogPrefix, kLogSuffix)) {
        listing.temporaries.emplace_back(name);
      }
    }
  }
  ::closedir(d);
  std::sort(listing.snapshots.begin(), listing.snapshots.end());
  std::sort(listing.logs.begin(), listing.logs.end());
  return listing;
}

absl::Status SyncDirectory(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Errno("cannot open the directory to sync it", dir);
  const int result = ::fsync(fd);
  ::close(fd);
  if (result != 0) return Errno("cannot sync the directory", dir);
  return absl::OkStatus();
}

absl::Status WriteAll(int fd, std::string_view bytes, const std::string& path) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Errno("write failed", path);
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return absl::OkStatus();
}

// `bytes` as dir/name, all or nothing: a temporary file, synced, renamed over the name, and the
// directory synced.
absl::Status WriteFileAtomically(const std::string& dir, const std::string& name,
                                 std::string_view bytes) {
  const std::string path = PathIn(dir, name);
  const std::string temp = internal::Cat(path, kTempSuffix);
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Errno("cannot create", temp);
  absl::Status written = WriteAll(fd, bytes, temp);
  if (written.ok() && ::fdatasync(fd) != 0) written = Errno("cannot sync", temp);
  if (::close(fd) != 0 && written.ok()) written = Errno("cannot close", temp);
  if (!written.ok()) {
    ::unlink(temp.c_str());
    return written;
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) return Errno("cannot rename into place", temp);
  return SyncDirectory(dir);
}

absl::StatusOr<std::string> ReadWholeFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return Errno("cannot open", path);
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    absl::Status status = Errno("cannot stat", path);
    ::close(fd);
    return status;
  }
  if (!S_ISREG(info.st_mode)) {
    ::close(fd);
    return absl::DataLossError(internal::Cat(path, ": not a regular file"));
  }
  if (static_cast<uint64_t>(info.st_size) > kMaxFileBytes) {
    ::close(fd);
    return absl::ResourceExhaustedError(
        internal::Cat(path, ": larger than ", kMaxFileBytes, " bytes"));
  }
  std::string bytes(static_cast<size_t>(info.st_size), '\0');
  size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      // Not the end of the file: a torn tail must never be mistaken for an unreadable one.
      absl::Status status = Errno("cannot read", path);
      ::close(fd);
      return status;
    }
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  bytes.resize(got);
  return bytes;
}

// The bytes of an event log up to the end of its last whole event: past the header, every
// frame must be complete, non-empty and match its checksum, and an event ends with its step
// record (its names and digest go out with it in one write). What follows is a torn tail: a
// write a crash cut, or, after a power loss, pages that came back as zeros or stale bytes; an
// end record a rotation wrote after the next log was made is kept when it is whole and dropped
// when it is not.
size_t WholeEventsEnd(std::string_view log) {
  constexpr size_t kFileHeader = 16;
  constexpr size_t kFrameHeader = 8;
  size_t at = kFileHeader;
  size_t whole = std::min(log.size(), kFileHeader);
  while (at + kFrameHeader <= log.size()) {
    uint32_t length = 0;
    uint32_t crc = 0;
    for (size_t i = 0; i < 4; ++i) {
      length |= static_cast<uint32_t>(static_cast<uint8_t>(log[at + i])) << (8 * i);
      crc |= static_cast<uint32_t>(static_cast<uint8_t>(log[at + 4 + i])) << (8 * i);
    }
    if (length == 0 || length > log.size() - at - kFrameHeader) break;
    const std::string_view payload = log.substr(at + kFrameHeader, length);
    if (::allocore::Crc32c(payload) != crc) break;
    const auto type = static_cast<uint8_t>(payload[0]);
    at += kFrameHeader + length;
    if (type == 2 || type == 5 || type == 6) whole = at;  // the header, a step, the end
  }
  return whole;
}

// One recorded step as the call the live kernel made (the runner's mapping, without its clock
// and its records).
absl::Status ApplyRecordedStep(Kernel& kernel, const ScenarioStep& step,
                               std::vector<Decision>* out) {
  return std::visit(
      [&](const auto& action) -> absl::Status {
        using T = std::decay_t<decltype(action)>;
        if constexpr (std::is_same_v<T, ScheduleStep>) {
          return kernel.Schedule(action.max, action.partition, out).status();
        } else if constexpr (std::is_same_v<T, ProbeStep>) {
          return absl::OkStatus();  // a question: never recorded, changes nothing
        } else if constexpr (std::is_same_v<T, AddNodeStep>) {
          return ApplyEvent(kernel, action.node, out);
        } else {
          return ApplyEvent(kernel, action, out);
        }
      },
      step.action);
}

absl::Status CheckOptions(const DurabilityOptions& options) {
  constexpr int64_t kMaxGroupMillis = int64_t{1} << 40;  // no overflow as nanoseconds
  if (options.group_events < 1 || options.group_millis < 0 ||
      options.group_millis > kMaxGroupMillis || options.keep_snapshots < 1 ||
      options.checkpoint_every < 0) {
    return absl::InvalidArgumentError(
        "DurabilityOptions: group_events >= 1, 0 <= group_millis <= 2^40, keep_snapshots >= 1 "
        "and checkpoint_every >= 0");
  }
  return absl::OkStatus();
}

// One manager per directory: two would rename over each other's live log. The lock is the
// open file description's (flock), so it goes when the process dies, however it dies.
absl::StatusOr<int> LockDirectory(const std::string& dir) {
  const std::string path = PathIn(dir, "lock");
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) return Errno("cannot open the lock file", path);
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    ::close(fd);
    if (error == EWOULDBLOCK) {
      return absl::FailedPreconditionError(
          internal::Cat(dir, ": another process holds this durable directory (", path, ")"));
    }
    errno = error;
    return Errno("cannot lock", path);
  }
  return fd;
}

// The directory's kernel, its config in force and the report (Recover and Restart).
struct Recovered {
  std::unique_ptr<Kernel> kernel;
  SchedulerConfig config;
  RestartReport report;
};

absl::StatusOr<Recovered> RecoverDirectory(const std::string& dir) {
  absl::StatusOr<Listing> listing = List(dir);
  if (!listing.ok()) return listing.status();
  if (listing->snapshots.empty()) {
    return absl::NotFoundError(
        internal::Cat(dir,
                      ": holds no snapshot: no kernel was created there (or its files "
                      "were removed)"));
  }
  Recovered recovered;
  RestartReport& report = recovered.report;
  // The newest snapshot that restores.
  for (auto it = listing->snapshots.rbegin(); it != listing->snapshots.rend(); ++it) {
    const std::string path = PathIn(dir, FileName(kSnapshotPrefix, *it, kSnapshotSuffix));
    absl::StatusOr<std::string> bytes = ReadWholeFile(path);
    absl::StatusOr<std::unique_ptr<Kernel>> kernel =
        bytes.ok() ? Kernel::Restore(*bytes) : bytes.status();
    if (kernel.ok()) {
      recovered.kernel = *std::move(kernel);
      report.snapshot_seq = *it;
      break;
    }
    report.warnings.push_back(
        internal::Cat(path, ": passed over: ", std::string(kernel.status().message())));
  }
  if (!recovered.kernel) {
    return absl::DataLossError(
        internal::Cat(dir, ": no snapshot restores: ", internal::Join(report.warnings, "; ")));
  }
  // The logs from the snapshot's on, each up to where the next starts.
  std::vector<int64_t> logs;
  for (int64_t seq : listing->logs) {
    if (seq >= report.snapshot_seq) logs.push_back(seq);
  }
  if (logs.empty() || logs.front() != report.snapshot_seq) {
    return absl::DataLossError(
        internal::Cat(dir, ": ", FileName(kLogPrefix, report.snapshot_seq, kLogSuffix),
                      " is missing: the events after the snapshot it would start from are gone"));
  }
  int64_t seq = report.snapshot_seq;
  std::vector<Decision> out;
  bool have_config = false;
  for (size_t i = 0; i < logs.size(); ++i) {
    if (logs[i] != seq) {
      return absl::DataLossError(internal::Cat(dir, ": ", FileName(kLogPrefix, logs[i], kLogSuffix),
                                               " starts after event ", logs[i],
                                               ", but the logs before it end at event ", seq));
    }
    const std::string path = PathIn(dir, FileName(kLogPrefix, logs[i], kLogSuffix));
    absl::StatusOr<std::string> bytes = ReadWholeFile(path);
    if (!bytes.ok()) return bytes.status();
    const size_t whole = WholeEventsEnd(*bytes);
    const bool torn = whole < bytes->size();
    absl::StatusOr<EventLogContents> log =
        ReadEventLog(std::string_view(*bytes).substr(0, whole), path);
    if (!log.ok()) return absl::DataLossError(log.status().message());
    if (log->scenario.semantics != recovered.kernel->options().semantics) {
      return absl::DataLossError(internal::Cat(
          path, ": recorded under ", SemanticsName(log->scenario.semantics),
          ", the snapshot decides like ", SemanticsName(recovered.kernel->options().semantics)));
    }
    recovered.config = std::move(log->scenario.config);
    have_config = true;
    const bool last = i + 1 == logs.size();
    const auto held = static_cast<int64_t>(log->scenario.steps.size());
    const int64_t wanted = last ? held : logs[i + 1] - logs[i];
    if (held < wanted) {
      return absl::DataLossError(internal::Cat(path, ": holds ", held, " events, the next log ",
                                               "starts ", wanted, " events after it"));
    }
    for (int64_t k = 0; k < wanted; ++k) {
      const ScenarioStep& step = log->scenario.steps[static_cast<size_t>(k)];
      out.clear();
      if (absl::Status applied = ApplyRecordedStep(*recovered.kernel, step, &out); !applied.ok()) {
        return absl::DataLossError(internal::Cat(
            path, ": event ", seq + 1, " was refused on replay: ", std::string(applied.message())));
      }
      if (const auto* update = std::get_if<UpdateConfigStep>(&step.action)) {
        recovered.config = update->config;
      }
      ++seq;
      ++report.replayed_events;
    }
    if (last && torn) {
      report.torn_tail_events = 1;
      report.warnings.push_back(internal::Cat(
          path, ": ", bytes->size() - whole, " bytes after its last whole event were passed over"));
    }
  }
  if (!have_config) return absl::DataLossError(internal::Cat(dir, ": no event log to read"));
  report.recovered_seq = seq;
  return recovered;
}

}  // namespace

DurableKernel::DurableKernel(std::string dir, std::unique_ptr<Kernel> kernel,
                             SchedulerConfig config, DurabilityOptions options)
    : dir_(std::move(dir)),
      kernel_(std::move(kernel)),
      config_(std::move(config)),
      options_(options) {}

DurableKernel::~DurableKernel() {
  if (recorder_) recorder_->Close().IgnoreError();
  if (lock_fd_ >= 0) ::close(lock_fd_);
}

int64_t DurableKernel::applied_seq() const {
  return segment_base_ + (recorder_ ? recorder_->steps() : 0);
}

int64_t DurableKernel::durable_seq() const {
  return segment_base_ + (recorder_ ? recorder_->synced_steps() : 0);
}

absl::Status DurableKernel::Fail(absl::Status status) {
  if (status_.ok()) status_ = std::move(status);
  return status_;
}

absl::StatusOr<std::unique_ptr<DurableKernel>> DurableKernel::Create(const std::string& dir,
                                                                     SchedulerConfig config,
                                                                     KernelOptions kernel_options,
                                                                     DurabilityOptions options) {
  if (absl::Status checked = CheckOptions(options); !checked.ok()) return checked;
  if (::mkdir(dir.c_str(), 0755) == 0) {
    // The new directory's entry in its parent survives a power loss too.
    const size_t slash = dir.find_last_of('/');
    const std::string parent =
        slash == std::string::npos ? "." : dir.substr(0, std::max<size_t>(slash, 1));
    if (absl::Status synced = SyncDirectory(parent); !synced.ok()) return synced;
  } else if (errno != EEXIST) {
    return Errno("cannot create the directory", dir);
  }
  absl::StatusOr<int> lock = LockDirectory(dir);
  if (!lock.ok()) return lock.status();
  auto unlock = [&] { ::close(*lock); };
  absl::StatusOr<Listing> listing = List(dir);
  if (!listing.ok()) {
    unlock();
    return listing.status();
  }
  if (!listing->snapshots.empty()) {
    unlock();
    return absl::AlreadyExistsError(
        internal::Cat(dir, ": already holds a kernel (", listing->snapshots.size(),
                      " snapshot(s)): DurableKernel::Restart continues it"));
  }
  // A creation that stopped before its first snapshot leaves at most the first log, with no
  // event in it; any other log without a snapshot is someone's data, not ours to remove.
  for (int64_t seq : listing->logs) {
    if (seq != 0) {
      unlock();
      return absl::FailedPreconditionError(internal::Cat(
          dir, ": holds ", FileName(kLogPrefix, seq, kLogSuffix),
          " but no snapshot: its snapshots were lost; not creating a kernel over its events"));
    }
  }
  for (const std::string& name : listing->temporaries) ::unlink(PathIn(dir, name).c_str());
  absl::StatusOr<std::unique_ptr<Kernel>> kernel = Kernel::Create(config, kernel_options);
  if (!kernel.ok()) {
    unlock();
    return kernel.status();
  }
  std::unique_ptr<DurableKernel> durable(
      new DurableKernel(dir, *std::move(kernel), std::move(config), options));
  durable->lock_fd_ = *lock;
  if (absl::Status started = durable->Checkpoint(); !started.ok()) return started;
  return durable;
}

absl::StatusOr<std::unique_ptr<Kernel>> DurableKernel::Recover(const std::string& dir,
                                                               RestartReport* report) {
  absl::StatusOr<Recovered> recovered = RecoverDirectory(dir);
  if (!recovered.ok()) return recovered.status();
  if (report != nullptr) *report = std::move(recovered->report);
  return std::move(recovered->kernel);
}

absl::StatusOr<std::unique_ptr<DurableKernel>> DurableKernel::Restart(const std::string& dir,
                                                                      DurabilityOptions options,
                                                                      RestartReport* report) {
  if (absl::Status checked = CheckOptions(options); !checked.ok()) return checked;
  absl::StatusOr<int> lock = LockDirectory(dir);
  if (!lock.ok()) return lock.status();
  absl::StatusOr<Recovered> recovered = RecoverDirectory(dir);
  if (!recovered.ok()) {
    ::close(*lock);
    return recovered.status();
  }
  std::unique_ptr<DurableKernel> durable(
      new DurableKernel(dir, std::move(recovered->kernel), std::move(recovered->config), options));
  durable->lock_fd_ = *lock;
  durable->segment_base_ = recovered->report.recovered_seq;
  // A fresh log and snapshot at the recovered event: nothing is ever appended to a torn log.
  if (absl::Status checkpoint = durable->Checkpoint(); !checkpoint.ok()) return checkpoint;
  if (report != nullptr) *report = std::move(recovered->report);
  return durable;
}

absl::Status DurableKernel::StartSegment() {
  const int64_t seq = applied_seq();
  const std::string name = FileName(kLogPrefix, seq, kLogSuffix);
  const std::string path = PathIn(dir_, name);
  const std::string temp = internal::Cat(path, kTempSuffix);
  absl::StatusOr<std::unique_ptr<EventRecorder>> recorder =
      EventRecorder::Create(temp, config_, kernel_->options(), {.name = name});
  if (!recorder.ok()) return recorder.status();
  // The header on disk before the name appears (invariant 3).
  if (absl::Status synced = (*recorder)->Sync(); !synced.ok()) return synced;
  if (::rename(temp.c_str(), path.c_str()) != 0) return Errno("cannot rename into place", temp);
  if (absl::Status synced = SyncDirectory(dir_); !synced.ok()) return synced;
  if (recorder_) recorder_->Close().IgnoreError();  // synced already; the end record is a courtesy
  recorder_ = *std::move(recorder);
  segment_base_ = seq;
  return absl::OkStatus();
}

absl::Status DurableKernel::Checkpoint() {
  if (!status_.ok()) return status_;
  if (recorder_) {
    if (absl::Status synced = recorder_->Sync(); !synced.ok()) return Fail(synced);
  }
  const int64_t seq = applied_seq();
  // The log first, then the snapshot (invariant 1).
  if (absl::Status started = StartSegment(); !started.ok()) return Fail(started);
  if (absl::Status written = WriteFileAtomically(
          dir_, FileName(kSnapshotPrefix, seq, kSnapshotSuffix), kernel_->Snapshot());
      !written.ok()) {
    return Fail(written);
  }
  last_checkpoint_ = seq;
  // What no kept snapshot needs: older snapshots, the logs before the oldest kept one.
  absl::StatusOr<Listing> listing = List(dir_);
  if (!listing.ok()) return Fail(listing.status());
  // Only snapshots of this kernel's past count: a stray name from the future is left alone.
  std::vector<int64_t> past;
  for (int64_t s : listing->snapshots) {
    if (s <= seq) past.push_back(s);
  }
  const size_t keep = static_cast<size_t>(options_.keep_snapshots);
  bool removed = false;
  if (past.size() > keep) {
    const int64_t oldest_kept = std::min(past[past.size() - keep], seq);
    for (int64_t s : past) {
      if (s >= oldest_kept) continue;
      removed |= ::unlink(PathIn(dir_, FileName(kSnapshotPrefix, s, kSnapshotSuffix)).c_str()) == 0;
    }
    for (int64_t l : listing->logs) {
      if (l >= oldest_kept) continue;
      removed |= ::unlink(PathIn(dir_, FileName(kLogPrefix, l, kLogSuffix)).c_str()) == 0;
    }
  }
  for (const std::string& name : listing->temporaries) {
    removed |= ::unlink(PathIn(dir_, name).c_str()) == 0;
  }
  if (removed) {
    if (absl::Status synced = SyncDirectory(dir_); !synced.ok()) return Fail(synced);
  }
  return absl::OkStatus();
}

absl::Status DurableKernel::Sync() {
  if (!status_.ok()) return status_;
  if (recorder_->synced_steps() == recorder_->steps()) return absl::OkStatus();
  if (absl::Status synced = recorder_->Sync(); !synced.ok()) return Fail(synced);
  return absl::OkStatus();
}

absl::Status DurableKernel::SyncIfDue() {
  if (!status_.ok()) return status_;
  if (recorder_->synced_steps() == recorder_->steps()) return absl::OkStatus();
  if (std::chrono::steady_clock::now() - oldest_unsynced_ <
      std::chrono::milliseconds(options_.group_millis)) {
    return absl::OkStatus();
  }
  return Sync();
}

absl::StatusOr<int64_t> DurableKernel::Apply(const Event& event, std::vector<Decision>* out,
                                             int64_t* allocations) {
  if (!status_.ok()) return status_;
  const int64_t before = recorder_->steps();
  absl::Status applied = recorder_->Apply(*kernel_, event, out, allocations);
  if (!recorder_->status().ok()) return Fail(recorder_->status());
  if (!applied.ok()) return applied;  // refused: nothing changed, nothing recorded
  if (recorder_->steps() == before) return applied_seq();  // cannot happen: accepted is recorded
  if (const auto* update = std::get_if<UpdateConfigEvent>(&event)) config_ = update->config;
  const int64_t seq = applied_seq();
  if (options_.sync == SyncPolicy::kEveryEvent) {
    if (absl::Status synced = Sync(); !synced.ok()) return synced;
  } else {
    const int64_t unsynced = recorder_->steps() - recorder_->synced_steps();
    if (unsynced == 1) oldest_unsynced_ = std::chrono::steady_clock::now();
    if (unsynced >= options_.group_events) {
      if (absl::Status synced = Sync(); !synced.ok()) return synced;
    } else if (absl::Status due = SyncIfDue(); !due.ok()) {
      return due;
    }
  }
  if (options_.checkpoint_every > 0 && seq - last_checkpoint_ >= options_.checkpoint_every) {
    if (absl::Status checkpoint = Checkpoint(); !checkpoint.ok()) return checkpoint;
  }
  return seq;
}

}  // namespace allocore::adapters
