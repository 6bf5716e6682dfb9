// A manager's restart with nothing lost: the live kernel is snapshotted, a new event log is
// recorded from that point, the process "dies"; the restarted manager restores the snapshot and
// replays the log (`allocore run LOG --from-snapshot FILE` does the same), and the decisions it
// gets are the ones the live kernel made after the snapshot, byte for byte. On random churn
// with config reloads (both profiles) and on the real Alibaba trace.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "adapters/recording_test_util.h"
#include "allocore/adapters/alibaba_trace.h"
#include "allocore/adapters/event_log.h"
#include "allocore/adapters/event_recorder.h"
#include "allocore/adapters/scenario.h"
#include "allocore/events.h"
#include "allocore/kernel.h"
#include "gtest/gtest.h"
#include "support/scenarios.h"

namespace allocore::adapters {
namespace {

namespace fs = std::filesystem;
using testing_util::DecisionCollector;
using testing_util::DecisionLines;
using testing_util::EventsOf;

// Runs `scenario` live, snapshots after `cut` events and records the rest; then restores and
// replays the recording. Returns the live decisions after the cut and the restarted ones.
std::pair<std::string, std::string> LiveAndRestarted(const Scenario& scenario, size_t cut,
                                                     const std::string& log_path) {
  KernelOptions options{.semantics = scenario.semantics};
  auto live = Kernel::Create(scenario.config, options);
  EXPECT_TRUE(live.ok()) << live.status();
  const std::vector<Event> events = EventsOf(scenario);
  std::vector<Decision> out;
  for (size_t i = 0; i < cut && i < events.size(); ++i) (void)ApplyEvent(**live, events[i], &out);
  const std::string snapshot = (*live)->Snapshot();
  auto recorder = EventRecorder::Create(log_path, scenario.config, options);
  EXPECT_TRUE(recorder.ok()) << recorder.status();
  out.clear();
  for (size_t i = cut; i < events.size(); ++i) (void)(*recorder)->Apply(**live, events[i], &out);
  EXPECT_TRUE((*recorder)->Close().ok());
  const std::string live_lines = DecisionLines(out, **live);

  // The restart: the snapshot, then the log recorded since.
  std::string log;
  {
    std::FILE* file = std::fopen(log_path.c_str(), "rb");
    char block[1 << 16];
    size_t n = 0;
    while (file != nullptr && (n = std::fread(block, 1, sizeof(block), file)) > 0) {
      log.append(block, n);
    }
    if (file != nullptr) std::fclose(file);
  }
  absl::StatusOr<EventLogContents> recorded = ReadEventLog(log, log_path);
  EXPECT_TRUE(recorded.ok()) << recorded.status();
  if (!recorded.ok()) return {live_lines, ""};
  RunOptions run_options;
  run_options.from_snapshot = &snapshot;
  run_options.keep_allocations = false;
  DecisionCollector restarted;
  absl::StatusOr<RunResult> run = RunScenario(recorded->scenario, run_options, &restarted);
  EXPECT_TRUE(run.ok()) << run.status();
  if (run.ok()) {
    EXPECT_TRUE(run->kernel->CheckConsistency().ok());
  }
  return {live_lines, restarted.lines};
}

class SnapshotRestartTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        fs::temp_directory_path() /
        ("allocore-restart-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
         "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(SnapshotRestartTest, RandomChurnWithReloadsUnderBothProfiles) {
  int64_t compared = 0;
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    absl::StatusOr<Scenario> scenario = test_support::LoadGeneratedScenario(
        {.seed = seed, .steps = 400},
        {.semantics = seed % 2 == 0 ? Semantics::kYunikorn19 : Semantics::kYunikorn12});
    ASSERT_TRUE(scenario.ok()) << scenario.status();
    const size_t events = EventsOf(*scenario).size();
    for (size_t cut : {size_t{0}, events / 3, events / 2, events - 1}) {
      auto [live, restarted] =
          LiveAndRestarted(*scenario, cut, (dir_ / ("log-" + std::to_string(cut))).string());
      ASSERT_EQ(restarted, live) << "seed " << seed << ", snapshot after event " << cut;
      compared += static_cast<int64_t>(live.size());
    }
  }
  EXPECT_GT(compared, 100'000);  // bytes of decision lines
}

TEST_F(SnapshotRestartTest, TheRealTraceHalfway) {
  const std::string trace = ALLOCORE_SOURCE_DIR "/data/alibaba-gpu-v2023";
  ASSERT_TRUE(fs::exists(trace + "/openb_pod_list_default.csv")) << trace << " is missing";
  std::FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  ASSERT_TRUE(WriteAlibabaScenario({.data_dir = trace}, file).ok());
  std::rewind(file);
  std::string text;
  char block[1 << 16];
  size_t n = 0;
  while ((n = std::fread(block, 1, sizeof(block), file)) > 0) text.append(block, n);
  std::fclose(file);
  absl::StatusOr<Scenario> scenario = LoadScenarioText(text, "alibaba.yaml");
  ASSERT_TRUE(scenario.ok()) << scenario.status();
  const size_t events = EventsOf(*scenario).size();
  auto [live, restarted] = LiveAndRestarted(*scenario, events / 2, (dir_ / "trace.alog").string());
  EXPECT_GT(live.size(), 100'000u);
  EXPECT_TRUE(restarted == live) << "the restarted kernel decided differently";
}

}  // namespace
}  // namespace allocore::adapters
