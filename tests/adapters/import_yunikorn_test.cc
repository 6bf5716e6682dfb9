// `allocore import yunikorn`: YuniKorn's full state dump as a scenario. The real v1.2.0 dump of
// tests/data/import/yunikorn/ must come out as its README describes it; two dumps built by hand
// from the dao structs of v1.2.0 and v1.9 (the same README says what is in them) are checked step
// by step against expectations worked out from YuniKorn's handlers, then run; the scenario must
// not depend on the order of the dump's lists (Go map order); bad input is refused with the
// file, the line, the object and the field.
#include <algorithm>
#include <cstdint>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "allocore/adapters/cluster_import.h"
#include "allocore/adapters/config_loader.h"
#include "allocore/adapters/event_log.h"
#include "allocore/adapters/scenario.h"
#include "allocore/semantics.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
// Debian's RapidJSON computes `nullptr + n` when its stack first grows: harmless, but the
// sanitizer builds trap on it (adapters/import/rapidjson_reader.h says the same of the reader).
#if defined(__clang__)
#pragma clang attribute push(__attribute__((no_sanitize("pointer-overflow"))), apply_to = function)
#endif
#include "rapidjson/document.h"
#include "rapidjson/prettywriter.h"
#include "rapidjson/stringbuffer.h"
#if defined(__clang__)
#pragma clang attribute pop
#endif
#include "support/configs.h"

namespace allocore::adapters {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::StartsWith;
using ::testing::UnorderedElementsAre;

const std::string kDir = ALLOCORE_SOURCE_DIR "/tests/data/import/yunikorn/";
constexpr char kRealDump[] = "a_fair_two_queues";
constexpr char kGangDump[] = "v12_gang_two_partitions";
constexpr char kForeignDump[] = "v19_foreign_gang";

constexpr int64_t kMi = int64_t{1} << 20;
constexpr int64_t kGi = int64_t{1} << 30;

std::string Str(std::string_view view) { return std::string(view); }

std::string Message(const absl::Status& status) {
  return {status.message().data(), status.message().size()};
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

ImportOptions OptionsFor(const std::string& dump) {
  ImportOptions options;
  options.config_path = kDir + dump + ".queues.yaml";
  return options;
}

ImportResult Import(const std::string& dump, ImportOptions options) {
  absl::StatusOr<ImportResult> imported = ImportYunikornStateDump(kDir + dump + ".json", options);
  EXPECT_TRUE(imported.ok()) << imported.status();
  return imported.ok() ? *std::move(imported) : ImportResult{};
}

ImportResult Import(const std::string& dump) { return Import(dump, OptionsFor(dump)); }

RunResult RunImported(const Scenario& scenario) {
  RunOptions options;
  options.keep_allocations = true;
  absl::StatusOr<RunResult> run = RunScenario(scenario, options, nullptr);
  EXPECT_TRUE(run.ok()) << run.status();
  return run.ok() ? *std::move(run) : RunResult{};
}

// --- one line per step, node, record: expectations a person can read ------------------------

std::string Quantity(std::string_view type, int64_t amount) {
  if (type == "memory" && amount != 0 && amount % kGi == 0) {
    return std::to_string(amount / kGi) + "Gi";
  }
  if (type == "memory" && amount != 0 && amount % kMi == 0) {
    return std::to_string(amount / kMi) + "Mi";
  }
  return std::to_string(amount);
}

std::string Res(const Quantities& quantities) {
  std::string out = "{";
  for (const auto& [type, amount] : quantities) {
    if (out.size() > 1) out += ' ';
    out += type + "=" + Quantity(type, amount);
  }
  return out + "}";
}

// The ask keys that differ from their defaults: what the importer set, and nothing else.
std::string AskKeys(const AskSpec& ask) {
  std::string out;
  if (ask.priority != 0) out += " priority=" + std::to_string(ask.priority);
  if (ask.placeholder) out += " placeholder";
  if (!ask.task_group.empty()) out += " task_group=" + ask.task_group;
  if (ask.originator) out += " originator";
  if (!ask.required_node.empty()) out += " required=" + ask.required_node;
  if (!ask.allow_preemption) out += " no-preemption";
  out += ask.creation_time_millis
             ? " created=" + std::to_string(*ask.creation_time_millis / 1000) + "s"
             : " created=none";
  return out;
}

std::string Describe(const ScenarioStep& step) {
  const StepAction& action = step.action;
  if (const auto* advance = std::get_if<AdvanceStep>(&action)) {
    return "advance " + std::to_string(advance->millis) + "ms";
  }
  if (const auto* foreign = std::get_if<AddForeignStep>(&action)) {
    return "add_foreign " + foreign->partition + "/" + foreign->id + " node=" + foreign->node +
           " " + Res(foreign->resources) +
           (foreign->kind == ForeignKind::kStatic ? " static" : " default");
  }
  if (const auto* app = std::get_if<AppSpec>(&action)) {
    std::string groups;
    for (const std::string& group : app->groups) groups += (groups.empty() ? "" : ",") + group;
    std::string tags;
    for (const auto& [key, value] : app->tags) {
      tags += (tags.empty() ? "" : ",") + key + "=" + value;
    }
    return "add_app " + app->partition + "/" + app->id + " queue=" + app->queue +
           " user=" + app->user + " groups=[" + groups + "] tags={" + tags + "}" +
           (app->placeholder_ask.empty() ? "" : " placeholder_ask=" + Res(app->placeholder_ask)) +
           (app->placeholder_timeout_millis == 0
                ? ""
                : " timeout=" + std::to_string(app->placeholder_timeout_millis) + "ms");
  }
  if (const auto* recover = std::get_if<RecoverAllocationStep>(&action)) {
    const AskSpec& ask = recover->ask;
    return "recover " + ask.partition + "/" + ask.app + "/" + ask.id + " node=" + recover->node +
           " " + Res(ask.resources) + (ask.count == 1 ? "" : " count!=1") + AskKeys(ask);
  }
  if (const auto* ask = std::get_if<AskSpec>(&action)) {
    return "ask " + ask->partition + "/" + ask->app + "/" + ask->id + " " + Res(ask->resources) +
           " x" + std::to_string(ask->count) + AskKeys(*ask);
  }
  if (const auto* schedule = std::get_if<ScheduleStep>(&action)) {
    return "schedule" + (schedule->partition.empty() ? "" : " " + schedule->partition);
  }
  return "step " + Str(StepKindName(step.kind()));
}

std::vector<std::string> Steps(const Scenario& scenario) {
  std::vector<std::string> out;
  for (const ScenarioStep& step : scenario.steps) out.push_back(Describe(step));
  return out;
}

std::vector<std::string> Nodes(const Scenario& scenario) {
  std::vector<std::string> out;
  for (const AddNodeStep& step : scenario.nodes) {
    std::string attributes;
    for (const auto& [key, value] : step.attributes) {
      attributes += (attributes.empty() ? "" : ",") + key + "=" + value;
    }
    out.push_back(step.node.partition + "/" + step.node.id + " " + Res(step.node.capacity) +
                  (step.node.schedulable ? "" : " unschedulable") +
                  (step.node.occupied.empty() ? "" : " occupied=" + Res(step.node.occupied)) +
                  (attributes.empty() ? "" : " {" + attributes + "}"));
  }
  return out;
}

std::vector<std::string> Placed(const std::vector<ActualAllocation>& records) {
  std::vector<std::string> out;
  for (const ActualAllocation& record : records) {
    out.push_back(Str(record.partition) + "/" + Str(record.app) + "/" + Str(record.ask) + "@" +
                  Str(record.node) + (record.reason.empty() ? "" : " " + Str(record.reason)));
  }
  return out;
}

std::vector<std::string> Errors(const RunResult& run) {
  std::vector<std::string> out;
  for (const ErrorRecord& error : run.errors) out.push_back(error.message);
  return out;
}

// Why each ask still waits, as `allocore run --explain` prints it.
std::map<std::string, std::string> Pending(const Kernel& kernel) {
  std::map<std::string, std::string> out;
  for (const PendingExplanation& e : kernel.ExplainPending()) {
    out[e.partition + "/" + e.app + "/" + e.ask + " x" + std::to_string(e.pending_count)] =
        e.reason;
  }
  return out;
}

std::vector<std::string> Keys(const std::map<std::string, std::string>& map) {
  std::vector<std::string> out;
  for (const auto& [key, value] : map) out.push_back(key);
  return out;
}

// "what x count (example)", for comparing warnings.
std::vector<std::string> Warnings(const ImportResult& result) {
  std::vector<std::string> out;
  for (const ImportWarning& w : result.warnings) {
    out.push_back(w.what + " x" + std::to_string(w.count) + " (" + w.example + ")");
  }
  return out;
}

// --- (1) the real v1.2.0 dump ---------------------------------------------------------------

// Its README: 3 nodes of 4Gi and 4 vcores; app-a1 and app-a2 (root.a) and app-b1 (root.b); 12
// pods run, 4 wait.
TEST(ImportYunikornTest, RealDumpIsWhatItsReadmeDescribes) {
  ImportResult imported = Import(kRealDump);
  const Scenario& scenario = imported.scenario;
  EXPECT_EQ(scenario.semantics, Semantics::kYunikorn12);
  EXPECT_EQ(imported.summary.source_version,
            "yunikorn 1.2 state dump, resource manager build 1.2.0");
  EXPECT_THAT(Warnings(imported), IsEmpty());
  EXPECT_EQ(imported.summary.nodes, 3);
  EXPECT_EQ(imported.summary.applications, 3);
  EXPECT_EQ(imported.summary.running, 12);
  EXPECT_EQ(imported.summary.pending, 4);
  EXPECT_EQ(imported.summary.foreign, 0);
  ASSERT_EQ(scenario.config.partitions.size(), 1u);

  EXPECT_THAT(Nodes(scenario), ElementsAre("default/node-1 {memory=4Gi vcore=4000}",
                                           "default/node-2 {memory=4Gi vcore=4000}",
                                           "default/node-3 {memory=4Gi vcore=4000}"));
  const std::string pod = " {memory=1Gi vcore=1000} created=0s";
  EXPECT_THAT(
      Steps(scenario),
      ElementsAre(
          // Timestamp 1795811105.479097510 s from the second of app-a1's submission
          // (1795811103.695494436 s), rounded up to the millisecond.
          "advance 2480ms",
          "add_app default/app-a1 queue=root.a user=alice groups=[] tags={namespace=default}",
          "add_app default/app-a2 queue=root.a user=bob groups=[] tags={namespace=default}",
          "add_app default/app-b1 queue=root.b user=carol groups=[] tags={namespace=default}",
          // In the order of their asks' requestTime, on the nodes the dump lists them on.
          "recover default/app-a1/a1-task-0 node=node-1" + pod,
          "recover default/app-a1/a1-task-1 node=node-1" + pod,
          "recover default/app-a1/a1-task-2 node=node-1" + pod,
          "recover default/app-a1/a1-task-3 node=node-2" + pod,
          "recover default/app-a1/a1-task-4 node=node-3" + pod,
          "recover default/app-a2/a2-task-0 node=node-3" + pod,
          "recover default/app-a2/a2-task-1 node=node-2" + pod,
          "recover default/app-a2/a2-task-2 node=node-2" + pod,
          "recover default/app-a2/a2-task-3 node=node-1" + pod,
          "recover default/app-b1/b1-task-0 node=node-2" + pod,
          "recover default/app-b1/b1-task-1 node=node-3" + pod,
          "recover default/app-b1/b1-task-2 node=node-3" + pod,
          "ask default/app-a2/a2-task-4 {memory=1Gi vcore=1000} x1 created=0s",
          "ask default/app-b1/b1-task-3 {memory=1Gi vcore=1000} x1 created=0s",
          "ask default/app-b1/b1-task-4 {memory=1Gi vcore=1000} x1 created=0s",
          "ask default/app-b1/b1-task-5 {memory=1Gi vcore=1000} x1 created=0s", "schedule"));
}

// Every node is full (4 pods of 1Gi each), so the final schedule places nothing, under either
// profile, and each waiting ask gets a reason.
TEST(ImportYunikornTest, RealDumpRunsFullUnderBothProfiles) {
  for (Semantics semantics : {Semantics::kYunikorn12, Semantics::kYunikorn19}) {
    SCOPED_TRACE(Str(SemanticsName(semantics)));
    ImportOptions options = OptionsFor(kRealDump);
    options.semantics = semantics;
    ImportResult imported = Import(kRealDump, options);
    EXPECT_EQ(imported.scenario.semantics, semantics);
    RunResult run = RunImported(imported.scenario);
    EXPECT_THAT(Errors(run), IsEmpty());
    EXPECT_THAT(Placed(run.recovered),
                ElementsAre("default/app-a1/a1-task-0@node-1", "default/app-a1/a1-task-1@node-1",
                            "default/app-a1/a1-task-2@node-1", "default/app-a1/a1-task-3@node-2",
                            "default/app-a1/a1-task-4@node-3", "default/app-a2/a2-task-0@node-3",
                            "default/app-a2/a2-task-1@node-2", "default/app-a2/a2-task-2@node-2",
                            "default/app-a2/a2-task-3@node-1", "default/app-b1/b1-task-0@node-2",
                            "default/app-b1/b1-task-1@node-3", "default/app-b1/b1-task-2@node-3"));
    EXPECT_THAT(Placed(run.allocations), IsEmpty());
    EXPECT_THAT(Placed(run.releases), IsEmpty());
    std::map<std::string, std::string> pending = Pending(*run.kernel);
    EXPECT_THAT(Keys(pending),
                ElementsAre("default/app-a2/a2-task-4 x1", "default/app-b1/b1-task-3 x1",
                            "default/app-b1/b1-task-4 x1", "default/app-b1/b1-task-5 x1"));
    for (const auto& [ask, reason] : pending) EXPECT_THAT(reason, Not(IsEmpty())) << ask;
  }
}

// --- (2) dumps built from the dao structs ---------------------------------------------------

// tests/data/import/yunikorn/v12_gang_two_partitions.json: pod UIDs of the spark gang app.
const std::string kSparkApp = "spark-pi-0123456789abcdef0123456789";
const std::string kSparkDriver = "baac11ff-343a-520f-acbd-a312faeb6641";
const std::string kSparkPlaceholder0 = "69d52e20-336a-524b-950d-094bc87f9d50";
const std::string kSparkPlaceholder1 = "9048a0ce-ffb7-561f-ad4e-1d3b699a4c4a";
const std::string kSparkPlaceholder2 = "e35cb71b-8bad-589f-a855-4b0279910940";
const std::string kSparkExecutor = "bc9861a3-c352-59a7-b974-d8c37589946b";
const std::string kFluentBit = "c62d2ea4-db68-5e03-9616-2e9b143baa46";
const std::string kExecutorGroup = "spark-executor-group-large";

// v1.2.0 never marks a placeholder allocation (nor names its task group): the two running
// executor placeholders are told by the shim's name tg-<group[:20]>-<app[:28]>-<n> and label
// placeholder=true, and join the group whose pending members do carry the name. The worker
// ask (pendingCount 2) shares its key with two running pods: KEY#1 and KEY#2 in the order of
// their allocationTime. node-b's `occupied` is another scheduler's. old-job is Completed.
TEST(ImportYunikornTest, V12GangDumpStepByStep) {
  ImportResult imported = Import(kGangDump);
  const Scenario& scenario = imported.scenario;
  EXPECT_EQ(scenario.semantics, Semantics::kYunikorn12);
  EXPECT_EQ(imported.summary.source_version,
            "yunikorn 1.2 state dump, resource manager build 1.2.0");
  EXPECT_EQ(imported.summary.nodes, 3);
  EXPECT_EQ(imported.summary.applications, 4);
  EXPECT_EQ(imported.summary.running, 6);
  EXPECT_EQ(imported.summary.pending, 7);  // 1 + 1 + 2 + 1 + 1 + 1
  EXPECT_EQ(imported.summary.foreign, 1);
  // Their examples are the first objects met, in the dump's (Go map) order; old-job is alone.
  std::vector<std::string> warnings;
  for (const ImportWarning& w : imported.warnings) {
    warnings.push_back(w.what + " x" + std::to_string(w.count));
  }
  EXPECT_THAT(warnings,
              UnorderedElementsAre(
                  "repeats of one ask key: each running pod recovered under an id of its own "
                  "(KEY#N) x2",
                  "placeholder told by the shim's pod name or label (a v1.2 dump does not mark "
                  "placeholder allocations) x2",
                  "application in state Completed: skipped x1"));
  EXPECT_THAT(Warnings(imported),
              Contains("application in state Completed: skipped x1 (application old-job)"));

  EXPECT_THAT(Nodes(scenario), ElementsAre("default/node-a {memory=6Gi pods=110 vcore=6000}",
                                           "default/node-b {memory=6Gi pods=110 vcore=6000}",
                                           "second/node-c {memory=4Gi pods=110 vcore=4000}"));
  const std::string spark = "default/" + kSparkApp + "/";
  const std::string executor = " {memory=2Gi pods=1 vcore=2000}";
  const std::string one = " {memory=1Gi pods=1 vcore=1000}";
  EXPECT_THAT(
      Steps(scenario),
      ElementsAre(
          // The clock's 0 is the second of the earliest time kept (the spark app's submission
          // at +0.1 s; old-job's, an hour earlier, is skipped with it); the dump was taken at
          // +20.5 s.
          "advance 20500ms",
          "add_foreign default/occupied/node-b node=node-b {memory=1Gi pods=1 vcore=1000} default",
          // By submission time; the spark app's placeholders: 1 driver of 1Gi + 3 executors of
          // 2Gi (placeholderData count x minResource).
          "add_app default/" + kSparkApp +
              " queue=root.gang user=dave groups=[] tags={namespace=spark}"
              " placeholder_ask={memory=7Gi pods=4 vcore=7000}",
          "add_app default/batch-1 queue=root.batch user=erin groups=[] tags={namespace=batch}",
          "add_app default/ds-logging queue=root.batch user=sys-logging groups=[]"
          " tags={namespace=kube-logging}",
          "add_app second/c-app queue=root.c user=frank groups=[] tags={namespace=team-c}",
          // Running pods by creation: the placeholders' asks at +0.31 and +0.32 s; the driver,
          // which replaced its placeholder, by its allocation at +2 s (its requestTime is the
          // placeholder's); the worker repeats by their ask's +5.2 s.
          "recover " + spark + kSparkPlaceholder0 + " node=node-a" + executor +
              " placeholder task_group=" + kExecutorGroup + " created=0s",
          "recover " + spark + kSparkPlaceholder1 + " node=node-b" + executor +
              " placeholder task_group=" + kExecutorGroup + " created=0s",
          "recover " + spark + kSparkDriver + " node=node-a" + one + " created=2s",
          "recover default/batch-1/batch-1-worker#1 node=node-a" + one + " created=5s",
          "recover default/batch-1/batch-1-worker#2 node=node-b" + one + " created=5s",
          "recover second/c-app/c-0 node=node-c" + one + " created=10s",
          // Pending, by requestTime; priorities were strings.
          "ask " + spark + kSparkPlaceholder2 + executor +
              " x1 placeholder task_group=" + kExecutorGroup + " created=0s",
          "ask " + spark + kSparkExecutor + executor + " x1 task_group=" + kExecutorGroup +
              " created=3s",
          "ask default/batch-1/batch-1-worker" + one + " x2 created=5s",
          "ask default/batch-1/batch-1-urgent" + one + " x1 priority=100 created=7s",
          "ask default/ds-logging/" + kFluentBit +
              " {memory=512Mi pods=1 vcore=500} x1 priority=1000 required=node-b created=8s",
          "ask second/c-app/c-1" + one + " x1 priority=-10 created=11s", "schedule"));
}

// After recovery node-a has 2Gi free, node-b 2Gi (6Gi less 3Gi of pods and 1Gi occupied), node-c
// 3Gi. A cycle makes one allocation per partition, in config order:
//   default: the real executor replaces the older executor placeholder (node-a; a placeholder of
//   its group and of its size, so no free space is needed); fluent-bit (priority 1000) takes its
//   required node-b; batch-1-urgent (100) the node with the lower share in use (fair policy):
//   node-a, 4/6 against node-b's 4.5/6 with its occupied 1Gi (without it node-b would win);
//   then the two worker repeats: node-b (4.5/6 < 5/6), then node-a, the only node with 1Gi
//   left. The last executor placeholder (2Gi) fits nowhere.
//   second: c-1 on node-c.
TEST(ImportYunikornTest, V12GangDumpRuns) {
  ImportResult imported = Import(kGangDump);
  RunResult run = RunImported(imported.scenario);
  EXPECT_THAT(Errors(run), IsEmpty());
  const std::string spark = "default/" + kSparkApp + "/";
  EXPECT_THAT(
      Placed(run.recovered),
      ElementsAre(spark + kSparkPlaceholder0 + "@node-a", spark + kSparkPlaceholder1 + "@node-b",
                  spark + kSparkDriver + "@node-a", "default/batch-1/batch-1-worker#1@node-a",
                  "default/batch-1/batch-1-worker#2@node-b", "second/c-app/c-0@node-c"));
  EXPECT_THAT(
      Placed(run.allocations),
      ElementsAre(spark + kSparkExecutor + "@node-a", "second/c-app/c-1@node-c",
                  "default/ds-logging/" + kFluentBit + "@node-b",
                  "default/batch-1/batch-1-urgent@node-a", "default/batch-1/batch-1-worker@node-b",
                  "default/batch-1/batch-1-worker@node-a"));
  EXPECT_THAT(Placed(run.releases), ElementsAre(spark + kSparkPlaceholder0 + "@node-a replaced"));
  std::map<std::string, std::string> pending = Pending(*run.kernel);
  ASSERT_THAT(Keys(pending), ElementsAre(spark + kSparkPlaceholder2 + " x1"));
  EXPECT_THAT(pending.begin()->second, Not(IsEmpty()));
}

// tests/data/import/yunikorn/v19_foreign_gang.json
const std::string kEtlDriver = "a5946984-8c3c-5cbd-b389-a4872ff59c59";
const std::string kEtlPlaceholder0 = "25791ace-17fa-5421-9f9c-0028bbc3337c";
const std::string kEtlPlaceholder1 = "07c0f04d-75b0-5c08-b847-b92398bd6763";
const std::string kEtlWorker2 = "0a152435-31c7-5fac-a85b-aa5eaf3c3d69";
const std::string kEtlWorker1 = "b4f5f731-1bef-57d3-9999-caf138063d0e";
const std::string kWeb0 = "fd3fdcef-923f-57b2-9592-8131c1910b37";
const std::string kWeb1 = "cda00c90-02c7-5aca-a519-a49cbca2b928";
const std::string kWeb2 = "8114f163-db5b-5d67-a5db-a4d1aae5146d";
const std::string kLogAgent = "de8f514d-ad06-5b46-b6c1-632b7691b24f";
const std::string kKubeProxy = "06261f85-ee33-5166-9a2f-912b71f8190b";
const std::string kNodeExporter = "6ff282c7-cd04-558a-b444-204b47ca8df7";

// A 1.9 dump says what 1.2 left out: placeholder and taskGroupName on allocations, originator,
// the user's groups (beside "user"), other schedulers' pods one by one (node-1's `occupied` is
// their sum, not more), their kind in the `foreign` tag. omitempty drops false, 0, "" and
// empty lists; requests have no pendingCount.
TEST(ImportYunikornTest, V19ForeignDumpStepByStep) {
  ImportResult imported = Import(kForeignDump);
  const Scenario& scenario = imported.scenario;
  EXPECT_EQ(scenario.semantics, Semantics::kYunikorn19);
  EXPECT_EQ(imported.summary.source_version,
            "yunikorn 1.8-1.9 state dump, resource manager build 1.9.0");
  EXPECT_THAT(Warnings(imported), IsEmpty());
  EXPECT_EQ(imported.summary.nodes, 3);
  EXPECT_EQ(imported.summary.applications, 3);
  EXPECT_EQ(imported.summary.running, 5);
  EXPECT_EQ(imported.summary.pending, 4);
  EXPECT_EQ(imported.summary.foreign, 2);

  const std::string attributes =
      ",si/instance-type=m5.xlarge,si/node-partition=[mycluster]default}";
  EXPECT_THAT(
      Nodes(scenario),
      ElementsAre("default/node-1 {memory=4Gi pods=110 vcore=4000} {ready=true,"
                  "si/hostname=node-1" +
                      attributes,
                  "default/node-2 {memory=4Gi pods=110 vcore=4000} {ready=true,"
                  "si/hostname=node-2" +
                      attributes,
                  "default/node-3 {memory=4Gi pods=110 vcore=4000} unschedulable {ready=true,"
                  "si/hostname=node-3" +
                      attributes));
  const std::string one = " {memory=1Gi pods=1 vcore=1000}";
  const std::string etl = "default/etl-gang/";
  EXPECT_THAT(
      Steps(scenario),
      ElementsAre(
          // The earliest time is web-0's creation (its creationTime tag, +5 s, which lowered
          // web's submission to it); the dump was taken at +100.25 s.
          "advance 95250ms",
          "add_foreign default/" + kKubeProxy +
              " node=node-1 {memory=512Mi pods=1 vcore=500} static",
          "add_foreign default/" + kNodeExporter +
              " node=node-1 {memory=512Mi pods=1 vcore=500} default",
          "add_app default/web queue=root.svc user=hank groups=[ops] tags={namespace=web}",
          "add_app default/etl-gang queue=root.gang user=gina groups=[data,spark]"
          " tags={namespace=etl} placeholder_ask={memory=3Gi pods=3 vcore=3000}",
          "add_app default/ds-agent queue=root.svc user=system groups=[]"
          " tags={namespace=kube-system}",
          "recover default/web/" + kWeb0 + " node=node-2" + one + " priority=100 created=0s",
          "recover " + etl + kEtlDriver + " node=node-2" + one + " originator created=5s",
          "recover " + etl + kEtlPlaceholder0 + " node=node-1" + one +
              " placeholder task_group=workers created=7s",
          "recover " + etl + kEtlPlaceholder1 + " node=node-2" + one +
              " placeholder task_group=workers created=8s",
          // Its requestTime is the placeholder's creation (+14 s); allocationTime its own (+40 s).
          "recover " + etl + kEtlWorker2 + " node=node-1" + one + " task_group=workers created=35s",
          "ask " + etl + kEtlWorker1 + one + " x1 task_group=workers created=45s",
          "ask default/web/" + kWeb1 + one + " x1 priority=100 created=55s",
          "ask default/web/" + kWeb2 + one + " x1 priority=100 created=56s",
          "ask default/ds-agent/" + kLogAgent +
              " {memory=512Mi pods=1 vcore=500} x1 priority=1000 required=node-1 created=65s",
          "schedule"));
}

// After recovery node-1 has 1Gi free (4Gi less 2Gi of pods and 1Gi of foreign ones), node-2 1Gi,
// node-3 is unschedulable. The pending worker replaces the older placeholder (node-1); the log
// agent (priority 1000) fits its required node-1 without preempting; web-1 takes node-2; web-2
// finds no room.
TEST(ImportYunikornTest, V19ForeignDumpRuns) {
  ImportResult imported = Import(kForeignDump);
  RunResult run = RunImported(imported.scenario);
  EXPECT_THAT(Errors(run), IsEmpty());
  const std::string etl = "default/etl-gang/";
  EXPECT_THAT(Placed(run.recovered),
              ElementsAre("default/web/" + kWeb0 + "@node-2", etl + kEtlDriver + "@node-2",
                          etl + kEtlPlaceholder0 + "@node-1", etl + kEtlPlaceholder1 + "@node-2",
                          etl + kEtlWorker2 + "@node-1"));
  EXPECT_THAT(Placed(run.allocations), ElementsAre(etl + kEtlWorker1 + "@node-1",
                                                   "default/ds-agent/" + kLogAgent + "@node-1",
                                                   "default/web/" + kWeb1 + "@node-2"));
  EXPECT_THAT(Placed(run.releases), ElementsAre(etl + kEtlPlaceholder0 + "@node-1 replaced"));
  std::map<std::string, std::string> pending = Pending(*run.kernel);
  ASSERT_THAT(Keys(pending), ElementsAre("default/web/" + kWeb2 + " x1"));
  EXPECT_THAT(pending.begin()->second, Not(IsEmpty()));
}

// --- (3) determinism ------------------------------------------------------------------------

// Lists whose order the dump fixes: chronological, sorted, the config's, or the user's groups
// as the resolver gave them (the first group with a limit counts). Every other list comes
// from a Go map.
bool OrderIsMeaningful(std::string_view key) {
  static const std::set<std::string_view> kOrdered = {
      "stateLog",         "allocationLog",  "AppHistory", "appHistory", "ContainerHistory",
      "containerHistory", "placementRules", "rules",      "groups"};
  return kOrdered.contains(key);
}

void Shuffle(rapidjson::Value& value, std::string_view key, std::mt19937& random) {
  if (key == "config") return;  // the queues.yaml as loaded: its lists are in config order
  // Indexes, not iterators: clang finds rapidjson's member iterator comparison ambiguous in
  // C++20.
  if (value.IsObject()) {
    for (rapidjson::SizeType m = 0; m < value.MemberCount(); ++m) {
      auto& member = value.MemberBegin()[m];
      Shuffle(member.value,
              std::string_view(member.name.GetString(), member.name.GetStringLength()), random);
    }
  } else if (value.IsArray()) {
    rapidjson::SizeType size = value.Size();
    if (!OrderIsMeaningful(key)) {
      for (rapidjson::SizeType i = size; i > 1; --i) {
        std::uniform_int_distribution<rapidjson::SizeType> pick(0, i - 1);
        value[i - 1].Swap(value[pick(random)]);
      }
    }
    for (rapidjson::SizeType i = 0; i < size; ++i) Shuffle(value[i], key, random);
  }
}

// The dump with its Go-map lists in another order (none when `seed` is nullopt), written as
// MarshalIndent writes it.
std::string Reshuffled(const std::string& json, std::optional<uint32_t> seed) {
  rapidjson::Document document;
  document.Parse<rapidjson::kParseFullPrecisionFlag>(json.c_str());
  EXPECT_FALSE(document.HasParseError());
  if (seed) {
    std::mt19937 random(*seed);
    Shuffle(document, "", random);
  }
  rapidjson::StringBuffer buffer;
  rapidjson::PrettyWriter<rapidjson::StringBuffer> writer(buffer);
  writer.SetIndent(' ', 2);
  document.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize()) + "\n";
}

struct Imported {
  std::string yaml;
  std::vector<std::string> warnings;  // what and count: the examples are the first seen
};

Imported ImportText(const std::string& json, const ImportOptions& options) {
  absl::StatusOr<ImportResult> imported = ImportYunikornStateDumpText(json, "dump.json", options);
  EXPECT_TRUE(imported.ok()) << imported.status();
  if (!imported.ok()) return {};
  Imported out{ScenarioToYaml(imported->scenario), {}};
  for (const ImportWarning& w : imported->warnings) {
    out.warnings.push_back(w.what + " x" + std::to_string(w.count));
  }
  std::sort(out.warnings.begin(), out.warnings.end());
  return out;
}

void ExpectSameWhateverTheOrder(const std::string& json, const ImportOptions& options) {
  Imported first = ImportText(json, options);
  ASSERT_FALSE(first.yaml.empty());
  int reordered = 0;
  for (uint32_t seed = 1; seed <= 24; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::string shuffled = Reshuffled(json, seed);
    reordered += shuffled != Reshuffled(json, std::nullopt) ? 1 : 0;
    Imported again = ImportText(shuffled, options);
    EXPECT_EQ(again.yaml, first.yaml);
    EXPECT_EQ(again.warnings, first.warnings);
  }
  EXPECT_GT(reordered, 0) << "the shuffle changed nothing: the test would prove nothing";
}

TEST(ImportYunikornTest, ListOrderDoesNotChangeTheScenario) {
  for (const char* dump : {kRealDump, kGangDump, kForeignDump}) {
    SCOPED_TRACE(dump);
    ExpectSameWhateverTheOrder(ReadFile(kDir + dump + ".json"), OptionsFor(dump));
  }
}

// root.a and root.b, as queues.yaml text (ConfigToJson writes JSON, which is YAML).
const std::string kTwoQueues =
    ConfigToJson(test_support::RootWith(test_support::Leaves({"a", "b"})));

ImportOptions Inline() {
  ImportOptions options;
  options.config_text = kTwoQueues;
  return options;
}

// What the fixtures do not exercise: two repeats of one key recovered with their ask's
// creationTime tag (the same requestTime and allocationTime) on different nodes, the pods of one
// app in two namespaces, task groups whose minResource name different types.
constexpr char kTies[] = R"({
  "Timestamp": 1796000100000000000,
  "Partitions": [{"clusterId": "rm:123", "name": "default"}],
  "Applications": [
    {
      "applicationID": "job",
      "partition": "default",
      "queueName": "root.a",
      "submissionTime": 1796000000000000000,
      "requests": [
        {"allocationKey": "ph-gpu", "requestTime": 1796000001000000000,
         "resource": {"memory": 10, "nvidia.com/gpu": 1, "vcore": 10}, "pendingCount": 1,
         "priority": "0", "placeholder": true, "taskGroupName": "gpu"},
        {"allocationKey": "ph-cpu", "requestTime": 1796000001000000000,
         "resource": {"memory": 10, "vcore": 10}, "pendingCount": 1, "priority": "0",
         "placeholder": true, "taskGroupName": "cpu"}
      ],
      "allocations": [
        {"allocationKey": "w", "allocationTags": {"kubernetes.io/meta/namespace": "ns-b",
         "creationTime": "1796000002"}, "requestTime": 1796000002000000000,
         "allocationTime": 1796000002000000000, "uuid": "u-1",
         "resource": {"memory": 10, "vcore": 10}, "priority": "0", "nodeId": "node-1"},
        {"allocationKey": "w", "allocationTags": {"kubernetes.io/meta/namespace": "ns-a",
         "creationTime": "1796000002"}, "requestTime": 1796000002000000000,
         "allocationTime": 1796000002000000000, "uuid": "u-2",
         "resource": {"memory": 10, "vcore": 10}, "priority": "0", "nodeId": "node-2"}
      ],
      "applicationState": "Running",
      "user": "alice",
      "placeholderData": [
        {"taskGroupName": "cpu", "count": 2, "minResource": {"memory": 10, "vcore": 10},
         "replaced": 0, "timedout": 0},
        {"taskGroupName": "gpu", "count": 1,
         "minResource": {"memory": 10, "nvidia.com/gpu": 1, "vcore": 10}, "replaced": 0,
         "timedout": 0}
      ],
      "minAllocationPriority": 0
    }
  ],
  "Nodes": [
    {"partitionName": "default", "nodesInfo": [
      {"nodeID": "node-1", "capacity": {"memory": 100, "nvidia.com/gpu": 2, "vcore": 100}},
      {"nodeID": "node-2", "capacity": {"memory": 100, "vcore": 100}}
    ]}
  ]
}
)";

TEST(ImportYunikornTest, TiesBetweenPodsAreBrokenByWhatTheScenarioShows) {
  ExpectSameWhateverTheOrder(kTies, Inline());
  absl::StatusOr<ImportResult> imported = ImportYunikornStateDumpText(kTies, "ties.json", Inline());
  ASSERT_TRUE(imported.ok()) << imported.status();
  std::vector<std::string> steps = Steps(imported->scenario);
  EXPECT_THAT(steps,
              Contains("add_app default/job queue=root.a user=alice groups=[] tags={namespace=ns-a}"
                       " placeholder_ask={memory=30 nvidia.com/gpu=1 vcore=30}"));
  EXPECT_THAT(steps, Contains("recover default/job/w node=node-1 {memory=10 vcore=10}"
                              " created=2s"));
  EXPECT_THAT(steps, Contains("recover default/job/w#1 node=node-2 {memory=10 vcore=10}"
                              " created=2s"));
}

// --- (4) what the importer infers and refuses -------------------------------------------------

// A small v1.2 dump; tests change one piece of it.
constexpr char kMini[] = R"({
  "Timestamp": 1796000010000000000,
  "Partitions": [
    {"clusterId": "rm:123", "name": "default"}
  ],
  "Applications": [
    {
      "applicationID": "app-1",
      "partition": "default",
      "queueName": "root.a",
      "submissionTime": 1796000000000000000,
      "requests": [
        {
          "allocationKey": "ask-1", "applicationId": "app-1",
          "requestTime": 1796000001000000000,
          "resource": {"memory": 1024, "vcore": 1000},
          "pendingCount": 1,
          "priority": "0",
          "requiredNodeId": ""
        }
      ],
      "allocations": [
        {
          "allocationKey": "run-1", "applicationId": "app-1",
          "requestTime": 1796000000500000000,
          "allocationTime": 1796000000600000000,
          "uuid": "u-1",
          "resource": {"memory": 1024, "vcore": 1000},
          "priority": "0",
          "nodeId": "node-1"
        }
      ],
      "applicationState": "Running",
      "user": "alice",
      "placeholderData": [],
      "minAllocationPriority": 0
    }
  ],
  "Nodes": [
    {"partitionName": "default", "nodesInfo": [
      {"nodeID": "node-1", "capacity": {"memory": 4096, "vcore": 4000}, "occupied": {}}
    ]}
  ]
}
)";

// `text` with its one `from` replaced by `to`.
std::string With(std::string text, std::string_view from, std::string_view to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  EXPECT_EQ(text.find(from, at + 1), std::string::npos) << from << " is not unique";
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// The 1-based line `needle` starts on.
int64_t LineOf(const std::string& text, std::string_view needle) {
  size_t at = text.find(needle);
  EXPECT_NE(at, std::string::npos) << needle;
  return 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n');
}

std::string ImportError(const std::string& json, const ImportOptions& options = Inline()) {
  absl::StatusOr<ImportResult> imported = ImportYunikornStateDumpText(json, "mini.json", options);
  EXPECT_FALSE(imported.ok()) << "imported although it should not:\n" << json;
  return imported.ok() ? "" : Message(imported.status());
}

TEST(ImportYunikornTest, MiniDumpImports) {
  absl::StatusOr<ImportResult> imported = ImportYunikornStateDumpText(kMini, "mini.json", Inline());
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_THAT(
      Steps(imported->scenario),
      ElementsAre("advance 10000ms",
                  "add_app default/app-1 queue=root.a user=alice groups=[] tags={}",
                  "recover default/app-1/run-1 node=node-1 {memory=1024 vcore=1000}"
                  " created=0s",
                  "ask default/app-1/ask-1 {memory=1024 vcore=1000} x1 created=1s", "schedule"));
}

TEST(ImportYunikornTest, MalformedJson) {
  std::string json = With(kMini, "\"pendingCount\": 1,", "\"pendingCount\": 1,,");
  EXPECT_THAT(ImportError(json),
              HasSubstr("mini.json:" + std::to_string(LineOf(json, "\"pendingCount\"")) + ":"));
  EXPECT_THAT(ImportError(json), HasSubstr("malformed JSON"));
  EXPECT_THAT(ImportError(std::string(kMini).substr(0, 400)), HasSubstr("malformed JSON"));
}

TEST(ImportYunikornTest, BadQuantities) {
  const std::string request = "mini.json:";
  struct Case {
    std::string_view value;
    std::string field_and_why;
  };
  for (const Case& c : {Case{"\"1Gi\"", "resource.memory: expected an integer, found a string"},
                        Case{"-1", "resource.memory: negative"},
                        Case{"1024.5", "resource.memory: 1024.5 is not a 64-bit integer"},
                        Case{"1e3", "resource.memory: 1e3 is not a 64-bit integer"},
                        Case{"9223372036854775808",
                             "resource.memory: 9223372036854775808 is not a 64-bit integer"}}) {
    std::string json = With(
        kMini, "\"resource\": {\"memory\": 1024, \"vcore\": 1000},\n          \"pendingCount\"",
        "\"resource\": {\"memory\": " + std::string(c.value) +
            ", \"vcore\": 1000},\n          \"pendingCount\"");
    EXPECT_EQ(ImportError(json),
              request + std::to_string(LineOf(json, "\"memory\": " + std::string(c.value))) +
                  ": application app-1 request ask-1: " + c.field_and_why);
  }
}

TEST(ImportYunikornTest, BadPriorityAndPendingCount) {
  std::string json = With(kMini, "\"priority\": \"0\",\n          \"requiredNodeId\"",
                          "\"priority\": \"abc\",\n          \"requiredNodeId\"");
  EXPECT_EQ(ImportError(json), "mini.json:" + std::to_string(LineOf(json, "\"abc\"")) +
                                   ": application app-1 request ask-1: priority: \"abc\" is not "
                                   "an integer");
  json = With(kMini, "\"priority\": \"0\",\n          \"nodeId\"",
              "\"priority\": \"99999999999\",\n          \"nodeId\"");
  EXPECT_THAT(ImportError(json), HasSubstr(": application app-1 allocation run-1: priority: "
                                           "99999999999 is outside int32"));
  json = With(kMini, "\"pendingCount\": 1", "\"pendingCount\": -1");
  EXPECT_THAT(ImportError(json),
              StartsWith("mini.json:" + std::to_string(LineOf(json, "\"pendingCount\"")) +
                         ": application app-1 request ask-1: pendingCount: -1 is outside "
                         "0.."));
}

TEST(ImportYunikornTest, DuplicateNodeInAPartition) {
  std::string node =
      R"({"nodeID": "node-1", "capacity": {"memory": 4096, "vcore": 4000}, "occupied": {}})";
  std::string json = With(kMini, node, node + ",\n      " + node);
  EXPECT_EQ(ImportError(json), "mini.json: node node-1 (line " +
                                   std::to_string(LineOf(json, node) + 1) + "): listed twice");
}

TEST(ImportYunikornTest, AllocationOnANodeNotInTheDump) {
  std::string json = With(kMini, "\"nodeId\": \"node-1\"", "\"nodeId\": \"node-9\"");
  EXPECT_EQ(ImportError(json),
            "mini.json: application app-1 allocation run-1 (line " +
                std::to_string(LineOf(json, "\"allocationKey\": \"run-1\"") - 1) +
                "): runs on node node-9, which is not in the input");
}

TEST(ImportYunikornTest, ApplicationInAPartitionTheConfigLacks) {
  std::string json = With(kMini, "\"partition\": \"default\"", "\"partition\": \"gpu\"");
  EXPECT_EQ(ImportError(json), "mini.json: application app-1 (line " +
                                   std::to_string(LineOf(json, "\"applicationID\"") - 1) +
                                   "): partition \"gpu\" is not in the config (it has: default)");
}

// camelCase without the partitions' quotaPreemptionEnabled is 1.4 to 1.7: no profile reads
// those, unless told which one to read it as.
TEST(ImportYunikornTest, UnknownRelease) {
  std::string json = kMini;
  for (auto [pascal, camel] : std::vector<std::pair<std::string, std::string>>{
           {"\"Timestamp\"", "\"timestamp\""},
           {"\"Partitions\"", "\"partitions\""},
           {"\"Applications\"", "\"applications\""},
           {"\"Nodes\"", "\"nodes\""},
           {",\n      \"minAllocationPriority\": 0", ""}}) {
    json = With(json, pascal, camel);
  }
  std::string error = ImportError(json);
  EXPECT_THAT(error, HasSubstr("mini.json: a state dump of a YuniKorn release allocore has no "
                               "profile for"));
  EXPECT_THAT(error, HasSubstr("1.4-1.7"));
  EXPECT_THAT(error, HasSubstr("--semantics"));

  ImportOptions options = Inline();
  options.semantics = Semantics::kYunikorn19;
  absl::StatusOr<ImportResult> imported = ImportYunikornStateDumpText(json, "mini.json", options);
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ(imported->scenario.semantics, Semantics::kYunikorn19);
  ASSERT_EQ(imported->warnings.size(), 1u);
  EXPECT_THAT(imported->warnings[0].what, HasSubstr("read as far as it matches"));
  options.strict = true;
  EXPECT_THAT(ImportError(json, options), HasSubstr("--strict"));

  // With the flag it is 1.8/1.9.
  imported =
      ImportYunikornStateDumpText(With(json, "\"name\": \"default\"}",
                                       "\"name\": \"default\", \"quotaPreemptionEnabled\": false}"),
                                  "mini.json", Inline());
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ(imported->scenario.semantics, Semantics::kYunikorn19);
  // PascalCase without minAllocationPriority is 1.3.
  EXPECT_THAT(ImportError(With(kMini, ",\n      \"minAllocationPriority\": 0", "")),
              HasSubstr("(1.3)"));
}

// The marker of 1.2 sits on applications; a dump whose applications have all finished is 1.2
// all the same.
// A reservation is the scheduler's state, not the cluster's: it is named, not imported.
TEST(ImportYunikornTest, ALiveReservationIsAWarning) {
  std::string json =
      With(kMini, "\"user\": \"alice\",", "\"user\": \"alice\", \"hasReserved\": true,");
  absl::StatusOr<ImportResult> imported = ImportYunikornStateDumpText(json, "mini.json", Inline());
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_THAT(Warnings(*imported),
              ElementsAre("a live reservation: not imported (the next schedule reserves anew) "
                          "x1 (application app-1)"));
}

// A name with a control character would make a scenario file that does not load (the fuzz
// target's find): it is refused with the object.
TEST(ImportYunikornTest, ANameWithAControlCharacterIsRefused) {
  std::string json =
      With(kMini, "\"allocationKey\": \"ask-1\"", "\"allocationKey\": \"ask\\u007f1\"");
  EXPECT_THAT(ImportError(json), HasSubstr("control character 0x7F in a name"));
  EXPECT_THAT(ImportError(json), HasSubstr("application app-1 request ask"));
}

TEST(ImportYunikornTest, DumpOfFinishedApplicationsKeepsItsRelease) {
  std::string json =
      With(kMini, "\"applicationState\": \"Running\"", "\"applicationState\": \"Completed\"");
  absl::StatusOr<ImportResult> imported = ImportYunikornStateDumpText(json, "mini.json", Inline());
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ(imported->summary.source_version, "yunikorn 1.2 state dump");
  EXPECT_THAT(Warnings(*imported),
              ElementsAre("application in state Completed: skipped x1 (application app-1)"));
  EXPECT_THAT(Steps(imported->scenario), ElementsAre("schedule"));
}

// Without applications the partitions tell 1.2 (no totalNodes) from 1.3 (totalNodes).
TEST(ImportYunikornTest, ADumpWithoutApplicationsIsToldByItsPartitions) {
  const std::string nodes_only = R"({"Timestamp": 1795811105479097510,
  "Partitions": [{"clusterId": "rm:123", "name": "default"}],
  "Applications": [],
  "Nodes": [{"partitionName": "default", "nodesInfo": [
    {"nodeID": "node-1", "capacity": {"memory": 100}, "schedulable": true}]}]})";
  absl::StatusOr<ImportResult> imported =
      ImportYunikornStateDumpText(nodes_only, "mini.json", Inline());
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ(imported->summary.source_version, "yunikorn 1.2 state dump");
  EXPECT_EQ(imported->summary.nodes, 1);
  EXPECT_THAT(ImportError(With(nodes_only, "\"name\": \"default\"}",
                               "\"name\": \"default\", \"totalNodes\": 1}")),
              HasSubstr("(1.3)"));
}

TEST(ImportYunikornTest, NotAStateDump) {
  EXPECT_THAT(ImportError("[1, 2]"), HasSubstr("the document is not a JSON object"));
  EXPECT_THAT(ImportError("42"), HasSubstr("the document is not a JSON object"));
  EXPECT_THAT(ImportError("[1, 2]"), StartsWith("mini.json:"));
  EXPECT_THAT(ImportError("{\"LogLevel\": \"info\"}"),
              HasSubstr("mini.json: not a YuniKorn state dump"));
  // The list moves under a key the importer does not read, so that the JSON stays valid.
  std::string json =
      With(kMini, "\"Applications\": [", "\"Applications\": {\"app-1\": {}},\n  \"Ignored\": [");
  EXPECT_EQ(ImportError(json), "mini.json:" + std::to_string(LineOf(json, "\"Applications\"")) +
                                   ": \"Applications\": expected a list, found an object");
  json = With(kMini, "\"user\": \"alice\"", "\"user\": {\"user\": \"alice\"}");
  EXPECT_EQ(ImportError(json), "mini.json:" + std::to_string(LineOf(json, "{\"user\"")) +
                                   ": application app-1: user: expected a string, found an object");
}

TEST(ImportYunikornTest, StrictRefusesWhatWouldBeGuessed) {
  ImportOptions options = OptionsFor(kGangDump);
  options.strict = true;
  absl::StatusOr<ImportResult> imported =
      ImportYunikornStateDump(kDir + kGangDump + ".json", options);
  ASSERT_FALSE(imported.ok());
  EXPECT_EQ(imported.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(Message(imported.status()), HasSubstr("--strict"));
  EXPECT_THAT(Message(imported.status()),
              HasSubstr("1 x application in state Completed: skipped (first: application "
                        "old-job)"));
  // Nothing guessed in the real dump: strict passes.
  options = OptionsFor(kRealDump);
  options.strict = true;
  EXPECT_TRUE(ImportYunikornStateDump(kDir + kRealDump + ".json", options).ok());
}

TEST(ImportYunikornTest, ConfigIsRequired) {
  EXPECT_THAT(ImportError(kMini, ImportOptions{}), HasSubstr("a queues.yaml"));
  ImportOptions options;
  options.config_path = kDir + "no-such.queues.yaml";
  EXPECT_THAT(ImportError(kMini, options), HasSubstr("no-such.queues.yaml"));
  absl::StatusOr<ImportResult> missing =
      ImportYunikornStateDump(kDir + "no-such-dump.json", OptionsFor(kRealDump));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(Message(missing.status()), HasSubstr("no-such-dump.json"));
}

// A placeholder's group is read off its name, tg-<group[:20]>-<app[:28]>-<n>, then off its
// size among the groups the name fits. Groups "a" and "a-b": tg-a-b-app-1-0 also starts with
// "tg-a-", and both are the same size; the app in the name tells them apart. Two groups cut to
// the same 20 bytes: the size decides between those two, though a third group ("small") has
// the same size as one of them.
TEST(ImportYunikornTest, PlaceholderGroupsFromNamesAndSizes) {
  auto placeholder = [](std::string_view key, std::string_view pod, int64_t memory) {
    return "{\"allocationKey\": \"" + std::string(key) +
           "\", \"allocationTags\": {\"kubernetes.io/meta/podName\": \"" + std::string(pod) +
           "\", \"kubernetes.io/label/placeholder\": \"true\"}, \"requestTime\": "
           "1796000000500000000, \"allocationTime\": 1796000000600000000, \"uuid\": \"u-" +
           std::string(key) + "\", \"resource\": {\"memory\": " + std::to_string(memory) +
           ", \"vcore\": 1}, \"priority\": \"0\", \"nodeId\": \"node-1\"},\n        ";
  };
  auto group = [](std::string_view name, int64_t memory) {
    return "{\"taskGroupName\": \"" + std::string(name) +
           "\", \"count\": 1, \"minResource\": {\"memory\": " + std::to_string(memory) +
           ", \"vcore\": 1}, \"replaced\": 0, \"timedout\": 0}";
  };
  std::string json = With(kMini, "\"allocations\": [\n        {",
                          "\"allocations\": [" + placeholder("p-ab", "tg-a-b-app-1-0", 10) +
                              placeholder("p-a", "tg-a-app-1-0", 10) +
                              placeholder("p-long", "tg-executors-of-the-lon-app-1-0", 20) + "{");
  json = With(json, "\"placeholderData\": []",
              "\"placeholderData\": [" + group("a", 10) + ", " + group("a-b", 10) + ", " +
                  group("executors-of-the-long-job", 20) + ", " +
                  group("executors-of-the-long-jobs", 30) + ", " + group("small", 20) + "]");
  absl::StatusOr<ImportResult> imported = ImportYunikornStateDumpText(json, "mini.json", Inline());
  ASSERT_TRUE(imported.ok()) << imported.status();
  std::vector<std::string> steps = Steps(imported->scenario);
  EXPECT_THAT(steps, Contains("recover default/app-1/p-a node=node-1 {memory=10 vcore=1}"
                              " placeholder task_group=a created=0s"));
  EXPECT_THAT(steps, Contains("recover default/app-1/p-ab node=node-1 {memory=10 vcore=1}"
                              " placeholder task_group=a-b created=0s"));
  EXPECT_THAT(steps, Contains("recover default/app-1/p-long node=node-1 {memory=20 vcore=1}"
                              " placeholder task_group=executors-of-the-long-job created=0s"));
  EXPECT_THAT(steps, Contains("recover default/app-1/run-1 node=node-1 {memory=1024 "
                              "vcore=1000} created=0s"));
  EXPECT_THAT(Warnings(*imported),
              ElementsAre(HasSubstr("placeholder told by the shim's pod name or label (a v1.2 "
                                    "dump does not mark placeholder allocations) x3")));
}

}  // namespace
}  // namespace allocore::adapters
