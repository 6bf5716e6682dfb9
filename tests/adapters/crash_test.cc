// The crash harness: a manager process runs a KernelService on a durable directory (its kernel a
// DurableKernel: a snapshot every 40 events, each batch synced before its receipts), submitting
// a random workload in batches and acknowledging each batch once the service applied it. It is
// killed with SIGKILL at random moments, again and again, and each time its directory is
// restarted. Every restart must succeed, keep every event the manager had acknowledged, and
// answer every query as the uninterrupted run did after the same events. The next manager
// continues from what was recovered.
//
// The short form (200 kills) runs with the suite; ALLOCORE_CRASH_KILLS=N runs N, e.g. 5000 by
// hand. Kills land anywhere: inside an event's write, between its write and its sync, inside a
// checkpoint's new log or snapshot (the .tmp files it leaves are counted), inside a restart.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "adapters/durable_test_util.h"
#include "allocore/adapters/durable_kernel.h"
#include "allocore/adapters/kernel_service.h"
#include "gtest/gtest.h"

namespace allocore::adapters {
namespace {

namespace fs = std::filesystem;
using testing_util::QueryDigest;
using testing_util::RandomWorkload;
using testing_util::Workload;

struct Ack {
  uint64_t next_event;  // the workload's events before this one are handled
  int64_t seq;          // the last durable sequence number
};
constexpr uint64_t kReady = ~uint64_t{0};  // next_event of the manager's first record

// The manager's batches end after fixed workload events (about one in four), so that the
// test knows every batch a manager made, whichever event it started from: each batch is those
// events, then the Schedule(0) the service ends it with.
bool BatchEndsAfter(size_t i) { return ((i * 2654435761u) >> 9) % 4 == 0; }

// The manager: a KernelService on `dir` (restarting what it holds, or creating it), fed from
// workload event `next` on, one batch at a time; each batch is acknowledged on `ack_fd` once
// the service applied it, which it does only when the batch is durable. Never returns.
[[noreturn]] void Manager(const Workload& w, const fs::path& dir, size_t next, int ack_fd) {
  KernelService::Options options;
  options.durable_dir = dir.string();
  options.durability.checkpoint_every = 40;
  absl::StatusOr<std::unique_ptr<KernelService>> service =
      KernelService::Create(w.config, {}, nullptr, options);
  if (!service.ok()) {
    std::fprintf(stderr, "manager: %s\n", service.status().ToString().c_str());
    _exit(3);
  }
  // Ready: the restart is done (the test kills some managers only after this).
  const Ack ready{.next_event = kReady, .seq = (*service)->durable_seq()};
  if (write(ack_fd, &ready, sizeof(ready)) != static_cast<ssize_t>(sizeof(ready))) _exit(5);
  for (size_t i = next; i < w.events.size();) {
    do {
      (*service)->Submit(w.events[i]);
    } while (!BatchEndsAfter(i++) && i < w.events.size());
    (*service)->RunOnce();
    if (!(*service)->durable_status().ok()) _exit(4);
    const Ack ack{.next_event = i, .seq = (*service)->durable_seq()};
    if (write(ack_fd, &ack, sizeof(ack)) != static_cast<ssize_t>(sizeof(ack))) _exit(5);
  }
  _exit(0);
}

int64_t KillsWanted() {
  const char* text = std::getenv("ALLOCORE_CRASH_KILLS");
  const int64_t kills = text != nullptr ? std::atoll(text) : 0;
  return kills > 0 ? kills : 200;
}

TEST(CrashTest, KilledManagersLoseNoAcknowledgedEventAndEveryRestartIsExact) {
  const int64_t kills_wanted = KillsWanted();
  const Workload w = RandomWorkload(31, kills_wanted * 80 + 2000);
  ASSERT_GT(w.events.size(), static_cast<size_t>(kills_wanted) * 100);
  const fs::path dir =
      fs::path(::testing::TempDir()) / ("crash_test_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  absl::StatusOr<std::unique_ptr<Kernel>> reference = Kernel::Create(w.config, {});
  ASSERT_TRUE(reference.ok());
  std::vector<Decision> out;
  size_t reference_next = 0;  // where the next manager starts in the workload
  int64_t reference_seq = 0;  // events the reference accepted (the managers' numbering)
  std::mt19937_64 random(12345);
  int64_t kills = 0;
  int64_t restarts = 0;
  int64_t lost = 0;
  int64_t inside_file_creation = 0;
  int64_t acknowledged = 0;
  int64_t workloads_done = 0;
  const auto start = std::chrono::steady_clock::now();
  while (kills < kills_wanted) {
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      close(fds[0]);
      Manager(w, dir, reference_next, fds[1]);
    }
    close(fds[1]);
    Ack last{.next_event = reference_next, .seq = reference_seq};
    Ack ack{};
    // Half the kills come at any moment (inside restarts too, whatever the machine's speed),
    // half once the manager is ready to apply events.
    if (random() % 2 == 0 && read(fds[0], &ack, sizeof(ack)) == static_cast<ssize_t>(sizeof(ack))) {
      last.seq = std::max(last.seq, ack.seq);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(random() % 15000));
    kill(pid, SIGKILL);
    while (read(fds[0], &ack, sizeof(ack)) == static_cast<ssize_t>(sizeof(ack))) {
      if (ack.next_event != kReady) last = ack;
    }
    close(fds[0]);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    if (WIFEXITED(status)) {
      ASSERT_EQ(WEXITSTATUS(status), 0) << "the manager failed on its own";
      // The workload is done: start it over in a new directory (a fast disk gets through a
      // workload in fewer kills than asked for).
      fs::remove_all(dir);
      reference = Kernel::Create(w.config, {});
      ASSERT_TRUE(reference.ok());
      reference_next = 0;
      reference_seq = 0;
      ++workloads_done;
      continue;
    }
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    ++kills;
    acknowledged = std::max(acknowledged, last.seq);
    if (!fs::exists(dir)) continue;  // killed before it made its directory
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (entry.path().extension() == ".tmp") {
        ++inside_file_creation;
        break;
      }
    }
    RestartReport report;
    absl::StatusOr<std::unique_ptr<Kernel>> recovered =
        DurableKernel::Recover(dir.string(), &report);
    if (!recovered.ok() && recovered.status().code() == absl::StatusCode::kNotFound &&
        reference_seq == 0 && last.seq == 0) {
      continue;  // killed before the creation's first snapshot: nothing was acknowledged
    }
    ASSERT_TRUE(recovered.ok()) << "kill " << kills
                                << ": the restart failed: " << recovered.status();
    ++restarts;
    if (report.recovered_seq < last.seq) ++lost;
    ASSERT_GE(report.recovered_seq, last.seq)
        << "kill " << kills << ": acknowledged events were lost";
    ASSERT_GE(report.recovered_seq, reference_seq) << "kill " << kills << ": the state went back";
    // The uninterrupted run after the same events: the manager's batches from where it
    // started, each ended by a Schedule(0), up to the recovered event.
    bool batch_open = false;
    while (reference_seq < report.recovered_seq) {
      out.clear();
      if (batch_open && (BatchEndsAfter(reference_next - 1) || reference_next == w.events.size())) {
        ASSERT_TRUE(ApplyEvent(**reference, ScheduleEvent{}, &out).ok());
        ++reference_seq;
        batch_open = false;
        continue;
      }
      ASSERT_LT(reference_next, w.events.size());
      if (ApplyEvent(**reference, w.events[reference_next++], &out).ok()) ++reference_seq;
      batch_open = true;
    }
    ASSERT_EQ(QueryDigest(**recovered), QueryDigest(**reference))
        << "kill " << kills << ": the restarted kernel differs after event " << reference_seq;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "crash harness: %lld kills (%lld inside a checkpoint's or restart's file creation), %lld "
      "restarts checked, highest acknowledged event %lld, %lld acknowledged events lost, in %.1f "
      "s\n",
      static_cast<long long>(kills), static_cast<long long>(inside_file_creation),
      static_cast<long long>(restarts), static_cast<long long>(acknowledged),
      static_cast<long long>(lost), seconds);
  EXPECT_EQ(kills, kills_wanted);
  EXPECT_EQ(lost, 0);
  EXPECT_GT(acknowledged + workloads_done, 0) << "no manager acknowledged anything";
  EXPECT_GT(inside_file_creation, 0) << "no kill landed inside a snapshot or log creation";
}

}  // namespace
}  // namespace allocore::adapters
