// Decision output: JSON lines field by field, and golden files for JSON lines, tables, queue
// trees and DOT (tests/golden/). Regenerate the golden files after an intended change with
//   ALLOCORE_UPDATE_GOLDEN=1 build/bin/decision_format_test
// and review the diff.
#include "allocore/adapters/decision_format.h"

#include <cstdlib>
#include <string>

#include "allocore/adapters/json.h"
#include "allocore/adapters/queue_tree_format.h"
#include "allocore/adapters/scenario.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/files.h"

namespace allocore::adapters {
namespace {

using test_support::ReadFile;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr char kGoldenDir[] = ALLOCORE_SOURCE_DIR "/tests/golden/";

// Golden files hold "<source>" where the output names the checkout's own path, so they match
// on any clone location.
std::string WithoutSourceDir(std::string text) {
  const std::string source = ALLOCORE_SOURCE_DIR;
  for (size_t at = text.find(source); at != std::string::npos; at = text.find(source, at)) {
    text.replace(at, source.size(), "<source>");
  }
  return text;
}

void ExpectGolden(const std::string& name, const std::string& raw_actual) {
  const std::string path = kGoldenDir + name;
  const std::string actual = WithoutSourceDir(raw_actual);
  if (std::getenv("ALLOCORE_UPDATE_GOLDEN") != nullptr) {
    test_support::WriteFile(path, actual);
    return;
  }
  std::string expected = ReadFile(path);
  EXPECT_EQ(actual, expected) << "golden file " << path
                              << " differs; after an intended change regenerate it with "
                                 "ALLOCORE_UPDATE_GOLDEN=1";
}

Scenario LoadFile(const std::string& path) {
  absl::StatusOr<Scenario> scenario = LoadScenarioFile(path);
  EXPECT_TRUE(scenario.ok()) << scenario.status();
  return scenario.ok() ? *std::move(scenario) : Scenario{};
}

class JsonLines : public RunObserver {
 public:
  void OnRecord(const Record& record, const Kernel&) override { AppendJsonLine(record, &text); }
  std::string text;
};

TEST(JsonLineTest, EveryRecordTypeInContractOrder) {
  Decision allocation{.type = DecisionType::kAllocation,
                      .partition = "default",
                      .queue = "root.a",
                      .app = "app-1",
                      .ask = "ask-1",
                      .node = "node-1",
                      .priority = -10,
                      .seq = 1};
  Decision rejected{.type = DecisionType::kAppRejected, .app = "app-2", .reason = "no \"access\""};
  Decision state{.type = DecisionType::kAppState,
                 .app = "app-1",
                 .from = AppState::kAccepted,
                 .to = AppState::kStarting};
  Decision release{.type = DecisionType::kRelease, .app = "app-1", .ask = "ask-1", .node = "n"};
  std::string out;
  AppendJsonLine({.type = RecordType::kAllocation, .step = 3, .decision = &allocation}, &out);
  AppendJsonLine({.type = RecordType::kAppRejected, .step = 1, .decision = &rejected}, &out);
  AppendJsonLine({.type = RecordType::kAppState, .step = 3, .decision = &state}, &out);
  AppendJsonLine({.type = RecordType::kRelease, .step = 4, .decision = &release}, &out);
  AppendJsonLine({.type = RecordType::kError, .step = 5, .message = "add_ask: unknown\tapp"}, &out);
  EXPECT_EQ(out,
            "{\"type\":\"allocation\",\"step\":3,\"seq\":1,\"partition\":\"default\",\"queue\":"
            "\"root.a\",\"app\":\"app-1\",\"ask\":\"ask-1\",\"node\":\"node-1\",\"priority\":-10}\n"
            "{\"type\":\"app_rejected\",\"step\":1,\"app\":\"app-2\",\"reason\":\"no "
            "\\\"access\\\"\"}\n"
            "{\"type\":\"app_state\",\"step\":3,\"app\":\"app-1\",\"from\":\"Accepted\",\"to\":"
            "\"Starting\"}\n"
            "{\"type\":\"release\",\"step\":4,\"app\":\"app-1\",\"ask\":\"ask-1\",\"node\":\"n\","
            "\"reason\":\"released\"}\n"
            "{\"type\":\"error\",\"step\":5,\"message\":\"add_ask: unknown\\tapp\"}\n");
}

// Invalid UTF-8 becomes U+FFFD, written as a valid U+FFFD is: a string read back from the
// output and written again gives the same bytes (fuzz_config found "\\ufffd" did not).
TEST(JsonStringTest, InvalidUtf8IsReplacedTheWayAValidReplacementIsWritten) {
  std::string from_invalid, from_valid;
  AppendJsonString(&from_invalid,
                   "alice\x85"
                   "devs");
  AppendJsonString(&from_valid,
                   "alice\xEF\xBF\xBD"
                   "devs");
  EXPECT_EQ(from_invalid,
            "\"alice\xEF\xBF\xBD"
            "devs\"");
  EXPECT_EQ(from_invalid, from_valid);
  std::string control;
  AppendJsonString(&control, std::string("a\x01"
                                         "b"));
  EXPECT_EQ(control, "\"a\\u0001b\"");
}

TEST(JsonLineTest, Pending) {
  std::string out;
  AppendPendingJsonLine({.partition = "default",
                         .queue = "root.a",
                         .app = "app-1",
                         .ask = "ask-1",
                         .pending_count = 2,
                         .reason = "no node fits"},
                        &out);
  EXPECT_EQ(out,
            "{\"type\":\"pending\",\"partition\":\"default\",\"queue\":\"root.a\",\"app\":"
            "\"app-1\",\"ask\":\"ask-1\",\"count\":2,\"reason\":\"no node fits\"}\n");
}

TEST(PriorityChangesTest, DeepestFirstRootLeftOutNamesShortWhenUnique) {
  auto queue = [](std::string path, int depth, int priority, bool pending) {
    QueueInfo q;
    q.path = std::move(path);
    q.depth = depth;
    q.priority = priority;
    q.has_pending_priority = pending;
    return q;
  };
  std::vector<QueueInfo> before = {queue("root", 0, 1001, true), queue("root.x", 1, 1001, true),
                                   queue("root.x.a", 2, 1001, true), queue("root.y", 1, 5, true),
                                   queue("root.y.a", 2, 5, true)};
  std::vector<QueueInfo> after = before;
  after[0].priority = 10;
  after[1].priority = 10;
  after[2].has_pending_priority = false;
  EXPECT_THAT(DescribePriorityChanges(before, after),
              ElementsAre("root.x.a: 1001 -> n/a", "x: 1001 -> 10"));
  EXPECT_THAT(DescribePriorityChanges(before, before), IsEmpty());
}

TEST(GoldenTest, JsonLines) {
  for (const char* name : {"every-step-kind", "every-v3-step-kind", "refused-calls",
                           "removal-states", "gang-started-timeout", "reqnode-no-victims"}) {
    Scenario scenario =
        LoadFile(std::string(ALLOCORE_SOURCE_DIR "/tests/scenarios/") + name + ".yaml");
    JsonLines lines;
    ASSERT_TRUE(RunScenario(scenario, {}, &lines).ok());
    ExpectGolden(std::string(name) + ".jsonl", lines.text);
  }
}

// What `allocore run --explain` writes: the records, then why each ask is still pending. The
// probes and the pending asks behind a required-node ask that ends the walk name it.
TEST(GoldenTest, JsonLinesWithExplain) {
  Scenario scenario =
      LoadFile(ALLOCORE_SOURCE_DIR "/tests/scenarios/reqnode-starves-later-asks.yaml");
  JsonLines lines;
  absl::StatusOr<RunResult> run = RunScenario(scenario, {}, &lines);
  ASSERT_TRUE(run.ok()) << run.status();
  std::string out = lines.text;
  for (const PendingExplanation& e : run->kernel->ExplainPending()) AppendPendingJsonLine(e, &out);
  ExpectGolden("reqnode-starves-later-asks.jsonl", out);
}

TEST(GoldenTest, RecordTable) {
  Scenario scenario = LoadFile(ALLOCORE_SOURCE_DIR "/tests/scenarios/every-step-kind.yaml");
  RecordTable table({.allocations_only = false, .priority_changes = true});
  RunOptions options;
  options.schedule_chunk = 1;
  absl::StatusOr<RunResult> run = RunScenario(scenario, options, &table);
  ASSERT_TRUE(run.ok());
  std::string out;
  table.Render(&out);
  AppendPendingTable(run->kernel->ExplainPending(), &out);
  ExpectGolden("every-step-kind.table.txt", out);
}

// The walk-through of `allocore run` without a scenario: the tree before scheduling, then one
// row per allocation with the effective priorities it changed (seeds/000).
TEST(GoldenTest, PriorityTreeWalkthrough) {
  absl::StatusOr<Scenario> scenario = LoadDefaultScenario();
  ASSERT_TRUE(scenario.ok());
  RecordTable table({.allocations_only = true, .priority_changes = true});
  RunOptions options;
  options.schedule_chunk = 1;
  absl::StatusOr<RunResult> run = RunScenario(*scenario, options, &table);
  ASSERT_TRUE(run.ok());
  std::string out;
  ASSERT_EQ(table.initial_queues().size(), 1u);
  AppendQueueTreeText(table.initial_queues().begin()->second, run->kernel->resource_types(),
                      QueueTreeDetail::kPriorities, &out, "  ");
  out += "\n";
  table.Render(&out, "  ");
  ExpectGolden("priority-tree.walkthrough.txt", out);
  EXPECT_EQ(table.rows(), 11);
}

TEST(GoldenTest, QueueTreeTextAndDot) {
  Scenario scenario = LoadFile(ALLOCORE_SOURCE_DIR "/tests/scenarios/priority-tree.yaml");
  RunOptions options;
  options.last_step = 18;  // every ask added, nothing scheduled yet
  absl::StatusOr<RunResult> run = RunScenario(scenario, options, nullptr);
  ASSERT_TRUE(run.ok());
  std::vector<PartitionQueues> partitions;
  for (const std::string& name : run->kernel->PartitionNames()) {
    partitions.push_back({.partition = name, .queues = *run->kernel->ListQueues(name)});
  }
  std::string text;
  AppendQueueTreeText(partitions[0].queues, run->kernel->resource_types(), QueueTreeDetail::kFull,
                      &text);
  ExpectGolden("priority-tree.tree.txt", text);
  std::string dot;
  AppendQueueTreeDot(partitions, run->kernel->resource_types(), &dot);
  ExpectGolden("priority-tree.dot", dot);
}

}  // namespace
}  // namespace allocore::adapters
