// allocore/c_service.h (the threaded service from C, no callbacks) and allocore/c_scenario.h
// (run, pack, report as calls): producers on several threads, batches taken in order with their
// receipts, waits, snapshots, closing, recording whose log replays through allocore_run_file.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "allocore/c.h"
#include "allocore/c_scenario.h"
#include "allocore/c_service.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/c_abi.h"

namespace {

using Error = test_support::CError;
namespace fs = std::filesystem;
using ::testing::HasSubstr;

fs::path TempPath(const std::string& name) {
  return fs::temp_directory_path() /
         (name + "-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
          std::to_string(std::rand()));
}

allocore_service_t* NewService(const allocore_service_options_t* options) {
  Error err;
  allocore_service_t* service = allocore_service_create(test_support::kTwoLeavesYaml.data(),
                                                        test_support::kTwoLeavesYaml.size(),
                                                        "leaves.yaml", options, err.ptr());
  EXPECT_FALSE(err.set()) << err.text();
  return service;
}

// "type app ask node seq" per decision.
std::vector<std::string> Lines(const allocore_decisions_t* d) {
  std::vector<std::string> lines;
  for (size_t i = 0; i < allocore_decisions_count(d); ++i) {
    size_t a = 0, b = 0, c = 0;
    const char* app = allocore_decision_app(d, i, &a);
    const char* ask = allocore_decision_ask(d, i, &b);
    const char* node = allocore_decision_node(d, i, &c);
    lines.push_back(std::to_string(allocore_decision_type(d, i)) + " " + std::string(app, a) + " " +
                    std::string(ask, b) + " " + std::string(node, c) + " " +
                    std::to_string(allocore_decision_seq(d, i)));
  }
  return lines;
}

uint64_t SubmitNode(allocore_service_t* service, const std::string& id, int64_t memory) {
  Error err;
  allocore_node_t* node = allocore_node_create(id.c_str());
  allocore_node_add_capacity(node, "memory", memory);
  const uint64_t seq = allocore_service_add_node(service, node, err.ptr());
  allocore_node_destroy(node);
  EXPECT_FALSE(err.set()) << err.text();
  return seq;
}

uint64_t SubmitAppWithAsks(allocore_service_t* service, const std::string& app_id, int asks) {
  Error err;
  allocore_app_t* app = allocore_app_create(app_id.c_str(), "alice");
  allocore_app_set_queue(app, "root.a");
  uint64_t seq = allocore_service_add_app(service, app, err.ptr());
  allocore_app_destroy(app);
  for (int i = 0; i < asks; ++i) {
    allocore_ask_t* ask = allocore_ask_create(app_id.c_str(), ("ask-" + std::to_string(i)).c_str());
    allocore_ask_add_resource(ask, "memory", 1);
    seq = allocore_service_add_ask(service, ask, err.ptr());
    allocore_ask_destroy(ask);
  }
  EXPECT_FALSE(err.set()) << err.text();
  return seq;
}

TEST(CServiceTest, ProducersOnThreadsAndBatchesTakenInOrder) {
  const fs::path log = TempPath("c-service.alog");
  allocore_service_options_t options{};
  options.record_path = log.c_str();
  allocore_service_t* service = NewService(&options);
  SubmitNode(service, "node-1", 1000);
  std::vector<std::thread> producers;
  for (int p = 0; p < 4; ++p) {
    producers.emplace_back(
        [service, p] { SubmitAppWithAsks(service, "app-" + std::to_string(p), 25); });
  }
  for (std::thread& producer : producers) producer.join();
  allocore_service_close(service);

  // Every batch in order, contiguous sequence numbers, one receipt per event.
  uint64_t next_seq = 1;
  int64_t allocations = 0;
  std::vector<std::string> decisions;
  for (;;) {
    Error err;
    allocore_batch_t* batch = allocore_service_next_batch(service, 0, err.ptr());
    if (batch == nullptr) {
      EXPECT_EQ(err.code(), ALLOCORE_ERR_CANCELLED) << err.text();
      break;
    }
    EXPECT_EQ(allocore_batch_first_seq(batch), next_seq);
    EXPECT_EQ(allocore_batch_receipt_count(batch),
              allocore_batch_last_seq(batch) - allocore_batch_first_seq(batch) + 1);
    for (size_t i = 0; i < allocore_batch_receipt_count(batch); ++i) {
      allocore_receipt_t receipt;
      ASSERT_EQ(allocore_batch_receipt(batch, i, &receipt), 1);
      EXPECT_EQ(receipt.seq, next_seq + i);
      EXPECT_EQ(receipt.code, ALLOCORE_OK) << allocore_batch_receipt_message(batch, i);
    }
    next_seq = allocore_batch_last_seq(batch) + 1;
    allocations += allocore_batch_allocations(batch);
    for (std::string& line : Lines(allocore_batch_decisions(batch))) decisions.push_back(line);
    allocore_batch_destroy(batch);
  }
  EXPECT_EQ(next_seq, 1u + 1 + 4 * 26);
  EXPECT_EQ(allocations, 100);

  // Closed: submits are refused, nothing queued; waits and snapshots still answer.
  Error err;
  allocore_node_t* node = allocore_node_create("late");
  EXPECT_EQ(allocore_service_add_node(service, node, err.ptr()), 0u);
  allocore_node_destroy(node);
  EXPECT_EQ(err.code(), ALLOCORE_ERR_FAILED_PRECONDITION) << err.text();
  err.Reset();
  allocore_snapshot_t* snapshot =
      allocore_service_wait_applied(service, next_seq - 1, -1, err.ptr());
  ASSERT_NE(snapshot, nullptr) << err.text();
  int64_t apps = 0, asks = 0, live = 0;
  allocore_snapshot_usage(snapshot, &apps, &asks, &live);
  EXPECT_EQ(apps, 4);
  EXPECT_EQ(live, 100);
  allocore_snapshot_destroy(snapshot);
  allocore_service_destroy(service);

  // The recording replays to the same decisions, through allocore_run_file.
  allocore_run_t* run = allocore_run_file(log.c_str(), nullptr, err.ptr());
  ASSERT_NE(run, nullptr) << err.text();
  EXPECT_EQ(Lines(allocore_run_decisions(run)), decisions);
  EXPECT_EQ(allocore_run_error_count(run), 0u);
  allocore_run_destroy(run);
  fs::remove(log);
}

TEST(CServiceTest, WaitsSnapshotsLookupsAndTheirRefusals) {
  allocore_service_t* service = NewService(nullptr);
  Error err;
  // Nothing applied yet: a poll gives nothing, a timed wait runs out.
  EXPECT_EQ(allocore_service_next_batch(service, 0, err.ptr()), nullptr);
  EXPECT_FALSE(err.set());
  EXPECT_EQ(allocore_service_next_batch(service, 5, err.ptr()), nullptr);
  EXPECT_EQ(err.code(), ALLOCORE_ERR_DEADLINE_EXCEEDED) << err.text();
  err.Reset();
  EXPECT_EQ(allocore_service_wait_applied(service, 7, 5, err.ptr()), nullptr);
  EXPECT_EQ(err.code(), ALLOCORE_ERR_INVALID_ARGUMENT) << err.text();
  err.Reset();

  SubmitNode(service, "node-1", 10);
  const uint64_t last = SubmitAppWithAsks(service, "app-1", 3);
  allocore_snapshot_t* snapshot = allocore_service_wait_applied(service, last, -1, err.ptr());
  ASSERT_NE(snapshot, nullptr) << err.text();
  EXPECT_GE(allocore_snapshot_applied_seq(snapshot), last);
  EXPECT_STREQ(allocore_snapshot_app_state(snapshot, nullptr, "app-1", 5, err.ptr()), "Running");
  EXPECT_EQ(allocore_snapshot_app_state(snapshot, nullptr, "app-9", 5, err.ptr()), nullptr);
  EXPECT_EQ(err.code(), ALLOCORE_ERR_NOT_FOUND);
  err.Reset();
  allocore_queues_t* queues = allocore_snapshot_queues(snapshot, nullptr, err.ptr());
  ASSERT_NE(queues, nullptr) << err.text();
  allocore_snapshot_destroy(snapshot);  // the queues keep what they need
  bool found = false;
  for (size_t i = 0; i < allocore_queues_count(queues); ++i) {
    if (std::string(allocore_queue_path(queues, i)) == "root.a") {
      unsigned char present = 0;
      EXPECT_EQ(allocore_queue_allocated(queues, i, "memory", &present), 3);
      EXPECT_EQ(present, 1);
      found = true;
    }
  }
  EXPECT_TRUE(found);
  allocore_queues_destroy(queues);
  snapshot = allocore_service_snapshot(service);
  EXPECT_EQ(allocore_snapshot_queues(snapshot, "nope", err.ptr()), nullptr);
  allocore_snapshot_destroy(snapshot);
  EXPECT_EQ(err.code(), ALLOCORE_ERR_NOT_FOUND);
  err.Reset();

  allocore_handle_t app = allocore_service_find_app(service, nullptr, "app-1", 5, err.ptr());
  EXPECT_NE(app.slot, ALLOCORE_NO_HANDLE) << err.text();
  EXPECT_EQ(allocore_service_find_node(service, nullptr, "node-2", 6, err.ptr()).slot,
            ALLOCORE_NO_HANDLE);
  EXPECT_EQ(err.code(), ALLOCORE_ERR_NOT_FOUND);
  err.Reset();
  EXPECT_GE(allocore_service_resource_type_id(service, "memory", err.ptr()), 0) << err.text();
  EXPECT_NE(allocore_service_find_ask(service, app, "ask-2", 5, err.ptr()).slot, ALLOCORE_NO_HANDLE)
      << err.text();
  EXPECT_EQ(allocore_service_find_ask(service, app, "ask-9", 5, err.ptr()).slot,
            ALLOCORE_NO_HANDLE);
  EXPECT_EQ(err.code(), ALLOCORE_ERR_NOT_FOUND);
  err.Reset();
  snapshot = allocore_service_snapshot(service);
  bool memory_named = false;
  for (size_t t = 0; t < allocore_snapshot_resource_type_count(snapshot); ++t) {
    memory_named =
        memory_named || std::string(allocore_snapshot_resource_type_name(snapshot, t)) == "memory";
  }
  EXPECT_TRUE(memory_named);
  EXPECT_STREQ(allocore_snapshot_resource_type_name(snapshot, 99), "");
  allocore_snapshot_destroy(snapshot);

  // A pod found running after a restart: recovered through the service, counted in its queue.
  allocore_ask_t* running = allocore_ask_create("app-1", "was-running");
  allocore_ask_add_resource(running, "memory", 2);
  const uint64_t recovered =
      allocore_service_recover_allocation(service, running, "node-1", 6, err.ptr());
  allocore_ask_destroy(running);
  ASSERT_GT(recovered, 0u) << err.text();
  snapshot = allocore_service_wait_applied(service, recovered, -1, err.ptr());
  ASSERT_NE(snapshot, nullptr) << err.text();
  int64_t live = 0;
  allocore_snapshot_usage(snapshot, nullptr, nullptr, &live);
  EXPECT_EQ(live, 4);
  allocore_snapshot_destroy(snapshot);

  // A refused event is in its batch's receipts, not an error of the submit.
  const uint64_t refused = allocore_service_remove_app(service, nullptr, "ghost", 5, err.ptr());
  EXPECT_GT(refused, 0u);
  EXPECT_FALSE(err.set());
  allocore_batch_t* batch = nullptr;
  for (;;) {
    batch = allocore_service_next_batch(service, -1, err.ptr());
    ASSERT_NE(batch, nullptr) << err.text();
    if (allocore_batch_last_seq(batch) >= refused) break;
    allocore_batch_destroy(batch);
  }
  const size_t i = static_cast<size_t>(refused - allocore_batch_first_seq(batch));
  allocore_receipt_t receipt;
  ASSERT_EQ(allocore_batch_receipt(batch, i, &receipt), 1);
  EXPECT_EQ(receipt.code, ALLOCORE_ERR_NOT_FOUND);
  EXPECT_THAT(allocore_batch_receipt_message(batch, i), HasSubstr("ghost"));
  EXPECT_EQ(allocore_batch_receipt(batch, 99, &receipt), 0);
  allocore_batch_destroy(batch);
  allocore_service_destroy(service);
}

TEST(CServiceTest, OptionsAreChecked) {
  Error err;
  allocore_service_options_t options{};
  options.semantics = "yunikorn-0.1";
  EXPECT_EQ(
      allocore_service_create(test_support::kTwoLeavesYaml.data(),
                              test_support::kTwoLeavesYaml.size(), "q.yaml", &options, err.ptr()),
      nullptr);
  EXPECT_EQ(err.code(), ALLOCORE_ERR_INVALID_ARGUMENT);
  err.Reset();
  EXPECT_EQ(allocore_service_create("partitions: [", 13, "broken.yaml", nullptr, err.ptr()),
            nullptr);
  EXPECT_THAT(err.text(), HasSubstr("broken.yaml"));
  err.Reset();
  options = {};
  options.discard_batches = 1;
  options.max_queued = 1;
  allocore_service_t* service = NewService(&options);
  EXPECT_EQ(allocore_service_next_batch(service, 0, err.ptr()), nullptr);
  EXPECT_EQ(err.code(), ALLOCORE_ERR_FAILED_PRECONDITION);
  allocore_service_destroy(service);
}

// allocore_run_file decides as `allocore run`: the conformance scenario's expectations hold.
TEST(CScenarioTest, RunPackAndReportAFile) {
  const std::string scenario =
      std::string(ALLOCORE_SOURCE_DIR) + "/tests/scenarios/priority-tree.yaml";
  Error err;
  allocore_run_t* run = allocore_run_file(scenario.c_str(), nullptr, err.ptr());
  ASSERT_NE(run, nullptr) << err.text();
  const std::vector<std::string> decisions = Lines(allocore_run_decisions(run));
  EXPECT_GT(allocore_run_steps(run), 0);
  size_t allocations = 0;
  for (size_t i = 0; i < decisions.size(); ++i) {
    if (decisions[i][0] == '0') {
      ++allocations;
      EXPECT_GT(allocore_run_decision_step(run, i), 0);
    }
  }
  EXPECT_GT(allocations, 0u);
  allocore_kernel_t* kernel = allocore_run_take_kernel(run);
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(allocore_run_take_kernel(run), nullptr);
  EXPECT_GT(allocore_partition_count(kernel), 0u);
  allocore_kernel_destroy(kernel);
  allocore_run_destroy(run);

  // pack, then run the log: the same decisions.
  const fs::path log = TempPath("packed.alog");
  allocore_pack_file(scenario.c_str(), log.c_str(), nullptr, err.ptr());
  ASSERT_FALSE(err.set()) << err.text();
  run = allocore_run_file(log.c_str(), nullptr, err.ptr());
  ASSERT_NE(run, nullptr) << err.text();
  EXPECT_EQ(Lines(allocore_run_decisions(run)), decisions);
  allocore_run_destroy(run);
  fs::remove(log);

  size_t len = 0;
  char* json = allocore_report_json(scenario.c_str(), nullptr, &len, err.ptr());
  ASSERT_NE(json, nullptr) << err.text();
  EXPECT_EQ(std::strlen(json), len);
  EXPECT_EQ(json[0], '{');
  EXPECT_THAT(std::string(json), HasSubstr("\"queues\""));
  allocore_free(json);
}

TEST(CScenarioTest, RefusedStepsKeepTheirStepMessageAndCode) {
  const std::string scenario =
      std::string(ALLOCORE_SOURCE_DIR) + "/tests/scenarios/refused-calls.yaml";
  Error err;
  allocore_run_t* run = allocore_run_file(scenario.c_str(), nullptr, err.ptr());
  ASSERT_NE(run, nullptr) << err.text();
  ASSERT_GT(allocore_run_error_count(run), 0u);
  bool not_found = false;
  for (size_t i = 0; i < allocore_run_error_count(run); ++i) {
    EXPECT_GE(allocore_run_error_step(run, i), 0);  // 0: a node of the `nodes:` list
    EXPECT_NE(allocore_run_error_code(run, i), ALLOCORE_OK);
    EXPECT_NE(allocore_run_error_code(run, i), ALLOCORE_ERR_UNKNOWN)
        << allocore_run_error_message(run, i);
    not_found = not_found || allocore_run_error_code(run, i) == ALLOCORE_ERR_NOT_FOUND;
  }
  EXPECT_TRUE(not_found);
  EXPECT_EQ(allocore_run_error_code(run, 999999), ALLOCORE_OK);
  allocore_run_destroy(run);
}

TEST(CScenarioTest, BadInputsNameTheFileAndWriteNothing) {
  Error err;
  EXPECT_EQ(allocore_run_file("/nonexistent/x.yaml", nullptr, err.ptr()), nullptr);
  EXPECT_THAT(err.text(), HasSubstr("/nonexistent/x.yaml"));
  err.Reset();
  allocore_run_options_t options{};
  options.semantics = "yunikorn-7";
  const std::string scenario =
      std::string(ALLOCORE_SOURCE_DIR) + "/tests/scenarios/priority-tree.yaml";
  EXPECT_EQ(allocore_run_file(scenario.c_str(), &options, err.ptr()), nullptr);
  EXPECT_EQ(err.code(), ALLOCORE_ERR_INVALID_ARGUMENT);
  err.Reset();
  options = {};
  options.config_path = "/nonexistent/queues.yaml";
  EXPECT_EQ(allocore_report_json(scenario.c_str(), &options, nullptr, err.ptr()), nullptr);
  EXPECT_THAT(err.text(), HasSubstr("/nonexistent/queues.yaml"));
  err.Reset();
  const fs::path log = TempPath("never.alog");
  allocore_pack_file("/nonexistent/x.yaml", log.c_str(), nullptr, err.ptr());
  EXPECT_TRUE(err.set());
  EXPECT_FALSE(fs::exists(log));
}

}  // namespace
