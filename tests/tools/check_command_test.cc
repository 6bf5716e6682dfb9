// `allocore check` end to end: runs the built binary (next to this test in build/bin) on the
// config corpus. Skipped when the binary has not been built.
#include <filesystem>
#include <string>

#include "allocore/adapters/config_loader.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/command.h"

namespace allocore {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

namespace fs = std::filesystem;

const fs::path kConfigs = fs::path(ALLOCORE_SOURCE_DIR) / "tests" / "configs";

using test_support::CommandResult;

class CheckCommandTest : public test_support::CommandTest {
 protected:
  // `allocore check ARGS`, its stdout and stderr as one text in `out`.
  CommandResult Check(const std::string& args) {
    return Sh("\"$ALLOCORE\" check " + args + " 2>&1");
  }

  static std::string File(const std::string& relative) { return (kConfigs / relative).string(); }
};

TEST_F(CheckCommandTest, ValidFileSummary) {
  CommandResult run = Check(File("valid/seed002-blue-queue.yaml"));
  EXPECT_EQ(run.exit_code, 0) << run.out;
  EXPECT_THAT(run.out, HasSubstr("seed002-blue-queue.yaml: valid, 1 partition\n"));
  EXPECT_THAT(run.out, HasSubstr("partition default: 2 queues, node sort fair"));
  EXPECT_THAT(run.out, HasSubstr("\n    blue (leaf) sort=fifo priority.sort=enabled "
                                 "priority.policy=default priority.offset=0 "
                                 "preemption.policy=default preemption.delay=30000ms "
                                 "guaranteed={memory: 1} max={memory: 10} "
                                 "maxapplications=unlimited\n"));
}

TEST_F(CheckCommandTest, EffectivePropertiesAreInherited) {
  CommandResult run = Check(File("valid/seed000-priority-tree.yaml"));
  EXPECT_EQ(run.exit_code, 0) << run.out;
  // Children inherit the sort settings but never the priority policy or offset.
  EXPECT_THAT(run.out, HasSubstr("tenant-a (parent) sort=fair priority.sort=enabled "
                                 "priority.policy=fence priority.offset=10"));
  EXPECT_THAT(run.out, HasSubstr("child-a-1 (leaf) sort=fifo priority.sort=enabled "
                                 "priority.policy=default priority.offset=0"));
}

TEST_F(CheckCommandTest, PreemptionSettingsAsTheKernelReadsThem) {
  CommandResult run = Check(File("valid/preemption-properties.yaml"));
  EXPECT_EQ(run.exit_code, 0) << run.out;
  // fence stays where it is set; disabled passes down; the delay is inherited like any
  // property and read as a Go duration, unreadable ones as 30s.
  EXPECT_THAT(run.out, HasSubstr("tenants (parent) sort=fair priority.sort=enabled "
                                 "priority.policy=default priority.offset=0 "
                                 "preemption.policy=fence guaranteed"));
  EXPECT_THAT(run.out, HasSubstr(" a (leaf) sort=fifo priority.sort=enabled "
                                 "priority.policy=default priority.offset=0 "
                                 "preemption.policy=default preemption.delay=90000ms "));
  EXPECT_THAT(run.out, HasSubstr(" b (leaf) sort=fifo priority.sort=enabled "
                                 "priority.policy=default priority.offset=0 "
                                 "preemption.policy=default preemption.delay=500ms "));
  EXPECT_THAT(run.out, HasSubstr(" jobs (leaf) sort=fifo priority.sort=enabled "
                                 "priority.policy=default priority.offset=0 "
                                 "preemption.policy=disabled preemption.delay=30000ms "));
}

TEST_F(CheckCommandTest, InvalidFileListsEveryError) {
  std::string file = File("invalid/maxapplications-child.yaml");
  CommandResult run = Check(file);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.out,
            file +
                ":9:13: partition default, queue root.a.more: maxapplications 11 exceeds the "
                "parent's 10 (root.a): a child may allow at most as many running applications "
                "as its parent\n" +
                file +
                ":10:13: partition default, queue root.a.unlimited: maxapplications is unlimited "
                "(0) but the parent root.a allows at most 10: set maxapplications from 1 to 10\n");
}

TEST_F(CheckCommandTest, UnreadableFile) {
  CommandResult run = Check("/nonexistent/queues.yaml");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.out, "/nonexistent/queues.yaml: cannot read file: No such file or directory\n");
}

// The config of a one-file JSON verdict: its last member.
std::string ConfigMember(const std::string& json) {
  size_t start = json.find("\"config\": ");
  size_t end = json.rfind('}');
  if (start == std::string::npos || end == std::string::npos) return "";
  start += std::string_view("\"config\": ").size();
  return json.substr(start, end - start);
}

TEST_F(CheckCommandTest, JsonConfigLoadsBack) {
  std::string file = File("valid/seed003-child-template.yaml");
  CommandResult run = Check(file + " --format json");
  ASSERT_EQ(run.exit_code, 0) << run.out;
  EXPECT_THAT(run.out, StartsWith("{\"file\": \"" + file +
                                  "\", \"valid\": true, \"errors\": [], \"warnings\": [], "
                                  "\"semantics\": \"yunikorn-1.2\", \"profile_differences\": ["));
  EXPECT_THAT(run.out, HasSubstr("], \"config\": {"));
  adapters::ConfigLoadResult loaded = adapters::LoadConfigText(ConfigMember(run.out), "out.json");
  ASSERT_TRUE(loaded.config.has_value()) << run.out;
  adapters::ConfigLoadResult original = adapters::LoadConfigFile(file);
  EXPECT_EQ(adapters::ConfigToJson(*loaded.config), adapters::ConfigToJson(*original.config));
}

TEST_F(CheckCommandTest, JsonHasOneShapeWhateverTheVerdict) {
  CommandResult run = Check(File("invalid/maxapplications-child.yaml") + " --format=json");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.out, StartsWith("{\"file\": "));
  EXPECT_THAT(run.out, HasSubstr("\"valid\": false, \"errors\": [\n  {\"line\": 9, "
                                 "\"column\": 13, \"partition\": \"default\", \"queue\": "
                                 "\"root.a.more\", \"field\": \"maxapplications\", \"message\": "
                                 "\"maxapplications 11 exceeds the parent's 10"));
  EXPECT_THAT(run.out, HasSubstr("\"warnings\": [], \"semantics\": \"yunikorn-1.2\"}"));
  EXPECT_THAT(run.out, Not(HasSubstr("\"config\"")));
  // Warnings of a valid file are in the object, not on stderr.
  run = Check(File("valid/property-fallbacks.yaml") + " --format json");
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_THAT(run.out, HasSubstr("\"errors\": [], \"warnings\": [\n  {\"line\": 10, "));
  run = Check(File("valid/seed002-blue-queue.yaml") + " " +
              File("invalid/maxapplications-child.yaml") + " --format json");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.out, StartsWith("[\n  {\"file\": "));
  EXPECT_THAT(run.out, HasSubstr("\"valid\": true, \"errors\": [], \"warnings\": [], "
                                 "\"semantics\": \"yunikorn-1.2\", \"profile_differences\": "));
  EXPECT_THAT(run.out, HasSubstr("\"valid\": false, \"errors\": ["));
}

TEST_F(CheckCommandTest, Usage) {
  EXPECT_EQ(Check("--help").exit_code, 0);
  EXPECT_THAT(Check("--help").out, HasSubstr("usage: allocore check FILE..."));
  EXPECT_EQ(Check("").exit_code, 2);
  EXPECT_EQ(Check("--format xml x.yaml").exit_code, 2);
  EXPECT_EQ(Check("--frobnicate x.yaml").exit_code, 2);
}

TEST_F(CheckCommandTest, SilentFallbacksAreWarningsAndStrictFailsOnThem) {
  std::string file = File("valid/property-fallbacks.yaml");
  CommandResult run = Check(file);
  EXPECT_EQ(run.exit_code, 0) << run.out;
  EXPECT_THAT(run.out, HasSubstr(file + ":10:15: warning: partition default, queue root.a: "
                                        "unknown property 'application.sort.polcy' is ignored; "
                                        "did you mean 'application.sort.policy'?\n"));
  EXPECT_THAT(run.out, HasSubstr("valid, 1 partition"));

  CommandResult strict = Check("--strict " + file);
  EXPECT_EQ(strict.exit_code, 2) << strict.out;
  // A file without warnings passes --strict.
  EXPECT_EQ(Check("--strict " + File("valid/seed002-blue-queue.yaml")).exit_code, 0);
}

TEST_F(CheckCommandTest, QuietPrintsOnlyFindings) {
  std::string file = File("valid/property-fallbacks.yaml");
  CommandResult run = Check("--quiet " + file);
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_THAT(run.out, HasSubstr("warning: "));
  EXPECT_THAT(run.out, Not(HasSubstr("valid, 1 partition")));
  EXPECT_EQ(Check("--quiet " + File("valid/seed002-blue-queue.yaml")).out, "");
}

TEST_F(CheckCommandTest, QueueNameRuleSaysWhichReleaseItFollows) {
  CommandResult run = Check(File("invalid/queue-name-colon.yaml"));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.out, HasSubstr("YuniKorn v1.2.0's rule; the yunikorn-1.9 profile also accepts "
                                 "':', '#', '/' and '@'"));
  // The 1.9 profile takes the wider character set, and says the name is valid there only.
  CommandResult wide = Check("--semantics yunikorn-1.9 " + File("invalid/queue-name-colon.yaml"));
  EXPECT_EQ(wide.exit_code, 0) << wide.out;
  EXPECT_THAT(wide.out, HasSubstr("semantics yunikorn-1.9"));
  EXPECT_THAT(wide.out, HasSubstr("the name is valid under yunikorn-1.9 only"));
}

TEST_F(CheckCommandTest, SemanticsShowsTheProfileAndWhereTheProfilesDiffer) {
  const std::string file = File("valid/profiles-differ.yaml");
  CommandResult v12 = Check(file);
  EXPECT_EQ(v12.exit_code, 0) << v12.out;
  EXPECT_THAT(v12.out, HasSubstr("preemption unset (off)"));
  EXPECT_THAT(v12.out, HasSubstr("b (leaf) sort=stateaware"));
  EXPECT_THAT(v12.out, HasSubstr("warning: partition default: statedumpfilepath is deprecated"));
  EXPECT_THAT(v12.out, HasSubstr("usergroupresolver (type 'os') has no effect"));
  EXPECT_THAT(v12.out, HasSubstr("preemption.quotapreemptionenabled has no effect"));
  EXPECT_THAT(v12.out, HasSubstr("child b has no guarantee"));
  EXPECT_THAT(v12.out, HasSubstr("stateaware admits one Accepted application at a time"));
  // yunikorn-1.9 no longer knows statedumpfilepath: the same file is invalid there.
  CommandResult v19 = Check("--semantics yunikorn-1.9 " + file);
  EXPECT_EQ(v19.exit_code, 2) << v19.out;
  EXPECT_THAT(v19.out, HasSubstr("statedumpfilepath is not a key of YuniKorn 1.9"));
  EXPECT_EQ(Check("--semantics yunikorn-2.0 " + file).exit_code, 2);
}

TEST_F(CheckCommandTest, ConfigMapsAreReadWithTheirOwnLines) {
  std::string file = File("valid/configmap-yunikorn.yaml");
  CommandResult run = Check(file);
  EXPECT_EQ(run.exit_code, 0) << run.out;
  EXPECT_THAT(run.out, HasSubstr(file + ":21:15: warning: partition default, queue root: "
                                        "unknown property 'application.sort.polcy'"));
  EXPECT_THAT(run.out, HasSubstr("placement rules: tag value=namespace create"));
  std::string broken = File("invalid/configmap-error-location.yaml");
  CommandResult error = Check(broken);
  EXPECT_EQ(error.exit_code, 2);
  EXPECT_THAT(error.out, HasSubstr(broken + ":14:34: partition default, queue root.a: "
                                            "maxapplications must be an unsigned integer"));
}

}  // namespace
}  // namespace allocore
