// Hostile input through the allocore command: every row of the hostile-input table (devices,
// binary data, oversized texts, huge counts, names that made std::regex recurse or backtrack)
// ends with a clear message and a defined exit code. Peak memory is checked too (under 100 MiB)
// except in sanitizer builds, whose shadow memory and redzones make RSS meaningless.
#include <filesystem>
#include <string>
#include <string_view>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/command.h"
#include "support/scenarios.h"

namespace allocore {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

using test_support::CommandResult;

class HostileCliTest : public test_support::CommandTest {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fs::exists(test_support::AllocoreBinary()))
        << "the allocore command is built next to this test";
    CommandTest::SetUp();
  }

  // count.yaml: application a1 in root.a asks for `count` repeats of `resources` on one node of
  // 10^15 memory and 10^12 vcore, then a schedule.
  fs::path WriteHugeAsk(std::string_view resources, std::string_view count) {
    return Write("count.yaml", test_support::OpenRootConfig("[{name: a}]") + R"(nodes:
  - {id: n1, resources: {memory: 1000000000000000, vcore: 1000000000000}}
steps:
  - add_app: {id: a1, queue: root.a, user: u}
  - add_ask: {app: a1, id: k1, resources: )" +
                                   std::string(resources) + ", count: " + std::string(count) +
                                   "}\n  - schedule: {}\n");
  }

  static void ExpectSmall(const CommandResult& r) {
#ifndef ALLOCORE_SANITIZED
    EXPECT_LT(r.peak_rss_kib, 100 * 1024) << "peak RSS of the command";
#else
    (void)r;
#endif
  }
};

constexpr char kFilteredConfig[] = R"(config:
  partitions:
    - name: default
      placementrules:
        - name: fixed
          value: root.a
          filter: {type: allow, users: ["PATTERN"]}
        - name: fixed
          value: root.b
      queues:
        - name: root
          submitacl: "*"
          queues: [{name: a}, {name: b}]
nodes:
  - {id: n1, resources: {memory: 100}}
)";

std::string FilteredScenario(const std::string& pattern, size_t user_length) {
  std::string text = kFilteredConfig;
  text.replace(text.find("PATTERN"), 7, pattern);
  return text + "steps:\n  - add_app: {id: app-1, user: " + std::string(user_length, 'a') + "}\n";
}

// Row 1: a 60,000-character user against `^[a-z]+$` crashed std::regex (recursion per
// character). Now the name is over ApiLimits::kMaxNameBytes: an error record, exit 0.
TEST_F(HostileCliTest, LongUserNameAgainstAnchoredFilter) {
  fs::path scenario = Write("long-user.yaml", FilteredScenario("^[a-z]+$", 60000));
  CommandResult r = Sh("exec \"$ALLOCORE\" run '" + scenario.string() + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"type\":\"error\",\"step\":1"));
  EXPECT_THAT(r.out, HasSubstr("kMaxNameBytes"));
  ExpectSmall(r);
}

// Row 2: `.*x` against a 20,000-character name took 6 s of backtracking.
TEST_F(HostileCliTest, BacktrackingFilterAgainstLongName) {
  fs::path scenario = Write("backtrack.yaml", FilteredScenario(".*x", 20000));
  CommandResult r = Sh("exec \"$ALLOCORE\" run '" + scenario.string() + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("kMaxNameBytes"));
  // At the limit the filter is matched (linearly) and does not match: the second rule places.
  scenario = Write("backtrack-1024.yaml", FilteredScenario(".*x", 1024));
  r = Sh("exec \"$ALLOCORE\" run '" + scenario.string() + "' --format jsonl");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, Not(HasSubstr("\"type\":\"error\"")));
  EXPECT_THAT(r.out, Not(HasSubstr("app_rejected")));
  ExpectSmall(r);
}

// Row 3: `run /dev/urandom` read 4.4 GB in 20 s.
TEST_F(HostileCliTest, DevicesAreRefusedByName) {
  for (const char* command : {"run", "tree", "check"}) {
    for (const char* device : {"/dev/urandom", "/dev/zero"}) {
      CommandResult r = Sh(std::string("exec \"$ALLOCORE\" ") + command + " " + device);
      EXPECT_EQ(r.exit_code, 2) << command << " " << device;
      EXPECT_THAT(r.out + r.err, HasSubstr("is a character device, not a file")) << command;
      ExpectSmall(r);
    }
  }
}

// Row 4: `run - < /dev/zero` aborted without a message.
TEST_F(HostileCliTest, DeviceOnStdinIsRefused) {
  CommandResult r = Sh("exec \"$ALLOCORE\" run - </dev/zero");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("<stdin>: is a character device"));
  ExpectSmall(r);
}

TEST_F(HostileCliTest, BinaryDataThroughAPipeStopsAtTheFirstNul) {
  CommandResult r = Sh("head -c 50000000 /dev/zero | \"$ALLOCORE\" run -");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("<stdin>:1:1: a NUL byte (byte 1)"));
  ExpectSmall(r);
}

// A NUL byte inside a file is reported where it is, FILE:LINE:COL, as every other problem.
TEST_F(HostileCliTest, NulByteIsReportedWithLineAndColumn) {
  const std::string text("partitions:\n  - name: default\n    que\0ues: []\n", 46);
  const std::string file = Write("nul.yaml", text).string();
  CommandResult run = Sh("\"$ALLOCORE\" run '" + file + "'");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("nul.yaml:3:8: NUL byte"));
  CommandResult check = Sh("\"$ALLOCORE\" check '" + file + "'");
  EXPECT_EQ(check.exit_code, 2);
  EXPECT_THAT(check.out, HasSubstr("nul.yaml:3:8: a NUL byte (byte 38)"));
}

// Configs are read whole, up to 64 MiB; replays are streamed, and 80 MiB without a single YAML
// node (comment lines) stop at the stream's bound on what one node may take.
TEST_F(HostileCliTest, OversizedTextIsRefusedAtTheLimit) {
  CommandResult r = Sh("yes '# padding' | head -c 83886080 | \"$ALLOCORE\" check -");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.out + r.err,
              HasSubstr("<stdin>: larger than the limit of 67108864 bytes (64 MiB)"));
  r = Sh("yes '# padding' | head -c 83886080 | \"$ALLOCORE\" run -");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("<stdin>:1:1: more than 4194304 bytes without a YAML node"));
  ExpectSmall(r);
}

// A replay larger than anything the loader takes (75 MB: 75,000 steps of 1 KB, mostly comment)
// is streamed: the memory is what the kernel and one step hold, not the file.
TEST_F(HostileCliTest, LongReplayIsStreamedInBoundedMemory) {
  const std::string line = "  - advance: {seconds: 0.001}  # " + std::string(966, 'x');
  CommandResult r =
      Sh("{ printf 'nodes: [{id: n1, resources: {memory: 10}}]\\nsteps:\\n'; "
         "yes '" +
         line +
         "' | head -n 75000; "
         "printf '  - schedule: {}\\n'; } | \"$ALLOCORE\" run - --stats");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr(" in 75001 steps"));
  ExpectSmall(r);
}

TEST_F(HostileCliTest, DirectoriesAreRefusedByName) {
  CommandResult r = Sh("exec \"$ALLOCORE\" run '" + dir_.string() + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("is a directory, not a file"));
}

// Row 5: `count: 100000000` on a huge node took 24 GB before the OOM killer stopped it. The
// run's live allocation budget (default 500,000) stops the step with an error record.
TEST_F(HostileCliTest, HugeCountStopsAtTheAllocationBudget) {
  const fs::path scenario = WriteHugeAsk("{memory: 1, vcore: 1}", "100000000");
  CommandResult r = Sh("exec \"$ALLOCORE\" run '" + scenario.string() + "' --quiet");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("the live allocation budget (--max-allocations 500000) was full"));
  ExpectSmall(r);
  r = Sh("exec \"$ALLOCORE\" run '" + scenario.string() + "' --max-allocations 1000");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"seq\":1000,"));
  EXPECT_THAT(r.out, Not(HasSubstr("\"seq\":1001,")));
  EXPECT_THAT(r.out, HasSubstr("{\"type\":\"error\",\"step\":3,\"message\":\"schedule: the live "
                               "allocation budget is full (1000 live allocations, max 1000)"));
}

// Row 5, second half: `count: 9223372036854775807` never finished.
TEST_F(HostileCliTest, CountOverInt32IsAnErrorRecord) {
  const fs::path scenario = WriteHugeAsk("{memory: 1}", "9223372036854775807");
  CommandResult r = Sh("exec \"$ALLOCORE\" run '" + scenario.string() + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("add_ask: count of 9223372036854775807 is over the limit of "
                               "2147483647 (ApiLimits::kMaxAskCount)"));
  EXPECT_THAT(r.out, Not(HasSubstr("\"type\":\"allocation\"")));
  ExpectSmall(r);
}

TEST_F(HostileCliTest, MaxAllocationsOptionIsChecked) {
  CommandResult r = Sh("exec \"$ALLOCORE\" run --max-allocations -3");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--max-allocations needs a number >= 0"));
}

}  // namespace
}  // namespace allocore

namespace allocore {
namespace {

// `-` is stdin for every command that reads a file (check and tree used to refuse it).
TEST_F(HostileCliTest, DashReadsStdinEverywhere) {
  const std::string config =
      "printf 'partitions:\\n  - name: default\\n    queues:\\n      - name: root\\n"
      "        queues: [{name: a}]\\n'";
  CommandResult r = Sh(config + " | \"$ALLOCORE\" check -");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("<stdin>: valid, 1 partition"));
  r = Sh(config + " | \"$ALLOCORE\" tree -");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("└─ a"));
  r = Sh("printf 'partitions: [' | \"$ALLOCORE\" check -");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.out + r.err, HasSubstr("<stdin>:"));
}

}  // namespace
}  // namespace allocore
