// DurableKernel (allocore/adapters/durable_kernel.h): a restarted kernel answers every query as
// the one that stopped; creation, retention, a snapshot that does not restore, group commit;
// and a power loss simulated at every write of a recorded run of more than 10,000 events, and at
// every byte of its last record: the restart always succeeds and only unacknowledged events are
// missing.
#include "allocore/adapters/durable_kernel.h"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "adapters/durable_test_util.h"
#include "allocore/c.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/files.h"

namespace allocore::adapters {
namespace {

namespace fs = std::filesystem;
using test_support::ReadFile;
using test_support::WriteFile;
using ::testing::HasSubstr;

#ifdef ALLOCORE_SANITIZED
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
using testing_util::QueryDigest;
using testing_util::RandomWorkload;
using testing_util::Workload;

// A fresh, empty directory for one test.
fs::path FreshDir(const std::string& name) {
  // The process id keeps two runs of the test (two builds' suites) apart.
  fs::path dir =
      fs::path(::testing::TempDir()) / ("durable_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::vector<std::string> Names(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

// Applies events [from, to) to both kernels (the durable one and a plain reference), expecting
// them to agree on every call.
void ApplyBoth(const Workload& w, size_t from, size_t to, DurableKernel& durable, Kernel& plain) {
  std::vector<Decision> a;
  std::vector<Decision> b;
  for (size_t i = from; i < to; ++i) {
    absl::StatusOr<int64_t> seq = durable.Apply(w.events[i], &a);
    absl::Status reference = ApplyEvent(plain, w.events[i], &b);
    ASSERT_EQ(seq.ok(), reference.ok())
        << "event " << i << ": " << seq.status() << " / " << reference;
  }
}

TEST(DurableKernelTest, ARestartedKernelAnswersAsTheOneThatStoppedAndGoesOnAlike) {
  const Workload w = RandomWorkload(7, 400);
  ASSERT_GT(w.events.size(), 600u);
  const fs::path dir = FreshDir("restart");
  absl::StatusOr<std::unique_ptr<Kernel>> plain = Kernel::Create(w.config, {});
  ASSERT_TRUE(plain.ok());
  int64_t applied = 0;
  {
    absl::StatusOr<std::unique_ptr<DurableKernel>> durable =
        DurableKernel::Create(dir.string(), w.config, {}, {.checkpoint_every = 100});
    ASSERT_TRUE(durable.ok()) << durable.status();
    ApplyBoth(w, 0, w.events.size() / 2, **durable, **plain);
    applied = (*durable)->applied_seq();
    EXPECT_EQ((*durable)->durable_seq(), applied);
    EXPECT_GT(applied, 200);
    EXPECT_EQ(QueryDigest((*durable)->kernel()), QueryDigest(**plain));
  }
  RestartReport report;
  absl::StatusOr<std::unique_ptr<DurableKernel>> again =
      DurableKernel::Restart(dir.string(), {.checkpoint_every = 100}, &report);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(report.recovered_seq, applied);
  EXPECT_EQ(report.torn_tail_events, 0);
  EXPECT_EQ(report.snapshot_seq + report.replayed_events, applied);
  EXPECT_EQ((*again)->applied_seq(), applied);
  EXPECT_EQ(QueryDigest((*again)->kernel()), QueryDigest(**plain));
  ApplyBoth(w, w.events.size() / 2, w.events.size(), **again, **plain);
  EXPECT_EQ(QueryDigest((*again)->kernel()), QueryDigest(**plain));
  // The read-only recovery sees the same, and writes nothing.
  const std::vector<std::string> before = Names(dir);
  absl::StatusOr<std::unique_ptr<Kernel>> recovered = DurableKernel::Recover(dir.string());
  ASSERT_TRUE(recovered.ok()) << recovered.status();
  EXPECT_EQ(QueryDigest(**recovered), QueryDigest(**plain));
  EXPECT_EQ(Names(dir), before);
}

// Applies the whole workload (refused events included, as a manager sends them) to a new
// durable kernel in `dir` that checkpoints every `checkpoint_every` events, and closes it;
// the sequence number it applied up to, 0 when it could not be created.
int64_t ApplyAllDurably(const Workload& w, const fs::path& dir, int64_t checkpoint_every) {
  absl::StatusOr<std::unique_ptr<DurableKernel>> durable =
      DurableKernel::Create(dir.string(), w.config, {}, {.checkpoint_every = checkpoint_every});
  EXPECT_TRUE(durable.ok()) << durable.status();
  if (!durable.ok()) return 0;
  std::vector<Decision> out;
  for (const Event& e : w.events) (*durable)->Apply(e, &out).IgnoreError();
  return (*durable)->applied_seq();
}

// After a power loss the unsynced end of the last log may come back as zeros or stale bytes,
// not only cut short: the restart passes over them as a torn tail.
TEST(DurableKernelTest, ATailOfZerosOrGarbageIsATornTail) {
  const Workload w = RandomWorkload(17, 100);
  const fs::path dir = FreshDir("garbage_tail");
  const int64_t applied = ApplyAllDurably(w, dir, 70);
  ASSERT_GT(applied, 0);
  std::string last_log;
  for (const std::string& name : Names(dir)) {
    if (name.starts_with("events-")) last_log = name;
  }
  const std::string whole = ReadFile(dir / last_log);
  for (const std::string& tail : {std::string(4096, '\0'), std::string(700, '\x5a')}) {
    WriteFile(dir / last_log, whole + tail);
    RestartReport report;
    absl::StatusOr<std::unique_ptr<Kernel>> recovered =
        DurableKernel::Recover(dir.string(), &report);
    ASSERT_TRUE(recovered.ok()) << recovered.status();
    EXPECT_EQ(report.recovered_seq, applied);
    EXPECT_EQ(report.torn_tail_events, 1);
  }
}

// One manager per directory: a second Restart or Create while the first lives is refused.
TEST(DurableKernelTest, TheDirectoryIsLockedByItsKernel) {
  const Workload w = RandomWorkload(19, 20);
  const fs::path dir = FreshDir("locked");
  absl::StatusOr<std::unique_ptr<DurableKernel>> first =
      DurableKernel::Create(dir.string(), w.config, {});
  ASSERT_TRUE(first.ok());
  absl::StatusOr<std::unique_ptr<DurableKernel>> second = DurableKernel::Restart(dir.string());
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(second.status().message(), HasSubstr("another process holds"));
  first->reset();
  EXPECT_TRUE(DurableKernel::Restart(dir.string()).ok());
}

TEST(DurableKernelTest, CreateAndRestartRefuseTheWrongDirectory) {
  const Workload w = RandomWorkload(3, 20);
  const fs::path dir = FreshDir("refuse");
  absl::StatusOr<std::unique_ptr<DurableKernel>> nothing = DurableKernel::Restart(dir.string());
  ASSERT_FALSE(nothing.ok());
  EXPECT_EQ(nothing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(nothing.status().message(), HasSubstr("holds no snapshot"));
  ASSERT_TRUE(DurableKernel::Create(dir.string(), w.config, {}).ok());
  absl::StatusOr<std::unique_ptr<DurableKernel>> twice =
      DurableKernel::Create(dir.string(), w.config, {});
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_FALSE(DurableKernel::Create(dir.string(), w.config, {}, {.keep_snapshots = 0}).ok());
  // Event logs whose snapshots were lost are someone's data: Create does not remove them.
  const fs::path orphan = FreshDir("orphan");
  WriteFile(orphan / "events-00000000000000000040.alog", "not ours to delete");
  absl::StatusOr<std::unique_ptr<DurableKernel>> over =
      DurableKernel::Create(orphan.string(), w.config, {});
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(fs::exists(orphan / "events-00000000000000000040.alog"));
  // A directory named like a snapshot is not one; other programs' .tmp files stay.
  const fs::path odd = FreshDir("odd_names");
  fs::create_directory(odd / "snapshot-00000000000000000099.snap");
  WriteFile(odd / "theirs.tmp", "x");
  ASSERT_TRUE(DurableKernel::Create(odd.string(), w.config, {}).ok());
  EXPECT_TRUE(fs::exists(odd / "theirs.tmp"));
}

TEST(DurableKernelTest, CheckpointsKeepTheLastSnapshotsAndTheLogsTheyNeed) {
  const Workload w = RandomWorkload(11, 200);
  const fs::path dir = FreshDir("retention");
  absl::StatusOr<std::unique_ptr<DurableKernel>> durable = DurableKernel::Create(
      dir.string(), w.config, {}, {.keep_snapshots = 2, .checkpoint_every = 50});
  ASSERT_TRUE(durable.ok());
  std::vector<Decision> out;
  for (const Event& e : w.events) (*durable)->Apply(e, &out).IgnoreError();
  const int64_t applied = (*durable)->applied_seq();
  ASSERT_GT(applied, 250);
  const std::vector<std::string> names = Names(dir);
  int snapshots = 0;
  int logs = 0;
  for (const std::string& name : names) {
    snapshots += name.starts_with("snapshot-");
    logs += name.starts_with("events-");
    EXPECT_FALSE(name.ends_with(".tmp")) << name;
  }
  EXPECT_EQ(snapshots, 2);
  EXPECT_EQ(logs, 2) << ::testing::PrintToString(names);  // one per kept snapshot
  durable->reset();
  RestartReport report;
  ASSERT_TRUE(DurableKernel::Recover(dir.string(), &report).ok());
  EXPECT_EQ(report.recovered_seq, applied);
}

TEST(DurableKernelTest, ASnapshotThatDoesNotRestoreIsPassedOver) {
  const Workload w = RandomWorkload(5, 200);
  const fs::path dir = FreshDir("bad_snapshot");
  absl::StatusOr<std::unique_ptr<Kernel>> plain = Kernel::Create(w.config, {});
  {
    absl::StatusOr<std::unique_ptr<DurableKernel>> durable = DurableKernel::Create(
        dir.string(), w.config, {}, {.keep_snapshots = 3, .checkpoint_every = 60});
    ASSERT_TRUE(durable.ok());
    ApplyBoth(w, 0, w.events.size(), **durable, **plain);
  }
  // The newest snapshot damaged (a disk that lost a block of it).
  std::string newest;
  for (const std::string& name : Names(dir)) {
    if (name.starts_with("snapshot-")) newest = name;
  }
  std::string bytes = ReadFile(dir / newest);
  ASSERT_GT(bytes.size(), 100u);
  bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0x5a);
  WriteFile(dir / newest, bytes);
  RestartReport report;
  absl::StatusOr<std::unique_ptr<Kernel>> recovered = DurableKernel::Recover(dir.string(), &report);
  ASSERT_TRUE(recovered.ok()) << recovered.status();
  EXPECT_EQ(QueryDigest(**recovered), QueryDigest(**plain));
  ASSERT_FALSE(report.warnings.empty());
  EXPECT_THAT(report.warnings[0], HasSubstr(newest + ": passed over"));
  EXPECT_GT(report.replayed_events, 0);
}

TEST(DurableKernelTest, GroupCommitSaysWhichEventsAreDurable) {
  const Workload w = RandomWorkload(9, 40);
  const fs::path dir = FreshDir("group");
  absl::StatusOr<std::unique_ptr<DurableKernel>> durable = DurableKernel::Create(
      dir.string(), w.config, {},
      {.sync = SyncPolicy::kGroupCommit, .group_events = 5, .group_millis = 3600 * 1000});
  ASSERT_TRUE(durable.ok());
  std::vector<Decision> out;
  int64_t seen_behind = 0;
  for (const Event& e : w.events) {
    if (!(*durable)->Apply(e, &out).ok()) continue;
    const int64_t behind = (*durable)->applied_seq() - (*durable)->durable_seq();
    EXPECT_GE(behind, 0);
    EXPECT_LT(behind, 5);
    seen_behind = std::max(seen_behind, behind);
  }
  EXPECT_EQ(seen_behind, 4);
  ASSERT_TRUE((*durable)->Sync().ok());
  EXPECT_EQ((*durable)->durable_seq(), (*durable)->applied_seq());
  EXPECT_FALSE(DurableKernel::Create(FreshDir("group_bad").string(), w.config, {},
                                     {.sync = SyncPolicy::kGroupCommit, .group_events = 0})
                   .ok());
}

// The C form of the restart: the same kernel, and the report.
TEST(DurableKernelTest, TheCRestartCallRecoversTheSameKernel) {
  const Workload w = RandomWorkload(13, 120);
  const fs::path dir = FreshDir("c_restart");
  const int64_t applied = ApplyAllDurably(w, dir, 50);
  ASSERT_GT(applied, 0);
  char* err = nullptr;
  allocore_restart_info_t info{};
  allocore_kernel_t* kernel = allocore_kernel_restart(dir.c_str(), &info, &err);
  ASSERT_NE(kernel, nullptr) << err;
  EXPECT_EQ(info.recovered_seq, applied);
  EXPECT_EQ(info.snapshot_seq + info.replayed_events, applied);
  EXPECT_EQ(info.torn_tail_events, 0);
  size_t length = 0;
  char* bytes = allocore_kernel_snapshot(kernel, &length, &err);
  ASSERT_NE(bytes, nullptr);
  absl::StatusOr<std::unique_ptr<Kernel>> recovered = DurableKernel::Recover(dir.string());
  ASSERT_TRUE(recovered.ok());
  EXPECT_EQ(std::string(bytes, length), (*recovered)->Snapshot());
  allocore_free(bytes);
  allocore_kernel_destroy(kernel);
  // A directory without a kernel: NULL, NOT_FOUND, the directory named.
  const fs::path empty = FreshDir("c_restart_empty");
  EXPECT_EQ(allocore_kernel_restart(empty.c_str(), nullptr, &err), nullptr);
  ASSERT_NE(err, nullptr);
  EXPECT_EQ(allocore_error_code(err), ALLOCORE_ERR_NOT_FOUND);
  EXPECT_THAT(std::string(err), HasSubstr(empty.string()));
  allocore_free(err);
}

// The frames of an event log: (type, end offset), after the 16-byte file header.
std::vector<std::pair<int, size_t>> FrameEnds(const std::string& log) {
  std::vector<std::pair<int, size_t>> frames;
  size_t at = 16;
  while (at + 8 <= log.size()) {
    uint32_t length = 0;
    for (int i = 0; i < 4; ++i) {
      length |= static_cast<uint32_t>(static_cast<uint8_t>(log[at + static_cast<size_t>(i)]))
                << (8 * i);
    }
    if (at + 8 + length > log.size()) break;
    frames.emplace_back(static_cast<uint8_t>(log[at + 8]), at + 8 + length);
    at += 8 + length;
  }
  return frames;
}

// Power loss, simulated: the run's files as they stood after each write (every event is one
// write of its log, every checkpoint a log made and a snapshot renamed into place), and as they
// stood inside the last event's write, byte by byte. The restart must succeed on every one, at
// exactly the events whose write had completed (every one acknowledged under kEveryEvent), with
// the state the uninterrupted run had after them.
TEST(DurableKernelTest, APowerLossAtEveryWriteLosesOnlyUnacknowledgedEvents) {
  const Workload w = RandomWorkload(21, 6000);
  const fs::path dir = FreshDir("power");
  constexpr int64_t kCheckpointEvery = 250;
  // The uninterrupted run, with the state (a hash of every query's answer) after each event.
  std::vector<size_t> state_after{};  // by sequence number
  {
    absl::StatusOr<std::unique_ptr<DurableKernel>> durable =
        DurableKernel::Create(dir.string(), w.config, {},
                              // The cuts are made afterwards from the files, so the run need not
                              // pay 10,000 syncs: under kEveryEvent each event is acknowledged
                              // once its one write is synced, which is what a cut after that
                              // write keeps.
                              {.sync = SyncPolicy::kGroupCommit,
                               .group_events = int64_t{1} << 40,
                               .group_millis = int64_t{1} << 40,
                               .keep_snapshots = 1000,  // every file stays, to cut the run anywhere
                               .checkpoint_every = kCheckpointEvery});
    ASSERT_TRUE(durable.ok()) << durable.status();
    state_after.push_back(std::hash<std::string>()(QueryDigest((*durable)->kernel())));
    std::vector<Decision> out;
    for (const Event& e : w.events) {
      out.clear();
      if ((*durable)->Apply(e, &out).ok()) {
        state_after.push_back(std::hash<std::string>()(QueryDigest((*durable)->kernel())));
      }
    }
    EXPECT_EQ((*durable)->applied_seq() + 1, static_cast<int64_t>(state_after.size()));
  }
  const int64_t events = static_cast<int64_t>(state_after.size()) - 1;
  ASSERT_GE(events, 10000) << "the run must record at least 10,000 events";

  std::map<int64_t, std::string> logs;       // by the sequence number they start after
  std::map<int64_t, std::string> snapshots;  // likewise
  for (const std::string& name : Names(dir)) {
    if (!name.starts_with("events-") && !name.starts_with("snapshot-")) continue;  // the lock
    const int64_t seq = std::stoll(name.substr(name.find('-') + 1, 20));
    if (name.starts_with("events-")) logs[seq] = name;
    if (name.starts_with("snapshot-")) snapshots[seq] = name;
  }
  ASSERT_EQ(logs.size(), snapshots.size());
  const fs::path cut = FreshDir("power_cut");
  int64_t cuts = 0;
  auto expect_restart_at = [&](int64_t seq, bool torn, const std::string& where) {
    ++cuts;
    RestartReport report;
    absl::StatusOr<std::unique_ptr<Kernel>> recovered =
        DurableKernel::Recover(cut.string(), &report);
    ASSERT_TRUE(recovered.ok()) << where << ": " << recovered.status();
    ASSERT_EQ(report.recovered_seq, seq) << where;
    ASSERT_EQ(report.torn_tail_events, torn ? 1 : 0) << where;
    ASSERT_EQ(std::hash<std::string>()(QueryDigest(**recovered)),
              state_after[static_cast<size_t>(seq)])
        << where << ": the recovered state is not the run's after event " << seq;
  };
  for (const auto& [start, name] : logs) {
    // The directory while this log grows: every earlier file whole, no later one.
    for (const std::string& f : Names(cut)) fs::remove(cut / f);
    for (const auto& [s, n] : snapshots) {
      if (s < start) fs::copy_file(dir / n, cut / n);
    }
    for (const auto& [s, n] : logs) {
      if (s < start) fs::copy_file(dir / n, cut / n);
    }
    const std::string log = ReadFile(dir / name);
    const std::vector<std::pair<int, size_t>> frames = FrameEnds(log);
    std::vector<size_t> event_ends;  // after the header, then after each event's step record
    for (const auto& [type, end] : frames) {
      if (type == 2) event_ends.push_back(end);
      if (type == 5) event_ends.push_back(end);
    }
    ASSERT_FALSE(event_ends.empty()) << name;
    const std::string where = name + " ";
    if (start > 0) {
      // A checkpoint cut before its log was renamed into place: the previous log is whole.
      expect_restart_at(start, false, where + "(not made yet)");
    }
    // The log made, its snapshot not yet renamed into place.
    WriteFile(cut / name, log.substr(0, event_ends[0]));
    if (start > 0) expect_restart_at(start, false, where + "(made, no snapshot)");
    fs::copy_file(dir / snapshots.at(start), cut / snapshots.at(start));
    for (size_t j = 0; j < event_ends.size(); ++j) {
      // Under the sanitizers (a Debug build, several times slower) every 16th write is cut,
      // with the checkpoints' and the last event's cuts all kept; the other builds cut all.
      if (kSanitized && j % 16 != 0 && j + 1 != event_ends.size()) continue;
      WriteFile(cut / name, log.substr(0, event_ends[j]));
      expect_restart_at(start + static_cast<int64_t>(j), false,
                        where + "after event " + std::to_string(start + static_cast<int64_t>(j)));
      if (::testing::Test::HasFatalFailure()) return;
    }
    if (start == logs.rbegin()->first) {
      // Inside the last event's write, at every byte: that event is lost, and only it.
      const size_t last = event_ends.size() - 1;
      ASSERT_GT(last, 0u);
      for (size_t at = event_ends[last - 1] + 1; at < event_ends[last]; ++at) {
        WriteFile(cut / name, log.substr(0, at));
        expect_restart_at(start + static_cast<int64_t>(last) - 1, true,
                          where + "byte " + std::to_string(at));
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
  if (!kSanitized) {
    EXPECT_GE(cuts, events);
  }
  std::printf("power loss: %lld cut points of a run of %lld events, every restart exact\n",
              static_cast<long long>(cuts), static_cast<long long>(events));
}

}  // namespace
}  // namespace allocore::adapters
