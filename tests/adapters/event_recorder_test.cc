// Recording (allocore/adapters/event_recorder.h): every scenario of the repository and of the
// shared suite, driven call by call through a RecordingKernel, replays from its recorded log
// with the decisions the live kernel made, byte for byte; events by handle replay as the same
// calls by name; a log cut mid-frame (a crash) replays up to the last whole frame; a log that
// cannot be written is reported, naming its path.
#include "allocore/adapters/event_recorder.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "adapters/recording_test_util.h"
#include "allocore/adapters/decision_format.h"
#include "allocore/adapters/event_log.h"
#include "allocore/adapters/scenario.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/configs.h"
#include "support/files.h"
#include "support/scenarios.h"

namespace allocore::adapters {
namespace {

namespace fs = std::filesystem;
using test_support::ReadFile;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using testing_util::CheckedReplay;
using testing_util::DecisionLines;
using testing_util::ReplayDecisions;

fs::path TempLog(const std::string& name) { return fs::path(::testing::TempDir()) / name; }

// Drives the scenario's calls through a RecordingKernel as a manager would: its nodes, then,
// for every step, the runner's 1 ms tick and the step's call (probes are questions, not calls).
// Returns the live kernel's decisions as JSON lines.
std::string DriveLive(const Scenario& scenario, const fs::path& log,
                      const EventRecorderOptions& options = {}) {
  absl::StatusOr<std::unique_ptr<RecordingKernel>> kernel = RecordingKernel::Create(
      scenario.config, {.semantics = scenario.semantics}, log.string(), options);
  if (!kernel.ok()) return "create refused: " + std::string(kernel.status().message());
  std::vector<Decision> out;
  std::string lines;
  for (const Event& event : testing_util::EventsOf(scenario)) {
    (*kernel)->Apply(event, &out).IgnoreError();
    lines += DecisionLines(out, (*kernel)->kernel());
    out.clear();
  }
  EXPECT_TRUE((*kernel)->Close().ok()) << (*kernel)->recording_status();
  return lines;
}

// A conformance scenario driven live through a RecordingKernel (DriveLive).
struct LiveRecording {
  fs::path file;
  Scenario scenario;
  std::string live;  // the live kernel's decisions
  fs::path log;      // its recording
};

// Every conformance scenario that loads (those of refused inputs have no kernel to record), each
// recorded to a log of its own whose name starts with `prefix`.
std::vector<LiveRecording> RecordEveryScenario(const std::string& prefix) {
  std::vector<LiveRecording> recordings;
  for (const fs::path& file : test_support::ConformanceScenarioFiles()) {
    absl::StatusOr<Scenario> scenario = LoadScenarioFile(file.string());
    if (!scenario.ok()) continue;
    LiveRecording& r = recordings.emplace_back(LiveRecording{.file = file, .scenario = *scenario});
    r.log = TempLog(prefix + "-" + std::to_string(recordings.size()) + ".alog");
    r.live = DriveLive(r.scenario, r.log);
  }
  return recordings;
}

SchedulerConfig TwoQueues() { return test_support::RootWith(test_support::Leaves({"a", "b"})); }

// Records `events`, each of which the kernel must accept, to `log` with a kernel over one leaf,
// root.a; the types of the decisions they made.
std::vector<DecisionType> RecordOnRootA(const fs::path& log, const std::vector<Event>& events) {
  std::vector<DecisionType> types;
  absl::StatusOr<std::unique_ptr<RecordingKernel>> kernel = RecordingKernel::Create(
      test_support::RootWith(test_support::Leaves({"a"})), {}, log.string());
  EXPECT_TRUE(kernel.ok()) << kernel.status();
  if (!kernel.ok()) return types;
  std::vector<Decision> out;
  for (const Event& event : events) {
    const absl::Status applied = (*kernel)->Apply(event, &out);
    EXPECT_TRUE(applied.ok()) << applied;
  }
  for (const Decision& decision : out) types.push_back(decision.type);
  EXPECT_TRUE((*kernel)->Close().ok()) << (*kernel)->recording_status();
  return types;
}

TEST(EventRecorderTest, EveryScenarioRecordedLiveReplaysWithTheSameDecisions) {
  const std::vector<LiveRecording> recordings = RecordEveryScenario("event_recorder_test");
  ASSERT_GT(recordings.size(), 30u) << "tests/scenarios is missing";
  int recorded = 0;
  for (const auto& [file, scenario, live, log] : recordings) {
    absl::StatusOr<EventLogContents> read = ReadEventLog(ReadFile(log), "recorded.alog");
    ASSERT_TRUE(read.ok()) << file << ": " << read.status();
    EXPECT_TRUE(read->warnings.empty()) << file;
    EXPECT_EQ(read->scenario.clock, StepClock::kAdvanceStepsOnly);
    EXPECT_EQ(ReplayDecisions(read->scenario), live) << file;
    ++recorded;
  }
  EXPECT_GT(recorded, 30);
}

TEST(EventRecorderTest, GeneratedWorkloadsRecordedLiveReplayWithTheSameDecisions) {
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    absl::StatusOr<Scenario> scenario = test_support::LoadGeneratedScenario({.seed = seed});
    ASSERT_TRUE(scenario.ok()) << scenario.status();
    const fs::path log = TempLog("event_recorder_random.alog");
    // Buffered: frames leave in blocks, and Close() writes the rest.
    const std::string live = DriveLive(*scenario, log, {.buffer_bytes = 4096});
    ASSERT_FALSE(live.empty());
    absl::StatusOr<EventLogContents> read = ReadEventLog(ReadFile(log), "random.alog");
    ASSERT_TRUE(read.ok()) << read.status();
    EXPECT_EQ(ReplayDecisions(read->scenario), live) << "seed " << seed;
  }
}

TEST(EventRecorderTest, AWriterThatForgetsNamesWritesThemAgainAndReplaysTheSame) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    absl::StatusOr<Scenario> scenario = test_support::LoadGeneratedScenario({.seed = seed});
    ASSERT_TRUE(scenario.ok()) << scenario.status();
    const fs::path remembering = TempLog("event_recorder_names_all.alog");
    const fs::path forgetting = TempLog("event_recorder_names_few.alog");
    const std::string live = DriveLive(*scenario, remembering, {.max_remembered_names = 0});
    // Three names at most: the partition and the resource types come back again and again.
    EXPECT_EQ(DriveLive(*scenario, forgetting, {.max_remembered_names = 3}), live);
    const std::string all = ReadFile(remembering);
    const std::string few = ReadFile(forgetting);
    EXPECT_GT(few.size(), all.size()) << "names written again";
    absl::StatusOr<EventLogContents> read = ReadEventLog(few, "few.alog");
    ASSERT_TRUE(read.ok()) << read.status();
    EXPECT_EQ(ReplayDecisions(read->scenario), live) << "seed " << seed;
  }
}

TEST(EventRecorderTest, EventsByHandleAreRecordedAsTheSameCallsByName) {
  const fs::path log = TempLog("event_recorder_handles.alog");
  absl::StatusOr<std::unique_ptr<RecordingKernel>> made =
      RecordingKernel::Create(TwoQueues(), {.max_live_allocations = 50}, log.string());
  ASSERT_TRUE(made.ok()) << made.status();
  RecordingKernel& kernel = **made;
  std::vector<Decision> out;
  // n1 holds one x at most: x lands on n2 too.
  ASSERT_TRUE(
      kernel.Apply(NodeSpec{.id = "n1", .capacity = {{"memory", 20}, {"vcore", 8000}}}, &out).ok());
  ASSERT_TRUE(kernel.Apply(NodeSpec{.id = "n2", .capacity = {{"memory", 100}}}, &out).ok());
  ASSERT_TRUE(kernel.Apply(AppSpec{.id = "app", .queue = "root.a", .user = "u"}, &out).ok());
  ASSERT_TRUE(kernel.Apply(AppSpec{.id = "other", .queue = "root.b", .user = "u"}, &out).ok());
  const PartitionHandle partition = *kernel.kernel().FindPartition("default");
  const AppHandle app = *kernel.kernel().FindApplication(partition, "app");
  const AppHandle other = *kernel.kernel().FindApplication(partition, "other");
  const NodeHandle n2 = *kernel.kernel().FindNode(partition, "n2");
  const int memory = *kernel.ResourceTypeId("memory");
  const int gpu = *kernel.ResourceTypeId("gpu");  // registered here, first named by an event
  BasicAskArgs<std::string> ask{.id = "x", .count = 4};
  ask.resources.Set(memory, 20);
  ASSERT_TRUE(kernel.Apply(AddAskByHandleEvent{.app = app, .ask = ask}, &out).ok());
  BasicAskArgs<std::string> gpu_ask{.id = "g", .priority = 5};
  gpu_ask.resources.Set(gpu, 0);
  gpu_ask.resources.Set(memory, 10);
  ASSERT_TRUE(kernel.Apply(AddAskByHandleEvent{.app = other, .ask = gpu_ask}, &out).ok());
  ASSERT_TRUE(kernel.Schedule(0, "", &out).ok());
  const AskHandle x = *kernel.kernel().FindAsk(app, "x");
  ASSERT_TRUE(kernel.Apply(ReleaseByHandleEvent{.ask = x, .node = n2}, &out).ok());
  ASSERT_TRUE(kernel.Advance(1000, &out).ok());
  ASSERT_TRUE(kernel.Apply(RemoveAskByHandleEvent{.ask = x}, &out).ok());
  ASSERT_TRUE(kernel.Apply(RemoveNodeByHandleEvent{.node = n2}, &out).ok());
  ASSERT_TRUE(kernel.Apply(RemoveApplicationByHandleEvent{.app = other}, &out).ok());
  // Refused (a stale handle, an unknown app): nothing changes, nothing is recorded.
  EXPECT_FALSE(kernel.Apply(RemoveNodeByHandleEvent{.node = n2}, &out).ok());
  EXPECT_FALSE(kernel.Apply(RemoveApplicationEvent{.id = "nobody"}, &out).ok());
  ASSERT_TRUE(kernel.Schedule(0, "", &out).ok());
  const std::string live = DecisionLines(out, kernel.kernel());
  EXPECT_EQ(kernel.recorder().steps(), 13);
  ASSERT_TRUE(kernel.Close().ok()) << kernel.recording_status();

  absl::StatusOr<EventLogContents> read = ReadEventLog(ReadFile(log), "handles.alog");
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_TRUE(read->warnings.empty());
  EXPECT_EQ(read->scenario.budgets.max_live_allocations, 50);
  ASSERT_EQ(read->scenario.steps.size(), 13u);
  const auto* release = std::get_if<ReleaseStep>(&read->scenario.steps[7].action);
  ASSERT_NE(release, nullptr);
  EXPECT_EQ(release->app, "app");
  EXPECT_EQ(release->ask, "x");
  EXPECT_EQ(release->node, "n2");
  const auto* added = std::get_if<AskSpec>(&read->scenario.steps[5].action);
  ASSERT_NE(added, nullptr);
  EXPECT_EQ(added->app, "other");
  EXPECT_EQ(added->priority, 5);
  EXPECT_EQ(added->resources, (Quantities{{"memory", 10}, {"gpu", 0}}));
  EXPECT_THAT(live, HasSubstr("\"type\":\"release\""));
  EXPECT_EQ(ReplayDecisions(read->scenario), live);
}

TEST(EventRecorderTest, TheReplayClockIsTheRecordedKernelsClock) {
  // Placeholders that time out after 5 ms, then many calls within 1 ms of logical time: a
  // replay that ticked before every step (as scenario files do) would time them out.
  const fs::path log = TempLog("event_recorder_clock.alog");
  absl::StatusOr<std::unique_ptr<RecordingKernel>> made =
      RecordingKernel::Create(TwoQueues(), {}, log.string());
  ASSERT_TRUE(made.ok()) << made.status();
  RecordingKernel& kernel = **made;
  std::vector<Decision> out;
  ASSERT_TRUE(kernel.Apply(NodeSpec{.id = "n0", .capacity = {{"memory", 100}}}, &out).ok());
  ASSERT_TRUE(
      kernel
          .Apply(
              AppSpec{
                  .id = "gang", .queue = "root.a", .user = "u", .placeholder_timeout_millis = 5},
              &out)
          .ok());
  ASSERT_TRUE(kernel
                  .Apply(AskSpec{.app = "gang",
                                 .id = "ph",
                                 .resources = {{"memory", 10}},
                                 .count = 2,
                                 .task_group = "tg",
                                 .placeholder = true},
                         &out)
                  .ok());
  ASSERT_TRUE(kernel.Schedule(0, "", &out).ok());
  for (int i = 1; i <= 10; ++i) {
    ASSERT_TRUE(
        kernel.Apply(NodeSpec{.id = "n" + std::to_string(i), .capacity = {{"memory", 1}}}, &out)
            .ok());
  }
  ASSERT_TRUE(kernel.Advance(1, &out).ok());
  ASSERT_TRUE(kernel.Schedule(0, "", &out).ok());
  const std::string live = DecisionLines(out, kernel.kernel());
  ASSERT_TRUE(kernel.Close().ok()) << kernel.recording_status();
  EXPECT_THAT(live, Not(HasSubstr("timeout")));

  absl::StatusOr<EventLogContents> read = ReadEventLog(ReadFile(log), "clock.alog");
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(ReplayDecisions(read->scenario), live);
  Scenario ticking = read->scenario;
  ticking.clock = StepClock::kTickBeforeEachStep;
  EXPECT_NE(ReplayDecisions(ticking), live) << "the test does not depend on the clock";
}

// CRC-32C bit by bit, as the format document defines it (the writer uses a table or the CPU's
// crc32 instruction: both must give this).
uint32_t ReferenceCrc32c(std::string_view bytes) {
  uint32_t crc = 0xffffffffu;
  for (char ch : bytes) {
    crc ^= static_cast<uint8_t>(ch);
    for (int k = 0; k < 8; ++k) crc = (crc & 1) != 0 ? 0x82F63B78u ^ (crc >> 1) : crc >> 1;
  }
  return crc ^ 0xffffffffu;
}

TEST(EventRecorderTest, EveryFrameCarriesTheCrc32cOfItsPayload) {
  ASSERT_EQ(ReferenceCrc32c("123456789"), 0xE3069283u);  // the standard check value
  absl::StatusOr<Scenario> scenario = test_support::LoadGeneratedScenario({.seed = 5});
  ASSERT_TRUE(scenario.ok()) << scenario.status();
  const fs::path log = TempLog("event_recorder_crc.alog");
  ASSERT_FALSE(DriveLive(*scenario, log).empty());
  const std::string bytes = ReadFile(log);
  auto u32 = [&](size_t at) {
    uint32_t v = 0;
    for (size_t i = 0; i < 4; ++i)
      v |= static_cast<uint32_t>(static_cast<uint8_t>(bytes[at + i])) << (8 * i);
    return v;
  };
  size_t at = 16;
  int frames = 0;
  while (at + 8 <= bytes.size()) {
    const uint32_t length = u32(at);
    ASSERT_LE(at + 8 + length, bytes.size());
    ASSERT_EQ(u32(at + 4), ReferenceCrc32c(std::string_view(bytes).substr(at + 8, length)))
        << "frame at offset " << at;
    at += 8 + length;
    ++frames;
  }
  EXPECT_EQ(at, bytes.size());
  EXPECT_GT(frames, 100);
}

TEST(EventRecorderTest, ALogCutMidFrameReplaysUpToTheLastWholeFrame) {
  absl::StatusOr<Scenario> scenario = test_support::LoadGeneratedScenario({.seed = 3});
  ASSERT_TRUE(scenario.ok()) << scenario.status();
  const fs::path log = TempLog("event_recorder_cut.alog");
  const std::string live = DriveLive(*scenario, log);
  const std::string bytes = ReadFile(log);
  absl::StatusOr<EventLogContents> whole = ReadEventLog(bytes, "whole.alog");
  ASSERT_TRUE(whole.ok()) << whole.status();
  // A crash while the writer was in the middle of a frame near the end: the cut lands inside
  // the frame that starts at 90 % of the log or after (the frames' offsets depend on the log's
  // path, which its header holds).
  size_t frame = 16;
  while (frame < bytes.size() * 9 / 10) {
    uint32_t length = 0;
    for (size_t i = 0; i < 4; ++i) {
      length |= static_cast<uint32_t>(static_cast<uint8_t>(bytes[frame + i])) << (8 * i);
    }
    frame += 8 + length;
  }
  ASSERT_LT(frame + 5, bytes.size());
  const std::string cut = bytes.substr(0, frame + 5);
  absl::StatusOr<EventLogContents> read = ReadEventLog(cut, "crashed.alog");
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_FALSE(read->warnings.empty());
  EXPECT_THAT(read->warnings[0], HasSubstr("crashed.alog: offset "));
  EXPECT_THAT(read->warnings[0], HasSubstr("cut short"));
  EXPECT_LT(read->scenario.steps.size(), whole->scenario.steps.size());
  EXPECT_GT(read->scenario.steps.size(), whole->scenario.steps.size() / 2);
  const std::string replayed = ReplayDecisions(read->scenario);
  ASSERT_FALSE(replayed.empty());
  EXPECT_TRUE(live.starts_with(replayed)) << "the replay of a cut log is a prefix of the run";
}

TEST(EventRecorderTest, ALogThatCannotBeWrittenIsReportedNamingItsPath) {
  absl::StatusOr<std::unique_ptr<RecordingKernel>> missing =
      RecordingKernel::Create(TwoQueues(), {}, "/nonexistent-directory/k.alog");
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(std::string(missing.status().message()),
              HasSubstr("/nonexistent-directory/k.alog: cannot create the event log"));
  if (fs::exists("/dev/full")) {
    // Every write fails (ENOSPC): the header cannot be written.
    absl::StatusOr<std::unique_ptr<EventRecorder>> full =
        EventRecorder::Create("/dev/full", TwoQueues(), {});
    ASSERT_FALSE(full.ok());
    EXPECT_THAT(std::string(full.status().message()),
                HasSubstr("/dev/full: writing the event log"));
  }
}

TEST(EventRecorderTest, AFailedWriteStopsTheRecordingAndTheKernelGoesOn) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  // The header goes to a file; the events go to /dev/full, as a disk that filled up would.
  const fs::path log = TempLog("event_recorder_full.alog");
  absl::StatusOr<std::unique_ptr<RecordingKernel>> made =
      RecordingKernel::Create(TwoQueues(), {}, log.string());
  ASSERT_TRUE(made.ok()) << made.status();
  RecordingKernel& kernel = **made;
  ASSERT_TRUE(testing_util::RedirectOpenFileForTest(log.string(), "/dev/full"));
  std::vector<Decision> out;
  EXPECT_TRUE(kernel.Apply(NodeSpec{.id = "n1", .capacity = {{"memory", 100}}}, &out).ok());
  ASSERT_FALSE(kernel.recording_status().ok());
  EXPECT_THAT(std::string(kernel.recording_status().message()),
              HasSubstr("event_recorder_full.alog: writing the event log failed: "));
  EXPECT_THAT(std::string(kernel.recording_status().message()),
              HasSubstr("recording stopped after 0 events"));
  EXPECT_TRUE(kernel.Apply(AppSpec{.id = "app", .queue = "root.a", .user = "u"}, &out).ok());
  EXPECT_EQ(kernel.recorder().steps(), 0);
  EXPECT_FALSE(kernel.Close().ok());
}

// ---- decision digests (event log version 3) ----------------------------------------------------

// Each step's decisions of a run as JSON lines (with the step number), less what the digest
// leaves out (a rejection's message), and its refusals.
class DecisionsByStep : public RunObserver {
 public:
  void OnRecord(const Record& record, const Kernel& kernel) override {
    if (record.type == RecordType::kError) {
      steps[record.step] += "refused: " + std::string(record.message) + "\n";
      return;
    }
    if (record.decision == nullptr) return;
    Decision decision = *record.decision;
    decision.reason.clear();
    Record copy = record;
    copy.decision = &decision;
    copy.types = &kernel.resource_types();
    AppendJsonLine(copy, &steps[record.step]);
  }
  std::map<int64_t, std::string> steps;
};

// The first step whose decisions differ between two runs (0: none).
int64_t FirstDifferentStep(const DecisionsByStep& a, const DecisionsByStep& b) {
  std::set<int64_t> steps;
  for (const auto& [step, lines] : a.steps) steps.insert(step);
  for (const auto& [step, lines] : b.steps) steps.insert(step);
  for (int64_t step : steps) {
    auto x = a.steps.find(step);
    auto y = b.steps.find(step);
    if (x == a.steps.end() || y == b.steps.end() || x->second != y->second) return step;
  }
  return 0;
}

// The frames of a log (header, length, CRC and payload each), after its 16-byte file header.
std::vector<std::string> Frames(const std::string& log) {
  std::vector<std::string> frames;
  size_t at = 16;
  while (at + 8 <= log.size()) {
    uint32_t length = 0;
    for (size_t i = 0; i < 4; ++i) {
      length |= static_cast<uint32_t>(static_cast<uint8_t>(log[at + i])) << (8 * i);
    }
    frames.push_back(log.substr(at, 8 + length));
    at += 8 + length;
  }
  return frames;
}
constexpr char kStepRecord = 5;
constexpr char kEndRecord = 6;
constexpr char kDigestRecord = 7;

// CRC-32C bit by bit, from its definition (the frames' checksum).
uint32_t Crc32cBitwise(std::string_view bytes) {
  uint32_t reg = 0xffffffffu;
  for (char c : bytes) {
    reg ^= static_cast<uint8_t>(c);
    for (int bit = 0; bit < 8; ++bit) reg = (reg & 1u) != 0 ? (reg >> 1) ^ 0x82f63b78u : reg >> 1;
  }
  return ~reg;
}

// A frame holding `payload`, its length and checksum right.
std::string Frame(std::string_view payload) {
  std::string frame;
  const auto length = static_cast<uint32_t>(payload.size());
  const uint32_t crc = Crc32cBitwise(payload);
  for (int i = 0; i < 4; ++i) frame.push_back(static_cast<char>((length >> (8 * i)) & 0xff));
  for (int i = 0; i < 4; ++i) frame.push_back(static_cast<char>((crc >> (8 * i)) & 0xff));
  frame.append(payload);
  return frame;
}

std::string Splice(const std::string& log, const std::vector<std::string>& frames) {
  std::string out = log.substr(0, 16);
  for (const std::string& f : frames) out += f;
  return out;
}

TEST(EventRecorderTest, EveryScenarioRecordedLivePassesItsDecisionDigests) {
  int checked = 0;
  for (const auto& [file, scenario, live, log] : RecordEveryScenario("event_recorder_digests")) {
    absl::StatusOr<EventLogContents> read = ReadEventLog(ReadFile(log), "recorded.alog");
    ASSERT_TRUE(read.ok()) << file << ": " << read.status();
    ASSERT_TRUE(read->scenario.decision_digests) << file;
    absl::StatusOr<RunResult> run = CheckedReplay(read->scenario);
    ASSERT_TRUE(run.ok()) << file << ": " << run.status();
    EXPECT_FALSE(run->digest_divergence) << file << ": step " << run->digest_divergence->step;
    EXPECT_EQ(run->digests_checked, run->steps_run) << file;
    // Streamed from the file, as `allocore run LOG --check` reads it, the same.
    std::vector<std::string> warnings;
    absl::StatusOr<std::unique_ptr<ScenarioStream>> stream =
        OpenEventLogStream(log.string(), {}, &warnings);
    ASSERT_TRUE(stream.ok()) << stream.status();
    absl::StatusOr<RunResult> streamed = CheckedReplay(**stream);
    ASSERT_TRUE(streamed.ok()) << streamed.status();
    EXPECT_FALSE(streamed->digest_divergence) << file;
    EXPECT_EQ(streamed->digests_checked, streamed->steps_run) << file;
    // Packed again, a read log keeps its digests.
    absl::StatusOr<EventLogContents> repacked =
        ReadEventLog(PackScenario(read->scenario), "repacked.alog");
    ASSERT_TRUE(repacked.ok()) << repacked.status();
    absl::StatusOr<RunResult> again = CheckedReplay(repacked->scenario);
    ASSERT_TRUE(again.ok());
    EXPECT_FALSE(again->digest_divergence) << file;
    ++checked;
  }
  EXPECT_GT(checked, 30);
}

// Replayed under the other profile, a recording fails its digests exactly at the first step
// whose decisions differ; a replay that decides the same passes.
TEST(EventRecorderTest, AReplayUnderTheOtherProfileFailsAtTheFirstStepThatDecidesDifferently) {
  int diverged = 0;
  for (const auto& [file, scenario, live, log] : RecordEveryScenario("event_recorder_profile")) {
    const std::string bytes = ReadFile(log);
    absl::StatusOr<EventLogContents> same = ReadEventLog(bytes, "recorded.alog");
    const Semantics other = scenario.semantics == Semantics::kYunikorn12 ? Semantics::kYunikorn19
                                                                         : Semantics::kYunikorn12;
    absl::StatusOr<EventLogContents> moved =
        ReadEventLog(bytes, "recorded.alog", {.semantics = other});
    ASSERT_TRUE(same.ok()) << file << ": " << same.status();
    if (!moved.ok()) continue;  // a config the other profile refuses (its names, say)
    DecisionsByStep recorded;
    DecisionsByStep replayed;
    absl::StatusOr<RunResult> a = CheckedReplay(same->scenario, &recorded);
    absl::StatusOr<RunResult> b = CheckedReplay(moved->scenario, &replayed);
    if (!a.ok() || !b.ok()) continue;  // a config the other profile refuses
    const int64_t first = FirstDifferentStep(recorded, replayed);
    if (first == 0) {
      EXPECT_FALSE(b->digest_divergence) << file;
      continue;
    }
    ASSERT_TRUE(b->digest_divergence) << file << ": the decisions differ from step " << first;
    EXPECT_EQ(b->digest_divergence->step, first) << file;
    EXPECT_EQ(b->digests_checked, first - 1) << file;
    ++diverged;
  }
  EXPECT_GT(diverged, 3) << "no scenario decides differently under the two profiles";
}

// One event of a recording edited (an ask asks for more than the node has): the replay
// diverges at the first step after it that decides differently, the schedule that no longer
// places the ask, and the check names that step.
TEST(EventRecorderTest, AnEditedEventFailsTheDigestsAtTheFirstStepThatDecidesDifferently) {
  auto scenario_with = [](int slots) {
    absl::StatusOr<Scenario> s =
        LoadScenarioText(test_support::OneNodeScenario("[{name: a}]", R"(
  - add_app: {id: x, queue: root.a, user: u}
  - add_ask: {app: x, id: k1, resources: {slots: 2}}
  - schedule: {}
  - add_ask: {app: x, id: k2, resources: {slots: )" + std::to_string(slots) +
                                                                          R"(}}
  - schedule: {}
  - release: {app: x, ask: k1}
  - schedule: {}
)"),
                         "edited.yaml");
    EXPECT_TRUE(s.ok()) << s.status();
    return *s;
  };
  const fs::path original_log = TempLog("event_recorder_original.alog");
  const fs::path edited_log = TempLog("event_recorder_edited.alog");
  DriveLive(scenario_with(4), original_log);
  DriveLive(scenario_with(40), edited_log);
  const std::string original = ReadFile(original_log);
  const std::string edited = ReadFile(edited_log);
  // The original's frames with the edited log's add_ask k2 in place of its own. A live drive
  // records the node (step 1), then every scenario step after its 1 ms advance: add_ask k2 is
  // step 9, the schedule after it step 11.
  std::vector<std::string> frames = Frames(original);
  const std::vector<std::string> edited_frames = Frames(edited);
  int steps = 0;
  int edited_steps = 0;
  std::string replacement;
  for (const std::string& frame : edited_frames) {
    if (frame[8] == kStepRecord && ++edited_steps == 9) replacement = frame;
  }
  ASSERT_FALSE(replacement.empty());
  std::string spliced = original.substr(0, 16);
  for (std::string& frame : frames) {
    if (frame[8] == kStepRecord && ++steps == 9) {
      ASSERT_NE(frame, replacement);
      frame = replacement;
    }
    spliced += frame;
  }
  absl::StatusOr<EventLogContents> read = ReadEventLog(spliced, "spliced.alog");
  ASSERT_TRUE(read.ok()) << read.status();
  absl::StatusOr<RunResult> run = CheckedReplay(read->scenario);
  ASSERT_TRUE(run.ok());
  ASSERT_TRUE(run->digest_divergence);
  // The recording allocated k2 at step 11; the edited replay does not.
  EXPECT_EQ(run->digest_divergence->step, 11);
  EXPECT_EQ(run->digest_divergence->kind, StepKind::kSchedule);
  EXPECT_TRUE(run->digest_divergence->digest_offset.has_value());
  EXPECT_EQ(run->digests_checked, 10);
  // The untouched log passes.
  absl::StatusOr<EventLogContents> whole = ReadEventLog(original, "original.alog");
  ASSERT_TRUE(whole.ok());
  absl::StatusOr<RunResult> clean = CheckedReplay(whole->scenario);
  ASSERT_TRUE(clean.ok());
  EXPECT_FALSE(clean->digest_divergence);
}

// The digest as docs/event-log-format.md defines it, computed here from its text alone: a
// bitwise CRC-32C over each decision's encoding, one after the other.
class DocumentedDigest {
 public:
  void Add(const Decision& d) {
    Byte(static_cast<uint8_t>(d.type));
    for (std::string_view text : {d.partition, d.queue, d.app, d.ask, d.node}) Text(text);
    Signed(d.priority);
    Signed(d.seq);
    Byte(static_cast<uint8_t>(d.from));
    Byte(static_cast<uint8_t>(d.to));
    Byte(static_cast<uint8_t>(d.release_reason));
    Byte(d.placeholder ? 1 : 0);
    for (std::string_view text : {d.replaces, d.by_app, d.by_ask}) Text(text);
    Signed(d.count);
    ++count;
  }
  uint32_t value() const { return ~reg_; }
  int64_t count = 0;

 private:
  void Byte(uint8_t b) {
    reg_ ^= b;
    for (int bit = 0; bit < 8; ++bit)
      reg_ = (reg_ & 1u) != 0 ? (reg_ >> 1) ^ 0x82f63b78u : reg_ >> 1;
  }
  void Varint(uint64_t v) {
    for (; v >= 0x80; v >>= 7) Byte(static_cast<uint8_t>((v & 0x7f) | 0x80));
    Byte(static_cast<uint8_t>(v));
  }
  void Signed(int64_t v) {
    Varint((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
  }
  void Text(std::string_view text) {
    Varint(text.size());
    for (char c : text) Byte(static_cast<uint8_t>(c));
  }
  uint32_t reg_ = 0xffffffffu;
};

TEST(EventRecorderTest, TheDigestRecordsHoldTheDocumentedDigestOfTheLiveDecisions) {
  absl::StatusOr<Scenario> scenario =
      LoadScenarioFile(ALLOCORE_SOURCE_DIR "/tests/scenarios/priority-tree.yaml");
  ASSERT_TRUE(scenario.ok()) << scenario.status();
  const fs::path log = TempLog("event_recorder_documented.alog");
  absl::StatusOr<std::unique_ptr<RecordingKernel>> kernel =
      RecordingKernel::Create(scenario->config, {.semantics = scenario->semantics}, log.string());
  ASSERT_TRUE(kernel.ok());
  // What the live kernel decided, as the documented digest after each recorded step.
  DocumentedDigest documented;
  std::vector<std::pair<int64_t, uint32_t>> after_step;  // per recorded step, in order
  std::vector<Decision> out;
  auto take = [&](const absl::Status& status) {
    if (!status.ok()) return;  // refused: not recorded, decided nothing
    for (const Decision& d : out) documented.Add(d);
    out.clear();
    after_step.emplace_back(documented.count, documented.value());
  };
  for (const Event& event : testing_util::EventsOf(*scenario)) take((*kernel)->Apply(event, &out));
  ASSERT_TRUE((*kernel)->Close().ok());
  ASSERT_GT(documented.count, 10);
  absl::StatusOr<EventLogContents> read = ReadEventLog(ReadFile(log), "documented.alog");
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_EQ(read->scenario.steps.size(), after_step.size());
  int64_t decided_before = 0;
  int digests = 0;
  for (size_t i = 0; i < after_step.size(); ++i) {
    const std::optional<RecordedDigest>& recorded = read->scenario.steps[i].recorded_digest;
    const auto [count, value] = after_step[i];
    // A digest record exactly where the step decided something, holding the documented value.
    EXPECT_EQ(recorded.has_value(), count > decided_before) << "step " << i + 1;
    if (recorded) {
      EXPECT_EQ(recorded->decisions, count) << "step " << i + 1;
      EXPECT_EQ(recorded->digest, value) << "step " << i + 1;
      ++digests;
    }
    decided_before = count;
  }
  EXPECT_GT(digests, 5);
}

// The recorder digests the decisions of the call it records, whatever the caller's vector
// held before, and makes its own when the caller passes none: the three logs are the same.
TEST(EventRecorderTest, TheDigestsDoNotDependOnTheCallersDecisionVector) {
  absl::StatusOr<Scenario> scenario =
      LoadScenarioFile(ALLOCORE_SOURCE_DIR "/tests/scenarios/priority-tree.yaml");
  ASSERT_TRUE(scenario.ok()) << scenario.status();
  enum class Vector { kClearedPerCall, kAccumulated, kNone };
  auto record = [&](Vector mode) {
    const fs::path log = TempLog("event_recorder_vector.alog");
    absl::StatusOr<std::unique_ptr<RecordingKernel>> kernel =
        RecordingKernel::Create(scenario->config, {.semantics = scenario->semantics}, log.string());
    EXPECT_TRUE(kernel.ok());
    std::vector<Decision> out;
    auto target = [&]() -> std::vector<Decision>* {
      if (mode == Vector::kNone) return nullptr;
      if (mode == Vector::kClearedPerCall) out.clear();
      return &out;
    };
    for (const Event& event : testing_util::EventsOf(*scenario)) {
      (*kernel)->Apply(event, target()).IgnoreError();
    }
    EXPECT_TRUE((*kernel)->Close().ok());
    if (mode == Vector::kAccumulated) {
      EXPECT_GT(out.size(), 10u);
    }
    return ReadFile(log);
  };
  const std::string cleared = record(Vector::kClearedPerCall);
  EXPECT_EQ(record(Vector::kAccumulated), cleared);
  EXPECT_EQ(record(Vector::kNone), cleared);
}

// A log whose first event decides (an application the queue does not admit): its digest record
// comes before step 1, which the streamed replay's second pass must start at.
TEST(EventRecorderTest, ADigestBeforeTheFirstStepIsReadByTheStream) {
  const fs::path log = TempLog("event_recorder_first.alog");
  EXPECT_THAT(RecordOnRootA(log, {AppSpec{.id = "x", .queue = "root.nope", .user = "u"},
                                  NodeSpec{.id = "n", .capacity = {{"slots", 4}}}}),
              ElementsAre(DecisionType::kAppRejected));
  const std::vector<std::string> frames = Frames(ReadFile(log));
  auto first = std::find_if(frames.begin(), frames.end(), [](const std::string& f) {
    return f[8] == kStepRecord || f[8] == kDigestRecord;
  });
  ASSERT_NE(first, frames.end());
  EXPECT_EQ((*first)[8], kDigestRecord);
  std::vector<std::string> warnings;
  absl::StatusOr<std::unique_ptr<ScenarioStream>> stream =
      OpenEventLogStream(log.string(), {}, &warnings);
  ASSERT_TRUE(stream.ok()) << stream.status();
  for (int pass = 0; pass < 2; ++pass) {  // the stream starts over for a second run
    absl::StatusOr<RunResult> run = CheckedReplay(**stream);
    ASSERT_TRUE(run.ok()) << run.status();
    EXPECT_FALSE(run->digest_divergence) << "pass " << pass;
    EXPECT_EQ(run->digests_checked, 2);
  }
}

// A step the replay's kernel refuses fails the check even when it decided nothing live: a
// recorded log holds only accepted events.
TEST(EventRecorderTest, AStepTheReplayRefusesFailsTheDigests) {
  const fs::path log = TempLog("event_recorder_refused.alog");
  EXPECT_THAT(RecordOnRootA(log, {NodeSpec{.id = "n", .capacity = {{"slots", 4}}}}), IsEmpty());
  absl::StatusOr<EventLogContents> read = ReadEventLog(ReadFile(log), "refused.alog");
  ASSERT_TRUE(read.ok());
  // The same node twice: the second add_node is refused on replay, and decided nothing live.
  read->scenario.steps.push_back(read->scenario.steps[0]);
  absl::StatusOr<RunResult> run = CheckedReplay(read->scenario);
  ASSERT_TRUE(run.ok());
  ASSERT_TRUE(run->digest_divergence);
  EXPECT_EQ(run->digest_divergence->step, 2);
  ASSERT_TRUE(run->digest_divergence->refused.has_value());
  EXPECT_THAT(*run->digest_divergence->refused, HasSubstr("n"));
}

TEST(EventRecorderTest, DigestRecordsAreCheckedAsTheRestOfTheLog) {
  absl::StatusOr<Scenario> scenario =
      LoadScenarioText(test_support::OneNodeScenario("[{name: a}]", R"(
  - add_app: {id: x, queue: root.a, user: u}
  - add_ask: {app: x, id: k1, resources: {slots: 2}}
  - schedule: {}
)"),
                       "digests.yaml");
  ASSERT_TRUE(scenario.ok()) << scenario.status();
  const fs::path log = TempLog("event_recorder_hostile.alog");
  DriveLive(*scenario, log);
  const std::string bytes = ReadFile(log);
  std::vector<std::string> frames = Frames(bytes);
  const auto digest = std::find_if(frames.begin(), frames.end(),
                                   [](const std::string& f) { return f[8] == kDigestRecord; });
  ASSERT_NE(digest, frames.end()) << "no decision made, no digest written";
  // A header without the flag: the digest record is refused, naming its offset.
  std::string unflagged = bytes;
  unflagged[12] = 0;
  absl::StatusOr<EventLogContents> read = ReadEventLog(unflagged, "unflagged.alog");
  ASSERT_FALSE(read.ok());
  EXPECT_THAT(read.status().message(), HasSubstr("does not announce digests"));
  EXPECT_THAT(read.status().message(), HasSubstr("offset "));
  // A version-2 header cannot set the flag at all.
  std::string old_version = bytes;
  old_version[8] = 2;
  read = ReadEventLog(old_version, "v2.alog");
  ASSERT_FALSE(read.ok());
  EXPECT_THAT(read.status().message(), HasSubstr("flags 1 are not defined in version 2"));
  // The same digest twice before its step.
  std::string doubled = bytes.substr(0, 16);
  for (auto it = frames.begin(); it != frames.end(); ++it) {
    doubled += *it;
    if (it == digest) doubled += *it;
  }
  read = ReadEventLog(doubled, "doubled.alog");
  ASSERT_FALSE(read.ok());
  EXPECT_THAT(read.status().message(), HasSubstr("two digest records before one step"));
  // A digest record naming another step than the next one.
  {
    std::vector<std::string> edited = frames;
    std::string& d = edited[static_cast<size_t>(digest - frames.begin())];
    std::string payload = d.substr(8);
    ASSERT_LT(static_cast<uint8_t>(payload[1]), 0x7f);
    payload[1] = static_cast<char>(payload[1] + 1);
    d = Frame(payload);
    read = ReadEventLog(Splice(bytes, edited), "renumbered.alog");
    ASSERT_FALSE(read.ok());
    EXPECT_THAT(read.status().message(), HasSubstr("a digest record for step "));
  }
  // The last digest record's step cut away: the end record follows a digest.
  {
    std::vector<std::string> edited = frames;
    auto last_digest = std::find_if(edited.rbegin(), edited.rend(),
                                    [](const std::string& f) { return f[8] == kDigestRecord; });
    auto step = std::find_if(last_digest.base(), edited.end(),
                             [](const std::string& f) { return f[8] == kStepRecord; });
    ASSERT_NE(step, edited.end());
    edited.erase(step, edited.end());
    edited.push_back(frames.back());
    ASSERT_EQ(edited.back()[8], kEndRecord);
    read = ReadEventLog(Splice(bytes, edited), "dangling.alog");
    ASSERT_FALSE(read.ok());
    EXPECT_THAT(read.status().message(), HasSubstr("a digest record without the step it precedes"));
    // Cut there instead (a crash between the digest and its step): read up to it.
    edited.pop_back();
    read = ReadEventLog(Splice(bytes, edited), "cut.alog");
    ASSERT_TRUE(read.ok()) << read.status();
    absl::StatusOr<RunResult> run = CheckedReplay(read->scenario);
    ASSERT_TRUE(run.ok());
    EXPECT_FALSE(run->digest_divergence);
  }
  // Without digests (EventRecorderOptions::decision_digests off): no flag, no digest record.
  DriveLive(*scenario, log, {.decision_digests = false});
  const std::string plain = ReadFile(log);
  EXPECT_EQ(plain[12], 0);
  for (const std::string& f : Frames(plain)) EXPECT_NE(f[8], kDigestRecord);
  read = ReadEventLog(plain, "plain.alog");
  ASSERT_TRUE(read.ok());
  EXPECT_FALSE(read->scenario.decision_digests);
}

}  // namespace
}  // namespace allocore::adapters
