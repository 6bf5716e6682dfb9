// Recording through the C ABI (allocore_kernel_record_start/_check/_stop): a kernel driven by C
// calls, by name and by handle, records a log whose replay makes the decisions the C caller got.
// Written in C++ because the replay (the scenario runner) is C++; the calls are the C ABI's.
#include <cstdio>
#include <filesystem>
#include <string>

#include "adapters/recording_test_util.h"
#include "allocore/adapters/event_log.h"
#include "allocore/adapters/scenario.h"
#include "allocore/c.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/c_abi.h"
#include "support/files.h"

namespace allocore::adapters {
namespace {

namespace fs = std::filesystem;
using ::test_support::kTwoLeavesYaml;
using ::testing::HasSubstr;

// A decision as both sides can write it: type, app, ask, node, seq, release reason.
std::string Line(int type, std::string_view app, std::string_view ask, std::string_view node,
                 int64_t seq, std::string_view reason) {
  return std::to_string(type) + " " + std::string(app) + " " + std::string(ask) + " " +
         std::string(node) + " " + std::to_string(seq) + " " + std::string(reason) + "\n";
}

std::string CLines(const allocore_decisions_t* out) {
  std::string lines;
  for (size_t i = 0; i < allocore_decisions_count(out); ++i) {
    size_t app = 0;
    size_t ask = 0;
    size_t node = 0;
    const char* app_text = allocore_decision_app(out, i, &app);
    const char* ask_text = allocore_decision_ask(out, i, &ask);
    const char* node_text = allocore_decision_node(out, i, &node);
    const int type = allocore_decision_type(out, i);
    const bool released = type == ALLOCORE_RELEASE || type == ALLOCORE_ASK_REMOVED;
    const char* reason = released ? allocore_decision_release_reason(out, i) : "";
    lines += Line(type, std::string_view(app_text, app), std::string_view(ask_text, ask),
                  std::string_view(node_text, node), allocore_decision_seq(out, i),
                  reason == nullptr ? "" : reason);
  }
  return lines;
}

class ReplayLines : public RunObserver {
 public:
  void OnRecord(const Record& record, const Kernel&) override {
    if (record.decision == nullptr) return;
    const Decision& d = *record.decision;
    const bool released = d.type == DecisionType::kRelease || d.type == DecisionType::kAskRemoved;
    lines += Line(static_cast<int>(d.type), d.app, d.ask, d.node, d.seq,
                  released ? ReleaseReasonName(d.release_reason) : "");
  }
  std::string lines;
};

std::string Expect(char** err) {
  std::string message = *err == nullptr ? "" : *err;
  allocore_free(*err);
  *err = nullptr;
  return message;
}

TEST(CApiRecordingTest, ACKernelRecordsALogThatReplaysWithItsDecisions) {
  const std::string log = (fs::path(::testing::TempDir()) / "c_api_recording.alog").string();
  char* err = nullptr;
  allocore_options_t options = {0, 0, 100, nullptr};
  allocore_kernel_t* kernel = allocore_kernel_create(kTwoLeavesYaml.data(), kTwoLeavesYaml.size(),
                                                     "queues.yaml", &options, &err);
  ASSERT_EQ(Expect(&err), "");
  allocore_kernel_record_start(kernel, "/nonexistent-directory/c.alog", 0, &err);
  EXPECT_THAT(Expect(&err), HasSubstr("/nonexistent-directory/c.alog: cannot create"));
  allocore_kernel_record_start(kernel, log.c_str(), 0, &err);
  ASSERT_EQ(Expect(&err), "");
  allocore_kernel_record_start(kernel, log.c_str(), 0, &err);
  EXPECT_THAT(Expect(&err), HasSubstr("FAILED_PRECONDITION"));

  allocore_decisions_t* out = allocore_decisions_create();
  for (const char* id : {"n1", "n2"}) {
    allocore_node_t* node = allocore_node_create(id);
    allocore_node_add_capacity(node, "memory", 100);
    allocore_add_node(kernel, node, out, &err);
    allocore_node_destroy(node);
    ASSERT_EQ(Expect(&err), "");
  }
  allocore_app_t* app = allocore_app_create("app", "u");
  allocore_app_set_queue(app, "root.a");
  allocore_add_app(kernel, app, out, &err);
  allocore_app_destroy(app);
  ASSERT_EQ(Expect(&err), "");
  allocore_ask_t* ask = allocore_ask_create("app", "x");
  allocore_ask_add_resource(ask, "memory", 30);
  allocore_ask_set_count(ask, 3);
  allocore_add_ask(kernel, ask, out, &err);
  allocore_ask_destroy(ask);
  ASSERT_EQ(Expect(&err), "");
  EXPECT_EQ(allocore_schedule(kernel, 0, nullptr, out, &err), 3);
  ASSERT_EQ(Expect(&err), "");

  // By handle, and a refused call (not recorded).
  allocore_handle_t app_handle = allocore_find_app(kernel, nullptr, "app", &err);
  ASSERT_EQ(Expect(&err), "");
  const int memory = allocore_resource_type_id(kernel, "memory", &err);
  int64_t quantities[8] = {0};
  quantities[memory] = 50;
  allocore_handle_t y = allocore_add_ask_by_handle(kernel, app_handle, "y", quantities,
                                                   1u << memory, 1, 2, out, &err);
  ASSERT_EQ(Expect(&err), "");
  EXPECT_NE(y.slot, ALLOCORE_NO_HANDLE);
  allocore_handle_t x = allocore_find_ask(kernel, app_handle, "x", &err);
  ASSERT_EQ(Expect(&err), "");
  allocore_handle_t any_node = {0, 0, ALLOCORE_NO_HANDLE, 0};
  allocore_release_by_handle(kernel, x, any_node, out, &err);
  ASSERT_EQ(Expect(&err), "");
  allocore_remove_app(kernel, nullptr, "nobody", out, &err);
  EXPECT_THAT(Expect(&err), HasSubstr("NOT_FOUND"));
  allocore_advance(kernel, 500, out, &err);
  ASSERT_EQ(Expect(&err), "");
  allocore_schedule(kernel, 0, nullptr, out, &err);
  ASSERT_EQ(Expect(&err), "");
  allocore_remove_ask_by_handle(kernel, y, out, &err);
  ASSERT_EQ(Expect(&err), "");
  allocore_remove_app_by_handle(kernel, app_handle, out, &err);
  ASSERT_EQ(Expect(&err), "");
  const std::string live = CLines(out);
  allocore_kernel_record_check(kernel, &err);
  EXPECT_EQ(Expect(&err), "");
  allocore_kernel_record_stop(kernel, &err);
  ASSERT_EQ(Expect(&err), "");
  allocore_decisions_destroy(out);
  allocore_kernel_destroy(kernel);

  absl::StatusOr<EventLogContents> read = ReadEventLog(test_support::ReadFile(log), "c.alog");
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_TRUE(read->warnings.empty());
  EXPECT_EQ(read->scenario.steps.size(), 11u);
  EXPECT_EQ(read->scenario.budgets.max_live_allocations, 100);
  ReplayLines replay;
  ASSERT_TRUE(RunScenario(read->scenario, {}, &replay).ok());
  EXPECT_THAT(live, HasSubstr(" app y "));
  EXPECT_EQ(replay.lines, live);
  // The C recorder writes the decision digests, and the replay matches them.
  ASSERT_TRUE(read->scenario.decision_digests);
  absl::StatusOr<RunResult> checked = testing_util::CheckedReplay(read->scenario);
  ASSERT_TRUE(checked.ok()) << checked.status();
  EXPECT_FALSE(checked->digest_divergence);
  EXPECT_EQ(checked->digests_checked, 11);
}

TEST(CApiRecordingTest, RecordingStartsBeforeTheFirstChange) {
  char* err = nullptr;
  allocore_kernel_t* kernel = allocore_kernel_create(kTwoLeavesYaml.data(), kTwoLeavesYaml.size(),
                                                     "queues.yaml", nullptr, &err);
  ASSERT_EQ(Expect(&err), "");
  allocore_advance(kernel, 1, nullptr, &err);
  ASSERT_EQ(Expect(&err), "");
  const std::string log = (fs::path(::testing::TempDir()) / "c_api_late.alog").string();
  allocore_kernel_record_start(kernel, log.c_str(), 0, &err);
  EXPECT_THAT(Expect(&err), HasSubstr("FAILED_PRECONDITION: allocore_kernel_record_start: "
                                      "recording starts before the kernel's first change"));
  allocore_kernel_record_stop(kernel, &err);  // not recording: nothing to report
  EXPECT_EQ(Expect(&err), "");
  allocore_kernel_destroy(kernel);
}

}  // namespace
}  // namespace allocore::adapters
