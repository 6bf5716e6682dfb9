// What liballocore_c.so gives foreign callers (Go through cgo, Python): decisions in bulk,
// (pointer, length) strings, creation times, messages that name a call once, the threaded
// service with no callbacks, and scenarios, logs and reports as calls. Written in C++ for
// gtest and threads; every call under test is the C ABI's.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
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
using ::testing::Not;
using ::testing::StartsWith;

allocore_kernel_t* NewKernel(const char* semantics = nullptr) {
  Error err;
  allocore_options_t options{};
  options.semantics = semantics;
  allocore_kernel_t* kernel =
      allocore_kernel_create(test_support::kTwoLeavesYaml.data(),
                             test_support::kTwoLeavesYaml.size(), "two.yaml", &options, err.ptr());
  EXPECT_FALSE(err.set()) << err.text();
  return kernel;
}

void AddNode(allocore_kernel_t* kernel, const char* id, int64_t memory) {
  Error err;
  allocore_node_t* node = allocore_node_create(id);
  allocore_node_add_capacity(node, "memory", memory);
  allocore_add_node(kernel, node, nullptr, err.ptr());
  allocore_node_destroy(node);
  ASSERT_FALSE(err.set()) << err.text();
}

void AddApp(allocore_kernel_t* kernel, const char* id, const char* queue) {
  Error err;
  allocore_app_t* app = allocore_app_create(id, "alice");
  allocore_app_set_queue(app, queue);
  allocore_add_app(kernel, app, nullptr, err.ptr());
  allocore_app_destroy(app);
  ASSERT_FALSE(err.set()) << err.text();
}

void AddAsk(allocore_kernel_t* kernel, const char* app, const char* id, int64_t memory,
            int64_t count, int64_t creation_millis = -1) {
  Error err;
  allocore_ask_t* ask = allocore_ask_create(app, id);
  allocore_ask_add_resource(ask, "memory", memory);
  allocore_ask_set_count(ask, count);
  if (creation_millis >= 0) allocore_ask_set_creation_time(ask, creation_millis);
  allocore_add_ask(kernel, ask, nullptr, err.ptr());
  allocore_ask_destroy(ask);
  ASSERT_FALSE(err.set()) << err.text();
}

// A name accessor's answer (the length is known only after the call).
using NameAccessor = const char* (*)(const allocore_decisions_t*, size_t, size_t*);
std::string Name(NameAccessor accessor, const allocore_decisions_t* d, size_t i) {
  size_t len = 0;
  const char* text = accessor(d, i, &len);
  return std::string(text, len);
}

// One decision as the per-call accessors read it.
std::string ByAccessors(const allocore_decisions_t* d, size_t i) {
  std::string line = std::to_string(allocore_decision_type(d, i));
  for (NameAccessor accessor :
       {allocore_decision_partition, allocore_decision_queue, allocore_decision_app,
        allocore_decision_ask, allocore_decision_node, allocore_decision_by_app}) {
    line += " " + Name(accessor, d, i);
  }
  line += " " + std::to_string(allocore_decision_seq(d, i));
  line += " " + std::to_string(allocore_decision_priority(d, i));
  line += " " + std::to_string(allocore_decision_count(d, i));
  const int type = allocore_decision_type(d, i);
  line += " ";
  if (type == ALLOCORE_RELEASE || type == ALLOCORE_ASK_REMOVED) {
    line += allocore_decision_release_reason(d, i);
  }
  if (type == ALLOCORE_APP_STATE) {
    line +=
        std::string(allocore_decision_from_state(d, i)) + ">" + allocore_decision_to_state(d, i);
  }
  line += " " + std::to_string(allocore_decision_app_handle(d, i).slot);
  return line;
}

// The same decision from an exported record.
std::string ByRecord(const allocore_decision_record_t& r, const char* names) {
  auto name = [&](allocore_span_t span) { return std::string(names + span.offset, span.len); };
  std::string line = std::to_string(r.type);
  line += " " + name(r.partition) + " " + name(r.queue) + " " + name(r.app) + " " + name(r.ask) +
          " " + name(r.node) + " " + name(r.by_app);
  line += " " + std::to_string(r.seq) + " " + std::to_string(r.priority) + " " +
          std::to_string(r.count) + " ";
  if (r.type == ALLOCORE_RELEASE || r.type == ALLOCORE_ASK_REMOVED) {
    line += allocore_release_reason_name(r.release_reason);
  }
  if (r.type == ALLOCORE_APP_STATE) {
    line += std::string(allocore_app_state_name(r.from_state)) + ">" +
            allocore_app_state_name(r.to_state);
  }
  line += " " + std::to_string(r.app_handle.slot);
  return line;
}

// Every decision through allocore_decisions_export, `max_records` and `names_capacity` at a time.
std::vector<std::string> Exported(const allocore_decisions_t* d, size_t max_records,
                                  size_t names_capacity) {
  std::vector<std::string> lines;
  std::vector<allocore_decision_record_t> records(max_records);
  std::vector<char> names(names_capacity);
  size_t first = 0;
  while (first < allocore_decisions_count(d)) {
    Error err;
    size_t used = 0;
    const size_t n = allocore_decisions_export(d, first, records.data(), records.size(),
                                               names.data(), names.size(), &used, err.ptr());
    EXPECT_FALSE(err.set()) << err.text();
    if (n == 0) break;
    EXPECT_LE(used, names_capacity);
    for (size_t i = 0; i < n; ++i) lines.push_back(ByRecord(records[i], names.data()));
    first += n;
  }
  return lines;
}

// A kernel that made every common kind of decision: allocations, app states, releases,
// removed asks.
allocore_decisions_t* BusyDecisions(allocore_kernel_t* kernel) {
  allocore_decisions_t* out = allocore_decisions_create();
  AddNode(kernel, "node-1", 100);
  AddApp(kernel, "app-1", "root.a");
  AddApp(kernel, "app-2", "root.b");
  AddAsk(kernel, "app-1", "ask-1", 10, 3);
  AddAsk(kernel, "app-2", "ask-2", 20, 2);
  Error err;
  allocore_schedule(kernel, 0, nullptr, out, err.ptr());
  allocore_release_allocation(kernel, nullptr, "app-1", "ask-1", nullptr, out, err.ptr());
  allocore_remove_app(kernel, nullptr, "app-2", out, err.ptr());
  EXPECT_FALSE(err.set()) << err.text();
  return out;
}

TEST(CAbiExportTest, BulkRecordsReadAsTheAccessorsDo) {
  allocore_kernel_t* kernel = NewKernel();
  allocore_decisions_t* out = BusyDecisions(kernel);
  ASSERT_GE(allocore_decisions_count(out), 8u);
  std::vector<std::string> expected;
  for (size_t i = 0; i < allocore_decisions_count(out); ++i) {
    expected.push_back(ByAccessors(out, i));
  }
  EXPECT_EQ(Exported(out, 1024, 1 << 16), expected);
  // Small chunks and a names buffer that holds about one decision: the same, in more calls.
  EXPECT_EQ(Exported(out, 3, 1 << 16), expected);
  EXPECT_EQ(Exported(out, 1024, 40), expected);
  allocore_decisions_destroy(out);
  allocore_kernel_destroy(kernel);
}

TEST(CAbiExportTest, NamesThatCannotFitAreAnErrorAndAnEmptyRangeIsNot) {
  allocore_kernel_t* kernel = NewKernel();
  allocore_decisions_t* out = BusyDecisions(kernel);
  allocore_decision_record_t record;
  char names[4];
  size_t used = 99;
  Error err;
  EXPECT_EQ(allocore_decisions_export(out, 0, &record, 1, names, sizeof names, &used, err.ptr()),
            0u);
  EXPECT_EQ(err.code(), ALLOCORE_ERR_OUT_OF_RANGE) << err.text();
  EXPECT_THAT(err.text(), HasSubstr("bytes of names"));
  EXPECT_GT(used, sizeof names);  // what the first decision needs
  err.Reset();
  EXPECT_EQ(allocore_decisions_export(out, allocore_decisions_count(out), &record, 1, names,
                                      sizeof names, &used, err.ptr()),
            0u);
  EXPECT_FALSE(err.set());
  EXPECT_EQ(
      allocore_decisions_export(nullptr, 0, &record, 1, names, sizeof names, &used, err.ptr()), 0u);
  EXPECT_FALSE(err.set());
  EXPECT_STREQ(allocore_release_reason_name(99), "");
  EXPECT_STREQ(allocore_app_state_name(-1), "");
  allocore_decisions_destroy(out);
  allocore_kernel_destroy(kernel);
}

TEST(CAbiStringsTest, LengthCallsReadExactlyTheirBytes) {
  allocore_kernel_t* kernel = NewKernel();
  // Names inside a larger buffer, not NUL-terminated where they end.
  const std::string buffer = "node-9app-7root.aask-3memoryXXXX";
  Error err;
  allocore_node_t* node = allocore_node_create_n(buffer.data(), 6);
  allocore_node_add_capacity_n(node, buffer.data() + 22, 6, 50);
  allocore_add_node(kernel, node, nullptr, err.ptr());
  allocore_node_destroy(node);
  allocore_app_t* app = allocore_app_create_n(buffer.data() + 6, 5, "bob", 3);
  allocore_app_set_queue_n(app, buffer.data() + 11, 6);
  allocore_add_app(kernel, app, nullptr, err.ptr());
  allocore_app_destroy(app);
  allocore_ask_t* ask = allocore_ask_create_n(buffer.data() + 6, 5, buffer.data() + 17, 5);
  allocore_ask_add_resource_n(ask, buffer.data() + 22, 6, 10);
  allocore_add_ask(kernel, ask, nullptr, err.ptr());
  allocore_ask_destroy(ask);
  ASSERT_FALSE(err.set()) << err.text();

  allocore_handle_t app_handle =
      allocore_find_app_n(kernel, nullptr, buffer.data() + 6, 5, err.ptr());
  allocore_handle_t ask_handle =
      allocore_find_ask_n(kernel, app_handle, buffer.data() + 17, 5, err.ptr());
  allocore_handle_t node_handle =
      allocore_find_node_n(kernel, nullptr, buffer.data(), 6, err.ptr());
  ASSERT_FALSE(err.set()) << err.text();
  EXPECT_NE(ask_handle.slot, ALLOCORE_NO_HANDLE);
  EXPECT_NE(node_handle.slot, ALLOCORE_NO_HANDLE);

  allocore_decisions_t* out = allocore_decisions_create();
  EXPECT_EQ(allocore_schedule(kernel, 0, nullptr, out, err.ptr()), 1);
  const int64_t seq = allocore_decision_seq(out, 0);
  EXPECT_EQ(Name(allocore_decision_node, out, 0), "node-9");
  allocore_decisions_clear(out);
  // A seq the ask does not hold: NOT_FOUND, nothing released; then the right one.
  allocore_release_allocation_n(kernel, nullptr, buffer.data() + 6, 5, buffer.data() + 17, 5,
                                buffer.data(), 6, seq + 1, out, err.ptr());
  EXPECT_EQ(err.code(), ALLOCORE_ERR_NOT_FOUND) << err.text();
  EXPECT_EQ(allocore_decisions_count(out), 0u);
  err.Reset();
  allocore_release_allocation_n(kernel, nullptr, buffer.data() + 6, 5, buffer.data() + 17, 5,
                                nullptr, 0, seq, out, err.ptr());
  ASSERT_FALSE(err.set()) << err.text();
  EXPECT_EQ(allocore_decision_type(out, 0), ALLOCORE_RELEASE);
  allocore_remove_ask_n(kernel, nullptr, buffer.data() + 6, 5, buffer.data() + 17, 5, out,
                        err.ptr());
  allocore_remove_app_n(kernel, nullptr, buffer.data() + 6, 5, out, err.ptr());
  allocore_remove_node_n(kernel, nullptr, buffer.data(), 6, out, err.ptr());
  ASSERT_FALSE(err.set()) << err.text();
  // Gone: a prefix of the id is another id.
  allocore_remove_node_n(kernel, nullptr, buffer.data(), 4, out, err.ptr());
  EXPECT_EQ(err.code(), ALLOCORE_ERR_NOT_FOUND);
  EXPECT_THAT(err.text(), HasSubstr("unknown node node"));
  allocore_decisions_destroy(out);
  allocore_kernel_destroy(kernel);
}

TEST(CAbiStringsTest, MessagesNameTheCallOnce) {
  allocore_kernel_t* kernel = NewKernel();
  Error err;
  allocore_remove_app(kernel, nullptr, "ghost", nullptr, err.ptr());
  EXPECT_THAT(err.text(), StartsWith("NOT_FOUND: allocore_remove_app: "));
  EXPECT_THAT(err.text(), Not(HasSubstr("remove_app: remove_app")));
  err.Reset();
  allocore_remove_app_n(kernel, nullptr, "ghost", 5, nullptr, err.ptr());
  EXPECT_THAT(err.text(), StartsWith("NOT_FOUND: allocore_remove_app_n: "));
  EXPECT_THAT(err.text(), Not(HasSubstr(": remove_app:")));
  allocore_kernel_destroy(kernel);
}

// yunikorn-1.9 orders asks of one priority by the pod's creation time, which C now passes.
TEST(CAbiCreationTimeTest, AnEarlierCreationTimeIsAllocatedFirstUnderOneNine) {
  for (const bool set_times : {false, true}) {
    allocore_kernel_t* kernel = NewKernel("yunikorn-1.9");
    Error err;
    allocore_advance(kernel, 1000, nullptr, err.ptr());
    AddNode(kernel, "node-1", 10);
    AddApp(kernel, "app-1", "root.a");
    AddAsk(kernel, "app-1", "late", 10, 1, set_times ? 900 : -1);
    AddAsk(kernel, "app-1", "early", 10, 1, set_times ? 100 : -1);
    allocore_decisions_t* out = allocore_decisions_create();
    ASSERT_EQ(allocore_schedule(kernel, 0, nullptr, out, err.ptr()), 1) << err.text();
    std::string ask;
    for (size_t i = 0; i < allocore_decisions_count(out); ++i) {
      if (allocore_decision_type(out, i) == ALLOCORE_ALLOCATION) {
        ask = Name(allocore_decision_ask, out, i);
      }
    }
    EXPECT_EQ(ask, set_times ? "early" : "late");
    allocore_decisions_destroy(out);
    allocore_kernel_destroy(kernel);
  }
}

}  // namespace
