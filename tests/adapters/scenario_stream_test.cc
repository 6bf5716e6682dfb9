// ScenarioStream against the loader: for every scenario we have (the conformance scenarios,
// generated workloads and the fuzz_scenario corpus of odd YAML), streaming gives what loading
// gives: the same refusal with the same message, or the same records.
#include "allocore/adapters/scenario_stream.h"

#include <algorithm>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "allocore/adapters/decision_format.h"
#include "allocore/adapters/scenario.h"
#include "allocore/adapters/workload_gen.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/files.h"

namespace allocore::adapters {
namespace {

namespace fs = std::filesystem;
using test_support::ReadFile;
using ::testing::HasSubstr;

class Lines : public RunObserver {
 public:
  void OnRecord(const Record& record, const Kernel&) override { AppendJsonLine(record, &text); }
  std::string text;
};

std::string View(const absl::Status& status) {
  return {status.message().data(), status.message().size()};
}

struct Outcome {
  bool streamed = false;
};

// Loads and streams `text`; expects the same verdict, and the same records when valid. With
// `libyaml_corners`, the stream may accept what yaml-cpp refuses (scenario_stream.h).
Outcome Compare(const std::string& text, const std::string& name, bool libyaml_corners = false) {
  Outcome outcome;
  absl::StatusOr<Scenario> loaded = LoadScenarioText(text, name);
  absl::StatusOr<std::unique_ptr<ScenarioStream>> stream =
      ScenarioStream::OpenText(text, name, /*stream_above_bytes=*/0);
  if (libyaml_corners && !loaded.ok() && stream.ok()) return outcome;
  EXPECT_EQ(loaded.ok(), stream.ok())
      << name << "\nloader: " << loaded.status() << "\nstream: " << stream.status();
  if (!loaded.ok() || !stream.ok()) {
    if (!loaded.ok() && !stream.ok()) {
      EXPECT_EQ(View(loaded.status()), View(stream.status())) << name;
    }
    return outcome;
  }
  outcome.streamed = (*stream)->streamed();
  EXPECT_EQ((*stream)->step_count(), static_cast<int64_t>(loaded->steps.size())) << name;
  EXPECT_EQ((*stream)->header().config_warnings, loaded->config_warnings) << name;
  EXPECT_EQ((*stream)->header().nodes.size(), loaded->nodes.size()) << name;
  EXPECT_EQ((*stream)->header().expect.has_value(), loaded->expect.has_value()) << name;
  RunOptions options;
  options.kernel_options.max_live_allocations = 10000;  // fuzz inputs ask for a lot
  Lines from_loader;
  absl::StatusOr<RunResult> a = RunScenario(*loaded, options, &from_loader);
  Lines from_stream;
  absl::StatusOr<RunResult> b = RunScenarioSteps((*stream)->header(), (*stream)->step_count(),
                                                 (*stream)->steps(), options, &from_stream);
  EXPECT_EQ(a.ok(), b.ok()) << name;
  EXPECT_EQ(from_loader.text, from_stream.text) << name;
  if (a.ok() && b.ok() && loaded->expect) {
    EXPECT_EQ(CheckExpectations(*loaded->expect, *a).ok,
              CheckExpectations(*(*stream)->header().expect, *b).ok)
        << name;
  }
  return outcome;
}

std::vector<fs::path> Files(const fs::path& dir) {
  std::vector<fs::path> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file()) out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(ScenarioStreamTest, ConformanceScenariosStreamWithTheSameRecords) {
  std::vector<fs::path> files = Files(ALLOCORE_SOURCE_DIR "/tests/scenarios");
  ASSERT_FALSE(files.empty()) << "tests/scenarios is missing";
  // The shared conformance suite too, when it is beside the checkout (CMake says whether).
  if (std::string_view(ALLOCORE_SHARED_SCENARIOS).size() > 0) {
    for (const fs::path& shared : Files(ALLOCORE_SHARED_SCENARIOS)) files.push_back(shared);
  }
  int streamed = 0;
  for (const fs::path& file : files) {
    if (file.extension() != ".yaml") continue;
    // config_file: paths resolve against the scenario's directory, as for a file.
    Outcome outcome = Compare(ReadFile(file), file.string());
    streamed += outcome.streamed ? 1 : 0;
  }
  EXPECT_GT(streamed, 30) << "the conformance scenarios have no aliases: they should stream";
}

TEST(ScenarioStreamTest, GeneratedWorkloadsStreamWithTheSameRecords) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    absl::StatusOr<std::string> text = GenerateRandomScenario({.seed = seed});
    ASSERT_TRUE(text.ok()) << text.status();
    EXPECT_TRUE(Compare(*text, "random-" + std::to_string(seed) + ".yaml").streamed);
  }
}

// The fuzz corpus holds every odd corner of YAML the scenario fuzzer found worth keeping:
// syntax errors, aliases, tags, flow and block styles, duplicate keys, bad values.
TEST(ScenarioStreamTest, FuzzCorpusGivesTheSameVerdictAndRecords) {
  std::vector<fs::path> files = Files(ALLOCORE_SOURCE_DIR "/fuzz/corpus/fuzz_scenario");
  ASSERT_GT(files.size(), 100u);
  for (const fs::path& file : files) {
    std::string text = ReadFile(file);
    if (text.find("config_file") != std::string::npos) continue;  // may name any file
    Compare(text, "fuzz-input.yaml", /*libyaml_corners=*/true);
  }
}

// A file longer than the read-ahead window (4 MiB of text), opened by path (the read ahead
// reopens it through /proc/self/fd) and in memory: every step arrives, in order, also when the
// steps are asked for a second time.
TEST(ScenarioStreamTest, ReadAheadDeliversEveryStepOfALongFileInOrder) {
  std::string text =
      "config:\n  partitions:\n    - name: default\n      queues:\n        - name: root\n"
      "          submitacl: \"*\"\n          queues: [{name: a}]\n"
      "nodes:\n  - {id: node-1, resources: {memory: 1000000000}}\nsteps:\n";
  constexpr int kApps = 70000;  // ~5.5 MiB
  for (int i = 0; i < kApps; ++i) {
    text += "  - add_app: {id: app-with-a-long-enough-name-" + std::to_string(i) +
            ", queue: root.a, user: u}\n";
  }
  ASSERT_GT(text.size(), size_t{5} << 20);
  const fs::path path = fs::temp_directory_path() / "allocore-read-ahead-test.yaml";
  test_support::WriteFile(path, text);
  for (bool by_path : {true, false}) {
    absl::StatusOr<std::unique_ptr<ScenarioStream>> stream =
        by_path ? ScenarioStream::Open(path.string(), /*stream_above_bytes=*/0)
                : ScenarioStream::OpenText(text, "long.yaml", /*stream_above_bytes=*/0);
    ASSERT_TRUE(stream.ok()) << stream.status();
    ASSERT_TRUE((*stream)->streamed());
    ASSERT_EQ((*stream)->step_count(), kApps);
    for (int round = 0; round < 2; ++round) {
      StepSource& steps = (*stream)->steps();
      int seen = 0;
      for (;;) {
        absl::StatusOr<const ScenarioStep*> step = steps.Next();
        ASSERT_TRUE(step.ok()) << step.status();
        if (*step == nullptr) break;
        const auto* app = std::get_if<AppSpec>(&(*step)->action);
        ASSERT_NE(app, nullptr);
        ASSERT_EQ(app->id, "app-with-a-long-enough-name-" + std::to_string(seen));
        ++seen;
      }
      EXPECT_EQ(seen, kApps) << (by_path ? "by path" : "in memory") << ", round " << round;
    }
  }
  fs::remove(path);
}

TEST(ScenarioStreamTest, AliasesAndSyntaxErrorsAreTheLoadersToReport) {
  const std::string with_alias =
      "nodes: [{id: n1, resources: &r {memory: 10}}, {id: n2, resources: *r}]\nsteps: []\n";
  Outcome outcome = Compare(with_alias, "alias.yaml");
  EXPECT_FALSE(outcome.streamed);
  absl::StatusOr<std::unique_ptr<ScenarioStream>> broken =
      ScenarioStream::OpenText("steps: [\n", "syntax.yaml", 0);
  ASSERT_FALSE(broken.ok());
  EXPECT_THAT(View(broken.status()), HasSubstr("syntax.yaml:2:1: "));
}

// fuzz_scenario: a corner of YAML that libyaml reads and yaml-cpp refuses. Small files are
// loaded (yaml-cpp decides); a streamed file is read as libyaml reads it.
TEST(ScenarioStreamTest, YamlCornersOnlyLibyamlReadsAreTheOneDifference) {
  const std::string text = "nodes: [{id: n1, resources: {memor?: 100}}]\nsteps: [schedule]\n";
  EXPECT_FALSE(LoadScenarioText(text, "corner.yaml").ok());
  EXPECT_FALSE(ScenarioStream::OpenText(text, "corner.yaml").ok());  // small: loaded
  absl::StatusOr<std::unique_ptr<ScenarioStream>> streamed =
      ScenarioStream::OpenText(text, "corner.yaml", /*stream_above_bytes=*/0);
  ASSERT_TRUE(streamed.ok()) << streamed.status();
  EXPECT_TRUE((*streamed)->streamed());
}

// fuzz_scenario: a lone carriage return inside a plain scalar. libyaml breaks the line there
// (YAML's rule), yaml-cpp keeps it in the value, so the two read different names. The stream
// leaves such a file to the loader; CRLF line ends stream as usual.
TEST(ScenarioStreamTest, LoneCarriageReturnIsTheLoadersToRead) {
  const std::string lone = "steps:\n  - add_app: {id: app\rnormal, queue: root.a, user: u}\n";
  Outcome outcome = Compare(lone, "cr.yaml");
  EXPECT_FALSE(outcome.streamed);
  const std::string crlf = "steps:\r\n  - add_app: {id: a, queue: root.a, user: u}\r\n";
  EXPECT_TRUE(Compare(crlf, "crlf.yaml").streamed);
}

}  // namespace
}  // namespace allocore::adapters
