// Gang scheduling and required nodes through the public API: refused calls change nothing, the
// explanations name the rule that holds an ask back, and the caches (placeholder totals, timers,
// victims) agree with a recomputation after every call.
#include <string>
#include <vector>

#include "allocore/kernel.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/configs.h"
#include "support/kernel_fixture.h"

namespace allocore {
namespace {

using ::testing::HasSubstr;

SchedulerConfig Config() { return test_support::RootWith(test_support::Leaves({"gang", "ds"})); }

class GangAndRequiredNodeTest : public test_support::KernelFixture {
 protected:
  void SetUp() override {
    Start(Config());
    ASSERT_TRUE(kernel_->AddNode({.id = "node-1", .capacity = {{"memory", 100}}}, &out_).ok());
  }
  int Count(DecisionType type, ReleaseReason reason) const {
    int n = 0;
    for (const Decision& d : out_) n += d.type == type && d.release_reason == reason;
    return n;
  }
};

TEST_F(GangAndRequiredNodeTest, MalformedGangCallsAreRefusedWithNothingChanged) {
  Ok(kernel_->AddApplication({.id = "app-1", .queue = "root.gang", .user = "u"}, &out_));
  out_.clear();
  absl::Status status = kernel_->AddAsk(
      {.app = "app-1", .id = "ph", .resources = {{"memory", 10}}, .placeholder = true}, &out_);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("needs a task_group"));
  status = kernel_->AddApplication(
      {.id = "app-2", .queue = "root.gang", .user = "u", .placeholder_timeout_millis = -1}, &out_);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  status = kernel_->AddApplication(
      {.id = "app-3", .queue = "root.gang", .user = "u", .placeholder_ask = {{"gpu", -1}}}, &out_);
  EXPECT_FALSE(status.ok());
  EXPECT_TRUE(out_.empty());
  EXPECT_EQ(kernel_->resource_types().Find("gpu"), -1) << "a refused call registered a type";
  EXPECT_FALSE(kernel_->GetApplication("default", "app-2").ok());
  EXPECT_FALSE(kernel_->GetApplication("default", "app-3").ok());
}

TEST_F(GangAndRequiredNodeTest, RejectedGangAppLeavesNoResourceType) {
  SchedulerConfig config = Config();
  config.partitions[0].queues[0].queues[0].properties.push_back(
      {"application.sort.policy", "fair"});
  auto created = Kernel::Create(std::move(config));
  ASSERT_TRUE(created.ok());
  Ok((*created)->AddApplication(
      {.id = "g", .queue = "root.gang", .user = "u", .placeholder_ask = {{"gpu", 1}}}, &out_));
  ASSERT_EQ(out_.size(), 1u);
  EXPECT_EQ(out_[0].type, DecisionType::kAppRejected);
  EXPECT_THAT(out_[0].reason, HasSubstr("unsupported sort type"));
  EXPECT_EQ((*created)->resource_types().Find("gpu"), -1);
}

TEST_F(GangAndRequiredNodeTest, ExplainNamesPlaceholderWaitsAndRequiredNodes) {
  Ok(kernel_->AddApplication(
      {.id = "app-1", .queue = "root.gang", .user = "u", .placeholder_ask = {{"memory", 20}}},
      &out_));
  Ok(kernel_->AddAsk({.app = "app-1",
                      .id = "ph",
                      .resources = {{"memory", 10}},
                      .count = 2,
                      .task_group = "tg",
                      .placeholder = true},
                     &out_));
  Ok(kernel_->AddAsk(
      {.app = "app-1", .id = "real", .resources = {{"memory", 30}}, .task_group = "tg"}, &out_));
  EXPECT_THAT(Why("real"), HasSubstr("no placeholder of task group tg is allocated yet"));
  // The real ask is larger than the placeholders: the placeholder pass releases each (YuniKorn
  // returns them as timed out and, since YUNIKORN-2926, counts them so), after which the real ask
  // goes through the regular walk instead of waiting for ever as in v1.2.0.
  Schedule();
  EXPECT_EQ(Count(DecisionType::kRelease, ReleaseReason::kTimeout), 2);
  EXPECT_EQ(Why("real"), "(not pending)");
  bool real_allocated = false;
  for (const Decision& d : out_) {
    real_allocated |= d.type == DecisionType::kAllocation && d.ask == "real";
  }
  EXPECT_TRUE(real_allocated);

  Ok(kernel_->AddApplication({.id = "ds", .queue = "root.ds", .user = "u"}, &out_));
  Ok(kernel_->AddAsk(
      {.app = "ds", .id = "nowhere", .resources = {{"memory", 1}}, .required_node = "node-9"},
      &out_));
  EXPECT_THAT(Why("nowhere"), HasSubstr("required node node-9 is not registered"));
  Schedule();
  EXPECT_THAT(Why("nowhere"), HasSubstr("required node node-9 is not registered"));
}

TEST_F(GangAndRequiredNodeTest, PreemptionReleasesVictimsOnceAndTheAskTakesTheNode) {
  Ok(kernel_->AddNode({.id = "node-2", .capacity = {{"memory", 100}}}, &out_));
  Ok(kernel_->AddApplication({.id = "app", .queue = "root.gang", .user = "u"}, &out_));
  Ok(kernel_->AddAsk({.app = "app",
                      .id = "fill",
                      .resources = {{"memory", 50}},
                      .count = 2,
                      .required_node = "node-1"},
                     &out_));
  Ok(kernel_->AddAsk({.app = "app", .id = "low", .resources = {{"memory", 30}}}, &out_));
  Schedule();
  // node-1 holds the two required-node allocations (never victims); `low` went to node-2. A
  // third node leaves the root enough headroom for the pod (checked before its node).
  Ok(kernel_->AddNode({.id = "node-3", .capacity = {{"memory", 100}}}, &out_));
  Ok(kernel_->AddApplication({.id = "ds", .queue = "root.ds", .user = "u"}, &out_));
  Ok(kernel_->AddAsk({.app = "ds",
                      .id = "pod",
                      .resources = {{"memory", 80}},
                      .priority = 5,
                      .required_node = "node-2"},
                     &out_));
  EXPECT_THAT(Why("pod"), HasSubstr("preempting 1 allocation(s) on node-2"));
  out_.clear();
  Schedule();
  ASSERT_EQ(Count(DecisionType::kRelease, ReleaseReason::kPreempted), 1);
  for (const Decision& d : out_) {
    if (d.type != DecisionType::kRelease) continue;
    EXPECT_EQ(d.ask, "low");
    EXPECT_EQ(d.by_app, "ds");
    EXPECT_EQ(d.by_ask, "pod");
  }
  ASSERT_FALSE(out_.empty());
  EXPECT_EQ(out_.back().type, DecisionType::kAppState);
  bool allocated = false;
  for (const Decision& d : out_) allocated |= d.type == DecisionType::kAllocation && d.ask == "pod";
  EXPECT_TRUE(allocated);
}

}  // namespace
}  // namespace allocore
