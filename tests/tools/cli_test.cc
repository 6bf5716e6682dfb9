// The `allocore` command end to end: exit codes, where output goes, and the flags of run, tree
// and gen. Runs the binary that sits next to this test (build/bin/); skipped when it is absent
// (ALLOCORE_BUILD_TOOLS=OFF).
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "allocore/adapters/event_recorder.h"
#include "allocore/version.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/command.h"

namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

namespace fs = std::filesystem;

using allocore::test_support::CommandResult;
using allocore::test_support::ReadFile;

class CliTest : public allocore::test_support::CommandTest {
 protected:
  // Runs `allocore ARGS`, stdout and stderr captured to files (so neither is a terminal).
  CommandResult Run(const std::string& args) { return Sh("\"$ALLOCORE\" " + args); }
};

// The project's own copies of conformance scenarios (shared_copies_match keeps them equal to
// the shared suite's when it is beside the checkout).
const std::string kScenarios = ALLOCORE_SOURCE_DIR "/tests/scenarios/";

TEST_F(CliTest, DefaultScenarioIsTheWalkthroughTable) {
  CommandResult r = Run("run");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("Effective queue priorities before scheduling"));
  EXPECT_THAT(r.out, HasSubstr("system-high: 1001 -> n/a"));
  EXPECT_THAT(r.out, HasSubstr("The order matches the seed's walk-through."));
  CommandResult jsonl = Run("run --format jsonl");
  EXPECT_EQ(jsonl.exit_code, 0);
  EXPECT_THAT(jsonl.out, StartsWith("{\"type\":"));
}

TEST_F(CliTest, JsonlIsTheDefaultWhenStdoutIsNotATerminal) {
  CommandResult r = Run("run " + kScenarios + "priority-tree.yaml");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("{\"type\":\"app_state\",\"step\":8,"));
  EXPECT_THAT(r.out, HasSubstr("{\"type\":\"allocation\",\"step\":19,\"seq\":1,\"partition\":"
                               "\"default\",\"queue\":\"root.system.system-high\",\"app\":"
                               "\"app-high\",\"ask\":\"high-p1\",\"node\":\"node-1\","
                               "\"priority\":1}\n"));
  EXPECT_EQ(Run("run " + kScenarios + "priority-tree.yaml").out, r.out);  // byte-identical
  EXPECT_EQ(Run("run " + kScenarios + "priority-tree.yaml --stats").out, r.out);
}

TEST_F(CliTest, CheckQuietStatsAndExplain) {
  CommandResult r = Run("run " + kScenarios + "reservation.yaml --check --quiet --stats");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_THAT(r.err, HasSubstr("stats: "));
  EXPECT_THAT(r.err, HasSubstr("latency      per allocation"));
  EXPECT_THAT(r.err, HasSubstr("time split   parse "));
  EXPECT_THAT(r.err, HasSubstr("kernel time  by step kind"));
  EXPECT_THAT(r.err, ContainsRegex("\n    schedule +[0-9.]+ [mun]?s +[0-9.]+%  [0-9]+ steps?, "));

  fs::path pending = Write("pending.yaml", R"(nodes: [{id: n, resources: {memory: 10}}]
steps:
  - add_app: {id: app-1, user: u, tags: {namespace: ns}}
  - add_ask: {app: app-1, id: big, resources: {memory: 50}}
  - schedule: {}
)");
  r = Run("run " + pending.string() + " --explain --quiet");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("{\"type\":\"pending\",\"partition\":\"default\",\"queue\":"
                                "\"root.ns\",\"app\":\"app-1\",\"ask\":\"big\",\"count\":1,"));
  r = Run("run " + pending.string() + " --explain --format table");
  EXPECT_THAT(r.out, HasSubstr("Still pending:"));
}

TEST_F(CliTest, MismatchIsExitOneWithADiff) {
  std::string text = ReadFile(kScenarios + "priority-offset-siblings.yaml");
  size_t at = text.find("- {app: app-hi, ask: hi-p1");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, std::string("- {app: app-hi, ask: hi-p1").size(),
               "- {app: app-lo, ask: lo-p200");
  CommandResult r = Run("run " + Write("mismatch.yaml", text).string() + " --check --quiet");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("first divergence at #1"));
  EXPECT_THAT(r.err, HasSubstr("expected  {app: app-lo, ask: lo-p200"));
}

TEST_F(CliTest, UnusableInputIsExitTwo) {
  CommandResult r = Run("run " + Write("syntax.yaml", "steps: [\n").string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("syntax.yaml:2:1: "));
  r = Run("run " + Write("kind.yaml", "steps:\n  - schedule: {}\n  - launch: {}\n").string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("kind.yaml:3:5: step 2: unknown step kind \"launch\""));
  r = Run(
      "run " +
      Write("value.yaml", "steps:\n  - add_ask: {app: a, id: b, resources: {m: 1k}}\n").string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err,
              HasSubstr("value.yaml:2:45: step 1 (add_ask): resources.m: expected an integer"));
  r = Run("run " + Write("config.yaml", R"(config:
  partitions:
    - name: default
      queues:
        - name: root
          queues:
            - name: a
              resources: {guaranteed: {memory: 5}, max: {memory: 1}}
)")
                       .string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("config.yaml:"));
  EXPECT_EQ(Run("run " + (dir_ / "missing.yaml").string()).exit_code, 2);
  EXPECT_EQ(Run("run --format xml").exit_code, 2);
  EXPECT_EQ(Run("run a.yaml b.yaml").exit_code, 2);
  EXPECT_EQ(Run("run --help").exit_code, 0);
}

TEST_F(CliTest, RefusedEventsAreRecordsNotExits) {
  CommandResult r = Run("run " + Write("refused.yaml",
                                       "steps:\n  - add_ask: {app: ghost, id: x, "
                                       "resources: {memory: 1}}\n  - schedule: {}\n")
                                     .string());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("{\"type\":\"error\",\"step\":1,\"message\":\"add_ask: "));
}

TEST_F(CliTest, TreeTextDotAndSteps) {
  CommandResult r = Run("tree " + kScenarios + "priority-tree.yaml --at-step 18");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("partition default, after step 18 of 19"));
  EXPECT_THAT(r.out, HasSubstr("│  ├─ system-high        1001   +1000"));
  r = Run("tree " + kScenarios + "priority-tree.yaml --format dot");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.out, StartsWith("digraph queues {"));
  EXPECT_EQ(Run("tree " + kScenarios + "priority-tree.yaml --at-step 99").exit_code, 2);
  fs::path config = Write("queues.yaml",
                          "partitions:\n  - name: default\n    queues:\n"
                          "      - name: root\n        queues: [{name: a}]\n");
  r = Run("tree " + config.string());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("└─ a"));
}

TEST_F(CliTest, GenWritesScenariosThatRun) {
  fs::path shape = dir_ / "shape.yaml";
  CommandResult r = Run("gen yunikorn-shape --nodes 10 --pods 200 -o " + shape.string());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = Run("run " + shape.string() + " --check --stats --quiet");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("(200 allocations,"));
  CommandResult a = Run("gen random --seed 11 --steps 80");
  CommandResult b = Run("gen random --seed 11 --steps 80");
  EXPECT_EQ(a.exit_code, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
  r = Run("run " + Write("random.yaml", a.out).string() + " --quiet");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Run("gen yunikorn-shape --nodes 0 --pods 5").exit_code, 2);
  EXPECT_EQ(Run("gen random").exit_code, 2);
  EXPECT_EQ(Run("gen nonsense").exit_code, 2);
}

TEST_F(CliTest, VersionIsTheProjectVersion) {
  for (const char* args : {"--version", "version"}) {
    CommandResult r = Run(args);
    EXPECT_EQ(r.exit_code, 0) << args;
    EXPECT_EQ(r.out, std::string("allocore ") + ALLOCORE_VERSION_STRING + "\n") << args;
    EXPECT_EQ(r.err, "") << args;
  }
  EXPECT_STREQ(allocore_version(), ALLOCORE_VERSION_STRING);
}

TEST_F(CliTest, OutputThatCannotBeWrittenFails) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full on this system";
  const std::string config =
      std::string(ALLOCORE_SOURCE_DIR) + "/tests/configs/valid/seed002-blue-queue.yaml";
  for (const std::string& args :
       {"check " + config, "tree " + config, std::string("--help"), std::string("--version"),
        std::string("run --format jsonl"), std::string("gen yunikorn-shape --nodes 2 --pods 4")}) {
    CommandResult r = Run(args + " >/dev/full");
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_THAT(r.err, HasSubstr("error writing the output")) << args;
  }
}

TEST_F(CliTest, TablesEscapeControlCharactersAndCountInWords) {
  // A node and an application whose names hold ESC and BEL: a terminal must not receive them.
  fs::path scenario = Write("escape.yaml", R"(nodes: [{id: "n\e[2J", resources: {memory: 10}}]
steps:
  - add_app: {id: "app\a1", user: u, tags: {namespace: ns}}
  - add_ask: {app: "app\a1", id: k, resources: {memory: 5}}
  - schedule: {}
)");
  CommandResult r = Run("run " + scenario.string() + " --format table");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos);
  EXPECT_EQ(r.out.find('\a'), std::string::npos);
  EXPECT_THAT(r.out, HasSubstr("n\\x1b[2J"));
  EXPECT_THAT(r.out, HasSubstr("app\\x071"));
  EXPECT_THAT(r.out, HasSubstr(": 3 steps, 1 node\n"));
  EXPECT_THAT(r.out, HasSubstr("\n1 allocation, 0 errors, "));

  r = Run("run " + scenario.string() + " --quiet --stats");
  EXPECT_THAT(r.err, HasSubstr("(1 allocation, 0 releases, "));
}

TEST_F(CliTest, OneOptionParserForEveryCommand) {
  // --x=y and --x y alike.
  CommandResult a = Run("gen yunikorn-shape --nodes=2 --pods=4");
  CommandResult b = Run("gen yunikorn-shape --nodes 2 --pods 4");
  EXPECT_EQ(a.exit_code, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
  const std::string config =
      std::string(ALLOCORE_SOURCE_DIR) + "/tests/configs/valid/seed002-blue-queue.yaml";
  EXPECT_EQ(Run("check --format=json " + config).out, Run("check --format json " + config).out);
  EXPECT_EQ(Run("tree --format=dot " + config).out, Run("tree --format dot " + config).out);
  // Unknown options, missing values and stray arguments: exit 2 with the command's name.
  for (const std::string& args :
       {std::string("run --bogus"), std::string("check --bogus " + config),
        std::string("tree --bogus " + config), std::string("gen random --seed 1 --bogus 3")}) {
    CommandResult r = Run(args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_THAT(r.err, HasSubstr("unknown option '--bogus'")) << args;
  }
  CommandResult missing = Run("run --format");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_THAT(missing.err, HasSubstr("allocore run: --format needs a value"));
  CommandResult stray = Run("tree " + config + " " + config);
  EXPECT_EQ(stray.exit_code, 2);
  EXPECT_THAT(stray.err, HasSubstr("unexpected argument"));
  // `--` ends the options: what follows is a file name, even when it starts with a dash.
  CommandResult dashed = Run("check -- --not-an-option.yaml");
  EXPECT_EQ(dashed.exit_code, 2);
  EXPECT_THAT(dashed.out + dashed.err, HasSubstr("--not-an-option.yaml"));
  EXPECT_THAT(dashed.err, ::testing::Not(HasSubstr("unknown option")));
}

}  // namespace

namespace {

// allocore pack / run LOG / unpack: the log replays with the scenario's records, --check works
// on it, unpack gives a scenario that replays the same, and a damaged log is refused by offset.
TEST_F(CliTest, PackRunAndUnpackAnEventLog) {
  const std::string scenario = kScenarios + "every-v3-step-kind.yaml";
  const std::string log = (dir_ / "s.alog").string();
  CommandResult packed = Run("pack " + scenario + " -o " + log);
  ASSERT_EQ(packed.exit_code, 0) << packed.err;
  EXPECT_EQ(packed.out, "");
  CommandResult from_yaml = Run("run " + scenario + " --check");
  CommandResult from_log = Run("run " + log + " --check");
  EXPECT_EQ(from_yaml.exit_code, 0) << from_yaml.err;
  EXPECT_EQ(from_log.exit_code, 0) << from_log.err;
  EXPECT_EQ(from_log.out, from_yaml.out);

  CommandResult unpacked = Run("unpack " + log);
  ASSERT_EQ(unpacked.exit_code, 0) << unpacked.err;
  EXPECT_THAT(unpacked.out, HasSubstr("steps:\n  - "));
  CommandResult from_unpacked = Run("run " + Write("u.yaml", unpacked.out).string() + " --check");
  EXPECT_EQ(from_unpacked.exit_code, 0) << from_unpacked.err;
  EXPECT_EQ(from_unpacked.out, from_yaml.out);

  // One flipped byte inside a record (the end record's count, the log's last byte): refused,
  // naming the log and the record's offset. (A flipped length field would make the log look
  // cut short instead: event_log_test covers every byte.)
  std::string bytes = ReadFile(log);
  bytes.back() = static_cast<char>(bytes.back() ^ 0x01);
  CommandResult damaged = Run("run " + Write("damaged.alog", bytes).string());
  EXPECT_EQ(damaged.exit_code, 2);
  EXPECT_THAT(damaged.err, ContainsRegex("damaged.alog: offset [0-9]+: "));
  EXPECT_EQ(damaged.out, "");

  // Cut short: read up to the last whole record, with a warning.
  CommandResult cut =
      Run("run " + Write("cut.alog", ReadFile(log).substr(0, bytes.size() - 3)).string());
  EXPECT_EQ(cut.exit_code, 0) << cut.err;
  EXPECT_THAT(cut.err, HasSubstr("the last record is cut short"));

  EXPECT_EQ(Run("pack " + scenario).exit_code, 2);  // no -o
  EXPECT_EQ(Run("unpack").exit_code, 2);
  EXPECT_THAT(Run("pack --help").out, StartsWith("usage: allocore pack"));
  EXPECT_THAT(Run("unpack --help").out, StartsWith("usage: allocore unpack"));
}

// A snapshot taken after step N, continued with step N+1: the records from there on are the
// uninterrupted run's, byte for byte, whichever N.
TEST_F(CliTest, SnapshotAtAStepAndContinueFromIt) {
  const std::string scenario = kScenarios + "every-v3-step-kind.yaml";
  CommandResult whole = Run("run " + scenario + " --format jsonl");
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  std::vector<std::string> lines = absl::StrSplit(whole.out, '\n', absl::SkipEmpty());
  ASSERT_GT(lines.size(), 4u);
  for (int step : {0, 1, 2, 5, 9, 12, 13}) {
    const std::string file = (dir_ / ("after-" + std::to_string(step) + ".snap")).string();
    CommandResult taken =
        Run("run " + scenario + " --quiet --snapshot-at " + std::to_string(step) + "=" + file);
    ASSERT_EQ(taken.exit_code, 0) << taken.err;
    CommandResult resumed = Run("run " + scenario + " --format jsonl --from-snapshot " +
                                std::to_string(step) + "=" + file);
    ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
    std::string expected;
    for (const std::string& line : lines) {
      const size_t at = line.find("\"step\":");
      if (at != std::string::npos && std::stoi(line.substr(at + 7)) > step) expected += line + "\n";
    }
    EXPECT_EQ(resumed.out, expected) << "snapshot after step " << step;
  }

  CommandResult past = Run("run " + scenario + " --snapshot-at 99=" + (dir_ / "x.snap").string());
  EXPECT_EQ(past.exit_code, 2);
  EXPECT_THAT(past.err, HasSubstr("--snapshot-at 99: the scenario has 13 steps"));
  EXPECT_EQ(Run("run " + scenario + " --snapshot-at x.snap").exit_code, 2);  // no STEP=
  CommandResult checked = Run("run " + scenario + " --check --from-snapshot x.snap");
  EXPECT_EQ(checked.exit_code, 2);
  EXPECT_THAT(checked.err, HasSubstr("--check"));
  CommandResult not_one = Run("run " + scenario + " --from-snapshot 3=" + scenario);
  EXPECT_EQ(not_one.exit_code, 2);
  EXPECT_THAT(not_one.err, HasSubstr("snapshot: byte 0: not an allocore snapshot"));
  CommandResult missing =
      Run("run " + scenario + " --from-snapshot " + (dir_ / "none.snap").string());
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_THAT(missing.err, HasSubstr("none.snap: No such file"));
}

// A log recorded from a live kernel: `allocore run` replays it under the kernel's own budget
// (not the command's default) and without the per-step tick; unpack warns that YAML cannot say
// "no tick".
TEST_F(CliTest, RunReplaysARecordedLogUnderItsKernelsBudget) {
  const std::string log = (dir_ / "recorded.alog").string();
  {
    allocore::SchedulerConfig config;
    allocore::PartitionConfig partition;
    partition.name = "default";
    partition.queues_present = true;
    allocore::QueueConfig root;
    root.name = "root";
    root.submit_acl = "*";
    allocore::QueueConfig leaf;
    leaf.name = "a";
    root.queues.push_back(leaf);
    partition.queues.push_back(root);
    config.partitions.push_back(partition);
    auto kernel =
        allocore::adapters::RecordingKernel::Create(config, {.max_live_allocations = 2}, log);
    ASSERT_TRUE(kernel.ok()) << kernel.status();
    std::vector<allocore::Decision> out;
    ASSERT_TRUE(
        (*kernel)->Apply(allocore::NodeSpec{.id = "n", .capacity = {{"memory", 100}}}, &out).ok());
    ASSERT_TRUE(
        (*kernel)->Apply(allocore::AppSpec{.id = "a", .queue = "root.a", .user = "u"}, &out).ok());
    ASSERT_TRUE(
        (*kernel)
            ->Apply(
                allocore::AskSpec{.app = "a", .id = "x", .resources = {{"memory", 1}}, .count = 5},
                &out)
            .ok());
    ASSERT_EQ(*(*kernel)->Schedule(0, "", &out), 2);  // the budget stops it
    ASSERT_TRUE((*kernel)->Close().ok());
  }
  CommandResult replayed = Run("run " + log + " --format jsonl");
  EXPECT_EQ(replayed.exit_code, 0) << replayed.err;
  size_t allocations = 0;
  for (size_t at = 0; (at = replayed.out.find("\"type\":\"allocation\"", at)) != std::string::npos;
       ++at) {
    ++allocations;
  }
  EXPECT_EQ(allocations, 2u) << replayed.out;
  // --check proves the replay by the log's decision digests...
  CommandResult checked = Run("run " + log + " --check --quiet");
  EXPECT_EQ(checked.exit_code, 0) << checked.err;
  EXPECT_THAT(checked.err, HasSubstr("the replay decided as the recording: 4 steps replayed"));
  // ...and names the first step after which a replay decides otherwise: under a budget of 3,
  // the schedule (step 4: node, app, ask, schedule) allocates a third time.
  CommandResult diverged = Run("run " + log + " --check --quiet --max-allocations 3");
  EXPECT_EQ(diverged.exit_code, 1) << diverged.err;
  EXPECT_THAT(diverged.err, HasSubstr("the replay diverges from the recording at step 4 "
                                      "(schedule): the recording counts 5 decisions"));
  EXPECT_THAT(diverged.err, HasSubstr("the replay 6 decisions"));
  // Packed again under another profile, the log leaves its digests out (they would not hold).
  const std::string repacked = (dir_ / "repacked.alog").string();
  CommandResult pack = Run("pack " + log + " -o " + repacked + " --semantics yunikorn-1.9");
  EXPECT_EQ(pack.exit_code, 0) << pack.err;
  EXPECT_THAT(pack.err, HasSubstr("the recorded decision digests are left out"));
  // A log with neither expect: nor digests has nothing to check.
  CommandResult nothing = Run("run " + repacked + " --check --quiet");
  EXPECT_EQ(nothing.exit_code, 2);
  EXPECT_THAT(nothing.err, HasSubstr("no expect: block and no decision digests"));
  CommandResult unpacked = Run("unpack " + log);
  EXPECT_EQ(unpacked.exit_code, 0) << unpacked.err;
  EXPECT_THAT(unpacked.err, HasSubstr("warning: a recorded log"));
  EXPECT_THAT(unpacked.out, StartsWith("# recorded from a live kernel"));
}

// allocore report: the three outputs, a log replays to the same report as its scenario, and
// unusable arguments are exit 2 with a message naming what is wrong.
TEST_F(CliTest, ReportWritesEveryFormatAndRefusesBadArguments) {
  const std::string workload = ALLOCORE_SOURCE_DIR "/tests/tools/report_workload.yaml";
  CommandResult text = Run("report " + workload);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("pending time, submission to allocation"));
  EXPECT_THAT(text.out, HasSubstr("root.teams.a"));
  CommandResult json = Run("report " + workload + " --format json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_THAT(json.out, StartsWith("{\"report_version\":1,"));
  CommandResult html = Run("report " + workload + " --format html");
  ASSERT_EQ(html.exit_code, 0) << html.err;
  EXPECT_THAT(html.out, StartsWith("<!DOCTYPE html>"));
  EXPECT_THAT(html.out, HasSubstr("<svg"));

  const fs::path out = dir_ / "report-out";
  CommandResult files = Run("report " + workload + " -o " + out.string());
  ASSERT_EQ(files.exit_code, 0) << files.err;
  EXPECT_EQ(ReadFile(out / "report.txt"), text.out);
  EXPECT_EQ(ReadFile(out / "report.json"), json.out);
  EXPECT_EQ(ReadFile(out / "report.html"), html.out);

  // The same workload as an event log gives the same figures (the source name aside).
  const fs::path log = dir_ / "workload.alog";
  ASSERT_EQ(Run("pack " + workload + " -o " + log.string()).exit_code, 0);
  CommandResult from_log = Run("report " + log.string() + " --format json");
  ASSERT_EQ(from_log.exit_code, 0) << from_log.err;
  auto without_source = [](std::string s) {
    const size_t at = s.find("\"semantics\"");
    return at == std::string::npos ? s : s.substr(at);
  };
  EXPECT_EQ(without_source(from_log.out), without_source(json.out));

  CommandResult format = Run("report " + workload + " --format pdf");
  EXPECT_EQ(format.exit_code, 2);
  EXPECT_THAT(format.err, HasSubstr("unknown format 'pdf'"));
  CommandResult side = Run("report --compare scenario nodes=tight --trace " + workload);
  EXPECT_EQ(side.exit_code, 2);
  EXPECT_THAT(side.err, HasSubstr("nodes=tight"));
  CommandResult config =
      Run("report --compare " + Write("bad.yaml", "partitions: [{name: x}]\n").string() +
          " scenario --trace " + workload);
  EXPECT_EQ(config.exit_code, 2);
  EXPECT_THAT(config.err, HasSubstr("bad.yaml"));
  CommandResult onto_file = Run("report " + workload + " -o " + workload);
  EXPECT_EQ(onto_file.exit_code, 2);
  EXPECT_THAT(onto_file.err, HasSubstr("not a directory"));
  CommandResult waiters = Run("report " + workload + " --waiters -3");
  EXPECT_EQ(waiters.exit_code, 2);
  CommandResult missing = Run("report");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(Run("report --help").exit_code, 0);
}

// `allocore import` end to end on the real YuniKorn 1.2 dump: the summary, the scenario it
// writes and what running it says; bad input refused with its place and nothing written.
TEST_F(CliTest, ImportTurnsAStateDumpIntoARunnableScenario) {
  const std::string data = ALLOCORE_SOURCE_DIR "/tests/data/import/yunikorn/";
  const std::string dump = data + "a_fair_two_queues.json";
  const std::string config = data + "a_fair_two_queues.queues.yaml";
  const fs::path scenario = dir_ / "cluster.yaml";
  CommandResult imported =
      Run("import yunikorn " + dump + " --config " + config + " -o " + scenario.string());
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  EXPECT_THAT(imported.err, HasSubstr("yunikorn 1.2 state dump"));
  EXPECT_THAT(imported.err, HasSubstr("3 nodes, 3 applications, 12 pods running, 4 asks pending"));
  EXPECT_TRUE(imported.out.empty());
  CommandResult run = Run("run " + scenario.string() + " --explain --format jsonl");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::vector<std::string> recovered = absl::StrSplit(run.out, "\"type\":\"recovered\"");
  EXPECT_EQ(recovered.size(), 13u);  // 12 records split the text in 13
  EXPECT_THAT(run.out, Not(HasSubstr("\"type\":\"allocation\"")));  // the cluster is full
  EXPECT_THAT(run.out, HasSubstr("\"type\":\"pending\",\"partition\":\"default\",\"queue\":"
                                 "\"root.b\",\"app\":\"app-b1\",\"ask\":\"b1-task-5\""));

  // Malformed JSON: the file, line and column, exit 2, and the earlier output left alone.
  const fs::path bad = Write("bad.json", "{\"Applications\": [\n  {\"applicationID\": }\n]}");
  CommandResult refused =
      Run("import yunikorn " + bad.string() + " --config " + config + " -o " + scenario.string());
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_THAT(refused.err, HasSubstr(bad.string() + ":2:"));
  EXPECT_THAT(ReadFile(scenario), HasSubstr("recover_allocation"));
  const fs::path fresh = dir_ / "never.yaml";
  EXPECT_EQ(Run("import yunikorn " + bad.string() + " --config " + config + " -o " + fresh.string())
                .exit_code,
            2);
  EXPECT_FALSE(fs::exists(fresh));

  CommandResult no_config = Run("import yunikorn " + dump);
  EXPECT_EQ(no_config.exit_code, 2);
  EXPECT_THAT(no_config.err, HasSubstr("--config are required"));
  CommandResult unknown = Run("import mesos " + dump + " --config " + config);
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_THAT(unknown.err, HasSubstr("unknown source 'mesos'"));
  EXPECT_EQ(Run("import --help").exit_code, 0);
}

TEST_F(CliTest, ImportStrictRefusesWhatItWouldDrop) {
  const fs::path config =
      Write("q.yaml",
            "partitions: [{name: default, queues: [{name: root, submitacl: \"*\", "
            "queues: [{name: sandbox}]}]}]\n");
  const fs::path objects = Write("objects.json",
                                 R"({"apiVersion": "v1", "kind": "List", "items": [
  {"kind": "Node", "metadata": {"name": "n1"}, "status": {"allocatable": {"cpu": "2", "memory": "1Gi"}}},
  {"kind": "Pod", "metadata": {"name": "done", "namespace": "ns", "uid": "u1"},
   "spec": {"schedulerName": "yunikorn", "nodeName": "n1", "containers": []},
   "status": {"phase": "Succeeded"}}]})");
  CommandResult lenient =
      Run("import kubernetes " + objects.string() + " --config " + config.string());
  EXPECT_EQ(lenient.exit_code, 0) << lenient.err;
  EXPECT_THAT(lenient.err, HasSubstr("1 x pod phase Succeeded"));
  EXPECT_THAT(lenient.err, HasSubstr("(first: pod ns/done)"));
  CommandResult strict =
      Run("import kubernetes " + objects.string() + " --config " + config.string() + " --strict");
  EXPECT_EQ(strict.exit_code, 2);
  EXPECT_THAT(strict.err, HasSubstr("--strict"));
  EXPECT_TRUE(strict.out.empty());
}

// `allocore export` writes a scenario's state as a dump that `allocore import` reads back.
TEST_F(CliTest, ExportedStateImportsAgain) {
  const fs::path config =
      Write("q.yaml",
            "partitions: [{name: default, queues: [{name: root, submitacl: \"*\", "
            "queues: [{name: a}]}]}]\n");
  const fs::path scenario = Write("s.yaml", R"(config_file: q.yaml
nodes: [{id: n1, resources: {memory: 100}}]
steps:
  - add_app: {id: app-1, queue: root.a, user: alice}
  - add_ask: {app: app-1, id: k1, resources: {memory: 60}}
  - schedule: {}
  - add_ask: {app: app-1, id: k2, resources: {memory: 60}}
  - schedule: {}
)");
  const fs::path dump = dir_ / "dump.json";
  CommandResult exported =
      Run("export yunikorn " + scenario.string() + " --at-step 4 -o " + dump.string());
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  EXPECT_THAT(ReadFile(dump), HasSubstr("\"minAllocationPriority\""));
  CommandResult imported = Run("import yunikorn " + dump.string() + " --config " + config.string());
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  EXPECT_THAT(imported.out, HasSubstr("recover_allocation: {app: \"app-1\", id: \"k1\""));
  EXPECT_THAT(imported.out, HasSubstr("add_ask: {app: \"app-1\", id: \"k2\""));
  EXPECT_THAT(imported.err, HasSubstr("1 pod running, 1 ask pending"));
  CommandResult past = Run("export yunikorn " + scenario.string() + " --at-step 9");
  EXPECT_EQ(past.exit_code, 2);
  EXPECT_THAT(past.err, HasSubstr("step 9 is outside"));
  EXPECT_EQ(Run("export yunikorn").exit_code, 2);
  EXPECT_EQ(Run("export --help").exit_code, 0);
}

}  // namespace
