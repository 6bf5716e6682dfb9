// `allocore import kubernetes` through the public API: `kubectl get nodes,pods -A -o json`
// fixtures imported under both profiles, every step compared with what the k8shim of that
// release reports (worked out by hand from the fixture), the scenario run, and hostile input.
//
// The fixtures (tests/data/import/kubernetes/):
//   main.json           three nodes (node-c cordoned), four YuniKorn applications (spark,
//                       batch, a gang, a DaemonSet), other schedulers' pods, a Succeeded pod
//                       and a YuniKorn pod without an application id
//   pod_resources.json  one small node and one application whose pods differ between the
//                       profiles: native sidecars, an in-place resize, pod-level requests,
//                       BestEffort pods, a scheduling gate, the pods count
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "allocore/adapters/cluster_import.h"
#include "allocore/adapters/config_loader.h"
#include "allocore/adapters/scenario.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/configs.h"

namespace allocore::adapters {
namespace {

using ::testing::ContainsRegex;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;

// CMake defines the source root; the fallback only lets a lone syntax check compile the file.
#ifndef ALLOCORE_SOURCE_DIR
#define ALLOCORE_SOURCE_DIR "."
#endif
const std::string kDir = ALLOCORE_SOURCE_DIR "/tests/data/import/kubernetes/";

constexpr int64_t kMi = int64_t{1} << 20;
constexpr int64_t kGi = int64_t{1} << 30;
// The kubelet reports ephemeral-storage in Ki: 101430960Ki on every fixture node.
constexpr int64_t kEphemeralStorage = int64_t{101430960} * 1024;
// What the 1.2 shim asks for a pod without cpu or memory requests.
constexpr int64_t kBestEffortMemory12 = 1'000'000;

std::string Message(const absl::Status& status) {
  return {status.message().data(), status.message().size()};
}

using Amounts = std::map<std::string, int64_t>;

// Order-free, and a type listed twice fails.
Amounts AmountsOf(const Quantities& quantities) {
  Amounts out;
  for (const auto& [type, amount] : quantities) {
    EXPECT_TRUE(out.emplace(type, amount).second) << "type " << type << " listed twice";
  }
  return out;
}

std::optional<std::string> TagOf(const Tags& tags, std::string_view key) {
  std::optional<std::string> found;
  for (const auto& [name, value] : tags) {
    if (name == key) {
      EXPECT_FALSE(found.has_value()) << "tag " << key << " set twice";
      found = value;
    }
  }
  return found;
}

// ---------------------------------------------------------------------------------------------
// The scenario's steps

template <typename T>
std::vector<T> StepsOf(const Scenario& scenario) {
  std::vector<T> out;
  for (const ScenarioStep& step : scenario.steps) {
    if (const T* action = std::get_if<T>(&step.action)) out.push_back(*action);
  }
  return out;
}

std::vector<StepKind> KindsOf(const Scenario& scenario) {
  std::vector<StepKind> out;
  for (const ScenarioStep& step : scenario.steps) out.push_back(step.kind());
  return out;
}

std::vector<std::string> AppIds(const Scenario& scenario) {
  std::vector<std::string> out;
  for (const AppSpec& app : StepsOf<AppSpec>(scenario)) out.push_back(app.id);
  return out;
}
std::vector<std::string> AskIds(const Scenario& scenario) {
  std::vector<std::string> out;
  for (const AskSpec& ask : StepsOf<AskSpec>(scenario)) out.push_back(ask.id);
  return out;
}
std::vector<std::string> RecoveredIds(const Scenario& scenario) {
  std::vector<std::string> out;
  for (const RecoverSpec& recovered : StepsOf<RecoverSpec>(scenario)) {
    out.push_back(recovered.ask.id);
  }
  return out;
}
std::vector<std::string> ForeignIds(const Scenario& scenario) {
  std::vector<std::string> out;
  for (const ForeignAllocationSpec& foreign : StepsOf<ForeignAllocationSpec>(scenario)) {
    out.push_back(foreign.id);
  }
  return out;
}

std::optional<AppSpec> FindApp(const Scenario& scenario, std::string_view id) {
  for (const AppSpec& app : StepsOf<AppSpec>(scenario)) {
    if (app.id == id) return app;
  }
  return std::nullopt;
}
std::optional<AskSpec> FindAsk(const Scenario& scenario, std::string_view id) {
  for (const AskSpec& ask : StepsOf<AskSpec>(scenario)) {
    if (ask.id == id) return ask;
  }
  return std::nullopt;
}
std::optional<RecoverSpec> FindRecovered(const Scenario& scenario, std::string_view id) {
  for (const RecoverSpec& recovered : StepsOf<RecoverSpec>(scenario)) {
    if (recovered.ask.id == id) return recovered;
  }
  return std::nullopt;
}
std::optional<ForeignAllocationSpec> FindForeign(const Scenario& scenario, std::string_view id) {
  for (const ForeignAllocationSpec& foreign : StepsOf<ForeignAllocationSpec>(scenario)) {
    if (foreign.id == id) return foreign;
  }
  return std::nullopt;
}

// The application or ask, or an empty one and a failure when the scenario has none.
AppSpec App(const Scenario& scenario, std::string_view id) {
  std::optional<AppSpec> app = FindApp(scenario, id);
  if (!app) ADD_FAILURE() << "no application " << id;
  return app.value_or(AppSpec{});
}
AskSpec Ask(const Scenario& scenario, std::string_view id) {
  std::optional<AskSpec> ask = FindAsk(scenario, id);
  if (!ask) ADD_FAILURE() << "no ask " << id;
  return ask.value_or(AskSpec{});
}

// The count of the one warning whose text holds `what` (0: none), and its first object.
struct WarningSeen {
  int64_t count = 0;
  std::string example;
};
WarningSeen Warning(const std::vector<ImportWarning>& warnings, std::string_view what) {
  WarningSeen seen;
  for (const ImportWarning& warning : warnings) {
    if (warning.what.find(what) == std::string::npos) continue;
    EXPECT_EQ(seen.count, 0) << "two warnings hold \"" << what << "\"";
    seen = WarningSeen{warning.count, warning.example};
  }
  return seen;
}

// ---------------------------------------------------------------------------------------------
// Runs

absl::StatusOr<RunResult> RunImported(const Scenario& scenario) {
  RunOptions options;
  options.keep_allocations = true;
  return RunScenario(scenario, options, nullptr);
}

// "ask on node in queue": one line per allocation record, readable in a failure.
std::vector<std::string> Placed(const std::vector<ActualAllocation>& records) {
  std::vector<std::string> out;
  for (const ActualAllocation& record : records) {
    out.push_back(std::string(record.ask) + " on " + std::string(record.node) + " in " +
                  std::string(record.queue));
  }
  return out;
}
std::string PlacedAs(std::string_view ask, std::string_view node, std::string_view queue) {
  return std::string(ask) + " on " + std::string(node) + " in " + std::string(queue);
}

std::map<std::string, int64_t> PendingCounts(const Kernel& kernel) {
  std::map<std::string, int64_t> out;
  for (const PendingExplanation& entry : kernel.ExplainPending()) {
    out[entry.ask] = entry.pending_count;
  }
  return out;
}

std::string PendingReason(const Kernel& kernel, std::string_view ask) {
  for (const PendingExplanation& entry : kernel.ExplainPending()) {
    if (entry.ask == ask) return entry.reason;
  }
  return "(not pending)";
}

// =============================================================================================
// main.json

namespace cluster {
// Pods by UID.
constexpr char kSparkDriver[] = "5a0c1d2e-3f40-4a51-8b62-7c83d94ea5d1";
constexpr char kSparkExecutorSucceeded[] = "5a0c1d2e-3f40-4a51-8b62-7c83d94ea5d0";
constexpr char kSparkExecutor1[] = "5a0c1d2e-3f40-4a51-8b62-7c83d94ea5d2";
constexpr char kSparkExecutor2[] = "5a0c1d2e-3f40-4a51-8b62-7c83d94ea5d3";
constexpr char kReport0[] = "b0a1c2d3-e4f5-4a67-8b89-0a1b2c3d4e01";
constexpr char kReport1[] = "b0a1c2d3-e4f5-4a67-8b89-0a1b2c3d4e02";
constexpr char kReportCleanup[] = "b0a1c2d3-e4f5-4a67-8b89-0a1b2c3d4e03";
constexpr char kTrainWorker[] = "a7b8c9d0-e1f2-4a3b-8c4d-5e6f7a8b9c61";
constexpr char kPlaceholderRunning[] = "a7b8c9d0-e1f2-4a3b-8c4d-5e6f7a8b9c62";
constexpr char kPlaceholderPending[] = "a7b8c9d0-e1f2-4a3b-8c4d-5e6f7a8b9c63";
constexpr char kFluentBit[] = "f0e1d2c3-b4a5-4968-8776-655443322110";
constexpr char kNotebook[] = "c9d8e7f6-a5b4-4c3d-8e2f-1a0b9c8d7e05";
constexpr char kCoreDns[] = "4b5c6d7e-8f90-4a1b-9c2d-3e4f5a6b7c81";
constexpr char kApiServer[] = "7a8b9c0d-1e2f-4a3b-8c4d-5e6f7a8b9c83";
constexpr char kWebPending[] = "c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e91";
// Applications.
constexpr char kSparkApp[] = "spark-7f3a9c1e5b";
constexpr char kBatchApp[] = "batch-report";
constexpr char kGangApp[] = "gang-train";
constexpr char kDaemonSetApp[] = "yunikorn-logging-autogen";
constexpr char kNotebookApp[] = "yunikorn-dev-autogen";  // generated by the 1.9 shim only
// The spark executors run in kata: spec.overhead is cpu 250m, memory 120Mi.
constexpr int64_t kKataVcore = 250;
constexpr int64_t kKataMemory = 120 * kMi;
}  // namespace cluster

ImportOptions MainOptions(Semantics semantics, bool schedule = true) {
  ImportOptions options;
  options.config_path = kDir + "queues.yaml";
  options.semantics = semantics;
  options.schedule = schedule;
  return options;
}

absl::StatusOr<ImportResult> ImportMain(Semantics semantics, bool schedule = true) {
  return ImportKubernetesObjects(kDir + "main.json", MainOptions(semantics, schedule));
}

class MainFixture : public ::testing::TestWithParam<Semantics> {};

INSTANTIATE_TEST_SUITE_P(BothProfiles, MainFixture,
                         ::testing::Values(Semantics::kYunikorn12, Semantics::kYunikorn19),
                         [](const ::testing::TestParamInfo<Semantics>& param_info) {
                           return param_info.param == Semantics::kYunikorn12 ? "Yunikorn12"
                                                                             : "Yunikorn19";
                         });

TEST_P(MainFixture, NodesAreTheAllocatableOfEachNodeAndTheCordonedOneIsUnschedulable) {
  absl::StatusOr<ImportResult> imported = ImportMain(GetParam());
  ASSERT_TRUE(imported.ok()) << imported.status();
  const Scenario& scenario = imported->scenario;
  EXPECT_EQ(scenario.semantics, GetParam());
  ASSERT_EQ(scenario.nodes.size(), 3u);
  EXPECT_EQ(imported->summary.nodes, 3);

  const NodeSpec& a = scenario.nodes[0].node;
  EXPECT_EQ(a.id, "node-a");
  EXPECT_EQ(a.partition, "default");
  // cpu "4", memory "16Gi", the zero hugepages left out.
  EXPECT_EQ(AmountsOf(a.capacity), (Amounts{{"vcore", 4000},
                                            {"memory", 16 * kGi},
                                            {"pods", 110},
                                            {"ephemeral-storage", kEphemeralStorage}}));
  EXPECT_TRUE(a.schedulable);
  EXPECT_THAT(a.occupied, IsEmpty());

  const NodeSpec& b = scenario.nodes[1].node;
  EXPECT_EQ(b.id, "node-b");
  // cpu "15890m"; the GPUs are a type of their own.
  EXPECT_EQ(AmountsOf(b.capacity), (Amounts{{"vcore", 15890},
                                            {"memory", 62 * kGi},
                                            {"pods", 110},
                                            {"ephemeral-storage", kEphemeralStorage},
                                            {"nvidia.com/gpu", 2}}));
  EXPECT_TRUE(b.schedulable);

  const NodeSpec& c = scenario.nodes[2].node;
  EXPECT_EQ(c.id, "node-c");
  EXPECT_EQ(AmountsOf(c.capacity), (Amounts{{"vcore", 16000},
                                            {"memory", 64 * kGi},
                                            {"pods", 110},
                                            {"ephemeral-storage", kEphemeralStorage}}));
  EXPECT_FALSE(c.schedulable) << "spec.unschedulable: true";
}

TEST_P(MainFixture, StepsComeInTheImportersOrderAfterTheClockReachesTheNewestPod) {
  const bool v19 = GetParam() == Semantics::kYunikorn19;
  absl::StatusOr<ImportResult> imported = ImportMain(GetParam());
  ASSERT_TRUE(imported.ok()) << imported.status();
  const Scenario& scenario = imported->scenario;

  // Foreign pods, applications in submission order, running pods, pending pods, a schedule.
  std::vector<StepKind> expected = {StepKind::kAdvance};
  for (int i = 0; i < (v19 ? 2 : 3); ++i) expected.push_back(StepKind::kAddForeign);
  for (int i = 0; i < (v19 ? 5 : 4); ++i) expected.push_back(StepKind::kAddApp);
  for (int i = 0; i < (v19 ? 5 : 4); ++i) expected.push_back(StepKind::kRecoverAllocation);
  for (int i = 0; i < 6; ++i) expected.push_back(StepKind::kAddAsk);
  expected.push_back(StepKind::kSchedule);
  EXPECT_EQ(KindsOf(scenario), expected);

  // The clock starts at the oldest counted pod (the driver, 10:00:00; the Succeeded executor
  // of 09:59 does not count) and first moves to the newest: the DaemonSet pod at 10:03:00,
  // under 1.9 the notebook at 10:04:00.
  ASSERT_FALSE(scenario.steps.empty());
  const auto* advance = std::get_if<AdvanceStep>(&scenario.steps.front().action);
  ASSERT_NE(advance, nullptr);
  EXPECT_EQ(advance->millis, v19 ? 240'000 : 180'000);

  const auto* schedule = std::get_if<ScheduleStep>(&scenario.steps.back().action);
  ASSERT_NE(schedule, nullptr);
  EXPECT_EQ(schedule->partition, "");
  EXPECT_EQ(schedule->max, 0);

  absl::StatusOr<ImportResult> without_schedule = ImportMain(GetParam(), /*schedule=*/false);
  ASSERT_TRUE(without_schedule.ok()) << without_schedule.status();
  ASSERT_FALSE(without_schedule->scenario.steps.empty());
  EXPECT_EQ(without_schedule->scenario.steps.back().kind(), StepKind::kAddAsk);
  EXPECT_EQ(without_schedule->scenario.steps.size(), scenario.steps.size() - 1);
}

TEST(MainFixtureYunikorn12, ApplicationsTakeTheOldestPodsQueueUserAndGang) {
  absl::StatusOr<ImportResult> imported = ImportMain(Semantics::kYunikorn12);
  ASSERT_TRUE(imported.ok()) << imported.status();
  const Scenario& scenario = imported->scenario;
  // By the oldest pod's creation: spark 10:00:00, batch 10:01:00, gang 10:02:00, logging 10:03.
  // The notebook has no application id: the 1.2 shim leaves it to other schedulers.
  EXPECT_THAT(AppIds(scenario), ElementsAre(cluster::kSparkApp, cluster::kBatchApp,
                                            cluster::kGangApp, cluster::kDaemonSetApp));
  EXPECT_EQ(imported->summary.applications, 4);

  std::optional<AppSpec> spark = FindApp(scenario, cluster::kSparkApp);
  ASSERT_TRUE(spark);
  EXPECT_EQ(spark->partition, "default");
  EXPECT_EQ(spark->queue, "root.analytics");  // label `queue`
  EXPECT_EQ(spark->user, "alice");            // user.info
  EXPECT_THAT(spark->groups, ElementsAre("data-eng", "spark-users"));
  EXPECT_THAT(spark->tags, ElementsAre(Pair("namespace", "spark")));
  EXPECT_THAT(spark->placeholder_ask, IsEmpty());
  EXPECT_EQ(spark->gang_style, GangStyle::kSoft);
  EXPECT_EQ(spark->placeholder_timeout_millis, 0);

  std::optional<AppSpec> batch = FindApp(scenario, cluster::kBatchApp);
  ASSERT_TRUE(batch);
  EXPECT_EQ(batch->queue, "root.batch");  // annotation yunikorn.apache.org/queue
  EXPECT_EQ(batch->user, "bob");          // label yunikorn.apache.org/username
  EXPECT_THAT(batch->groups, IsEmpty());
  EXPECT_THAT(batch->tags, ElementsAre(Pair("namespace", "batch")));

  std::optional<AppSpec> gang = FindApp(scenario, cluster::kGangApp);
  ASSERT_TRUE(gang);
  // The 1.2 shim reads label `queue` first and knows no yunikorn.apache.org/queue label.
  EXPECT_EQ(gang->queue, "root.batch");
  EXPECT_EQ(gang->user, "carol");
  EXPECT_THAT(gang->groups, ElementsAre("ml"));
  EXPECT_THAT(gang->tags, ElementsAre(Pair("namespace", "ml")));
  EXPECT_EQ(gang->gang_style, GangStyle::kHard);
  EXPECT_EQ(gang->placeholder_timeout_millis, 60'000);
  // minMember 2 of {cpu 1, memory 1Gi}; 1.2 adds no pods.
  EXPECT_EQ(AmountsOf(gang->placeholder_ask), (Amounts{{"vcore", 2000}, {"memory", 2 * kGi}}));

  std::optional<AppSpec> daemon = FindApp(scenario, cluster::kDaemonSetApp);
  ASSERT_TRUE(daemon);
  EXPECT_EQ(daemon->queue, "root.sandbox");  // no queue: the 1.2 shim's default
  EXPECT_EQ(daemon->user, "nobody");
  EXPECT_THAT(daemon->tags, ElementsAre(Pair("namespace", "logging")));
}

TEST(MainFixtureYunikorn19, ApplicationsTakeTheOldestPodsQueueUserAndGang) {
  absl::StatusOr<ImportResult> imported = ImportMain(Semantics::kYunikorn19);
  ASSERT_TRUE(imported.ok()) << imported.status();
  const Scenario& scenario = imported->scenario;
  EXPECT_THAT(AppIds(scenario),
              ElementsAre(cluster::kSparkApp, cluster::kBatchApp, cluster::kGangApp,
                          cluster::kDaemonSetApp, cluster::kNotebookApp));
  EXPECT_EQ(imported->summary.applications, 5);

  std::optional<AppSpec> spark = FindApp(scenario, cluster::kSparkApp);
  ASSERT_TRUE(spark);
  EXPECT_EQ(spark->queue, "root.analytics");  // label `queue`, the last source 1.9 reads
  EXPECT_EQ(spark->user, "alice");
  EXPECT_THAT(spark->groups, ElementsAre("data-eng", "spark-users"));
  EXPECT_EQ(TagOf(spark->tags, "namespace"), "spark");
  // Its first pod, the driver, is bound: the shim forces the application into a queue.
  EXPECT_EQ(TagOf(spark->tags, "application.create.force"), "true");
  EXPECT_THAT(spark->placeholder_ask, IsEmpty());

  std::optional<AppSpec> batch = FindApp(scenario, cluster::kBatchApp);
  ASSERT_TRUE(batch);
  EXPECT_EQ(batch->queue, "root.batch");
  EXPECT_EQ(batch->user, "bob");
  EXPECT_EQ(TagOf(batch->tags, "application.create.force"), "true");

  std::optional<AppSpec> gang = FindApp(scenario, cluster::kGangApp);
  ASSERT_TRUE(gang);
  EXPECT_EQ(gang->queue, "root.ml");  // the yunikorn.apache.org/queue label comes first in 1.9
  EXPECT_EQ(gang->user, "carol");
  EXPECT_THAT(gang->groups, ElementsAre("ml"));
  EXPECT_EQ(TagOf(gang->tags, "namespace"), "ml");
  EXPECT_EQ(TagOf(gang->tags, "application.create.force"), "false");  // the worker is pending
  EXPECT_EQ(gang->gang_style, GangStyle::kHard);
  EXPECT_EQ(gang->placeholder_timeout_millis, 60'000);
  EXPECT_EQ(AmountsOf(gang->placeholder_ask),
            (Amounts{{"vcore", 2000}, {"memory", 2 * kGi}, {"pods", 2}}));

  std::optional<AppSpec> daemon = FindApp(scenario, cluster::kDaemonSetApp);
  ASSERT_TRUE(daemon);
  EXPECT_EQ(daemon->queue, "") << "1.9 leaves a pod without a queue to the placement rules";
  EXPECT_EQ(daemon->user, "nobody");
  EXPECT_EQ(TagOf(daemon->tags, "application.create.force"), "false");

  std::optional<AppSpec> notebook = FindApp(scenario, cluster::kNotebookApp);
  ASSERT_TRUE(notebook);
  EXPECT_EQ(notebook->queue, "");
  EXPECT_EQ(notebook->user, "nobody");
  EXPECT_EQ(TagOf(notebook->tags, "namespace"), "dev");
  EXPECT_EQ(TagOf(notebook->tags, "application.create.force"), "true");
}

TEST(MainFixtureYunikorn12, RunningPodsAreRecoveredWithTheSumOfContainersOrTheLargestInit) {
  absl::StatusOr<ImportResult> imported = ImportMain(Semantics::kYunikorn12);
  ASSERT_TRUE(imported.ok()) << imported.status();
  const Scenario& scenario = imported->scenario;
  // In creation order; the Succeeded executor and the notebook (no application id) are not
  // YuniKorn allocations under 1.2.
  EXPECT_THAT(RecoveredIds(scenario), ElementsAre(cluster::kSparkDriver, cluster::kSparkExecutor1,
                                                  cluster::kReport0, cluster::kPlaceholderRunning));
  EXPECT_EQ(imported->summary.running, 4);

  std::optional<RecoverSpec> driver = FindRecovered(scenario, cluster::kSparkDriver);
  ASSERT_TRUE(driver);
  EXPECT_EQ(driver->node, "node-a");
  EXPECT_EQ(driver->ask.app, cluster::kSparkApp);
  EXPECT_EQ(driver->ask.partition, "default");
  EXPECT_EQ(AmountsOf(driver->ask.resources), (Amounts{{"vcore", 1000}, {"memory", 2 * kGi}}));
  EXPECT_TRUE(driver->ask.originator) << "the first pod, owned by nothing, is its own originator";
  EXPECT_EQ(driver->ask.creation_time_millis, 0);
  EXPECT_EQ(driver->ask.count, 1);

  std::optional<RecoverSpec> executor = FindRecovered(scenario, cluster::kSparkExecutor1);
  ASSERT_TRUE(executor);
  EXPECT_EQ(executor->node, "node-b");
  // The 1.2 shim ignores spec.overhead.
  EXPECT_EQ(AmountsOf(executor->ask.resources), (Amounts{{"vcore", 2000}, {"memory", 4 * kGi}}));
  EXPECT_FALSE(executor->ask.originator);
  EXPECT_EQ(executor->ask.creation_time_millis, 20'000);

  std::optional<RecoverSpec> report = FindRecovered(scenario, cluster::kReport0);
  ASSERT_TRUE(report);
  EXPECT_EQ(report->node, "node-c") << "a cordoned node keeps what already runs on it";
  EXPECT_EQ(report->ask.app, cluster::kBatchApp);
  // Container 500m / 1Gi, init container 2 / 512Mi: per type the larger.
  EXPECT_EQ(AmountsOf(report->ask.resources), (Amounts{{"vcore", 2000}, {"memory", 1 * kGi}}));
  EXPECT_FALSE(report->ask.originator) << "owned by a Job, whose UID is no pod's";
  EXPECT_EQ(report->ask.creation_time_millis, 60'000);

  std::optional<RecoverSpec> placeholder = FindRecovered(scenario, cluster::kPlaceholderRunning);
  ASSERT_TRUE(placeholder);
  EXPECT_EQ(placeholder->node, "node-a");
  EXPECT_EQ(placeholder->ask.app, cluster::kGangApp);
  EXPECT_TRUE(placeholder->ask.placeholder);
  EXPECT_EQ(placeholder->ask.task_group, "workers");
  EXPECT_EQ(AmountsOf(placeholder->ask.resources), (Amounts{{"vcore", 1000}, {"memory", 1 * kGi}}));
  EXPECT_EQ(placeholder->ask.creation_time_millis, 123'000);

  EXPECT_FALSE(FindRecovered(scenario, cluster::kSparkExecutorSucceeded));
  EXPECT_FALSE(FindRecovered(scenario, cluster::kNotebook));
}

TEST(MainFixtureYunikorn19, RunningPodsAreRecoveredWithAPodEachAndTheirOverhead) {
  absl::StatusOr<ImportResult> imported = ImportMain(Semantics::kYunikorn19);
  ASSERT_TRUE(imported.ok()) << imported.status();
  const Scenario& scenario = imported->scenario;
  EXPECT_THAT(RecoveredIds(scenario),
              ElementsAre(cluster::kSparkDriver, cluster::kSparkExecutor1, cluster::kReport0,
                          cluster::kPlaceholderRunning, cluster::kNotebook));
  EXPECT_EQ(imported->summary.running, 5);

  std::optional<RecoverSpec> driver = FindRecovered(scenario, cluster::kSparkDriver);
  ASSERT_TRUE(driver);
  EXPECT_EQ(AmountsOf(driver->ask.resources),
            (Amounts{{"vcore", 1000}, {"memory", 2 * kGi}, {"pods", 1}}));
  EXPECT_TRUE(driver->ask.originator);

  std::optional<RecoverSpec> executor = FindRecovered(scenario, cluster::kSparkExecutor1);
  ASSERT_TRUE(executor);
  EXPECT_EQ(executor->node, "node-b");
  EXPECT_EQ(AmountsOf(executor->ask.resources), (Amounts{{"vcore", 2000 + cluster::kKataVcore},
                                                         {"memory", 4 * kGi + cluster::kKataMemory},
                                                         {"pods", 1}}));
  EXPECT_FALSE(executor->ask.originator);

  std::optional<RecoverSpec> report = FindRecovered(scenario, cluster::kReport0);
  ASSERT_TRUE(report);
  EXPECT_EQ(report->node, "node-c");
  EXPECT_EQ(AmountsOf(report->ask.resources),
            (Amounts{{"vcore", 2000}, {"memory", 1 * kGi}, {"pods", 1}}));
  EXPECT_TRUE(report->ask.originator) << "1.9: the oldest pod that is not a placeholder";

  std::optional<RecoverSpec> placeholder = FindRecovered(scenario, cluster::kPlaceholderRunning);
  ASSERT_TRUE(placeholder);
  EXPECT_TRUE(placeholder->ask.placeholder);
  EXPECT_EQ(placeholder->ask.task_group, "workers");
  EXPECT_FALSE(placeholder->ask.originator);
  EXPECT_EQ(AmountsOf(placeholder->ask.resources),
            (Amounts{{"vcore", 1000}, {"memory", 1 * kGi}, {"pods", 1}}));

  std::optional<RecoverSpec> notebook = FindRecovered(scenario, cluster::kNotebook);
  ASSERT_TRUE(notebook);
  EXPECT_EQ(notebook->node, "node-a");
  EXPECT_EQ(notebook->ask.app, cluster::kNotebookApp);
  EXPECT_EQ(AmountsOf(notebook->ask.resources),
            (Amounts{{"vcore", 500}, {"memory", 512 * kMi}, {"pods", 1}}));
  EXPECT_TRUE(notebook->ask.originator);
  EXPECT_EQ(notebook->ask.creation_time_millis, 240'000);
}

TEST_P(MainFixture, BoundPodsOfOtherSchedulersAreForeignAndPendingOnesAreIgnored) {
  const bool v19 = GetParam() == Semantics::kYunikorn19;
  absl::StatusOr<ImportResult> imported = ImportMain(GetParam());
  ASSERT_TRUE(imported.ok()) << imported.status();
  const Scenario& scenario = imported->scenario;
  // By node, then id. Under 1.2 the notebook (yunikorn, but no application id) is foreign too.
  if (v19) {
    EXPECT_THAT(ForeignIds(scenario), ElementsAre(cluster::kApiServer, cluster::kCoreDns));
  } else {
    EXPECT_THAT(ForeignIds(scenario),
                ElementsAre(cluster::kApiServer, cluster::kNotebook, cluster::kCoreDns));
  }
  EXPECT_EQ(imported->summary.foreign, v19 ? 2 : 3);

  const Amounts pod = v19 ? Amounts{{"pods", 1}} : Amounts{};
  auto with_pod = [&pod](Amounts amounts) {
    amounts.insert(pod.begin(), pod.end());
    return amounts;
  };
  std::optional<ForeignAllocationSpec> apiserver = FindForeign(scenario, cluster::kApiServer);
  ASSERT_TRUE(apiserver);
  EXPECT_EQ(apiserver->node, "node-a");
  EXPECT_EQ(apiserver->partition, "default");
  EXPECT_EQ(AmountsOf(apiserver->resources), with_pod({{"vcore", 250}}));
  // A mirror pod (owned by its Node): 1.9 reports it as static.
  EXPECT_EQ(apiserver->kind, v19 ? ForeignKind::kStatic : ForeignKind::kDefault);

  std::optional<ForeignAllocationSpec> coredns = FindForeign(scenario, cluster::kCoreDns);
  ASSERT_TRUE(coredns);
  EXPECT_EQ(coredns->node, "node-b");
  // Requests only: the 170Mi limit is not read.
  EXPECT_EQ(AmountsOf(coredns->resources), with_pod({{"vcore", 100}, {"memory", 70 * kMi}}));
  EXPECT_EQ(coredns->kind, ForeignKind::kDefault);

  if (!v19) {
    std::optional<ForeignAllocationSpec> notebook = FindForeign(scenario, cluster::kNotebook);
    ASSERT_TRUE(notebook);
    EXPECT_EQ(notebook->node, "node-a");
    EXPECT_EQ(AmountsOf(notebook->resources), (Amounts{{"vcore", 500}, {"memory", 512 * kMi}}));
  }
  EXPECT_FALSE(FindForeign(scenario, cluster::kWebPending));
  EXPECT_FALSE(FindAsk(scenario, cluster::kWebPending));
}

TEST(MainFixtureYunikorn12, PendingPodsAreAsks) {
  absl::StatusOr<ImportResult> imported = ImportMain(Semantics::kYunikorn12);
  ASSERT_TRUE(imported.ok()) << imported.status();
  const Scenario& scenario = imported->scenario;
  EXPECT_THAT(AskIds(scenario), ElementsAre(cluster::kSparkExecutor2, cluster::kReport1,
                                            cluster::kReportCleanup, cluster::kTrainWorker,
                                            cluster::kPlaceholderPending, cluster::kFluentBit));
  EXPECT_EQ(imported->summary.pending, 6);

  std::optional<AskSpec> executor = FindAsk(scenario, cluster::kSparkExecutor2);
  ASSERT_TRUE(executor);
  EXPECT_EQ(executor->app, cluster::kSparkApp);
  EXPECT_EQ(AmountsOf(executor->resources), (Amounts{{"vcore", 2000}, {"memory", 4 * kGi}}));
  EXPECT_EQ(executor->creation_time_millis, 21'000);
  EXPECT_EQ(executor->priority, 0);
  EXPECT_EQ(executor->count, 1);
  EXPECT_TRUE(executor->allow_preemption);
  EXPECT_FALSE(executor->originator);

  std::optional<AskSpec> report = FindAsk(scenario, cluster::kReport1);
  ASSERT_TRUE(report);
  EXPECT_EQ(report->app, cluster::kBatchApp);
  EXPECT_EQ(report->priority, 1000);  // spec.priority, as the priority class set it
  EXPECT_EQ(AmountsOf(report->resources), (Amounts{{"vcore", 2000}, {"memory", 1 * kGi}}));
  EXPECT_EQ(report->creation_time_millis, 65'000);

  std::optional<AskSpec> cleanup = FindAsk(scenario, cluster::kReportCleanup);
  ASSERT_TRUE(cleanup);
  EXPECT_EQ(AmountsOf(cleanup->resources), (Amounts{{"memory", kBestEffortMemory12}}))
      << "a BestEffort pod asks the 1.2 shim's fixed memory";

  std::optional<AskSpec> worker = FindAsk(scenario, cluster::kTrainWorker);
  ASSERT_TRUE(worker);
  EXPECT_EQ(worker->app, cluster::kGangApp);
  EXPECT_EQ(worker->task_group, "workers");
  EXPECT_FALSE(worker->placeholder);
  EXPECT_FALSE(worker->originator) << "1.2: the first pod is owned by a Job";
  EXPECT_EQ(worker->creation_time_millis, 120'000);

  std::optional<AskSpec> placeholder = FindAsk(scenario, cluster::kPlaceholderPending);
  ASSERT_TRUE(placeholder);
  EXPECT_TRUE(placeholder->placeholder);
  EXPECT_EQ(placeholder->task_group, "workers");
  EXPECT_EQ(AmountsOf(placeholder->resources), (Amounts{{"vcore", 1000}, {"memory", 1 * kGi}}));
  EXPECT_EQ(placeholder->creation_time_millis, 123'000);

  std::optional<AskSpec> fluent_bit = FindAsk(scenario, cluster::kFluentBit);
  ASSERT_TRUE(fluent_bit);
  EXPECT_EQ(fluent_bit->app, cluster::kDaemonSetApp);
  EXPECT_EQ(fluent_bit->required_node, "node-b");
  EXPECT_EQ(AmountsOf(fluent_bit->resources), (Amounts{{"vcore", 100}, {"memory", 200 * kMi}}));
  EXPECT_EQ(fluent_bit->creation_time_millis, 180'000);
  EXPECT_FALSE(fluent_bit->originator);

  // Only pods with a required node affinity of a DaemonSet get one.
  for (const AskSpec& ask : StepsOf<AskSpec>(scenario)) {
    if (ask.id != cluster::kFluentBit) {
      EXPECT_EQ(ask.required_node, "") << ask.id;
    }
  }
}

TEST(MainFixtureYunikorn19, PendingPodsAreAsks) {
  absl::StatusOr<ImportResult> imported = ImportMain(Semantics::kYunikorn19);
  ASSERT_TRUE(imported.ok()) << imported.status();
  const Scenario& scenario = imported->scenario;
  EXPECT_THAT(AskIds(scenario), ElementsAre(cluster::kSparkExecutor2, cluster::kReport1,
                                            cluster::kReportCleanup, cluster::kTrainWorker,
                                            cluster::kPlaceholderPending, cluster::kFluentBit));
  EXPECT_EQ(imported->summary.pending, 6);

  std::optional<AskSpec> executor = FindAsk(scenario, cluster::kSparkExecutor2);
  ASSERT_TRUE(executor);
  EXPECT_EQ(AmountsOf(executor->resources), (Amounts{{"vcore", 2000 + cluster::kKataVcore},
                                                     {"memory", 4 * kGi + cluster::kKataMemory},
                                                     {"pods", 1}}));
  EXPECT_EQ(executor->creation_time_millis, 21'000);

  std::optional<AskSpec> report = FindAsk(scenario, cluster::kReport1);
  ASSERT_TRUE(report);
  EXPECT_EQ(report->priority, 1000);
  EXPECT_EQ(AmountsOf(report->resources),
            (Amounts{{"vcore", 2000}, {"memory", 1 * kGi}, {"pods", 1}}));

  std::optional<AskSpec> cleanup = FindAsk(scenario, cluster::kReportCleanup);
  ASSERT_TRUE(cleanup);
  EXPECT_EQ(AmountsOf(cleanup->resources), (Amounts{{"pods", 1}}))
      << "1.9 has no BestEffort special case";

  std::optional<AskSpec> worker = FindAsk(scenario, cluster::kTrainWorker);
  ASSERT_TRUE(worker);
  EXPECT_EQ(worker->task_group, "workers");
  EXPECT_TRUE(worker->originator) << "1.9: the oldest pod that is not a placeholder";
  EXPECT_EQ(AmountsOf(worker->resources),
            (Amounts{{"vcore", 1000}, {"memory", 1 * kGi}, {"pods", 1}}));

  std::optional<AskSpec> placeholder = FindAsk(scenario, cluster::kPlaceholderPending);
  ASSERT_TRUE(placeholder);
  EXPECT_TRUE(placeholder->placeholder);
  EXPECT_FALSE(placeholder->originator);

  std::optional<AskSpec> fluent_bit = FindAsk(scenario, cluster::kFluentBit);
  ASSERT_TRUE(fluent_bit);
  EXPECT_EQ(fluent_bit->required_node, "node-b");
  EXPECT_EQ(AmountsOf(fluent_bit->resources),
            (Amounts{{"vcore", 100}, {"memory", 200 * kMi}, {"pods", 1}}));
  EXPECT_TRUE(fluent_bit->originator);
}

TEST_P(MainFixture, WarningsNameWhatWasSkippedAndHowOften) {
  const bool v19 = GetParam() == Semantics::kYunikorn19;
  absl::StatusOr<ImportResult> imported = ImportMain(GetParam());
  ASSERT_TRUE(imported.ok()) << imported.status();
  const std::vector<ImportWarning>& warnings = imported->warnings;
  EXPECT_EQ(warnings.size(), 4u) << FormatImportWarnings(warnings);

  WarningSeen succeeded = Warning(warnings, "pod phase Succeeded");
  EXPECT_EQ(succeeded.count, 1);
  EXPECT_EQ(succeeded.example, "pod spark/spark-etl-exec-0");

  WarningSeen foreign_pending = Warning(warnings, "pending pod of another scheduler");
  EXPECT_EQ(foreign_pending.count, 1);
  EXPECT_EQ(foreign_pending.example, "pod default/web-6d9f7c8b5-tq2lx");

  WarningSeen taints = Warning(warnings, "node taints");
  EXPECT_EQ(taints.count, 1);
  EXPECT_EQ(taints.example, "node node-c");

  // The placeholders carry no user.info: they name no user, so the worker's counts and nothing
  // is overruled.
  EXPECT_EQ(Warning(warnings, "different queues or users").count, 0);

  WarningSeen no_app_id = Warning(warnings, "no application id");
  WarningSeen generated = Warning(warnings, "generated id");
  EXPECT_EQ(no_app_id.count, v19 ? 0 : 1);
  EXPECT_EQ(generated.count, v19 ? 1 : 0);
  EXPECT_EQ(v19 ? generated.example : no_app_id.example, "pod dev/notebook");

  EXPECT_THAT(FormatImportWarnings(warnings), HasSubstr("1 x pod phase Succeeded"));
}

TEST_P(MainFixture, RunningPodsAreRecoveredOnTheirNodesAndPendingPodsWait) {
  absl::StatusOr<ImportResult> imported = ImportMain(GetParam(), /*schedule=*/false);
  ASSERT_TRUE(imported.ok()) << imported.status();
  absl::StatusOr<RunResult> run = RunImported(imported->scenario);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_THAT(run->errors, IsEmpty());
  EXPECT_THAT(run->rejected_apps, IsEmpty());
  EXPECT_THAT(run->allocations, IsEmpty());

  std::vector<std::string> expected_recovered;
  for (const RecoverSpec& recovered : StepsOf<RecoverSpec>(imported->scenario)) {
    expected_recovered.push_back(recovered.ask.id + " on " + recovered.node);
  }
  std::vector<std::string> recovered;
  for (const ActualAllocation& record : run->recovered) {
    recovered.push_back(std::string(record.ask) + " on " + std::string(record.node));
  }
  EXPECT_EQ(recovered, expected_recovered);
  EXPECT_EQ(recovered.size(), GetParam() == Semantics::kYunikorn19 ? 5u : 4u);

  std::map<std::string, int64_t> expected_pending;
  for (const AskSpec& ask : StepsOf<AskSpec>(imported->scenario)) expected_pending[ask.id] = 1;
  EXPECT_EQ(PendingCounts(*run->kernel), expected_pending);
  EXPECT_EQ(expected_pending.size(), 6u);
}

TEST(MainFixtureYunikorn12, ScheduleReplacesThePlaceholderAndFillsNodeB) {
  absl::StatusOr<ImportResult> imported = ImportMain(Semantics::kYunikorn12);
  ASSERT_TRUE(imported.ok()) << imported.status();
  absl::StatusOr<RunResult> run = RunImported(imported->scenario);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_THAT(run->errors, IsEmpty());
  EXPECT_THAT(run->rejected_apps, IsEmpty());

  // Every recovered pod is a `recovered` record where it runs, in its queue.
  EXPECT_THAT(Placed(run->recovered),
              ElementsAre(PlacedAs(cluster::kSparkDriver, "node-a", "root.analytics"),
                          PlacedAs(cluster::kSparkExecutor1, "node-b", "root.analytics"),
                          PlacedAs(cluster::kReport0, "node-c", "root.batch"),
                          PlacedAs(cluster::kPlaceholderRunning, "node-a", "root.batch")));

  // Placeholder replacement comes before the regular walk: the worker takes the running
  // placeholder's place on node-a. Everything else goes to node-b, the least used schedulable
  // node (node-c, emptier still, is cordoned). The second executor would take root.analytics
  // to 5 of its 3 cores and waits.
  ASSERT_FALSE(run->allocations.empty());
  EXPECT_EQ(Placed(run->allocations).front(),
            PlacedAs(cluster::kTrainWorker, "node-a", "root.batch"));
  EXPECT_THAT(Placed(run->allocations),
              UnorderedElementsAre(PlacedAs(cluster::kTrainWorker, "node-a", "root.batch"),
                                   PlacedAs(cluster::kReport1, "node-b", "root.batch"),
                                   PlacedAs(cluster::kReportCleanup, "node-b", "root.batch"),
                                   PlacedAs(cluster::kPlaceholderPending, "node-b", "root.batch"),
                                   PlacedAs(cluster::kFluentBit, "node-b", "root.sandbox")));
  for (const ActualAllocation& allocation : run->allocations) {
    if (allocation.ask == cluster::kReport1) {
      EXPECT_EQ(allocation.priority, 1000);
    }
  }
  ASSERT_EQ(run->releases.size(), 1u);
  EXPECT_EQ(run->releases[0].ask, cluster::kPlaceholderRunning);
  EXPECT_EQ(run->releases[0].node, "node-a");
  EXPECT_EQ(run->releases[0].reason, "replaced");

  EXPECT_EQ(PendingCounts(*run->kernel),
            (std::map<std::string, int64_t>{{cluster::kSparkExecutor2, 1}}));
  EXPECT_THAT(PendingReason(*run->kernel, cluster::kSparkExecutor2),
              HasSubstr("queue root.analytics headroom"));
}

TEST(MainFixtureYunikorn19, ScheduleReplacesThePlaceholderAndFillsNodeB) {
  absl::StatusOr<ImportResult> imported = ImportMain(Semantics::kYunikorn19);
  ASSERT_TRUE(imported.ok()) << imported.status();
  absl::StatusOr<RunResult> run = RunImported(imported->scenario);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_THAT(run->errors, IsEmpty());
  EXPECT_THAT(run->rejected_apps, IsEmpty());

  // The gang is in root.ml. Of the applications without a queue, the notebook's pod runs: the
  // shim forces it, and with no rule to place it YuniKorn keeps it in root.@recovery@ (not in
  // root.default, where the DaemonSet's pending application goes).
  EXPECT_THAT(Placed(run->recovered),
              ElementsAre(PlacedAs(cluster::kSparkDriver, "node-a", "root.analytics"),
                          PlacedAs(cluster::kSparkExecutor1, "node-b", "root.analytics"),
                          PlacedAs(cluster::kReport0, "node-c", "root.batch"),
                          PlacedAs(cluster::kPlaceholderRunning, "node-a", "root.ml"),
                          PlacedAs(cluster::kNotebook, "node-a", "root.@recovery@")));

  ASSERT_FALSE(run->allocations.empty());
  EXPECT_EQ(Placed(run->allocations).front(), PlacedAs(cluster::kTrainWorker, "node-a", "root.ml"));
  EXPECT_THAT(Placed(run->allocations),
              UnorderedElementsAre(PlacedAs(cluster::kTrainWorker, "node-a", "root.ml"),
                                   PlacedAs(cluster::kReport1, "node-b", "root.batch"),
                                   PlacedAs(cluster::kReportCleanup, "node-b", "root.batch"),
                                   PlacedAs(cluster::kPlaceholderPending, "node-b", "root.ml"),
                                   PlacedAs(cluster::kFluentBit, "node-b", "root.default")));
  ASSERT_EQ(run->releases.size(), 1u);
  EXPECT_EQ(run->releases[0].ask, cluster::kPlaceholderRunning);
  EXPECT_EQ(run->releases[0].reason, "replaced");

  // The recovered executors already hold 3.25 of root.analytics' 3 cores.
  EXPECT_EQ(PendingCounts(*run->kernel),
            (std::map<std::string, int64_t>{{cluster::kSparkExecutor2, 1}}));
  EXPECT_THAT(PendingReason(*run->kernel, cluster::kSparkExecutor2),
              HasSubstr("queue root.analytics headroom"));
}

TEST(MainFixtureOptions, StrictFailsOnTheFixturesWarningsAndNamesThem) {
  ImportOptions options = MainOptions(Semantics::kYunikorn12);
  options.strict = true;
  absl::StatusOr<ImportResult> imported = ImportKubernetesObjects(kDir + "main.json", options);
  ASSERT_FALSE(imported.ok());
  EXPECT_EQ(imported.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(Message(imported.status()), HasSubstr("--strict"));
  EXPECT_THAT(Message(imported.status()),
              HasSubstr("pod phase Succeeded: skipped (terminated pods hold nothing) (first: pod "
                        "spark/spark-etl-exec-0)"));
}

TEST(MainFixtureOptions, WithoutAProfileTheImportReadsLikeThe12Shim) {
  ImportOptions options = MainOptions(Semantics::kYunikorn12);
  options.semantics.reset();
  absl::StatusOr<ImportResult> imported = ImportKubernetesObjects(kDir + "main.json", options);
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ(imported->scenario.semantics, Semantics::kYunikorn12);
  std::optional<AskSpec> cleanup = FindAsk(imported->scenario, cluster::kReportCleanup);
  ASSERT_TRUE(cleanup);
  EXPECT_EQ(AmountsOf(cleanup->resources), (Amounts{{"memory", kBestEffortMemory12}}));
}

TEST(MainFixtureOptions, AFailedImportReturnsNothingEvenWhenOnlyTheLastPodIsBad) {
  std::ifstream file(kDir + "main.json");
  ASSERT_TRUE(file) << "main.json";
  std::stringstream text;
  text << file.rdbuf();
  std::string json = text.str();
  // A bad pod after every good node and pod of the fixture.
  size_t list_end = json.rfind("],\n    \"kind\": \"List\"");
  ASSERT_NE(list_end, std::string::npos);
  size_t last_item_end = json.rfind('}', list_end);
  ASSERT_NE(last_item_end, std::string::npos);
  json.insert(last_item_end + 1,
              ",\n{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"late\","
              "\"namespace\":\"spark\",\"uid\":\"0f0f0f0f-0000-4000-8000-000000000001\"},"
              "\"spec\":{\"schedulerName\":\"yunikorn\",\"containers\":[{\"name\":\"c\","
              "\"resources\":{\"requests\":{\"cpu\":\"-2\"}}}]},\"status\":{\"phase\":"
              "\"Pending\"}}");
  absl::StatusOr<ImportResult> imported =
      ImportKubernetesObjectsText(json, "main+late.json", MainOptions(Semantics::kYunikorn19));
  ASSERT_FALSE(imported.ok());
  EXPECT_EQ(imported.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(imported.status()),
              HasSubstr("pod spark/late: spec.containers[0].resources.requests.cpu"));
}

// =============================================================================================
// pod_resources.json

namespace shop {
constexpr char kApp[] = "web-shop";
constexpr char kApi0[] = "6e1f0a2b-3c4d-4e5f-8a6b-7c8d9e0f1a01";  // init + native sidecar
constexpr char kApi1[] = "6e1f0a2b-3c4d-4e5f-8a6b-7c8d9e0f1a02";  // resize not carried out yet
constexpr char kReportFailed[] = "6e1f0a2b-3c4d-4e5f-8a6b-7c8d9e0f1a03";
constexpr char kCacheWarmer[] = "6e1f0a2b-3c4d-4e5f-8a6b-7c8d9e0f1a04";  // requests "0", "0Mi"
constexpr char kInfer[] = "6e1f0a2b-3c4d-4e5f-8a6b-7c8d9e0f1a05";        // a GPU, nothing else
constexpr char kExport[] = "6e1f0a2b-3c4d-4e5f-8a6b-7c8d9e0f1a06";       // pod-level requests
constexpr char kProbe[] = "6e1f0a2b-3c4d-4e5f-8a6b-7c8d9e0f1a07";        // memory "128m"
constexpr char kGated[] = "6e1f0a2b-3c4d-4e5f-8a6b-7c8d9e0f1a08";        // a scheduling gate
}  // namespace shop

absl::StatusOr<ImportResult> ImportPodResources(Semantics semantics) {
  return ImportKubernetesObjects(kDir + "pod_resources.json", MainOptions(semantics));
}

TEST(PodResourcesFixtureYunikorn12, ContainersSumAgainstEachInitAndBestEffortAsksFixedMemory) {
  absl::StatusOr<ImportResult> imported = ImportPodResources(Semantics::kYunikorn12);
  ASSERT_TRUE(imported.ok()) << imported.status();
  const Scenario& scenario = imported->scenario;
  ASSERT_EQ(scenario.nodes.size(), 1u);
  EXPECT_EQ(AmountsOf(scenario.nodes[0].node.capacity),
            (Amounts{{"vcore", 2000},
                     {"memory", 8 * kGi},
                     {"pods", 4},
                     {"nvidia.com/gpu", 1},
                     {"ephemeral-storage", kEphemeralStorage}}));

  std::optional<AppSpec> app = FindApp(scenario, shop::kApp);
  ASSERT_TRUE(app);
  EXPECT_EQ(app->queue, "root.sandbox");
  EXPECT_EQ(app->user, "nobody");

  EXPECT_THAT(RecoveredIds(scenario), ElementsAre(shop::kApi0, shop::kApi1));
  std::optional<RecoverSpec> api0 = FindRecovered(scenario, shop::kApi0);
  ASSERT_TRUE(api0);
  // Containers 500m / 512Mi; init containers 100m / 64Mi and 200m / 128Mi are smaller. The
  // 1.2 shim knows no sidecars.
  EXPECT_EQ(AmountsOf(api0->ask.resources), (Amounts{{"vcore", 500}, {"memory", 512 * kMi}}));
  std::optional<RecoverSpec> api1 = FindRecovered(scenario, shop::kApi1);
  ASSERT_TRUE(api1);
  EXPECT_EQ(AmountsOf(api1->ask.resources), (Amounts{{"vcore", 500}, {"memory", 512 * kMi}}))
      << "1.2 reads the spec, not the kubelet's status";

  EXPECT_THAT(AskIds(scenario), ElementsAre(shop::kCacheWarmer, shop::kInfer, shop::kExport,
                                            shop::kProbe, shop::kGated));
  std::optional<AskSpec> warmer = FindAsk(scenario, shop::kCacheWarmer);
  ASSERT_TRUE(warmer);
  EXPECT_EQ(AmountsOf(warmer->resources), (Amounts{{"memory", kBestEffortMemory12}}))
      << "requests of \"0\" and \"0Mi\" leave a pod BestEffort";
  std::optional<AskSpec> infer = FindAsk(scenario, shop::kInfer);
  ASSERT_TRUE(infer);
  EXPECT_EQ(AmountsOf(infer->resources), (Amounts{{"memory", kBestEffortMemory12}}))
      << "a GPU does not lift a pod out of BestEffort, and the 1.2 shim drops it";
  std::optional<AskSpec> exported = FindAsk(scenario, shop::kExport);
  ASSERT_TRUE(exported);
  EXPECT_EQ(AmountsOf(exported->resources), (Amounts{{"vcore", 500}, {"memory", 512 * kMi}}))
      << "two containers of 250m / 256Mi; pod-level requests are not read";
  std::optional<AskSpec> probe = FindAsk(scenario, shop::kProbe);
  ASSERT_TRUE(probe);
  EXPECT_EQ(AmountsOf(probe->resources), (Amounts{{"vcore", 100}, {"memory", 1}}));
  std::optional<AskSpec> gated = FindAsk(scenario, shop::kGated);
  ASSERT_TRUE(gated);
  EXPECT_EQ(AmountsOf(gated->resources), (Amounts{{"vcore", 100}, {"memory", 64 * kMi}}));

  EXPECT_EQ(imported->warnings.size(), 2u) << FormatImportWarnings(imported->warnings);
  WarningSeen rounded = Warning(imported->warnings, "rounded up");
  EXPECT_EQ(rounded.count, 1);
  EXPECT_THAT(rounded.example, HasSubstr("pod shop/probe"));
  EXPECT_THAT(rounded.example, HasSubstr("128m"));
  WarningSeen failed = Warning(imported->warnings, "pod phase Failed");
  EXPECT_EQ(failed.count, 1);
  EXPECT_EQ(failed.example, "pod shop/report-28374650-xk9vz");
  EXPECT_FALSE(FindAsk(scenario, shop::kReportFailed));
  EXPECT_FALSE(FindRecovered(scenario, shop::kReportFailed));

  // 1 of 2 cores used; the five asks need 0.7 more and no pods: all fit.
  absl::StatusOr<RunResult> run = RunImported(scenario);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_THAT(run->errors, IsEmpty());
  EXPECT_THAT(Placed(run->allocations),
              ElementsAre(PlacedAs(shop::kCacheWarmer, "worker-1", "root.sandbox"),
                          PlacedAs(shop::kInfer, "worker-1", "root.sandbox"),
                          PlacedAs(shop::kExport, "worker-1", "root.sandbox"),
                          PlacedAs(shop::kProbe, "worker-1", "root.sandbox"),
                          PlacedAs(shop::kGated, "worker-1", "root.sandbox")));
  EXPECT_THAT(PendingCounts(*run->kernel), IsEmpty());
}

TEST(PodResourcesFixtureYunikorn19, SidecarsResizesPodLevelRequestsAndThePodsCount) {
  absl::StatusOr<ImportResult> imported = ImportPodResources(Semantics::kYunikorn19);
  ASSERT_TRUE(imported.ok()) << imported.status();
  const Scenario& scenario = imported->scenario;

  EXPECT_THAT(RecoveredIds(scenario), ElementsAre(shop::kApi0, shop::kApi1));
  std::optional<RecoverSpec> api0 = FindRecovered(scenario, shop::kApi0);
  ASSERT_TRUE(api0);
  // The sidecar (200m / 128Mi) runs beside the 500m / 512Mi container.
  EXPECT_EQ(AmountsOf(api0->ask.resources),
            (Amounts{{"vcore", 700}, {"memory", 640 * kMi}, {"pods", 1}}));
  std::optional<RecoverSpec> api1 = FindRecovered(scenario, shop::kApi1);
  ASSERT_TRUE(api1);
  EXPECT_EQ(AmountsOf(api1->ask.resources),
            (Amounts{{"vcore", 1000}, {"memory", 512 * kMi}, {"pods", 1}}))
      << "the kubelet still holds the 1 cpu of before the resize";

  // The gated pod is not the shim's until its gates are gone.
  EXPECT_THAT(AskIds(scenario),
              ElementsAre(shop::kCacheWarmer, shop::kInfer, shop::kExport, shop::kProbe));
  std::optional<AskSpec> warmer = FindAsk(scenario, shop::kCacheWarmer);
  ASSERT_TRUE(warmer);
  EXPECT_EQ(AmountsOf(warmer->resources), (Amounts{{"pods", 1}}));
  std::optional<AskSpec> infer = FindAsk(scenario, shop::kInfer);
  ASSERT_TRUE(infer);
  EXPECT_EQ(AmountsOf(infer->resources), (Amounts{{"nvidia.com/gpu", 1}, {"pods", 1}}));
  std::optional<AskSpec> exported = FindAsk(scenario, shop::kExport);
  ASSERT_TRUE(exported);
  EXPECT_EQ(AmountsOf(exported->resources),
            (Amounts{{"vcore", 1000}, {"memory", 1 * kGi}, {"pods", 1}}))
      << "spec.resources.requests replaces the containers' cpu and memory";
  std::optional<AskSpec> probe = FindAsk(scenario, shop::kProbe);
  ASSERT_TRUE(probe);
  EXPECT_EQ(AmountsOf(probe->resources), (Amounts{{"vcore", 100}, {"memory", 1}, {"pods", 1}}));

  EXPECT_EQ(imported->warnings.size(), 3u) << FormatImportWarnings(imported->warnings);
  WarningSeen gates = Warning(imported->warnings, "scheduling gates");
  EXPECT_EQ(gates.count, 1);
  EXPECT_EQ(gates.example, "pod shop/gated-job");
  EXPECT_EQ(Warning(imported->warnings, "rounded up").count, 1);
  EXPECT_EQ(Warning(imported->warnings, "pod phase Failed").count, 1);

  // 1.7 of 2 cores and 2 of 4 pods are used. In creation order: the warmer and the GPU pod take
  // the last two pods; the export needs a core and the probe a fifth pod.
  absl::StatusOr<RunResult> run = RunImported(scenario);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_THAT(run->errors, IsEmpty());
  EXPECT_THAT(Placed(run->allocations),
              ElementsAre(PlacedAs(shop::kCacheWarmer, "worker-1", "root.sandbox"),
                          PlacedAs(shop::kInfer, "worker-1", "root.sandbox")));
  EXPECT_EQ(PendingCounts(*run->kernel),
            (std::map<std::string, int64_t>{{shop::kExport, 1}, {shop::kProbe, 1}}));
}

// =============================================================================================
// Rules, one document each

// The queues the rules' documents place into, as queues.yaml text (ConfigToJson writes JSON,
// which is YAML).
const std::string kQueues =
    ConfigToJson(test_support::RootWith(test_support::Leaves({"sandbox", "default", "a", "b"})));

// A pod as kubectl writes it, with only what a test needs spelled out.
struct PodObject {
  std::string ns = "default";
  std::string name;
  std::string uid;
  std::string created = "2024-05-01T10:00:00Z";
  std::string labels = "{}";
  std::string annotations = "{}";
  std::string owners = "[]";
  std::string containers = R"([{"image":"busybox:1.36","name":"main",)"
                           R"("resources":{"requests":{"cpu":"1","memory":"1Gi"}}}])";
  std::string spec_more;  // further members of spec, each followed by a comma
  std::string scheduler = "yunikorn";
  std::string node;         // spec.nodeName; empty: pending
  std::string phase;        // empty: Running when bound, else Pending
  std::string status_more;  // further members of status, each followed by a comma
};

std::string PodJson(const PodObject& pod) {
  std::string node = pod.node.empty() ? "" : "\"nodeName\":\"" + pod.node + "\",";
  std::string phase = !pod.phase.empty() ? pod.phase : pod.node.empty() ? "Pending" : "Running";
  return "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"annotations\":" +
         pod.annotations + ",\"creationTimestamp\":\"" + pod.created +
         "\",\"labels\":" + pod.labels + ",\"name\":\"" + pod.name + "\",\"namespace\":\"" +
         pod.ns + "\",\"ownerReferences\":" + pod.owners + ",\"uid\":\"" + pod.uid +
         "\"},\"spec\":{" + pod.spec_more + "\"containers\":" + pod.containers + "," + node +
         "\"schedulerName\":\"" + pod.scheduler + "\"},\"status\":{" + pod.status_more +
         "\"phase\":\"" + phase + "\"}}";
}

std::string NodeJson(std::string_view name,
                     std::string_view allocatable = R"({"cpu":"4","memory":"16Gi","pods":"110"})",
                     std::string_view spec = "{}") {
  return "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"" + std::string(name) +
         "\",\"uid\":\"node-uid-" + std::string(name) + "\"},\"spec\":" + std::string(spec) +
         ",\"status\":{\"allocatable\":" + std::string(allocatable) + "}}";
}

// One item a line, so that messages can name the line of an item: the first item is line 2.
std::string ListJson(const std::vector<std::string>& items) {
  std::string out = "{\"apiVersion\":\"v1\",\"items\":[\n";
  for (size_t i = 0; i < items.size(); ++i) {
    out += items[i];
    out += i + 1 < items.size() ? ",\n" : "\n";
  }
  out += "],\"kind\":\"List\",\"metadata\":{\"resourceVersion\":\"\"}}";
  return out;
}

ImportOptions InlineOptions(Semantics semantics) {
  ImportOptions options;
  options.config_text = kQueues;
  options.semantics = semantics;
  return options;
}

absl::StatusOr<ImportResult> ImportItems(const std::vector<std::string>& items,
                                         Semantics semantics) {
  return ImportKubernetesObjectsText(ListJson(items), "cluster.json", InlineOptions(semantics));
}

// The message of an import that must fail with InvalidArgument.
std::string ImportError(std::string_view json, Semantics semantics = Semantics::kYunikorn12) {
  absl::StatusOr<ImportResult> imported =
      ImportKubernetesObjectsText(json, "cluster.json", InlineOptions(semantics));
  EXPECT_FALSE(imported.ok()) << "imported although it should not:\n" << json;
  if (imported.ok()) return "";
  EXPECT_EQ(imported.status().code(), absl::StatusCode::kInvalidArgument) << imported.status();
  return Message(imported.status());
}

std::string AppOf(const Scenario& scenario, std::string_view uid) {
  std::optional<AskSpec> ask = FindAsk(scenario, uid);
  if (ask) return ask->app;
  std::optional<RecoverSpec> recovered = FindRecovered(scenario, uid);
  if (recovered) return recovered->ask.app;
  return "(no ask or allocation)";
}

TEST(KubernetesRules, TheApplicationIdComesFromEachProfilesSourcesInItsOrder) {
  std::vector<std::string> items = {
      PodJson({.name = "all-sources",
               .uid = "uid-all",
               .labels = R"({"applicationId":"from-application-id",)"
                         R"("spark-app-selector":"from-spark",)"
                         R"("yunikorn.apache.org/app-id":"from-canonical-label"})",
               .annotations = R"({"yunikorn.apache.org/app-id":"from-annotation"})"}),
      PodJson({.name = "labels",
               .uid = "uid-labels",
               .labels = R"({"applicationId":"from-application-id","spark-app-selector":"x"})"}),
      PodJson({.name = "spark", .uid = "uid-spark", .labels = R"({"spark-app-selector":"spk"})"}),
      // A key present with an empty value counts as unset.
      PodJson({.name = "empty-annotation",
               .uid = "uid-empty",
               .labels = R"({"applicationId":"from-label"})",
               .annotations = R"({"yunikorn.apache.org/app-id":""})"}),
  };
  absl::StatusOr<ImportResult> v12 = ImportItems(items, Semantics::kYunikorn12);
  ASSERT_TRUE(v12.ok()) << v12.status();
  EXPECT_EQ(AppOf(v12->scenario, "uid-all"), "from-annotation");
  EXPECT_EQ(AppOf(v12->scenario, "uid-labels"), "from-application-id");
  EXPECT_EQ(AppOf(v12->scenario, "uid-spark"), "spk");
  EXPECT_EQ(AppOf(v12->scenario, "uid-empty"), "from-label");

  absl::StatusOr<ImportResult> v19 = ImportItems(items, Semantics::kYunikorn19);
  ASSERT_TRUE(v19.ok()) << v19.status();
  EXPECT_EQ(AppOf(v19->scenario, "uid-all"), "from-canonical-label");
  EXPECT_EQ(AppOf(v19->scenario, "uid-labels"), "from-application-id");
  EXPECT_EQ(AppOf(v19->scenario, "uid-spark"), "spk");
  EXPECT_EQ(AppOf(v19->scenario, "uid-empty"), "from-label");
}

TEST(KubernetesRules, UniqueAutogenBecomesThePodUidUnder19Only) {
  std::vector<std::string> items = {
      PodJson({.name = "nightly",
               .uid = "7d1e6c2a-0000-4000-8000-00000000aa01",
               .labels = R"({"applicationId":"nightly-uniqueautogen"})"})};
  absl::StatusOr<ImportResult> v12 = ImportItems(items, Semantics::kYunikorn12);
  ASSERT_TRUE(v12.ok()) << v12.status();
  EXPECT_THAT(AppIds(v12->scenario), ElementsAre("nightly-uniqueautogen"));
  absl::StatusOr<ImportResult> v19 = ImportItems(items, Semantics::kYunikorn19);
  ASSERT_TRUE(v19.ok()) << v19.status();
  EXPECT_THAT(AppIds(v19->scenario), ElementsAre("nightly-7d1e6c2a-0000-4000-8000-00000000aa01"));
}

TEST(KubernetesRules, A19GeneratedApplicationIdIsCutTo63Bytes) {
  const std::string ns = "team-" + std::string(55, 'x');  // 60 bytes, under the 63 allowed
  std::vector<std::string> items = {PodJson({.ns = ns, .name = "job", .uid = "uid-long"})};
  absl::StatusOr<ImportResult> v19 = ImportItems(items, Semantics::kYunikorn19);
  ASSERT_TRUE(v19.ok()) << v19.status();
  const std::string generated = ("yunikorn-" + ns + "-autogen").substr(0, 63);
  EXPECT_THAT(AppIds(v19->scenario), ElementsAre(generated));
  EXPECT_EQ(Warning(v19->warnings, "generated id").count, 1);

  // The 1.2 shim does not take the pod; pending, nobody else holds it either.
  absl::StatusOr<ImportResult> v12 = ImportItems(items, Semantics::kYunikorn12);
  ASSERT_TRUE(v12.ok()) << v12.status();
  EXPECT_THAT(AppIds(v12->scenario), IsEmpty());
  EXPECT_THAT(AskIds(v12->scenario), IsEmpty());
  EXPECT_EQ(Warning(v12->warnings, "no application id").count, 1);
  EXPECT_EQ(Warning(v12->warnings, "pending pod of another scheduler").count, 1);
}

TEST(KubernetesRules, TheQueueComesFromEachProfilesSourcesInItsOrder) {
  std::vector<std::string> items = {
      PodJson({.name = "label-and-annotation",
               .uid = "uid-1",
               .labels = R"({"applicationId":"app-1","queue":"root.a"})",
               .annotations = R"({"yunikorn.apache.org/queue":"root.b"})"}),
      PodJson({.name = "annotation",
               .uid = "uid-2",
               .labels = R"({"applicationId":"app-2"})",
               .annotations = R"({"yunikorn.apache.org/queue":"root.b"})"}),
      PodJson({.name = "none", .uid = "uid-3", .labels = R"({"applicationId":"app-3"})"}),
  };
  absl::StatusOr<ImportResult> v12 = ImportItems(items, Semantics::kYunikorn12);
  ASSERT_TRUE(v12.ok()) << v12.status();
  EXPECT_EQ(App(v12->scenario, "app-1").queue, "root.a");
  EXPECT_EQ(App(v12->scenario, "app-2").queue, "root.b");
  EXPECT_EQ(App(v12->scenario, "app-3").queue, "root.sandbox");

  absl::StatusOr<ImportResult> v19 = ImportItems(items, Semantics::kYunikorn19);
  ASSERT_TRUE(v19.ok()) << v19.status();
  EXPECT_EQ(App(v19->scenario, "app-1").queue, "root.b");
  EXPECT_EQ(App(v19->scenario, "app-2").queue, "root.b");
  EXPECT_EQ(App(v19->scenario, "app-3").queue, "");
}

// The oldest pod sets the application's queue and user; a later pod that names others is
// overruled and warned about, one that names nothing is not.
TEST(KubernetesRules, ALaterPodNamingAnotherQueueIsOverruledWithAWarning) {
  std::vector<std::string> items = {
      PodJson({.name = "first",
               .uid = "uid-1",
               .created = "2024-05-01T10:00:00Z",
               .labels = R"({"applicationId":"app-1","queue":"root.a"})"}),
      PodJson({.name = "silent",
               .uid = "uid-2",
               .created = "2024-05-01T10:00:01Z",
               .labels = R"({"applicationId":"app-1"})"}),
      PodJson({.name = "other-queue",
               .uid = "uid-3",
               .created = "2024-05-01T10:00:02Z",
               .labels = R"({"applicationId":"app-1","queue":"root.b"})"}),
      PodJson({.name = "other-user",
               .uid = "uid-4",
               .created = "2024-05-01T10:00:03Z",
               .labels = R"({"applicationId":"app-1","queue":"root.a",)"
                         R"("yunikorn.apache.org/username":"eve"})"}),
  };
  absl::StatusOr<ImportResult> imported = ImportItems(items, Semantics::kYunikorn12);
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ(App(imported->scenario, "app-1").queue, "root.a");
  EXPECT_EQ(App(imported->scenario, "app-1").user, "nobody");
  WarningSeen overruled = Warning(imported->warnings, "different queues or users");
  EXPECT_EQ(overruled.count, 2);
  EXPECT_EQ(overruled.example, "pod default/other-queue");
}

// What decides placement in a real cluster but is not modelled is a warning per kind: the
// shim's keys the importer does not read, node selectors and affinities, spread constraints.
TEST(KubernetesRules, WhatIsNotModelledIsAWarningPerKind) {
  std::vector<std::string> items = {
      PodJson({.name = "quota",
               .uid = "uid-1",
               .labels = R"({"applicationId":"app-1"})",
               .annotations = R"({"yunikorn.apache.org/namespace.quota":"{}",)"
                              R"("yunikorn.apache.org/app-id":"app-1"})"}),
      PodJson({.name = "picky",
               .uid = "uid-2",
               .labels = R"({"applicationId":"app-1"})",
               .spec_more = R"("nodeSelector":{"disk":"ssd"},)"
                            R"("affinity":{"podAntiAffinity":{"x":1}},)"
                            R"("topologySpreadConstraints":[{"maxSkew":1}],)"
                            R"("tolerations":[{"key":"k"}],)"}),
  };
  absl::StatusOr<ImportResult> imported = ImportItems(items, Semantics::kYunikorn12);
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ(Warning(imported->warnings, "annotation yunikorn.apache.org/namespace.quota").count, 1);
  EXPECT_EQ(Warning(imported->warnings, "app-id: not modelled").count, 0);  // it is read
  EXPECT_EQ(Warning(imported->warnings, "nodeSelector").count, 1);
  EXPECT_EQ(Warning(imported->warnings, "affinity.podAntiAffinity").count, 1);
  EXPECT_EQ(Warning(imported->warnings, "topologySpreadConstraints").count, 1);
  EXPECT_EQ(Warning(imported->warnings, "tolerations").count, 0);  // taints are warned on nodes
  EXPECT_EQ(Warning(imported->warnings, "nodeSelector").example, "pod default/picky");
}

TEST(KubernetesRules, UserInfoIsReadAsGoReadsIt) {
  auto pod = [](std::string name, std::string annotations, std::string labels = "{}") {
    return PodJson({.name = name,
                    .uid = "uid-" + name,
                    .labels = labels == "{}" ? R"({"applicationId":"app-)" + name + "\"}" : labels,
                    .annotations = annotations});
  };
  std::vector<std::string> items = {
      pod("broken", R"({"yunikorn.apache.org/user.info":"{\"user\":"})"),
      pod("no-user", R"({"yunikorn.apache.org/user.info":"{\"user\":\"\",\"groups\":[\"g1\"]}"})"),
      // What Go's encoding/json writes for a user without groups; it reads back as no groups.
      pod("null-groups",
          R"({"yunikorn.apache.org/user.info":"{\"user\":\"dana\",\"groups\":null}"})"),
      pod("label", "{}", R"({"applicationId":"app-label","yunikorn.apache.org/username":"erin"})"),
      pod("both", R"({"yunikorn.apache.org/user.info":"{\"user\":\"frank\"}"})",
          R"({"applicationId":"app-both","yunikorn.apache.org/username":"ignored"})"),
  };
  for (Semantics semantics : {Semantics::kYunikorn12, Semantics::kYunikorn19}) {
    absl::StatusOr<ImportResult> imported = ImportItems(items, semantics);
    ASSERT_TRUE(imported.ok()) << imported.status();
    const Scenario& scenario = imported->scenario;
    ASSERT_EQ(AppIds(scenario).size(), 5u);
    EXPECT_EQ(App(scenario, "app-broken").user, "nobody");
    EXPECT_THAT(App(scenario, "app-broken").groups, IsEmpty());
    EXPECT_EQ(App(scenario, "app-no-user").user, "nobody");
    EXPECT_THAT(App(scenario, "app-no-user").groups, ElementsAre("g1"));
    EXPECT_EQ(App(scenario, "app-null-groups").user, "dana");
    EXPECT_THAT(App(scenario, "app-null-groups").groups, IsEmpty());
    EXPECT_EQ(App(scenario, "app-label").user, "erin");
    EXPECT_EQ(App(scenario, "app-both").user, "frank");
    WarningSeen broken = Warning(imported->warnings, "user.info annotation");
    EXPECT_EQ(broken.count, 1);
    EXPECT_EQ(broken.example, "pod default/broken");
  }
}

TEST(KubernetesRules, TaskGroupsMultiplyEachMembersRoundedAmount) {
  // exec's widget is 1.5 per member: rounded up to 2 before times 3, so 6 (not 5).
  const std::string groups =
      R"([{\"name\":\"driver\",\"minMember\":1,)"
      R"(\"minResource\":{\"cpu\":\"500m\",\"memory\":\"1Gi\"}},)"
      R"({\"name\":\"exec\",\"minMember\":3,)"
      R"(\"minResource\":{\"cpu\":\"1.5\",\"memory\":\"2Gi\",\"example.com/widget\":\"1.5\"}}])";
  std::vector<std::string> items = {PodJson(
      {.name = "driver",
       .uid = "uid-driver",
       .labels = R"({"applicationId":"gang"})",
       .annotations = R"({"yunikorn.apache.org/task-groups":")" + groups +
                      R"(","yunikorn.apache.org/task-group-name":"driver",)"
                      R"("yunikorn.apache.org/schedulingPolicyParameters":)"
                      R"("gangSchedulingStyle=Hard placeholderTimeoutInSeconds=30 bogus"})"})};
  absl::StatusOr<ImportResult> v12 = ImportItems(items, Semantics::kYunikorn12);
  ASSERT_TRUE(v12.ok()) << v12.status();
  std::optional<AppSpec> gang12 = FindApp(v12->scenario, "gang");
  ASSERT_TRUE(gang12);
  EXPECT_EQ(AmountsOf(gang12->placeholder_ask), (Amounts{{"vcore", 500 + 3 * 1500},
                                                         {"memory", 1 * kGi + 6 * kGi},
                                                         {"example.com/widget", 6}}));
  EXPECT_EQ(gang12->gang_style, GangStyle::kHard);
  EXPECT_EQ(gang12->placeholder_timeout_millis, 30'000);
  EXPECT_EQ(Ask(v12->scenario, "uid-driver").task_group, "driver");

  absl::StatusOr<ImportResult> v19 = ImportItems(items, Semantics::kYunikorn19);
  ASSERT_TRUE(v19.ok()) << v19.status();
  std::optional<AppSpec> gang19 = FindApp(v19->scenario, "gang");
  ASSERT_TRUE(gang19);
  EXPECT_EQ(
      AmountsOf(gang19->placeholder_ask),
      (Amounts{{"vcore", 5000}, {"memory", 7 * kGi}, {"example.com/widget", 6}, {"pods", 4}}));
}

TEST(KubernetesRules, AnInvalidTaskGroupListMakesNoGangAndBadParametersFallBack) {
  std::vector<std::string> items = {PodJson(
      {.name = "w",
       .uid = "uid-w",
       .labels = R"({"applicationId":"not-a-gang"})",
       .annotations = R"({"yunikorn.apache.org/task-groups":)"
                      R"("[{\"name\":\"w\",\"minMember\":0,\"minResource\":{\"cpu\":\"1\"}}]",)"
                      R"("yunikorn.apache.org/schedulingPolicyParameters":)"
                      R"("placeholderTimeoutInSeconds=soon gangSchedulingStyle=hard"})"})};
  for (Semantics semantics : {Semantics::kYunikorn12, Semantics::kYunikorn19}) {
    absl::StatusOr<ImportResult> imported = ImportItems(items, semantics);
    ASSERT_TRUE(imported.ok()) << imported.status();
    std::optional<AppSpec> app = FindApp(imported->scenario, "not-a-gang");
    ASSERT_TRUE(app);
    EXPECT_THAT(app->placeholder_ask, IsEmpty());
    EXPECT_EQ(app->placeholder_timeout_millis, 0) << "a timeout that is no integer is 0";
    EXPECT_EQ(app->gang_style, GangStyle::kSoft) << "the style is case-sensitive";
    WarningSeen invalid = Warning(imported->warnings, "task-groups annotation");
    EXPECT_EQ(invalid.count, 1);
    EXPECT_EQ(invalid.example, "pod default/w");
  }
}

TEST(KubernetesRules, PriorityAndAllowPreemptionComeFromThePod) {
  std::vector<std::string> items = {
      PodJson({.name = "low",
               .uid = "uid-low",
               .labels = R"({"applicationId":"app"})",
               .annotations = R"({"yunikorn.apache.org/allow-preemption":"false"})",
               .spec_more = R"("priority":-5,)"}),
      PodJson({.name = "plain", .uid = "uid-plain", .labels = R"({"applicationId":"app"})"}),
  };
  for (Semantics semantics : {Semantics::kYunikorn12, Semantics::kYunikorn19}) {
    absl::StatusOr<ImportResult> imported = ImportItems(items, semantics);
    ASSERT_TRUE(imported.ok()) << imported.status();
    std::optional<AskSpec> low = FindAsk(imported->scenario, "uid-low");
    ASSERT_TRUE(low);
    EXPECT_EQ(low->priority, -5);
    EXPECT_FALSE(low->allow_preemption);
    std::optional<AskSpec> plain = FindAsk(imported->scenario, "uid-plain");
    ASSERT_TRUE(plain);
    EXPECT_EQ(plain->priority, 0);
    EXPECT_TRUE(plain->allow_preemption);
  }
}

TEST(KubernetesRules, ThePlaceholderFlagIsReadFromEachProfilesKeys) {
  const std::string group = R"("yunikorn.apache.org/task-group-name":"tg")";
  std::vector<std::string> items = {
      PodJson(
          {.name = "internal",
           .uid = "uid-internal",
           .labels = R"({"applicationId":"app"})",
           .annotations = "{" + group + R"(,"internal.yunikorn.apache.org/placeholder":"true"})"}),
      PodJson({.name = "label",
               .uid = "uid-label",
               .labels = R"({"applicationId":"app","placeholder":"True"})",
               .annotations = "{" + group + "}"}),
      PodJson({.name = "no-group",
               .uid = "uid-no-group",
               .labels = R"({"applicationId":"app"})",
               .annotations = R"({"yunikorn.apache.org/placeholder":"true"})"}),
  };
  absl::StatusOr<ImportResult> v12 = ImportItems(items, Semantics::kYunikorn12);
  ASSERT_TRUE(v12.ok()) << v12.status();
  EXPECT_FALSE(Ask(v12->scenario, "uid-internal").placeholder) << "1.2 knows no such key";
  EXPECT_TRUE(Ask(v12->scenario, "uid-label").placeholder);
  EXPECT_FALSE(Ask(v12->scenario, "uid-no-group").placeholder);
  EXPECT_EQ(Warning(v12->warnings, "without a task group name").example, "pod default/no-group");

  absl::StatusOr<ImportResult> v19 = ImportItems(items, Semantics::kYunikorn19);
  ASSERT_TRUE(v19.ok()) << v19.status();
  EXPECT_TRUE(Ask(v19->scenario, "uid-internal").placeholder);
  EXPECT_EQ(Ask(v19->scenario, "uid-internal").task_group, "tg");
  EXPECT_TRUE(Ask(v19->scenario, "uid-label").placeholder);
  EXPECT_FALSE(Ask(v19->scenario, "uid-no-group").placeholder);
}

TEST(KubernetesRules, OnlyADaemonSetPodGetsARequiredNodeAndTheLastMatchFieldWins) {
  const std::string affinity =
      R"("affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":)"
      R"({"nodeSelectorTerms":[{"matchFields":[{"key":"metadata.name","operator":"In",)"
      R"("values":["node-1"]}]},{"matchExpressions":[{"key":"disk","operator":"In",)"
      R"("values":["ssd"]}],"matchFields":[{"key":"metadata.name","operator":"In",)"
      R"("values":["node-2","node-1"]}]}]}}},)";
  std::vector<std::string> items = {
      NodeJson("node-1"),
      NodeJson("node-2"),
      PodJson(
          {.name = "agent",
           .uid = "uid-agent",
           .labels = R"({"applicationId":"agents"})",
           .owners = R"([{"apiVersion":"apps/v1","kind":"DaemonSet","name":"agent","uid":"ds"}])",
           .spec_more = affinity}),
      PodJson(
          {.name = "web",
           .uid = "uid-web",
           .labels = R"({"applicationId":"web"})",
           .owners = R"([{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web","uid":"rs"}])",
           .spec_more = affinity}),
      PodJson(
          {.name = "agent-elsewhere",
           .uid = "uid-elsewhere",
           .labels = R"({"applicationId":"agents"})",
           .owners = R"([{"apiVersion":"apps/v1","kind":"DaemonSet","name":"agent","uid":"ds"}])",
           .spec_more =
               R"("affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":)"
               R"({"nodeSelectorTerms":[{"matchFields":[{"key":"metadata.name",)"
               R"("operator":"In","values":["node-9"]}]}]}}},)"}),
  };
  for (Semantics semantics : {Semantics::kYunikorn12, Semantics::kYunikorn19}) {
    absl::StatusOr<ImportResult> imported = ImportItems(items, semantics);
    ASSERT_TRUE(imported.ok()) << imported.status();
    EXPECT_EQ(Ask(imported->scenario, "uid-agent").required_node, "node-2");
    EXPECT_EQ(Ask(imported->scenario, "uid-web").required_node, "");
    EXPECT_EQ(Ask(imported->scenario, "uid-elsewhere").required_node, "node-9");
    WarningSeen missing = Warning(imported->warnings, "required node not in the input");
    EXPECT_EQ(missing.count, 1);
    EXPECT_EQ(missing.example, "pod default/agent-elsewhere");
  }
}

TEST(KubernetesRules, A19ApplicationWhosePodRunsIsForcedIntoTheRecoveryQueue) {
  std::vector<std::string> items = {
      NodeJson("node-1"),
      PodJson({.name = "runs",
               .uid = "uid-runs",
               .labels = R"({"applicationId":"lost","queue":"root.gone"})",
               .node = "node-1"}),
      PodJson({.name = "waits",
               .uid = "uid-waits",
               .labels = R"({"applicationId":"waiting","queue":"root.gone"})"}),
  };
  absl::StatusOr<ImportResult> v19 = ImportItems(items, Semantics::kYunikorn19);
  ASSERT_TRUE(v19.ok()) << v19.status();
  EXPECT_EQ(TagOf(App(v19->scenario, "lost").tags, "application.create.force"), "true");
  EXPECT_EQ(TagOf(App(v19->scenario, "waiting").tags, "application.create.force"), "false");
  absl::StatusOr<RunResult> run = RunImported(v19->scenario);
  ASSERT_TRUE(run.ok()) << run.status();
  // No rule places either; the running pod's application is kept in the queue YuniKorn makes
  // for such applications, the pending one goes where any other would, root.default.
  EXPECT_THAT(Placed(run->recovered),
              ElementsAre(PlacedAs("uid-runs", "node-1", "root.@recovery@")));
  EXPECT_THAT(Placed(run->allocations),
              ElementsAre(PlacedAs("uid-waits", "node-1", "root.default")));
  EXPECT_THAT(run->rejected_apps, IsEmpty());

  absl::StatusOr<ImportResult> v12 = ImportItems(items, Semantics::kYunikorn12);
  ASSERT_TRUE(v12.ok()) << v12.status();
  EXPECT_EQ(TagOf(App(v12->scenario, "lost").tags, "application.create.force"), std::nullopt);
}

TEST(KubernetesRules, The12AdmissionControllersDisableStateAwareLabelBecomesTheTag) {
  std::vector<std::string> items = {
      PodJson({.name = "opted-out",
               .uid = "uid-1",
               .labels = R"({"applicationId":"opted-out","disableStateAware":"true"})"}),
      PodJson({.name = "opted-in",
               .uid = "uid-2",
               .labels = R"({"applicationId":"opted-in","disableStateAware":"false"})"}),
  };
  absl::StatusOr<ImportResult> v12 = ImportItems(items, Semantics::kYunikorn12);
  ASSERT_TRUE(v12.ok()) << v12.status();
  EXPECT_EQ(TagOf(App(v12->scenario, "opted-out").tags, "application.stateaware.disable"), "true");
  EXPECT_EQ(TagOf(App(v12->scenario, "opted-in").tags, "application.stateaware.disable"),
            std::nullopt);
  absl::StatusOr<ImportResult> v19 = ImportItems(items, Semantics::kYunikorn19);
  ASSERT_TRUE(v19.ok()) << v19.status();
  EXPECT_EQ(TagOf(App(v19->scenario, "opted-out").tags, "application.stateaware.disable"),
            std::nullopt)
      << "the 1.9 shim no longer reads the label";
}

TEST(KubernetesRules, AnEmptyListIsAnEmptyClusterButADocumentWithoutItemsIsRefused) {
  absl::StatusOr<ImportResult> empty = ImportKubernetesObjectsText(
      R"({"apiVersion":"v1","items":[],"kind":"List","metadata":{"resourceVersion":""}})",
      "empty.json", InlineOptions(Semantics::kYunikorn12));
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_THAT(empty->scenario.nodes, IsEmpty());
  EXPECT_THAT(KindsOf(empty->scenario), ElementsAre(StepKind::kSchedule));
  EXPECT_THAT(empty->warnings, IsEmpty());

  std::string error = ImportError(R"({"apiVersion":"v1","kind":"Status","status":"Failure"})");
  EXPECT_THAT(error, HasSubstr("cluster.json: not a Kubernetes list: no \"items\""));
  EXPECT_THAT(error, HasSubstr("its kind is Status"));
}

TEST(KubernetesRules, ObjectsOfOtherKindsAreWarnedAbout) {
  std::vector<std::string> items = {
      NodeJson("node-1"),
      R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"web","namespace":"default"}})",
      R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"db","namespace":"default"}})"};
  absl::StatusOr<ImportResult> imported = ImportItems(items, Semantics::kYunikorn19);
  ASSERT_TRUE(imported.ok()) << imported.status();
  WarningSeen services = Warning(imported->warnings, "object of kind Service: ignored");
  EXPECT_EQ(services.count, 2);
  EXPECT_EQ(services.example, "items[1]");
  EXPECT_EQ(imported->scenario.nodes.size(), 1u);
}

TEST(KubernetesRules, StrictPassesADocumentWithNothingToWarnAbout) {
  ImportOptions options = InlineOptions(Semantics::kYunikorn19);
  options.strict = true;
  std::string json = ListJson({NodeJson("node-1"), PodJson({.name = "p",
                                                            .uid = "uid-p",
                                                            .labels = R"({"applicationId":"app"})",
                                                            .node = "node-1"})});
  absl::StatusOr<ImportResult> clean = ImportKubernetesObjectsText(json, "cluster.json", options);
  ASSERT_TRUE(clean.ok()) << clean.status();
  EXPECT_THAT(clean->warnings, IsEmpty());

  json = ListJson({NodeJson("node-1", R"({"cpu":"4","memory":"16Gi"})",
                            R"({"taints":[{"effect":"NoSchedule","key":"gpu"}]})")});
  absl::StatusOr<ImportResult> tainted = ImportKubernetesObjectsText(json, "cluster.json", options);
  ASSERT_FALSE(tainted.ok());
  EXPECT_EQ(tainted.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(Message(tainted.status()), HasSubstr("node taints"));
  EXPECT_THAT(Message(tainted.status()), HasSubstr("node node-1"));
}

// =============================================================================================
// Hostile input

TEST(KubernetesHostile, MalformedJsonNamesTheFileLineAndColumn) {
  const std::string json =
      "{\"apiVersion\":\"v1\",\"items\":[\n" + NodeJson("node-1") + ",\n{\"kind\":\"Node\",,}\n]}";
  std::string error = ImportError(json);
  EXPECT_THAT(error, ContainsRegex("^cluster\\.json:3:[0-9]+: malformed JSON"));

  const std::string path = ::testing::TempDir() + "import_kubernetes_malformed.json";
  {
    std::ofstream file(path);
    file << json;
  }
  absl::StatusOr<ImportResult> from_file =
      ImportKubernetesObjects(path, InlineOptions(Semantics::kYunikorn12));
  std::remove(path.c_str());
  ASSERT_FALSE(from_file.ok());
  EXPECT_THAT(Message(from_file.status()), HasSubstr(path + ":3:"));
  EXPECT_THAT(Message(from_file.status()), HasSubstr("malformed JSON"));

  absl::StatusOr<ImportResult> missing =
      ImportKubernetesObjects(kDir + "no-such-file.json", InlineOptions(Semantics::kYunikorn12));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(Message(missing.status()), HasSubstr("no-such-file.json"));
}

TEST(KubernetesHostile, ANegativeQuantityNamesThePodAndTheContainersField) {
  std::string error = ImportError(ListJson(
      {PodJson({.ns = "team",
                .name = "neg",
                .uid = "uid-neg",
                .labels = R"({"applicationId":"app"})",
                .containers = R"([{"name":"a","resources":{"requests":{"cpu":"1"}}},)"
                              R"({"name":"b","resources":{"requests":{"cpu":"-1"}}}])"})}));
  EXPECT_THAT(error, HasSubstr("cluster.json:2: pod team/neg: "
                               "spec.containers[1].resources.requests.cpu: quantity \"-1\": "
                               "negative"));
}

TEST(KubernetesHostile, AnUnknownSuffixNamesTheNodeAndTheField) {
  std::string error = ImportError(ListJson({NodeJson("node-1", R"({"cpu":"4","memory":"12Qi"})")}));
  EXPECT_THAT(error, HasSubstr("node node-1: status.allocatable.memory: quantity \"12Qi\": "
                               "unknown suffix \"Qi\""));
}

TEST(KubernetesHostile, AnOverflowingQuantityIsRefused) {
  std::string error = ImportError(
      ListJson({NodeJson("node-1", R"({"cpu":"4","memory":"99999999999999999999Ei"})")}));
  EXPECT_THAT(error, HasSubstr("node node-1: status.allocatable.memory: quantity "
                               "\"99999999999999999999Ei\": more than 9223372036854775807"));

  // In thousandths, cpu passes int64 a thousand times sooner.
  error = ImportError(ListJson({NodeJson("node-1", R"({"cpu":"9223372036854776"})")}));
  EXPECT_THAT(error, HasSubstr("node node-1: status.allocatable.cpu: quantity "
                               "\"9223372036854776\": more than 9223372036854775807 thousandths"));
}

TEST(KubernetesHostile, ADuplicateNodeIsRefused) {
  std::string error =
      ImportError(ListJson({NodeJson("node-1"), NodeJson("node-2"), NodeJson("node-1")}));
  EXPECT_THAT(error, HasSubstr("cluster.json:4: node node-1: metadata.name: listed twice"));
}

TEST(KubernetesHostile, ADuplicatePodIsRefusedButTheSameNameInAnotherNamespaceIsNot) {
  std::string error = ImportError(
      ListJson({PodJson({.name = "web", .uid = "uid-1", .labels = R"({"applicationId":"app"})"}),
                PodJson({.name = "web", .uid = "uid-2", .labels = R"({"applicationId":"app"})"})}));
  EXPECT_THAT(error, HasSubstr("cluster.json:3: pod default/web: metadata.name: listed twice"));

  absl::StatusOr<ImportResult> two_namespaces = ImportItems(
      {PodJson({.name = "web", .uid = "uid-1", .labels = R"({"applicationId":"app"})"}),
       PodJson(
           {.ns = "other", .name = "web", .uid = "uid-2", .labels = R"({"applicationId":"app"})"})},
      Semantics::kYunikorn12);
  ASSERT_TRUE(two_namespaces.ok()) << two_namespaces.status();
  EXPECT_THAT(AskIds(two_namespaces->scenario), ElementsAre("uid-1", "uid-2"));

  error = ImportError(ListJson(
      {PodJson({.name = "a", .uid = "uid-same", .labels = R"({"applicationId":"app"})"}),
       PodJson({.name = "b", .uid = "uid-same", .labels = R"({"applicationId":"app"})"})}));
  EXPECT_THAT(error, HasSubstr("pod default/b: metadata.uid: used by another pod"));
}

TEST(KubernetesHostile, APodOnANodeNotInTheListNamesThePodAndTheNode) {
  for (Semantics semantics : {Semantics::kYunikorn12, Semantics::kYunikorn19}) {
    std::string error =
        ImportError(ListJson({NodeJson("node-1"), PodJson({.ns = "team",
                                                           .name = "lost",
                                                           .uid = "uid-lost",
                                                           .labels = R"({"applicationId":"app"})",
                                                           .node = "ghost"})}),
                    semantics);
    EXPECT_THAT(error, HasSubstr("pod team/lost: runs on node ghost, which is not in the input"));

    error = ImportError(ListJson({NodeJson("node-1"), PodJson({.ns = "kube-system",
                                                               .name = "other",
                                                               .uid = "uid-other",
                                                               .scheduler = "default-scheduler",
                                                               .node = "ghost"})}),
                        semantics);
    EXPECT_THAT(error,
                HasSubstr("pod kube-system/other: runs on node ghost, which is not in the input"));
  }
}

TEST(KubernetesHostile, APodWithoutUidIsRefused) {
  std::string json = ListJson({PodJson({.name = "anonymous", .uid = "x"})});
  const std::string uid_member = ",\"uid\":\"x\"";
  size_t at = json.find(uid_member);
  ASSERT_NE(at, std::string::npos);
  json.erase(at, uid_member.size());
  EXPECT_THAT(ImportError(json), HasSubstr("pod default/anonymous: metadata.uid: missing"));
}

TEST(KubernetesHostile, AnItemThatIsNoObjectIsRefused) {
  std::string error = ImportError(ListJson({NodeJson("node-1"), "\"node-2\""}));
  EXPECT_THAT(error, HasSubstr("cluster.json:3: items[1]: expected an object, found a string"));
}

TEST(KubernetesHostile, ItemsThatAreNoListAreRefused) {
  std::string error = ImportError(R"({"apiVersion":"v1","items":{"kind":"Node"},"kind":"List"})");
  EXPECT_THAT(error, HasSubstr("cluster.json:1: \"items\": expected a list, found an object"));
}

TEST(KubernetesHostile, ADocumentThatIsNoObjectIsRefused) {
  EXPECT_THAT(ImportError("[{\"kind\":\"Node\"}]"),
              HasSubstr("cluster.json:1:1: the document is not a JSON object"));
  EXPECT_THAT(ImportError("\"kubectl\""), HasSubstr("the document is not a JSON object"));
}

TEST(KubernetesHostile, FieldsOfTheWrongShapeNameTheirPath) {
  EXPECT_THAT(ImportError(ListJson({PodJson({.name = "big",
                                             .uid = "uid-big",
                                             .labels = R"({"applicationId":"app"})",
                                             .spec_more = R"("priority":3000000000,)"})})),
              HasSubstr("pod default/big: spec.priority: 3000000000 is outside int32"));
  EXPECT_THAT(ImportError(ListJson({PodJson({.name = "when",
                                             .uid = "uid-when",
                                             .created = "yesterday",
                                             .labels = R"({"applicationId":"app"})"})})),
              HasSubstr("pod default/when: metadata.creationTimestamp: \"yesterday\" is not an "
                        "RFC 3339 time"));
  // Times whose Unix nanoseconds int64 cannot hold (a fuzzer's find: the product overflowed).
  for (const char* when :
       {"1013-01-01T00:00:00Z", "2263-01-01T00:00:00Z", "9999-12-31T23:59:59Z"}) {
    EXPECT_THAT(ImportError(ListJson({PodJson({.name = "when",
                                               .uid = "uid-when",
                                               .created = when,
                                               .labels = R"({"applicationId":"app"})"})})),
                HasSubstr("is not an RFC 3339 time from 1970 to 2262"))
        << when;
  }
  EXPECT_THAT(ImportError(ListJson({NodeJson("node-1", R"(["cpu"])")})),
              HasSubstr("node node-1: status.allocatable: expected an object of quantities, "
                        "found an array"));
  EXPECT_THAT(ImportError(ListJson({PodJson(
                  {.name = "labelled", .uid = "uid-l", .labels = R"({"applicationId":7})"})})),
              HasSubstr("pod default/labelled: metadata.labels.applicationId: expected a string, "
                        "found a number"));
}

TEST(KubernetesHostile, WithoutAConfigNothingIsImported) {
  ImportOptions options;
  options.semantics = Semantics::kYunikorn12;
  absl::StatusOr<ImportResult> imported =
      ImportKubernetesObjectsText(ListJson({NodeJson("node-1")}), "cluster.json", options);
  ASSERT_FALSE(imported.ok());
  EXPECT_THAT(Message(imported.status()), HasSubstr("queues.yaml"));
}

}  // namespace
}  // namespace allocore::adapters
