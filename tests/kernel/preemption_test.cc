// General preemption through the public API (decision 34): when it runs, what it takes, what
// the decision stream says about it, and what --explain says when it does not run. The
// scenario files tests/scenarios/preemption-*.yaml cover YuniKorn's cases one by one; these
// tests pin the mechanics around them.
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
using ::testing::Not;

QueueConfig Leaf(const char* name, std::optional<int64_t> guaranteed, PropertyMap properties = {}) {
  QueueConfig leaf;
  leaf.name = name;
  if (guaranteed) leaf.resources.guaranteed = QuantityMap{{"first", *guaranteed}};
  leaf.properties = std::move(properties);
  return leaf;
}

// root.parent (max 10) with leaves victim (guarantee 5) and preemptor (guarantee 5), as
// YuniKorn's TestPreemption partition test; two nodes of 10.
SchedulerConfig Config(std::optional<bool> enabled, std::optional<int64_t> preemptor_guarantee = 5,
                       PropertyMap preemptor_properties = {},
                       std::optional<int64_t> parent_max = 10) {
  QueueConfig parent = test_support::Parent(
      "parent",
      {Leaf("victim", 5), Leaf("preemptor", preemptor_guarantee, std::move(preemptor_properties))});
  if (parent_max) parent.resources.max = QuantityMap{{"first", *parent_max}};
  SchedulerConfig config = test_support::RootWith({std::move(parent)});
  config.partitions[0].preemption_enabled = enabled;
  return config;
}

class PreemptionTest : public test_support::KernelFixture {
 protected:
  void Start(SchedulerConfig config, int64_t node_capacity = 10) {
    KernelFixture::Start(std::move(config));
    for (const char* node : {"node-1", "node-2"}) {
      Ok(kernel_->AddNode({.id = node, .capacity = {{"first", node_capacity}}}, &out_));
    }
    // The victim queue runs two allocations of 5, a second apart: on node-1 both when the
    // nodes have 10 (the node order does not weigh custom types: ties go to the node id), one
    // per node when they have 5.
    Ok(kernel_->AddApplication({.id = "v", .queue = "root.parent.victim", .user = "u"}, &out_));
    Ok(kernel_->AddAsk({.app = "v", .id = "old", .resources = {{"first", 5}}}, &out_));
    Schedule();
    Ok(kernel_->Advance(1'000, &out_));
    Ok(kernel_->AddAsk({.app = "v", .id = "new", .resources = {{"first", 5}}}, &out_));
    Schedule();
    Ok(kernel_->AddApplication({.id = "p", .queue = "root.parent.preemptor", .user = "u"}, &out_));
    Ok(kernel_->AddAsk({.app = "p", .id = "ask", .resources = {{"first", 5}}}, &out_));
    out_.clear();
  }
  const Decision* Find(DecisionType type) const {
    for (const Decision& d : out_) {
      if (d.type == type) return &d;
    }
    return nullptr;
  }
};

TEST_F(PreemptionTest, TakesTheNewerVictimOnceTheDelayHasPassed) {
  Start(Config(true));
  Schedule();
  EXPECT_TRUE(out_.empty()) << "preempted before preemption.delay passed";
  EXPECT_THAT(Why("ask"), HasSubstr("preemption.delay (30s) has not passed"));
  Ok(kernel_->Advance(30'000, &out_));
  out_.clear();
  Schedule();
  // preemption, then the victim's release, then the preemptor's allocation on the node it
  // reserved. The parent's max is what stops the ask (headroom), and node-2 has room: it is
  // chosen without victims there, and the victim comes from anywhere (YuniKorn's additional
  // victims), the newest first.
  ASSERT_GE(out_.size(), 3u);
  const Decision& preemption = out_[0];
  ASSERT_EQ(preemption.type, DecisionType::kPreemption);
  EXPECT_EQ(preemption.app, "p");
  EXPECT_EQ(preemption.ask, "ask");
  EXPECT_EQ(preemption.queue, "root.parent.preemptor");
  EXPECT_EQ(preemption.count, 1);
  ASSERT_NE(preemption.preemption, nullptr);
  EXPECT_EQ(preemption.preemption->fence, "root.parent");
  ASSERT_TRUE(preemption.preemption->remaining_guarantee.has_value());
  ASSERT_EQ(preemption.preemption->victim_queues.size(), 1u);
  EXPECT_EQ(preemption.preemption->victim_queues[0].queue, "root.parent.victim");
  const Decision& release = out_[1];
  ASSERT_EQ(release.type, DecisionType::kRelease);
  EXPECT_EQ(release.release_reason, ReleaseReason::kPreempted);
  EXPECT_EQ(release.ask, "new") << "the newer allocation goes first";
  EXPECT_EQ(release.by_app, "p");
  EXPECT_EQ(release.by_ask, "ask");
  EXPECT_EQ(release.node, "node-1");
  EXPECT_EQ(preemption.node, "node-2");
  const Decision* allocation = Find(DecisionType::kAllocation);
  ASSERT_NE(allocation, nullptr);
  EXPECT_EQ(allocation->ask, "ask");
  EXPECT_EQ(allocation->node, preemption.node);
}

TEST_F(PreemptionTest, FullNodesFirstReserveThenPreemptOnTheNodeWithFewestVictims) {
  // No parent max; two full nodes of 5 with one victim each: the ask first reserves a node
  // (the walk's reservation), then preempts there in a later cycle. Both nodes need one
  // victim: node-1 wins on its id, and its allocation (the older one) is the victim.
  Start(Config(true, 5, {}, std::nullopt), 5);
  Ok(kernel_->Advance(30'000, &out_));
  Schedule();
  const Decision* preemption = Find(DecisionType::kPreemption);
  ASSERT_NE(preemption, nullptr);
  EXPECT_EQ(preemption->node, "node-1");
  const Decision* release = Find(DecisionType::kRelease);
  ASSERT_NE(release, nullptr);
  EXPECT_EQ(release->ask, "old");
  EXPECT_EQ(release->node, "node-1");
  const Decision* allocation = Find(DecisionType::kAllocation);
  ASSERT_NE(allocation, nullptr);
  EXPECT_EQ(allocation->node, "node-1");
}

TEST_F(PreemptionTest, OffUnlessThePartitionEnablesIt) {
  for (std::optional<bool> enabled : {std::optional<bool>(), std::optional<bool>(false)}) {
    Start(Config(enabled));
    Ok(kernel_->Advance(3'600'000, &out_));
    Schedule();
    EXPECT_EQ(Find(DecisionType::kPreemption), nullptr);
    EXPECT_EQ(Find(DecisionType::kRelease), nullptr);
    EXPECT_THAT(Why("ask"), Not(HasSubstr("preempt")));
  }
}

TEST_F(PreemptionTest, AQueueWithoutGuaranteeNeverPreempts) {
  Start(Config(true, std::nullopt));
  Ok(kernel_->Advance(60'000, &out_));
  Schedule();
  EXPECT_EQ(Find(DecisionType::kPreemption), nullptr);
  EXPECT_THAT(Why("ask"), HasSubstr("has no guaranteed resources on its path"));
}

TEST_F(PreemptionTest, AnAskAboveItsRemainingGuaranteeNeverPreempts) {
  Start(Config(true));
  Ok(kernel_->AddAsk({.app = "p", .id = "big", .resources = {{"first", 6}}, .priority = 10},
                     &out_));
  Ok(kernel_->RemoveAsk("default", "p", "ask", &out_));
  Ok(kernel_->Advance(60'000, &out_));
  Schedule();
  EXPECT_EQ(Find(DecisionType::kPreemption), nullptr);
  EXPECT_THAT(Why("big"), HasSubstr("does not fit the remaining guarantee"));
}

TEST_F(PreemptionTest, TheDelayPropertyIsAGoDurationReadOnTheLeaf) {
  Start(Config(true, 5, {{"preemption.delay", "1m30s"}}));
  Ok(kernel_->Advance(89'999, &out_));
  Schedule();
  EXPECT_EQ(Find(DecisionType::kPreemption), nullptr);
  EXPECT_THAT(Why("ask"), HasSubstr("(1m30s) has not passed (1ms left)"));
  Ok(kernel_->Advance(1, &out_));
  Schedule();
  EXPECT_NE(Find(DecisionType::kPreemption), nullptr);
}

TEST_F(PreemptionTest, AnUnreadableDelayIsThirtySeconds) {
  for (const char* delay : {"30", "-5s", "0s", "soon"}) {
    Start(Config(true, 5, {{"preemption.delay", delay}}));
    Ok(kernel_->Advance(29'999, &out_));
    Schedule();
    EXPECT_EQ(Find(DecisionType::kPreemption), nullptr) << delay;
    Ok(kernel_->Advance(1, &out_));
    Schedule();
    EXPECT_NE(Find(DecisionType::kPreemption), nullptr) << delay;
  }
}

TEST_F(PreemptionTest, AFailedAttemptIsRetriedFifteenSecondsLater) {
  // The victims' queue is protected until its guarantee drops below its usage.
  SchedulerConfig config = Config(true, 5, {{"preemption.delay", "1ms"}});
  config.partitions[0].queues[0].queues[0].queues[0].properties = {
      {"preemption.policy", "disabled"}};
  Start(config);
  Ok(kernel_->Advance(1, &out_));
  Schedule();
  EXPECT_EQ(Find(DecisionType::kPreemption), nullptr);
  EXPECT_THAT(Why("ask"), HasSubstr("tried less than 15s ago (next try in 15s); now it would find "
                                    "that no allocation below fence root.parent"));
  Ok(kernel_->Advance(14'999, &out_));
  EXPECT_THAT(Why("ask"), HasSubstr("next try in 1ms"));
  Ok(kernel_->Advance(1, &out_));
  EXPECT_THAT(Why("ask"), HasSubstr("not preempting: no allocation below fence root.parent may be "
                                    "preempted"));
}

TEST_F(PreemptionTest, AnAskPreemptsOnlyOnce) {
  Start(Config(true, 5, {{"preemption.delay", "1ms"}}));
  Ok(kernel_->Advance(1, &out_));
  Schedule();
  ASSERT_NE(Find(DecisionType::kPreemption), nullptr);
  // The same ask, allocated, asks for one more repeat: it has preempted already.
  Ok(kernel_->AddAsk({.app = "p", .id = "second", .resources = {{"first", 5}}}, &out_));
  Ok(kernel_->Advance(60'000, &out_));
  out_.clear();
  Schedule();
  // The preemptor's queue is at its guarantee (5): a second ask of 5 would take it over.
  EXPECT_EQ(Find(DecisionType::kPreemption), nullptr);
  EXPECT_THAT(Why("second"), HasSubstr("does not fit the remaining guarantee {first: 0}"));
}

TEST_F(PreemptionTest, ProbeAndExplainRunTheSameSearchAsTheWalk) {
  Start(Config(true, 5, {{"preemption.delay", "1ms"}}));
  Ok(kernel_->Advance(1, &out_));
  const std::string why = Why("ask");
  EXPECT_THAT(why, HasSubstr("preempting 1 allocation(s) for it (fence root.parent)"));
  Schedule();
  const Decision* preemption = Find(DecisionType::kPreemption);
  ASSERT_NE(preemption, nullptr);
  EXPECT_THAT(why, HasSubstr(std::string("reserving ") + std::string(preemption->node)));
}

TEST_F(PreemptionTest, AProbedAskWouldWaitItsDelayFirst) {
  Start(Config(true));
  absl::StatusOr<ProbeResult> answer =
      kernel_->Probe({.app = "p", .id = "what-if", .resources = {{"first", 5}}});
  ASSERT_TRUE(answer.ok()) << answer.status();
  EXPECT_TRUE(answer->node.empty());
  EXPECT_THAT(answer->reason, HasSubstr("after its preemption.delay (30s) it could preempt 1 "
                                        "allocation(s) (fence root.parent) and reserve node-2"));
  answer = kernel_->Probe({.app = "p", .id = "too-big", .resources = {{"first", 6}}});
  ASSERT_TRUE(answer.ok()) << answer.status();
  EXPECT_THAT(answer->reason, HasSubstr("could not preempt: the ask ({first: 6}) does not fit"));
}

}  // namespace
}  // namespace allocore
