// Export and import are a round trip: a scenario cut at a step, exported as YuniKorn's state
// dump, imported, and continued with the rest of its steps decides what the uninterrupted run
// decided after the cut.
//
// The dump holds the state YuniKorn reports; what it does not hold decides differently on
// purpose, and such cuts are not round trips: a live reservation, a running timer (the Starting
// and Completing timers, placeholder timeouts, preemption and quota delays, backoff), a gang,
// asks that are told apart only by their allocations' order, groups the kernel remembers from
// an earlier call, and what changes nodes or the config (a later step would meet a state the
// dump no longer describes the same way). The test says of every
// conformance scenario and cut whether it applies and, where it does, that it holds.
#include <filesystem>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "allocore/adapters/cluster_export.h"
#include "allocore/adapters/cluster_import.h"
#include "allocore/adapters/config_loader.h"
#include "allocore/adapters/event_log.h"
#include "allocore/adapters/scenario.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/files.h"

namespace allocore::adapters {
namespace {

std::string Message(const absl::Status& status) {
  return std::string(status.message().data(), status.message().size());
}

// One allocation or release, as the round trip must keep it.
struct Decided {
  std::string what;
  bool operator==(const Decided&) const = default;
};

std::vector<Decided> DecisionsAfter(const RunResult& run, int64_t after_step) {
  std::vector<Decided> out;
  for (const ActualAllocation& a : run.allocations) {
    if (a.step > after_step) {
      out.push_back({std::string("allocation ") + std::string(a.app) + "/" + std::string(a.ask) +
                     " on " + std::string(a.node)});
    }
  }
  for (const ActualAllocation& r : run.releases) {
    if (r.step > after_step) {
      out.push_back({std::string("release ") + std::string(r.app) + "/" + std::string(r.ask) +
                     " (" + std::string(r.reason) + ")"});
    }
  }
  return out;
}

// What the dump cannot carry, in the scenario's steps (whatever the cut).
std::string Unsupported(const Scenario& scenario) {
  std::set<std::string> users_with_groups;
  for (const ScenarioStep& step : scenario.steps) {
    // The kernel remembers a user's groups from an earlier call (the user-group cache); the
    // dump carries only the groups each application was submitted with.
    if (const auto* app = std::get_if<AppSpec>(&step.action)) {
      if (!app->groups.empty()) users_with_groups.insert(app->user);
      if (app->groups.empty() && users_with_groups.contains(app->user)) {
        return "the user-group cache";
      }
    }
    if (const auto* app = std::get_if<AppSpec>(&step.action); app && !app->placeholder_ask.empty())
      return "a gang";
    if (const auto* ask = std::get_if<AskSpec>(&step.action)) {
      if (ask->placeholder || !ask->task_group.empty()) return "a gang";
      if (ask->count > 1) return "an ask with repeats (one key, several pods)";
      if (!ask->required_node.empty()) return "a required node (its reservation)";
    }
    if (std::holds_alternative<UpdateConfigStep>(step.action)) return "a config reload";
    // 1.9 does not re-sort nodes when other schedulers' pods change: their order keeps history
    // that a restart (YuniKorn's own too) rebuilds fresh.
    if (scenario.semantics == Semantics::kYunikorn19 &&
        (std::holds_alternative<AddForeignStep>(step.action) ||
         std::holds_alternative<UpdateForeignStep>(step.action))) {
      return "1.9 foreign pods (node order not refreshed)";
    }
    if (std::holds_alternative<AdvanceStep>(step.action)) return "timers (an advance step)";
    if (std::holds_alternative<NodeUpdate>(step.action)) return "node updates";
    if (std::holds_alternative<RemoveNodeStep>(step.action)) return "node removal";
  }
  return "";
}

struct RoundTrip {
  bool applies = false;
  std::string why_not;
  std::vector<Decided> uninterrupted;
  std::vector<Decided> continued;
};

RoundTrip Check(const Scenario& scenario, int64_t cut) {
  RoundTrip result;
  RunOptions options;
  options.keep_allocations = true;
  absl::StatusOr<RunResult> whole = RunScenario(scenario, options, nullptr);
  if (!whole.ok()) {
    result.why_not = "the scenario does not run: " + Message(whole.status());
    return result;
  }
  ExportOptions export_options;
  export_options.at_step = cut;
  absl::StatusOr<std::string> dump = ExportYunikornStateDump(scenario, export_options);
  EXPECT_TRUE(dump.ok()) << Message(dump.status());
  if (!dump.ok()) return result;
  ImportOptions import_options;
  import_options.config_text = ConfigToJson(scenario.config);
  import_options.semantics = scenario.semantics;
  import_options.schedule = false;
  absl::StatusOr<ImportResult> imported =
      ImportYunikornStateDumpText(*dump, "exported.json", import_options);
  EXPECT_TRUE(imported.ok()) << Message(imported.status()) << "\n" << *dump;
  if (!imported.ok()) return result;
  Scenario continuation = std::move(imported->scenario);
  const int64_t prefix = static_cast<int64_t>(continuation.steps.size());
  for (size_t i = static_cast<size_t>(cut); i < scenario.steps.size(); ++i) {
    continuation.steps.push_back(scenario.steps[i]);
  }
  absl::StatusOr<RunResult> continued = RunScenario(continuation, options, nullptr);
  EXPECT_TRUE(continued.ok()) << Message(continued.status());
  if (!continued.ok()) return result;
  for (const ActualAllocation& release : whole->releases) {
    // Victims are chosen by allocation age, which the dump does not carry.
    if (release.step > cut && (release.reason == "preempted" || release.reason == "quota")) {
      result.why_not = "preemption after the cut (victims chosen by allocation age)";
      return result;
    }
  }
  result.applies = true;
  result.uninterrupted = DecisionsAfter(*whole, cut);
  result.continued = DecisionsAfter(*continued, prefix);
  return result;
}

TEST(ClusterRoundTripTest, EveryScenarioItAppliesToContinuesAsTheUninterruptedRun) {
  int64_t held = 0;
  int64_t cuts_with_decisions = 0;
  int64_t scenarios_held = 0;
  int64_t scenarios = 0;
  std::set<std::string> skipped_reasons;
  for (const std::filesystem::path& file : test_support::ConformanceScenarioFiles()) {
    absl::StatusOr<Scenario> scenario = LoadScenarioFile(file.string());
    ASSERT_TRUE(scenario.ok()) << Message(scenario.status());
    ++scenarios;
    if (std::string why = Unsupported(*scenario); !why.empty()) {
      skipped_reasons.insert(why);
      continue;
    }
    const int64_t steps = static_cast<int64_t>(scenario->steps.size());
    if (steps > 1) ++scenarios_held;
    for (int64_t cut = 1; cut < steps; ++cut) {
      RoundTrip trip = Check(*scenario, cut);
      if (!trip.applies) continue;
      std::string shown;
      for (const Decided& d : trip.uninterrupted) shown += "  " + d.what + "\n";
      std::string got;
      for (const Decided& d : trip.continued) got += "  " + d.what + "\n";
      EXPECT_EQ(shown, got) << file.filename() << " cut after step " << cut;
      ++held;
      if (!trip.uninterrupted.empty()) ++cuts_with_decisions;
    }
  }
  // The corpus must exercise the round trip, not only skip it.
  EXPECT_GE(held, 150);
  EXPECT_GE(cuts_with_decisions, 100);
  EXPECT_GE(scenarios_held, 20);
  std::string reasons;
  for (const std::string& r : skipped_reasons) reasons += r + "; ";
  std::printf(
      "round trip: %lld of %lld scenarios, %lld cuts held (%lld with decisions after the cut); "
      "the others hold %s\n",
      static_cast<long long>(scenarios_held), static_cast<long long>(scenarios),
      static_cast<long long>(held), static_cast<long long>(cuts_with_decisions), reasons.c_str());
}

// The export of a cut, imported, gives back the nodes, applications, running and pending work.
TEST(ClusterRoundTripTest, TheDumpHoldsTheStateOfTheCut) {
  absl::StatusOr<Scenario> scenario = LoadScenarioText(R"(
config:
  partitions: [{name: default, queues: [{name: root, submitacl: "*", queues: [{name: a}, {name: b}]}]}]
nodes:
  - {id: n1, resources: {memory: 100, vcore: 10000}}
  - {id: n2, resources: {memory: 50, vcore: 5000}, schedulable: false}
steps:
  - add_foreign: {node: n1, id: f1, resources: {memory: 10}}
  - add_app: {id: app-1, queue: root.a, user: alice, tags: {namespace: ns1}}
  - add_ask: {app: app-1, id: k1, resources: {memory: 40, vcore: 1000}, priority: 3}
  - add_app: {id: app-2, queue: root.b, user: bob}
  - add_ask: {app: app-2, id: k2, resources: {memory: 40}}
  - schedule: {}
  - add_ask: {app: app-2, id: k3, resources: {memory: 40}}
)",
                                                       "cut.yaml");
  ASSERT_TRUE(scenario.ok()) << Message(scenario.status());
  absl::StatusOr<std::string> dump = ExportYunikornStateDump(*scenario, {});
  ASSERT_TRUE(dump.ok()) << Message(dump.status());
  ImportOptions options;
  options.config_text = ConfigToJson(scenario->config);
  absl::StatusOr<ImportResult> imported = ImportYunikornStateDumpText(*dump, "d.json", options);
  ASSERT_TRUE(imported.ok()) << Message(imported.status()) << "\n" << *dump;
  EXPECT_TRUE(imported->warnings.empty()) << FormatImportWarnings(imported->warnings);
  EXPECT_EQ(imported->summary.nodes, 2);
  EXPECT_EQ(imported->summary.applications, 2);
  EXPECT_EQ(imported->summary.running, 2);
  EXPECT_EQ(imported->summary.pending, 1);
  EXPECT_EQ(imported->summary.foreign, 1);
  EXPECT_EQ(imported->scenario.semantics, Semantics::kYunikorn12);
  std::string yaml = ScenarioToYaml(imported->scenario);
  EXPECT_THAT(yaml, ::testing::HasSubstr("{id: \"n2\", resources: {\"vcore\": 5000, "
                                         "\"memory\": 50}, schedulable: false}"));
  EXPECT_THAT(yaml, ::testing::HasSubstr("add_foreign: {id: \"f1\", node: \"n1\", "
                                         "resources: {\"memory\": 10}}"));
  EXPECT_THAT(yaml, ::testing::HasSubstr("add_app: {id: \"app-1\", queue: \"root.a\", user: "
                                         "\"alice\", tags: {\"namespace\": \"ns1\"}}"));
  EXPECT_THAT(yaml, ::testing::HasSubstr("recover_allocation: {app: \"app-1\", id: \"k1\", "
                                         "resources: {\"vcore\": 1000, \"memory\": 40}, "
                                         "priority: 3"));
  EXPECT_THAT(yaml, ::testing::HasSubstr("node: \"n1\"}"));
  EXPECT_THAT(yaml, ::testing::HasSubstr("add_ask: {app: \"app-2\", id: \"k3\""));
  // Under 1.9 the dump has the 1.8-1.9 format and is read back as such.
  scenario->semantics = Semantics::kYunikorn19;
  dump = ExportYunikornStateDump(*scenario, {});
  ASSERT_TRUE(dump.ok());
  EXPECT_THAT(*dump, ::testing::HasSubstr("\"quotaPreemptionEnabled\": false"));
  EXPECT_THAT(*dump, ::testing::Not(::testing::HasSubstr("\"Applications\"")));
  options.semantics.reset();
  imported = ImportYunikornStateDumpText(*dump, "d.json", options);
  ASSERT_TRUE(imported.ok()) << Message(imported.status()) << "\n" << *dump;
  EXPECT_EQ(imported->scenario.semantics, Semantics::kYunikorn19);
  EXPECT_EQ(imported->summary.running, 2);
}

TEST(ClusterRoundTripTest, AStepPastTheEndIsRefused) {
  absl::StatusOr<Scenario> scenario = LoadScenarioText("steps:\n  - schedule: {}\n", "short.yaml");
  ASSERT_TRUE(scenario.ok());
  ExportOptions options;
  options.at_step = 2;
  absl::StatusOr<std::string> dump = ExportYunikornStateDump(*scenario, options);
  ASSERT_FALSE(dump.ok());
  EXPECT_THAT(Message(dump.status()), ::testing::HasSubstr("step 2 is outside"));
}

}  // namespace
}  // namespace allocore::adapters
