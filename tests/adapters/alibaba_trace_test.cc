// The Alibaba GPU trace as a scenario: the real trace replays with every pod allocated and
// removed, copies scale linearly, and malformed rows are named by file and line.
#include "allocore/adapters/alibaba_trace.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "allocore/adapters/scenario.h"
#include "allocore/adapters/scenario_stream.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace allocore::adapters {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

const std::string kTrace = ALLOCORE_SOURCE_DIR "/data/alibaba-gpu-v2023";

absl::StatusOr<std::string> Write(const AlibabaTraceOptions& options,
                                  AlibabaTraceSummary* summary) {
  std::FILE* file = std::tmpfile();
  if (file == nullptr) return absl::InternalError("tmpfile");
  absl::StatusOr<AlibabaTraceSummary> written = WriteAlibabaScenario(options, file);
  std::string text;
  if (written.ok()) {
    *summary = *written;
    std::rewind(file);
    char buffer[1 << 16];
    size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof(buffer), file)) > 0) text.append(buffer, n);
  }
  std::fclose(file);
  if (!written.ok()) return written.status();
  return text;
}

TEST(AlibabaTraceTest, RealTraceReplaysEveryPod) {
  ASSERT_TRUE(fs::exists(kTrace + "/openb_pod_list_default.csv")) << kTrace << " is missing";
  AlibabaTraceSummary summary;
  absl::StatusOr<std::string> text = Write({.data_dir = kTrace}, &summary);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(summary.nodes, 1523);
  EXPECT_EQ(summary.pods, 8152);
  auto stream = ScenarioStream::OpenText(*text, "alibaba.yaml", 0);
  ASSERT_TRUE(stream.ok()) << stream.status();
  EXPECT_TRUE((*stream)->streamed());
  EXPECT_EQ((*stream)->step_count(), summary.steps);
  RunOptions options;
  options.keep_allocations = false;
  absl::StatusOr<RunResult> run = RunScenarioSteps((*stream)->header(), (*stream)->step_count(),
                                                   (*stream)->steps(), options, nullptr);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_TRUE(run->errors.empty()) << run->errors.front().message;
  // The cluster is large enough for every pod when it arrives (YuniKorn allocates all 8,152).
  EXPECT_EQ(run->allocation_count, 8152);
  EXPECT_TRUE(run->kernel->CheckConsistency().ok());
}

TEST(AlibabaTraceTest, ScaleCopiesNodesAndPods) {
  AlibabaTraceSummary one;
  AlibabaTraceSummary three;
  ASSERT_TRUE(Write({.data_dir = kTrace, .node_policy = "binpacking"}, &one).ok());
  absl::StatusOr<std::string> text =
      Write({.data_dir = kTrace, .scale = 3, .node_policy = "binpacking"}, &three);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(three.nodes, 3 * one.nodes);
  EXPECT_EQ(three.pods, 3 * one.pods);
  EXPECT_THAT(*text, HasSubstr("nodesortpolicy: {type: binpacking}"));
  EXPECT_THAT(*text, HasSubstr("- add_app: {id: openb-pod-0000-r3, queue: root.ls, user: u}"));
}

TEST(AlibabaTraceTest, MalformedRowsAndOptionsAreNamed) {
  fs::path dir = fs::temp_directory_path() / ("alibaba-bad-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "openb_node_list_all_node.csv")
      << "sn,cpu_milli,memory_mib,gpu,model\nnode-a,32000,262144,0,\n";
  std::ofstream(dir / "openb_pod_list_default.csv")
      << "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
         "deletion_time,scheduled_time\n"
      << "pod-a,1000,10,0,0,,LS,Running,5,9,5\n"
      << "pod-b,1000,10,0,0,,LS,Running,x,9,5\n";
  AlibabaTraceSummary summary;
  absl::StatusOr<std::string> text = Write({.data_dir = dir.string()}, &summary);
  ASSERT_FALSE(text.ok());
  EXPECT_THAT(std::string(text.status().message()),
              HasSubstr("openb_pod_list_default.csv:3: creation_time 'x' is not a whole number"));
  EXPECT_FALSE(Write({.data_dir = dir.string(), .scale = 0}, &summary).ok());
  EXPECT_FALSE(Write({.data_dir = dir.string(), .node_policy = "bogus"}, &summary).ok());
  EXPECT_EQ(Write({.data_dir = (dir / "nope").string()}, &summary).status().code(),
            absl::StatusCode::kNotFound);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace allocore::adapters
