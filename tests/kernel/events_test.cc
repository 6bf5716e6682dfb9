// Events as values (allocore/events.h): a batch decides exactly as the calls it names, one
// result per event, and a refused event changes nothing while the batch goes on.
#include "allocore/events.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace allocore {
namespace {

SchedulerConfig Config(std::vector<std::string> partitions) {
  SchedulerConfig config;
  for (const std::string& name : partitions) {
    PartitionConfig& p = config.partitions.emplace_back();
    p.name = name;
    QueueConfig& root = p.queues.emplace_back();
    root.name = "root";
    root.parent = true;
    root.submit_acl = "*";
    root.queues.emplace_back().name = "a";
  }
  return config;
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

}  // namespace
}  // namespace allocore
