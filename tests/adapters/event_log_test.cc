// Event logs (allocore pack): every scenario of the repository and of the shared suite packs,
// replays from the log (in memory and streamed from a file) with the same records as its YAML,
// and unpacks to a scenario that replays the same again; damaged logs are refused or read up to
// the damage, never past it.
#include "allocore/adapters/event_log.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "allocore/adapters/decision_format.h"
#include "allocore/adapters/scenario.h"
#include "allocore/adapters/scenario_stream.h"
#include "field_count.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/files.h"
#include "support/scenarios.h"

namespace allocore::adapters {
namespace {

namespace fs = std::filesystem;
using internal::FieldCount;
using ::testing::HasSubstr;

// The codec lists every field of these structs (adapters/scenario/event_log_codec.h): a field added
// to one of them must be added there too, or logs would silently drop it.
static_assert(FieldCount<SourceLocation>() == 2);
static_assert(FieldCount<LimitConfig>() == 7);
static_assert(FieldCount<FilterConfig>() == 3);
static_assert(FieldCount<PlacementRuleConfig>() == 7);
static_assert(FieldCount<ResourcesConfig>() == 2);
static_assert(FieldCount<ChildTemplateConfig>() == 4);
static_assert(FieldCount<QueueConfig>() == 12);
static_assert(FieldCount<NodeSortPolicyConfig>() == 2);
static_assert(FieldCount<PartitionConfig>() == 12);
static_assert(FieldCount<SchedulerConfig>() == 2);
static_assert(FieldCount<NodeSpec>() == 5);
static_assert(FieldCount<AddNodeStep>() == 2);
static_assert(FieldCount<NodeUpdate>() == 5);
static_assert(FieldCount<AppSpec>() == 9);
static_assert(FieldCount<AskSpec>() == 12);
static_assert(FieldCount<ScheduleEvent>() == 2);
static_assert(FieldCount<ReleaseEvent>() == 5);
static_assert(FieldCount<RemoveAskEvent>() == 3);
static_assert(FieldCount<RemoveApplicationEvent>() == 2);
static_assert(FieldCount<RemoveNodeEvent>() == 2);
static_assert(FieldCount<UpdateConfigEvent>() == 1);
static_assert(FieldCount<AdvanceEvent>() == 1);
static_assert(FieldCount<ProbeStep>() == 1);
static_assert(FieldCount<RecoverSpec>() == 2);
static_assert(FieldCount<AllocationUpdate>() == 5);
static_assert(FieldCount<AskUpdate>() == 4);
static_assert(FieldCount<ForeignAllocationSpec>() == 5);
static_assert(FieldCount<ForeignAllocationUpdate>() == 4);
static_assert(FieldCount<RemoveForeignAllocationEvent>() == 2);
static_assert(FieldCount<ExpectedAllocation>() == 12);
static_assert(FieldCount<ScenarioExpect>() == 7);

class Lines : public RunObserver {
 public:
  void OnRecord(const Record& record, const Kernel&) override { AppendJsonLine(record, &text); }
  std::string text;
};

std::string Run(const Scenario& scenario) {
  Lines lines;
  RunOptions options;
  absl::StatusOr<RunResult> run = RunScenario(scenario, options, &lines);
  return run.ok() ? lines.text : "run refused: " + std::string(run.status().message());
}

// Records with "FILE:LINE:COL: " in messages (a reload the kernel refused) as "PLACE: ".
std::string WithoutPlaces(const std::string& records) {
  static const std::regex kPlace(R"re(([:"] )[^":]+:[0-9]+:[0-9]+: )re");
  return std::regex_replace(records, kPlace, "$1PLACE: ");
}

// Pack, replay from memory, from a streamed file, and from the unpacked YAML: one stream.
void ExpectSameRecords(const Scenario& scenario, const std::string& name) {
  const std::string expected = Run(scenario);
  const std::string log = PackScenario(scenario);

  absl::StatusOr<EventLogContents> read = ReadEventLog(log, name + ".alog");
  ASSERT_TRUE(read.ok()) << name << ": " << read.status();
  EXPECT_TRUE(read->warnings.empty()) << name;
  EXPECT_EQ(read->scenario.steps.size(), scenario.steps.size()) << name;
  EXPECT_EQ(Run(read->scenario), expected) << name << ": replayed from the log in memory";

  const fs::path file = fs::path(::testing::TempDir()) / "event_log_test.alog";
  test_support::WriteFile(file, log);
  absl::StatusOr<std::unique_ptr<ScenarioStream>> stream = ScenarioStream::Open(file.string());
  ASSERT_TRUE(stream.ok()) << name << ": " << stream.status();
  EXPECT_TRUE((*stream)->streamed());
  Lines streamed;
  absl::StatusOr<RunResult> run = RunScenarioSteps((*stream)->header(), (*stream)->step_count(),
                                                   (*stream)->steps(), {}, &streamed);
  ASSERT_TRUE(run.ok()) << name << ": " << run.status();
  EXPECT_EQ(streamed.text, expected) << name << ": replayed from the log file";
  if (scenario.expect) {
    ASSERT_TRUE((*stream)->header().expect.has_value()) << name;
    EXPECT_TRUE(CheckExpectations(*(*stream)->header().expect, *run).ok) << name;
  }

  const std::string yaml = ScenarioToYaml(read->scenario);
  absl::StatusOr<Scenario> reloaded = LoadScenarioText(yaml, name + " (unpacked)");
  ASSERT_TRUE(reloaded.ok()) << name << ": the unpacked YAML does not load: " << reloaded.status()
                             << "\n"
                             << yaml;
  // The unpacked file has lines and columns of its own: a refused reload names those.
  EXPECT_EQ(WithoutPlaces(Run(*reloaded)), WithoutPlaces(expected))
      << name << ": replayed from the unpacked YAML\n"
      << yaml;
}

TEST(EventLogTest, EveryScenarioReplaysFromItsLogWithTheSameRecords) {
  const std::vector<fs::path> files = test_support::ConformanceScenarioFiles();
  ASSERT_GT(files.size(), 30u) << "tests/scenarios is missing";
  for (const fs::path& file : files) {
    absl::StatusOr<Scenario> scenario = LoadScenarioFile(file.string());
    if (!scenario.ok()) continue;  // scenarios of refused inputs have nothing to pack
    ExpectSameRecords(*scenario, file.filename().string());
  }
}

TEST(EventLogTest, GeneratedWorkloadsReplayFromTheirLogs) {
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    absl::StatusOr<Scenario> scenario = test_support::LoadGeneratedScenario({.seed = seed});
    ASSERT_TRUE(scenario.ok()) << scenario.status();
    ExpectSameRecords(*scenario, "random-" + std::to_string(seed));
  }
}

Scenario Small() {
  absl::StatusOr<Scenario> scenario = LoadDefaultScenario();
  EXPECT_TRUE(scenario.ok()) << scenario.status();
  return *scenario;
}

TEST(EventLogTest, NamesAreWrittenOncePerLog) {
  Scenario scenario = Small();
  const std::string one = PackScenario(scenario);
  // The same steps again name nothing new: each repeat costs its numbers, not its strings.
  const size_t steps = scenario.steps.size();
  for (size_t i = 0; i < steps; ++i) scenario.steps.push_back(scenario.steps[i]);
  const std::string two = PackScenario(scenario);
  const std::string name = "app-high";  // an application id of the default scenario
  auto count = [&](const std::string& bytes) {
    size_t n = 0;
    for (size_t at = bytes.find(name); at != std::string::npos; at = bytes.find(name, at + 1)) ++n;
    return n;
  };
  ASSERT_GE(count(one), 1u);
  EXPECT_EQ(count(two), count(one));
}

TEST(EventLogTest, ALastRecordCutShortIsReadUpToWithAWarning) {
  const Scenario scenario = Small();
  const std::string log = PackScenario(scenario);
  // Every cut: never a crash; a cut inside the header refuses, a later one reads the steps
  // whose records are whole.
  size_t warned = 0;
  for (size_t cut = 0; cut < log.size(); ++cut) {
    absl::StatusOr<EventLogContents> read = ReadEventLog(log.substr(0, cut), "cut.alog");
    if (!read.ok()) continue;
    EXPECT_LE(read->scenario.steps.size(), scenario.steps.size());
    ASSERT_FALSE(read->warnings.empty()) << "cut at " << cut;
    ++warned;
  }
  EXPECT_GT(warned, log.size() / 2);
  absl::StatusOr<EventLogContents> whole = ReadEventLog(log, "whole.alog");
  ASSERT_TRUE(whole.ok());
  EXPECT_TRUE(whole->warnings.empty());
  // Cut inside the end record: every step is there, and the warning says the writer stopped.
  absl::StatusOr<EventLogContents> no_end = ReadEventLog(log.substr(0, log.size() - 2), "x");
  ASSERT_TRUE(no_end.ok()) << no_end.status();
  EXPECT_EQ(no_end->scenario.steps.size(), scenario.steps.size());
  EXPECT_THAT(no_end->warnings[0], HasSubstr("the last record is cut short"));
}

TEST(EventLogTest, ADamagedRecordIsRefusedNamingItsOffset) {
  const std::string log = PackScenario(Small());
  size_t refused = 0;
  for (size_t at = 16; at < log.size(); ++at) {
    std::string damaged = log;
    damaged[at] = static_cast<char>(damaged[at] ^ 0x20);
    absl::StatusOr<EventLogContents> read = ReadEventLog(damaged, "damaged.alog");
    if (read.ok()) {
      // A flipped length may only make the log look cut short: never read past the damage.
      EXPECT_FALSE(read->warnings.empty()) << "flip at " << at;
      continue;
    }
    EXPECT_THAT(std::string(read.status().message()), HasSubstr("damaged.alog: offset "));
    ++refused;
  }
  EXPECT_GT(refused, (log.size() - 16) * 9 / 10);
}

TEST(EventLogTest, ANewerVersionOrNotALogIsRefused) {
  std::string log = PackScenario(Small());
  std::string newer = log;
  newer[8] = 4;
  absl::StatusOr<EventLogContents> read = ReadEventLog(newer, "newer.alog");
  ASSERT_FALSE(read.ok());
  EXPECT_THAT(std::string(read.status().message()),
              HasSubstr("newer.alog: offset 8: event log version 4 is not one this allocore "
                        "reads (it reads 1 to 3)"));
  // Version 3 only added what a version-2 log lacks (a flag, the digest record): a log of
  // version 2 reads as before.
  std::string version2 = log;
  version2[8] = 2;
  absl::StatusOr<EventLogContents> old = ReadEventLog(version2, "v2.alog");
  ASSERT_TRUE(old.ok()) << old.status();
  EXPECT_FALSE(old->scenario.decision_digests);
  EXPECT_EQ(old->scenario.steps.size(), Small().steps.size());
  EXPECT_FALSE(ReadEventLog("", "empty.alog").ok());
  EXPECT_FALSE(ReadEventLog("name: x\nsteps: []\n", "yaml.alog").ok());
  EXPECT_FALSE(LooksLikeEventLog("ALLOC"));
  EXPECT_TRUE(LooksLikeEventLog(log));
}

TEST(EventLogTest, AHeaderWhoseConfigDoesNotValidateIsRefused) {
  Scenario scenario = Small();
  // Written by something other than pack: a config the loader would have refused.
  scenario.config.partitions.push_back(scenario.config.partitions[0]);
  absl::StatusOr<EventLogContents> read = ReadEventLog(PackScenario(scenario), "bad.alog");
  ASSERT_FALSE(read.ok());
  EXPECT_THAT(std::string(read.status().message()), HasSubstr("config does not validate"));
}

}  // namespace
}  // namespace allocore::adapters
