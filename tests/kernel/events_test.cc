// Events as values (allocore/events.h): a batch decides exactly as the calls it names, one
// result per event, and a refused event changes nothing while the batch goes on.
#include "allocore/events.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/configs.h"

namespace allocore {
namespace {

SchedulerConfig Config(const std::vector<std::string>& partitions) {
  return test_support::RootWith(test_support::Leaves({"a"}), partitions);
}

std::string Describe(const std::vector<Decision>& out) {
  std::string text;
  for (const Decision& d : out) {
    text += std::to_string(static_cast<int>(d.type)) + " " + std::string(d.partition) + " " +
            std::string(d.app) + "/" + std::string(d.ask) + "@" + std::string(d.node) + " " +
            std::string(AppStateName(d.to)) + " " + d.reason + "\n";
  }
  return text;
}

// Every event type, a refused one among them.
std::vector<Event> Batch() {
  return {
      NodeSpec{.id = "n1", .capacity = {{"memory", 100}}},
      NodeSpec{.id = "n2", .capacity = {{"memory", 100}}},
      NodeUpdate{.id = "n2", .schedulable = false},
      AppSpec{.id = "app", .queue = "root.a", .user = "u"},
      AskSpec{.app = "app", .id = "x", .resources = {{"memory", 30}}, .count = 4},
      AskSpec{.app = "ghost", .id = "x", .resources = {{"memory", 30}}},  // refused
      AdvanceEvent{.millis = 5},
      ScheduleEvent{.max = 2},
      ReleaseEvent{.app = "app", .ask = "x", .node = "n1"},
      ScheduleEvent{},
      RemoveAskEvent{.app = "app", .ask = "x"},
      UpdateConfigEvent{.config = Config({"default", "other"})},
      NodeSpec{.partition = "other", .id = "n9", .capacity = {{"memory", 100}}},
      RemoveNodeEvent{.partition = "other", .id = "n9"},
      RemoveApplicationEvent{.id = "app"},
      RemoveNodeEvent{.id = "n1"},
  };
}

TEST(EventsTest, ABatchDecidesAsTheCallsItNames) {
  auto batched = Kernel::Create(Config({"default"}));
  auto direct = Kernel::Create(Config({"default"}));
  ASSERT_TRUE(batched.ok() && direct.ok());
  std::vector<Decision> out_batch, out_direct;
  std::vector<EventResult> results;
  EXPECT_EQ(ApplyEvents(**batched, Batch(), &out_batch, &results), 1);

  Kernel& k = **direct;
  std::vector<Decision>* out = &out_direct;
  std::vector<absl::Status> statuses;
  std::vector<int64_t> made;
  statuses.push_back(k.AddNode({.id = "n1", .capacity = {{"memory", 100}}}, out));
  statuses.push_back(k.AddNode({.id = "n2", .capacity = {{"memory", 100}}}, out));
  statuses.push_back(k.UpdateNode({.id = "n2", .schedulable = false}, out));
  statuses.push_back(k.AddApplication({.id = "app", .queue = "root.a", .user = "u"}, out));
  statuses.push_back(
      k.AddAsk({.app = "app", .id = "x", .resources = {{"memory", 30}}, .count = 4}, out));
  statuses.push_back(k.AddAsk({.app = "ghost", .id = "x", .resources = {{"memory", 30}}}, out));
  statuses.push_back(k.Advance(5, out));
  made.push_back(*k.Schedule(2, "", out));
  statuses.push_back(absl::OkStatus());
  statuses.push_back(k.ReleaseAllocation("default", "app", "x", "n1", out));
  made.push_back(*k.Schedule(0, "", out));
  statuses.push_back(absl::OkStatus());
  statuses.push_back(k.RemoveAsk("default", "app", "x", out));
  statuses.push_back(k.UpdateConfig(Config({"default", "other"}), out));
  statuses.push_back(
      k.AddNode({.partition = "other", .id = "n9", .capacity = {{"memory", 100}}}, out));
  statuses.push_back(k.RemoveNode("other", "n9", out));
  statuses.push_back(k.RemoveApplication("default", "app", out));
  statuses.push_back(k.RemoveNode("default", "n1", out));

  EXPECT_EQ(Describe(out_batch), Describe(out_direct));
  ASSERT_EQ(results.size(), statuses.size());
  for (size_t i = 0; i < results.size(); ++i) {
    EXPECT_EQ(results[i].status, statuses[i]) << "event " << i;
  }
  EXPECT_EQ(results[7].allocations, made[0]);
  EXPECT_EQ(results[7].allocations, 2);
  EXPECT_EQ(results[9].allocations, made[1]);
  EXPECT_EQ(results[9].allocations, 2);  // n1 holds three of 30; one was released
  EXPECT_EQ(results[5].status.code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE((**batched).CheckConsistency().ok());
}

// The by-handle events decide as the same events by name.
TEST(EventsTest, ByHandleEventsDecideAsByName) {
  auto by_name = Kernel::Create(Config({"default"}));
  auto by_handle = Kernel::Create(Config({"default"}));
  ASSERT_TRUE(by_name.ok() && by_handle.ok());
  std::vector<Decision> out_name, out_handle;
  const std::vector<Event> setup = {
      NodeSpec{.id = "n1", .capacity = {{"memory", 100}}},
      NodeSpec{.id = "n2", .capacity = {{"memory", 100}}},
      AppSpec{.id = "app", .queue = "root.a", .user = "u"},
      AppSpec{.id = "other", .queue = "root.a", .user = "u"},
  };
  ApplyEvents(**by_name, setup, &out_name, nullptr);
  ApplyEvents(**by_handle, setup, &out_handle, nullptr);
  Kernel& k = **by_handle;
  const PartitionHandle partition = *k.FindPartition("default");
  const AppHandle app = *k.FindApplication(partition, "app");
  const AppHandle other = *k.FindApplication(partition, "other");
  const NodeHandle n2 = *k.FindNode(partition, "n2");
  Resource thirty;
  thirty.Set(*k.ResourceTypeId("memory"), 30);

  std::vector<Event> named = {
      AskSpec{.app = "app", .id = "x", .resources = {{"memory", 30}}, .count = 5},
      AskSpec{.app = "other", .id = "y", .resources = {{"memory", 30}}, .count = 2},
      ScheduleEvent{},
      ReleaseEvent{.app = "app", .ask = "x", .node = "n2"},
      ReleaseEvent{.app = "app", .ask = "x"},
      RemoveAskEvent{.app = "app", .ask = "x"},
      RemoveNodeEvent{.id = "n2"},
      RemoveApplicationEvent{.id = "other"},
      ScheduleEvent{},
  };
  std::vector<EventResult> named_results;
  ApplyEvents(**by_name, named, &out_name, &named_results);

  std::vector<EventResult> handle_results;
  std::vector<Event> first = {
      AddAskByHandleEvent{.app = app, .ask = {.id = "x", .resources = thirty, .count = 5}},
      AddAskByHandleEvent{.app = other, .ask = {.id = "y", .resources = thirty, .count = 2}},
      ScheduleEvent{},
  };
  ApplyEvents(k, first, &out_handle, &handle_results);
  const AskHandle x = *k.FindAsk(app, "x");
  std::vector<Event> second = {
      ReleaseByHandleEvent{.ask = x, .node = n2},
      ReleaseByHandleEvent{.ask = x},
      RemoveAskByHandleEvent{.ask = x},
      RemoveNodeByHandleEvent{.node = n2},
      RemoveApplicationByHandleEvent{.app = other},
      ScheduleEvent{},
  };
  ApplyEvents(k, second, &out_handle, &handle_results);

  EXPECT_EQ(Describe(out_name), Describe(out_handle));
  ASSERT_EQ(named_results.size(), handle_results.size());
  for (size_t i = 0; i < named_results.size(); ++i) {
    EXPECT_EQ(named_results[i].status, handle_results[i].status) << "event " << i;
    EXPECT_EQ(named_results[i].allocations, handle_results[i].allocations) << "event " << i;
  }
  // Removed while allocations of it live: removing it again is refused as by name.
  std::vector<EventResult> again_results;
  std::vector<Event> again = {RemoveAskByHandleEvent{.ask = x}};
  EXPECT_EQ(ApplyEvents(k, again, &out_handle, &again_results), 1);
  EXPECT_EQ(again_results[0].status.code(), absl::StatusCode::kNotFound);
  // The application goes, and with it the ask's slot: the handle is stale now.
  std::vector<Event> remove_app = {RemoveApplicationByHandleEvent{.app = app}, again[0]};
  EXPECT_EQ(ApplyEvents(k, remove_app, &out_handle, &again_results), 1);
  EXPECT_TRUE(again_results[1].status.ok());
  EXPECT_EQ(again_results[2].status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(k.CheckConsistency().ok());
}

TEST(EventsTest, ResultsAreOptionalAndAppended) {
  auto kernel = Kernel::Create(Config({"default"}));
  ASSERT_TRUE(kernel.ok());
  std::vector<Decision> out;
  std::vector<Event> first = {NodeSpec{.id = "n1", .capacity = {{"memory", 100}}}};
  EXPECT_EQ(ApplyEvents(**kernel, first, &out, nullptr), 0);
  std::vector<EventResult> results;
  std::vector<Event> second = {RemoveNodeEvent{.id = "n1"}, RemoveNodeEvent{.id = "n1"}};
  EXPECT_EQ(ApplyEvents(**kernel, second, &out, &results), 1);
  EXPECT_EQ(ApplyEvents(**kernel, second, &out, &results), 2);
  ASSERT_EQ(results.size(), 4u);
  EXPECT_TRUE(results[0].status.ok());
  EXPECT_EQ(results[3].status.code(), absl::StatusCode::kNotFound);
}

// An ask by handle carries the pod's creation time as an ask by name does: under yunikorn-1.9
// it lowers its application's submission time, so the later application goes first.
TEST(EventsTest, AskByHandleCarriesItsCreationTime) {
  std::vector<std::string> order[2];
  for (int by_handle = 0; by_handle < 2; ++by_handle) {
    auto created = Kernel::Create(Config({"default"}), {.semantics = Semantics::kYunikorn19});
    ASSERT_TRUE(created.ok()) << created.status();
    Kernel& k = **created;
    std::vector<Decision> out;
    ASSERT_TRUE(k.Advance(100'000, &out).ok());
    ASSERT_TRUE(k.AddNode({.id = "n1", .capacity = {{"memory", 10}}}, &out).ok());
    for (const char* app : {"early", "late"}) {
      ASSERT_TRUE(k.AddApplication({.id = app, .queue = "root.a", .user = "u"}, &out).ok());
    }
    ASSERT_TRUE(k.AddAsk({.app = "early", .id = "e", .resources = {{"memory", 10}}}, &out).ok());
    Event late = AskSpec{
        .app = "late", .id = "l", .resources = {{"memory", 10}}, .creation_time_millis = 40'000};
    if (by_handle == 1) {
      Resource ten;
      ten.Set(*k.ResourceTypeId("memory"), 10);
      late =
          AddAskByHandleEvent{.app = *k.FindApplication(*k.FindPartition("default"), "late"),
                              .ask = {.id = "l", .resources = ten, .creation_time_millis = 40'000}};
    }
    ASSERT_TRUE(ApplyEvent(k, late, &out).ok());
    out.clear();
    ASSERT_EQ(k.Schedule(0, "", &out).value(), 1);
    for (const Decision& d : out) {
      if (d.type == DecisionType::kAllocation) order[by_handle].push_back(std::string(d.app));
    }
  }
  EXPECT_EQ(order[0], std::vector<std::string>{"late"});
  EXPECT_EQ(order[1], order[0]);
}

}  // namespace
}  // namespace allocore
