// Workload generators: deterministic text that loads and runs cleanly.
#include "allocore/adapters/workload_gen.h"

#include <string>

#include "allocore/adapters/decision_format.h"
#include "allocore/adapters/scenario.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace allocore::adapters {
namespace {

using ::testing::HasSubstr;

class JsonLines : public RunObserver {
 public:
  void OnRecord(const Record& record, const Kernel&) override { AppendJsonLine(record, &text); }
  std::string text;
};

TEST(YunikornShapeTest, EveryPodIsAllocated) {
  absl::StatusOr<std::string> text = GenerateYunikornShapeScenario({.nodes = 7, .pods = 101});
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text, *GenerateYunikornShapeScenario({.nodes = 7, .pods = 101}));
  EXPECT_THAT(*text, HasSubstr("guaranteed: {memory: 100000, vcore: 10}"));
  EXPECT_THAT(*text, HasSubstr("  - {id: node-6, resources: {memory: 150, vcore: 15}}\n"));
  absl::StatusOr<Scenario> scenario = LoadScenarioText(*text, "shape.yaml");
  ASSERT_TRUE(scenario.ok()) << scenario.status();
  EXPECT_EQ(scenario->nodes.size(), 7u);
  absl::StatusOr<RunResult> run = RunScenario(*scenario, {}, nullptr);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->allocations.size(), 101u);
  CheckResult check = CheckExpectations(*scenario->expect, *run);
  EXPECT_TRUE(check.ok) << check.diff;
}

TEST(YunikornShapeTest, BadOptions) {
  EXPECT_FALSE(GenerateYunikornShapeScenario({.nodes = 0, .pods = 10}).ok());
  EXPECT_FALSE(GenerateYunikornShapeScenario({.nodes = 1, .pods = -1}).ok());
}

// Random workloads load, run without breaking a kernel invariant, replay identically, and give
// the same decisions whatever the schedule call granularity.
TEST(RandomScenarioTest, SeedsLoadRunAndReplay) {
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    SCOPED_TRACE(seed);
    RandomScenarioOptions options;
    options.seed = seed;
    absl::StatusOr<std::string> text = GenerateRandomScenario(options);
    ASSERT_TRUE(text.ok()) << text.status();
    EXPECT_EQ(*text, *GenerateRandomScenario(options));
    absl::StatusOr<Scenario> scenario = LoadScenarioText(*text, "random.yaml");
    ASSERT_TRUE(scenario.ok()) << scenario.status() << "\n" << *text;
    EXPECT_EQ(scenario->steps.size(), 150u);
    JsonLines once;
    JsonLines again;
    absl::StatusOr<RunResult> run = RunScenario(*scenario, {}, &once);
    ASSERT_TRUE(run.ok()) << run.status();
    EXPECT_TRUE(run->kernel->CheckConsistency().ok()) << run->kernel->CheckConsistency();
    EXPECT_GT(run->allocations.size(), 0u);
    RunOptions one_by_one;
    one_by_one.schedule_chunk = 1;
    ASSERT_TRUE(RunScenario(*scenario, one_by_one, &again).ok());
    EXPECT_EQ(once.text, again.text);
  }
}

TEST(RandomScenarioTest, OptionsShapeTheWorkload) {
  RandomScenarioOptions options{
      .seed = 7, .queues = 40, .apps = 5, .asks = 9, .nodes = 3, .steps = 60};
  absl::StatusOr<std::string> text = GenerateRandomScenario(options);
  ASSERT_TRUE(text.ok());
  absl::StatusOr<Scenario> scenario = LoadScenarioText(*text, "random.yaml");
  ASSERT_TRUE(scenario.ok()) << scenario.status();
  EXPECT_EQ(scenario->nodes.size(), 3u);
  EXPECT_EQ(scenario->steps.size(), 60u);
  int apps = 0;
  int asks = 0;
  for (const ScenarioStep& step : scenario->steps) {
    apps += step.kind() == StepKind::kAddApp;
    asks += step.kind() == StepKind::kAddAsk;
  }
  EXPECT_LE(apps, 5);
  EXPECT_LE(asks, 9);
  EXPECT_NE(*text, *GenerateRandomScenario({.seed = 8}));
  EXPECT_FALSE(GenerateRandomScenario({.seed = 1, .queues = 0}).ok());
}

}  // namespace
}  // namespace allocore::adapters
