// tests/support/command.h — the allocore command end to end, as a shell user runs it: the binary
// built beside the test (build/bin), a directory of the test's own for its files, and the exit
// code, stdout, stderr and peak memory of each run.
//
// Example:
//   class MyCliTest : public test_support::CommandTest {};
//   TEST_F(MyCliTest, X) {
//     const std::filesystem::path config = Write("q.yaml", "partitions: [");
//     test_support::CommandResult r = Sh("\"$ALLOCORE\" check '" + config.string() + "'");
//     EXPECT_EQ(r.exit_code, 2);
//   }
#ifndef ALLOCORE_TESTS_SUPPORT_COMMAND_H_
#define ALLOCORE_TESTS_SUPPORT_COMMAND_H_

#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "gtest/gtest.h"
#include "support/files.h"

extern char** environ;

namespace allocore::test_support {

struct CommandResult {
  int exit_code = -1;  // 128 + N after signal N
  std::string out;
  std::string err;
  int64_t peak_rss_kib = 0;  // of the shell or the largest of the processes it waited for
};

// The allocore command built beside the running test.
inline std::filesystem::path AllocoreBinary() {
  return std::filesystem::read_symlink("/proc/self/exe").parent_path() / "allocore";
}

// A test of the command: skipped when the command was not built (ALLOCORE_BUILD_TOOLS=OFF).
class CommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    binary_ = AllocoreBinary();
    if (!std::filesystem::exists(binary_)) GTEST_SKIP() << "allocore is not built at " << binary_;
    const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string(test->test_suite_name()) + "-" + test->name();
    std::replace(name.begin(), name.end(), '/', '_');  // parameterized tests
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ("allocore-" + name + "-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  // Runs `sh -c SCRIPT` where $ALLOCORE names the command, stdin /dev/null; stdout and stderr
  // are captured around SCRIPT, so that a redirection inside it (2>&1, >/dev/full) holds.
  CommandResult Sh(const std::string& script) {
    const std::string out = (dir_ / "stdout").string();
    const std::string err = (dir_ / "stderr").string();
    const std::string command = "ALLOCORE='" + binary_.string() + "'; { " + script +
                                "\n} </dev/null >'" + out + "' 2>'" + err + "'";
    const char* argv[] = {"/bin/sh", "-c", command.c_str(), nullptr};
    CommandResult result;
    pid_t pid = 0;
    if (posix_spawn(&pid, "/bin/sh", nullptr, nullptr, const_cast<char**>(argv), environ) != 0) {
      ADD_FAILURE() << "cannot start /bin/sh";
      return result;
    }
    int status = 0;
    struct rusage usage {};
    if (wait4(pid, &status, 0, &usage) != pid) {
      ADD_FAILURE() << "wait4 failed";
      return result;
    }
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    result.peak_rss_kib = usage.ru_maxrss;
    result.out = ReadFile(out);
    result.err = ReadFile(err);
    return result;
  }

  // `name` in the test's directory, holding `text`.
  std::filesystem::path Write(const std::string& name, const std::string& text) {
    const std::filesystem::path path = dir_ / name;
    WriteFile(path, text);
    return path;
  }

  std::filesystem::path binary_;
  std::filesystem::path dir_;
};

}  // namespace allocore::test_support

#endif  // ALLOCORE_TESTS_SUPPORT_COMMAND_H_
