// Scenario files: loading (errors with file:line:col and step index, every step kind), running
// (records, error records, clock, call granularity), checking (diffs) and determinism.
#include "allocore/adapters/scenario.h"

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "allocore/adapters/decision_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/files.h"
#include "support/scenarios.h"

namespace allocore::adapters {
namespace {

using ::testing::AllOf;
using ::testing::ContainsRegex;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::StartsWith;

std::string Message(const absl::Status& status) {
  return {status.message().data(), status.message().size()};
}

// The loader's message for `text` (which must not load).
std::string LoadError(const std::string& text) {
  absl::StatusOr<Scenario> scenario = LoadScenarioText(text, "s.yaml");
  EXPECT_FALSE(scenario.ok()) << "loaded although it should not:\n" << text;
  if (scenario.ok()) return "";
  EXPECT_EQ(scenario.status().code(), absl::StatusCode::kInvalidArgument);
  return Message(scenario.status());
}

Scenario Load(const std::string& text) {
  absl::StatusOr<Scenario> scenario = LoadScenarioText(text, "s.yaml");
  EXPECT_TRUE(scenario.ok()) << Message(scenario.status());
  return scenario.ok() ? *std::move(scenario) : Scenario{};
}

// root.a and root.b under a root anyone may submit to, and node-1: twelve lines, so that the
// steps a test adds after `steps:` start at line 14.
std::string ConfigAndNode() {
  return test_support::OpenRootConfig("- name: a\n- name: b\n") +
         "nodes:\n  - id: node-1\n    resources: {memory: 100, vcore: 10}\n";
}

// Collects the JSON lines of a run.
class JsonLines : public RunObserver {
 public:
  void OnRecord(const Record& record, const Kernel&) override { AppendJsonLine(record, &text); }
  std::string text;
};

std::string RunJson(const Scenario& scenario, int64_t chunk = 0) {
  JsonLines lines;
  RunOptions options;
  options.schedule_chunk = chunk;
  absl::StatusOr<RunResult> run = RunScenario(scenario, options, &lines);
  EXPECT_TRUE(run.ok()) << Message(run.status());
  return lines.text;
}

// --- loading: errors ------------------------------------------------------------------------

TEST(ScenarioLoaderTest, YamlSyntaxErrorNamesLineAndColumn) {
  std::string error = LoadError("name: x\nsteps:\n  - add_app: {id: a, queue: root.a\n");
  EXPECT_THAT(error, ContainsRegex("^s\\.yaml:[0-9]+:[0-9]+: "));
}

TEST(ScenarioLoaderTest, HostileInputIsRefusedWithItsPosition) {
  EXPECT_THAT(LoadError(std::string("name: x\nsteps: [\"\0\"]\n", 19)),
              StartsWith("s.yaml:2:10: NUL byte"));
  EXPECT_THAT(LoadError("steps: " + std::string(5000, '[') + std::string(5000, ']') + "\n"),
              ContainsRegex("^s\\.yaml:1:[0-9]+: nesting depth"));
}

TEST(ScenarioLoaderTest, UnknownStepKindNamesStepAndPosition) {
  std::string error = LoadError(ConfigAndNode() +
                                "steps:\n"
                                "  - schedule: {}\n"
                                "  - launch: {id: x}\n");
  EXPECT_THAT(error, StartsWith("s.yaml:15:5: step 2: unknown step kind \"launch\""));
  EXPECT_THAT(error, HasSubstr("known: add_app, add_ask, schedule"));
}

// Contract version 3: the profile is read before the config and the nodes, and decides what
// they may hold; an unknown profile, a creation time out of range and `occupied` under 1.9 are
// load errors with their positions.
TEST(ScenarioLoaderTest, SemanticsProfileKeysAndTheirRefusals) {
  const std::string nodes = "  - {id: n, resources: {memory: 10}, occupied: {memory: 1}}\n";
  Scenario v12 = Load("semantics: yunikorn-1.2\n" + ConfigAndNode() + nodes);
  EXPECT_EQ(v12.semantics, Semantics::kYunikorn12);
  EXPECT_EQ(Load(ConfigAndNode()).semantics, Semantics::kYunikorn12);
  EXPECT_THAT(LoadError("semantics: yunikorn-1.9\n" + ConfigAndNode() + nodes),
              HasSubstr("occupied is not read under yunikorn-1.9"));
  EXPECT_THAT(LoadError("semantics: yunikorn-2\n" + ConfigAndNode()),
              StartsWith("s.yaml:1:12: semantics: unknown profile \"yunikorn-2\" (known: "
                         "yunikorn-1.2, yunikorn-1.9)"));
  // The load options override the file's profile (allocore run --semantics).
  absl::StatusOr<Scenario> overridden =
      LoadScenarioText("semantics: yunikorn-1.2\n" + ConfigAndNode(), "s.yaml",
                       {.semantics = Semantics::kYunikorn19});
  ASSERT_TRUE(overridden.ok()) << Message(overridden.status());
  EXPECT_EQ(overridden->semantics, Semantics::kYunikorn19);
  Scenario timed = Load(ConfigAndNode() +
                        "steps:\n  - add_ask: {app: a, id: k, resources: {memory: 1}, "
                        "creation_time: 40}\n");
  ASSERT_EQ(timed.steps.size(), 1u);
  EXPECT_EQ(std::get<AskSpec>(timed.steps[0].action).creation_time_millis, 40'000);
  EXPECT_THAT(
      LoadError(ConfigAndNode() + "steps:\n  - add_ask: {app: a, id: k, resources: {memory: 1}, "
                                  "creation_time: -1}\n"),
      HasSubstr("creation_time"));
}

TEST(ScenarioLoaderTest, ResourceValuesAreRawIntegers) {
  std::string error = LoadError(ConfigAndNode() +
                                "steps:\n"
                                "  - add_app: {id: app-1, queue: root.a, user: u}\n"
                                "  - add_ask: {app: app-1, id: x, resources: {memory: 10Gi}}\n");
  EXPECT_EQ(error,
            "s.yaml:15:54: step 2 (add_ask): resources.memory: expected an integer (raw "
            "quantity, no unit suffix), got \"10Gi\"");
}

TEST(ScenarioLoaderTest, OutOfRangeNumbers) {
  std::string error =
      LoadError(ConfigAndNode() +
                "steps:\n"
                "  - add_ask: {app: a, id: x, resources: {memory: "
                "9223372036854775808}}\n"
                "  - add_ask: {app: a, id: y, resources: {}, priority: 2147483648}\n"
                "  - schedule: {max: -1}\n");
  EXPECT_THAT(error, HasSubstr("step 1 (add_ask): resources.memory: \"9223372036854775808\" does "
                               "not fit a 64-bit signed integer"));
  EXPECT_THAT(error,
              HasSubstr("step 2 (add_ask): priority: 2147483648 does not fit a 32-bit signed"));
  EXPECT_THAT(error, HasSubstr("step 3 (schedule): max: must not be negative, got -1"));
}

TEST(ScenarioLoaderTest, UnknownDuplicateAndMissingKeys) {
  std::string error = LoadError(ConfigAndNode() +
                                "steps:\n"
                                "  - add_app: {id: app-1, queu: root.a}\n"
                                "  - add_app: {id: app-1, id: app-2}\n"
                                "  - add_ask: {app: app-1, resources: {memory: 1}}\n");
  EXPECT_THAT(error, HasSubstr("s.yaml:14:26: step 1 (add_app): unknown key \"queu\" (allowed: "
                               "id, queue, user, groups, tags, partition, gang_style, "
                               "placeholder_timeout, placeholder_ask)"));
  EXPECT_THAT(error, HasSubstr("s.yaml:15:26: step 2 (add_app): duplicate key \"id\""));
  EXPECT_THAT(error, HasSubstr("step 3 (add_ask): missing required key \"id\""));
}

TEST(ScenarioLoaderTest, StepShape) {
  std::string error = LoadError(ConfigAndNode() +
                                "steps:\n"
                                "  - {schedule: {}, advance: {seconds: 1}}\n"
                                "  - [schedule]\n"
                                "  - schedule: [1]\n");
  EXPECT_THAT(error, HasSubstr("s.yaml:14:5: step 1: expected a mapping with exactly one key (the "
                               "step kind), got a mapping with 2 keys"));
  EXPECT_THAT(error, HasSubstr("step 2: expected a mapping with exactly one key"));
  EXPECT_THAT(error, HasSubstr("s.yaml:16:15: step 3 (schedule): expected a mapping, got a list"));
}

TEST(ScenarioLoaderTest, AdvanceSeconds) {
  for (const char* bad : {"-1", "1.2345", "abc", "1.", ".5", "1e3"}) {
    std::string error =
        LoadError(ConfigAndNode() + "steps:\n  - advance: {seconds: " + bad + "}\n");
    EXPECT_THAT(error, HasSubstr("step 1 (advance): seconds: expected a non-negative number of "
                                 "seconds"))
        << bad;
  }
}

TEST(ScenarioLoaderTest, NodeErrorsNameTheNode) {
  std::string error = LoadError(
      "nodes:\n"
      "  - {id: n1, resources: {memory: 1}}\n"
      "  - {id: n2, resources: {memory: x}, schedulable: maybe}\n"
      "  - {resources: {memory: 1}}\n");
  EXPECT_THAT(error, HasSubstr("s.yaml:3:34: nodes[1]: resources.memory: expected an integer"));
  EXPECT_THAT(error, HasSubstr("s.yaml:3:51: nodes[1]: schedulable: expected true or false, got "
                               "\"maybe\""));
  EXPECT_THAT(error, HasSubstr("s.yaml:4:5: nodes[2]: missing required key \"id\""));
}

// The loader walks a YamlTree built from yaml-cpp's events (no YAML::Node); these pin what
// that must keep: positions are the value's own, whatever the style it is written in, and a
// step written as a bare kind is reported at the kind.
TEST(ScenarioLoaderTest, PositionsAreTheSameInBlockAndFlowStyle) {
  std::string block = LoadError(
      "steps:\n"
      "  - add_ask:\n"
      "      app: a\n"
      "      id: x\n"
      "      resources:\n"
      "        memory: 10Gi\n"
      "      count: many\n"
      "  - add_node\n");
  EXPECT_EQ(block,
            "s.yaml:6:17: step 1 (add_ask): resources.memory: expected an integer (raw quantity, "
            "no unit suffix), got \"10Gi\"\n"
            "s.yaml:7:14: step 1 (add_ask): count: expected an integer (raw quantity, no unit "
            "suffix), got \"many\"\n"
            "s.yaml:8:5: step 2 (add_node): expected a mapping, got nothing");
  std::string flow = LoadError(
      "steps: [{add_ask: {app: a, id: x, resources: {memory: 10Gi}, count: many}}, add_node]\n");
  EXPECT_EQ(flow,
            "s.yaml:1:55: step 1 (add_ask): resources.memory: expected an integer (raw quantity, "
            "no unit suffix), got \"10Gi\"\n"
            "s.yaml:1:69: step 1 (add_ask): count: expected an integer (raw quantity, no unit "
            "suffix), got \"many\"\n"
            "s.yaml:1:77: step 2 (add_node): expected a mapping, got nothing");
}

// Only the first document is read, as YAML::Load did: what follows it is not even parsed.
TEST(ScenarioLoaderTest, LaterDocumentsAreNotRead) {
  Scenario scenario = Load("name: first\n...\n%YAML 2.0\n---\nsteps: [unclosed\n");
  EXPECT_EQ(scenario.name, "first");
}

// Aliases can nest a config block deeper than its text; the expanded block is still held to
// the 400-level bound (the config decoder recurses along queues).
TEST(ScenarioLoaderTest, ConfigNestedByAliasesIsBounded) {
  std::string text = "defs:\n  - &q0 {name: leaf}\n";
  for (int level = 1; level <= 5; ++level) {
    std::string queue = "*q" + std::to_string(level - 1);
    for (int i = 0; i < 45; ++i)
      queue = "{name: q" + std::to_string(i) + ", queues: [" + queue + "]}";
    text += "  - &q" + std::to_string(level) + " " + queue + "\n";
  }
  text += "config: {partitions: [{name: default, queues: [{name: root, queues: [*q5]}]}]}\n";
  EXPECT_THAT(LoadError(text), HasSubstr("nesting depth exceeds the limit of 400 levels"));
}

TEST(ScenarioLoaderTest, TopLevel) {
  EXPECT_THAT(LoadError(""), HasSubstr("s.yaml: empty scenario"));
  EXPECT_THAT(LoadError("- a\n- b\n"), HasSubstr("s.yaml:1:1: expected a scenario mapping"));
  EXPECT_THAT(LoadError("name: x\nstep: []\n"), HasSubstr("s.yaml:2:1: unknown key \"step\""));
  EXPECT_THAT(LoadError("name: x\nname: y\n"), HasSubstr("duplicate key \"name\""));
  EXPECT_THAT(LoadError("config: {partitions: []}\nconfig_file: q.yaml\n"),
              HasSubstr("give either `config:` or `config_file:`, not both"));
  EXPECT_THAT(LoadError("steps: {a: 1}\n"), HasSubstr("s.yaml:1:8: steps: expected a list"));
}

TEST(ScenarioLoaderTest, InvalidConfigIsAnErrorWithItsLocation) {
  std::string error = LoadError(
      "config:\n"
      "  partitions:\n"
      "    - name: default\n"
      "      queues:\n"
      "        - name: root\n"
      "          queues:\n"
      "            - name: a\n"
      "              resources: {guaranteed: {memory: 500}, max: {memory: 100}}\n");
  EXPECT_THAT(error, AllOf(ContainsRegex("^s\\.yaml:[0-9]+:[0-9]+: "), HasSubstr("root.a")));
}

TEST(ScenarioLoaderTest, ConfigDecodeErrorsAreReported) {
  std::string error = LoadError(
      "config:\n"
      "  partitions:\n"
      "    - name: default\n"
      "      queues:\n"
      "        - name: root\n"
      "          maxapplicationz: 3\n");
  EXPECT_THAT(error, AllOf(StartsWith("s.yaml:6:"), HasSubstr("maxapplicationz")));
}

TEST(ScenarioLoaderTest, ConfigFileRelativeToTheScenario) {
  std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "scenario_cfg";
  std::filesystem::create_directories(dir / "sub");
  std::ofstream(dir / "sub" / "queues.yaml") << "partitions:\n"
                                                "  - name: default\n"
                                                "    queues:\n"
                                                "      - name: root\n"
                                                "        submitacl: '*'\n"
                                                "        queues:\n"
                                                "          - name: only\n";
  std::ofstream(dir / "s.yaml") << "config_file: sub/queues.yaml\nsteps: [schedule]\n";
  std::ofstream(dir / "missing.yaml") << "config_file: nope.yaml\n";
  absl::StatusOr<Scenario> scenario = LoadScenarioFile((dir / "s.yaml").string());
  ASSERT_TRUE(scenario.ok()) << Message(scenario.status());
  ASSERT_EQ(scenario->config.partitions.size(), 1u);
  EXPECT_EQ(scenario->config.partitions[0].queues[0].queues[0].name, "only");

  absl::StatusOr<Scenario> missing = LoadScenarioFile((dir / "missing.yaml").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(Message(missing.status()), HasSubstr("missing.yaml:1:14: config_file \"nope.yaml\""));
}

// config_file goes through the bounded reader: devices are refused by name, and "-" (stdin
// everywhere else) is refused, since the scenario itself may be what stdin holds.
TEST(ScenarioLoaderTest, ConfigFileThatIsADeviceOrStdin) {
  EXPECT_THAT(LoadError("config_file: /dev/zero\n"),
              HasSubstr("config_file \"/dev/zero\": /dev/zero: is a character device"));
  EXPECT_THAT(LoadError("config_file: '-'\n"), HasSubstr("'-' (stdin) cannot hold the config"));
}

TEST(ScenarioLoaderTest, UnreadableFile) {
  absl::StatusOr<Scenario> scenario = LoadScenarioFile("/nonexistent/s.yaml");
  ASSERT_FALSE(scenario.ok());
  EXPECT_EQ(scenario.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(Message(scenario.status()), StartsWith("/nonexistent/s.yaml: cannot read"));
}

TEST(ScenarioLoaderTest, EveryProblemIsReported) {
  std::string error = LoadError(ConfigAndNode() +
                                "steps:\n"
                                "  - add_ask: {app: a, id: x, resources: {memory: q}}\n"
                                "  - nope: {}\n"
                                "expect: {errors: -1}\n");
  EXPECT_EQ(std::count(error.begin(), error.end(), '\n'), 2) << error;
}

TEST(ScenarioLoaderTest, BareConfigOnlyWhenAllowed) {
  const std::string config = "partitions:\n  - name: default\n    queues:\n      - name: root\n";
  EXPECT_THAT(LoadError(config),
              HasSubstr("this is a queues.yaml (it has partitions:), not a scenario: validate it "
                        "with `allocore check`, or name it in a scenario's config_file:"));
  EXPECT_THAT(LoadError("apiVersion: v1\nkind: ConfigMap\ndata: {}\n"),
              HasSubstr("this is a Kubernetes object, not a scenario"));
  // A scenario that has steps keeps the usual message for a stray key.
  EXPECT_THAT(LoadError(config + "steps: []\n"), HasSubstr("unknown key \"partitions\""));
  absl::StatusOr<Scenario> scenario =
      LoadScenarioText(config, "q.yaml", {.allow_bare_config = true});
  ASSERT_TRUE(scenario.ok()) << Message(scenario.status());
  EXPECT_THAT(scenario->steps, IsEmpty());
  EXPECT_EQ(scenario->config.partitions.size(), 1u);
}

// --- loading: every step kind ---------------------------------------------------------------

TEST(ScenarioLoaderTest, EveryStepKind) {
  Scenario s = Load(ConfigAndNode() + R"(steps:
  - add_app: {id: app-1, queue: root.a, user: alice, groups: [dev, ops], tags: {k: v}}
  - add_ask: {app: app-1, id: ask-1, resources: {memory: 10, vcore: -1}, priority: -5, count: 2, partition: p}
  - schedule: {}
  - schedule: {max: 3, partition: p}
  - release: {app: app-1, ask: ask-1}
  - release: {app: app-1, ask: ask-1, node: node-1}
  - remove_ask: {app: app-1, id: ask-1}
  - remove_app: {id: app-1}
  - add_node: {id: node-2, resources: {memory: 500}, attributes: {zone: a}, schedulable: false}
  - update_node: {id: node-2, resources: {memory: 800}}
  - remove_node: {id: node-2, partition: p}
  - update_config: {config: {partitions: [{name: default, queues: [{name: root}]}]}}
  - advance: {seconds: 1.5}
  - schedule
)");
  ASSERT_EQ(s.steps.size(), 14u);
  std::vector<StepKind> kinds;
  for (const ScenarioStep& step : s.steps) kinds.push_back(step.kind());
  EXPECT_THAT(kinds, ElementsAre(StepKind::kAddApp, StepKind::kAddAsk, StepKind::kSchedule,
                                 StepKind::kSchedule, StepKind::kRelease, StepKind::kRelease,
                                 StepKind::kRemoveAsk, StepKind::kRemoveApp, StepKind::kAddNode,
                                 StepKind::kUpdateNode, StepKind::kRemoveNode,
                                 StepKind::kUpdateConfig, StepKind::kAdvance, StepKind::kSchedule));
  EXPECT_EQ(s.steps[0].location.line, 14);
  EXPECT_EQ(s.steps[0].location.column, 5);

  const auto& app = std::get<AppSpec>(s.steps[0].action);
  EXPECT_EQ(app.partition, "default");
  EXPECT_EQ(app.queue, "root.a");
  EXPECT_THAT(app.groups, ElementsAre("dev", "ops"));
  EXPECT_EQ(app.tags, (Tags{{"k", "v"}}));
  const auto& ask = std::get<AskSpec>(s.steps[1].action);
  EXPECT_EQ(ask.partition, "p");
  EXPECT_EQ(ask.resources, (Quantities{{"memory", 10}, {"vcore", -1}}));
  EXPECT_EQ(ask.priority, -5);
  EXPECT_EQ(ask.count, 2);
  EXPECT_EQ(std::get<ScheduleStep>(s.steps[2].action).partition, "");  // every partition
  EXPECT_EQ(std::get<ScheduleStep>(s.steps[2].action).max, 0);
  EXPECT_EQ(std::get<ScheduleStep>(s.steps[3].action).partition, "p");
  EXPECT_EQ(std::get<ScheduleStep>(s.steps[3].action).max, 3);
  EXPECT_EQ(std::get<ReleaseStep>(s.steps[4].action).node, "");
  EXPECT_EQ(std::get<ReleaseStep>(s.steps[5].action).node, "node-1");
  EXPECT_EQ(std::get<RemoveAskStep>(s.steps[6].action).ask, "ask-1");
  EXPECT_EQ(std::get<RemoveAppStep>(s.steps[7].action).id, "app-1");
  const auto& node = std::get<AddNodeStep>(s.steps[8].action);
  EXPECT_FALSE(node.node.schedulable);
  EXPECT_EQ(node.attributes, (Tags{{"zone", "a"}}));
  const auto& update = std::get<NodeUpdate>(s.steps[9].action);
  EXPECT_EQ(update.capacity, (Quantities{{"memory", 800}}));
  EXPECT_FALSE(update.schedulable.has_value());
  EXPECT_EQ(std::get<RemoveNodeStep>(s.steps[10].action).partition, "p");
  EXPECT_EQ(std::get<UpdateConfigStep>(s.steps[11].action).config.partitions.size(), 1u);
  EXPECT_EQ(std::get<AdvanceStep>(s.steps[12].action).millis, 1500);
  ASSERT_EQ(s.nodes.size(), 1u);
  EXPECT_EQ(s.nodes[0].node.capacity, (Quantities{{"memory", 100}, {"vcore", 10}}));
}

TEST(ScenarioLoaderTest, Expect) {
  Scenario s = Load(ConfigAndNode() + R"(expect:
  allocations:
    - {app: a, ask: x}
    - {node: n, queue: root.a, partition: p}
  rejected_apps: [r1, r2]
  errors: 3
)");
  ASSERT_TRUE(s.expect.has_value());
  ASSERT_EQ(s.expect->allocations->size(), 2u);
  EXPECT_EQ((*s.expect->allocations)[0].app, "a");
  EXPECT_FALSE((*s.expect->allocations)[0].node.has_value());
  EXPECT_EQ((*s.expect->allocations)[1].partition, "p");
  EXPECT_THAT(*s.expect->rejected_apps, ElementsAre("r1", "r2"));
  EXPECT_EQ(s.expect->errors, 3);
  EXPECT_FALSE(Load(ConfigAndNode()).expect.has_value());
}

// --- running --------------------------------------------------------------------------------

TEST(ScenarioRunnerTest, RefusedCallsBecomeErrorRecordsAndTheRunGoesOn) {
  Scenario s = Load(ConfigAndNode() + R"(  - id: node-1
    resources: {memory: 1}
steps:
  - add_ask: {app: ghost, id: x, resources: {memory: 1}}
  - add_app: {id: app-1, queue: root.a, user: u}
  - add_ask: {app: app-1, id: ask-1, resources: {memory: 10, vcore: 1}}
  - schedule: {}
)");
  std::string json = RunJson(s);
  EXPECT_THAT(json, HasSubstr("{\"type\":\"error\",\"step\":0,\"message\":\"add_node: "));
  EXPECT_THAT(json, HasSubstr("{\"type\":\"error\",\"step\":1,\"message\":\"add_ask: "));
  EXPECT_THAT(json, HasSubstr("{\"type\":\"allocation\",\"step\":4,\"seq\":1,\"partition\":"
                              "\"default\",\"queue\":\"root.a\",\"app\":\"app-1\",\"ask\":"
                              "\"ask-1\",\"node\":\"node-1\",\"priority\":0}\n"));
  absl::StatusOr<RunResult> run = RunScenario(s, {}, nullptr);
  ASSERT_TRUE(run.ok());
  ASSERT_EQ(run->errors.size(), 2u);
  EXPECT_EQ(run->errors[1].step, 1);
  EXPECT_THAT(run->errors[1].message, StartsWith("add_ask: "));
  EXPECT_THAT(run->errors[1].message, Not(StartsWith("add_ask: add_ask:")));
  EXPECT_EQ(run->allocations.size(), 1u);
  EXPECT_EQ(run->steps_run, 4);
}

// A probe step is a question: its answer is a `probe` record, nothing else changes, and a
// refused one is an error record like any refused call.
TEST(ScenarioRunnerTest, ProbeStepsAnswerWithAProbeRecordAndChangeNothing) {
  const std::string steps = R"(steps:
  - add_app: {id: app-1, queue: root.a, user: u}
  - probe: {app: app-1, resources: {memory: 60}}
  - add_ask: {app: app-1, id: x, resources: {memory: 60}}
  - schedule
  - probe: {app: app-1, id: y, resources: {memory: 60}}
  - probe: {app: app-1, resources: {gpu: 1}}
  - probe: {app: ghost, resources: {memory: 1}}
)";
  Scenario s = Load(ConfigAndNode() + steps);
  ASSERT_EQ(s.steps.size(), 7u);
  EXPECT_EQ(s.steps[1].kind(), StepKind::kProbe);
  EXPECT_EQ(std::get<ProbeStep>(s.steps[4].action).ask.id, "y");
  std::string json = RunJson(s);
  EXPECT_THAT(json, HasSubstr("{\"type\":\"probe\",\"step\":2,\"partition\":\"default\","
                              "\"queue\":\"root.a\",\"app\":\"app-1\",\"node\":\"node-1\"}\n"));
  EXPECT_THAT(json,
              HasSubstr("{\"type\":\"probe\",\"step\":5,\"partition\":\"default\","
                        "\"queue\":\"root.a\",\"app\":\"app-1\",\"ask\":\"y\","
                        "\"reason\":\"queue root headroom too small: lacks {memory: 20}\"}\n"));
  EXPECT_THAT(json, HasSubstr("\"reason\":\"no node has resource type gpu\"}\n"));
  EXPECT_THAT(json, HasSubstr("{\"type\":\"error\",\"step\":7,\"message\":\"probe: unknown "
                              "application ghost\"}\n"));
  // Without the probes, every other record is the same.
  Scenario plain = Load(ConfigAndNode() + steps);
  std::erase_if(plain.steps,
                [](const ScenarioStep& step) { return step.kind() == StepKind::kProbe; });
  std::string without = RunJson(plain);
  std::string kept;
  std::istringstream lines(json);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("\"type\":\"probe\"") != std::string::npos ||
        line.find("\"type\":\"error\"") != std::string::npos) {
      continue;
    }
    kept += line + "\n";
  }
  // Step numbers differ (the probes took steps); compare the records with their steps dropped.
  auto strip_steps = [](std::string text) {
    return std::regex_replace(text, std::regex("\"step\":[0-9]+,"), "");
  };
  EXPECT_EQ(strip_steps(kept), strip_steps(without));
  EXPECT_THAT(without, HasSubstr("allocation"));
}

TEST(ScenarioRunnerTest, EveryStepAdvancesTheClockByOneMillisecond) {
  Scenario s = Load(ConfigAndNode() + "steps: [schedule, schedule, {advance: {seconds: 2}}]\n");
  absl::StatusOr<RunResult> run = RunScenario(s, {}, nullptr);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->kernel->now_millis(), 3 + 2000);
  RunOptions options;
  options.last_step = 1;
  run = RunScenario(s, options, nullptr);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->kernel->now_millis(), 1);
  EXPECT_EQ(run->steps_run, 1);
  options.last_step = 0;
  run = RunScenario(s, options, nullptr);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->kernel->now_millis(), 0);
}

TEST(ScenarioRunnerTest, LatenciesOnePerAllocation) {
  Scenario s = Load(ConfigAndNode() + R"(steps:
  - add_app: {id: app-1, queue: root.a, user: u}
  - add_ask: {app: app-1, id: ask-1, resources: {memory: 10, vcore: 1}, count: 5}
  - schedule: {max: 4}
)");
  RunOptions options;
  options.collect_latencies = true;
  options.schedule_chunk = 1;
  absl::StatusOr<RunResult> run = RunScenario(s, options, nullptr);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->allocations.size(), 4u);
  EXPECT_EQ(run->allocation_latency_nanos.size(), 4u);
  EXPECT_GT(run->kernel_nanos, 0);
  // The split by step kind: every step counted once, under its kind; ticks under advance.
  auto at = [](const auto& by_kind, StepKind kind) { return by_kind[static_cast<size_t>(kind)]; };
  EXPECT_EQ(at(run->steps_by_kind, StepKind::kAddApp), 1);
  EXPECT_EQ(at(run->steps_by_kind, StepKind::kAddAsk), 1);
  EXPECT_EQ(at(run->steps_by_kind, StepKind::kSchedule), 1);
  EXPECT_EQ(at(run->steps_by_kind, StepKind::kAdvance), 0);
  int64_t split = 0;
  for (int64_t nanos : run->kernel_nanos_by_kind) split += nanos;
  EXPECT_GT(at(run->kernel_nanos_by_kind, StepKind::kSchedule), 0);
  EXPECT_GT(at(run->kernel_nanos_by_kind, StepKind::kAdvance), 0);
  EXPECT_LE(split, run->kernel_nanos);
}

// Two runs give byte-identical JSON lines, and driving `schedule` steps one allocation (or a
// few) per kernel call changes nothing.
TEST(ScenarioRunnerTest, DeterministicAndIndependentOfCallGranularity) {
  std::vector<std::filesystem::path> files = test_support::ConformanceScenarioFiles();
  ASSERT_FALSE(files.empty());
  size_t total_output = 0;  // some scenarios only admit applications and print nothing
  for (const std::filesystem::path& file : files) {
    SCOPED_TRACE(file.string());
    absl::StatusOr<Scenario> s = LoadScenarioFile(file.string());
    ASSERT_TRUE(s.ok()) << Message(s.status());
    std::string first = RunJson(*s);
    total_output += first.size();
    EXPECT_EQ(RunJson(*s), first);
    EXPECT_EQ(RunJson(*s, 1), first);
    EXPECT_EQ(RunJson(*s, 3), first);
  }
  EXPECT_GT(total_output, 0u);
}

TEST(ScenarioRunnerTest, SharedAndProjectScenariosMeetTheirExpectations) {
  for (const std::filesystem::path& file : test_support::ConformanceScenarioFiles()) {
    SCOPED_TRACE(file.string());
    absl::StatusOr<Scenario> s = LoadScenarioFile(file.string());
    ASSERT_TRUE(s.ok()) << Message(s.status());
    ASSERT_TRUE(s->expect.has_value());
    absl::StatusOr<RunResult> run = RunScenario(*s, {}, nullptr);
    ASSERT_TRUE(run.ok()) << Message(run.status());
    CheckResult check = CheckExpectations(*s->expect, *run);
    EXPECT_TRUE(check.ok) << check.diff;
    EXPECT_TRUE(run->kernel->CheckConsistency().ok());
  }
}

TEST(ScenarioRunnerTest, DefaultScenarioIsThePriorityTree) {
  absl::StatusOr<Scenario> builtin = LoadDefaultScenario();
  ASSERT_TRUE(builtin.ok()) << Message(builtin.status());
  EXPECT_EQ(builtin->name, "priority-tree");
  EXPECT_EQ(builtin->source_name, kDefaultScenarioSource);
  absl::StatusOr<Scenario> shared =
      LoadScenarioFile(ALLOCORE_SOURCE_DIR "/tests/scenarios/priority-tree.yaml");
  ASSERT_TRUE(shared.ok()) << Message(shared.status());
  EXPECT_EQ(RunJson(*builtin), RunJson(*shared));
}

// --- checking -------------------------------------------------------------------------------

class ScenarioCheckTest : public ::testing::Test {
 protected:
  void SetUp() override {
    scenario_ = Load(ConfigAndNode() + R"(steps:
  - add_app: {id: app-1, queue: root.a, user: u}
  - add_app: {id: app-2, queue: root.b, user: u}
  - add_ask: {app: app-1, id: x, resources: {memory: 10, vcore: 1}, priority: 5, count: 2}
  - add_ask: {app: app-2, id: y, resources: {memory: 10, vcore: 1}, priority: 1}
  - add_ask: {app: ghost, id: z, resources: {memory: 10, vcore: 1}}
  - schedule: {}
)");
    absl::StatusOr<RunResult> run = RunScenario(scenario_, {}, nullptr);
    ASSERT_TRUE(run.ok());
    run_ = *std::move(run);
    ASSERT_EQ(run_.allocations.size(), 3u);  // x, x, y
  }

  ScenarioExpect Expect(const std::string& yaml) { return *Load(ConfigAndNode() + yaml).expect; }

  Scenario scenario_;
  RunResult run_;
};

TEST_F(ScenarioCheckTest, MatchComparesOnlyTheKeysGiven) {
  CheckResult check = CheckExpectations(Expect(R"(expect:
  allocations:
    - {app: app-1, ask: x}
    - {app: app-1, node: node-1, queue: root.a}
    - {ask: y}
  rejected_apps: []
  errors: 1
)"),
                                        run_);
  EXPECT_TRUE(check.ok) << check.diff;
  EXPECT_THAT(check.diff, IsEmpty());
}

TEST_F(ScenarioCheckTest, MismatchDiffNamesTheFirstDivergence) {
  CheckResult check = CheckExpectations(Expect(R"(expect:
  allocations:
    - {app: app-1, ask: x}
    - {app: app-2, ask: y}
    - {app: app-1, ask: x}
)"),
                                        run_);
  EXPECT_FALSE(check.ok);
  EXPECT_EQ(check.diff,
            "allocations: expected 3, got 3; 2 of the first 3 differ\n"
            "  first divergence at #2\n"
            "    #1  ok        {app: app-1, ask: x, node: node-1, queue: root.a, partition: "
            "default}  (step 6, seq 1)\n"
            "  - #2  expected  {app: app-2, ask: y}\n"
            "  + #2  actual    {app: app-1, ask: x}  (step 6, seq 2)\n"
            "  - #3  expected  {app: app-1, ask: x}\n"
            "  + #3  actual    {app: app-2, ask: y}  (step 6, seq 3)\n");
}

TEST_F(ScenarioCheckTest, MissingAndExtraAllocations) {
  CheckResult check =
      CheckExpectations(Expect("expect:\n  allocations:\n    - {app: app-1}\n"), run_);
  EXPECT_FALSE(check.ok);
  EXPECT_THAT(check.diff, HasSubstr("allocations: expected 1, got 3\n"));
  EXPECT_THAT(check.diff, HasSubstr("  extra (made, not expected): 2\n"
                                    "  + #2  {app: app-1, ask: x, node: node-1, queue: root.a, "
                                    "partition: default}  (step 6, seq 2)\n"));
  check = CheckExpectations(Expect(R"(expect:
  allocations: [{app: app-1}, {app: app-1}, {app: app-2}, {app: app-3, ask: w}]
)"),
                            run_);
  EXPECT_THAT(check.diff, HasSubstr("  missing (expected, not made): 1\n"
                                    "  - #4  {app: app-3, ask: w}\n"));
}

TEST_F(ScenarioCheckTest, RejectedAppsAsASetAndErrorCount) {
  CheckResult check =
      CheckExpectations(Expect("expect:\n  rejected_apps: [app-9]\n  errors: 0\n"), run_);
  EXPECT_FALSE(check.ok);
  EXPECT_THAT(check.diff, HasSubstr("rejected_apps: expected [app-9], got []\n"
                                    "  - not rejected: app-9\n"));
  EXPECT_THAT(check.diff, HasSubstr("errors: expected 0, got 1\n"
                                    "  step 5: add_ask: "));
}

}  // namespace
}  // namespace allocore::adapters
