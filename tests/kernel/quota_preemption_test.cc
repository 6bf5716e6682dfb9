// Quota-change preemption (yunikorn-1.9) through the public API: when a queue's start time is
// set, moved or cleared by a configuration change (YuniKorn's setPreemptionTime cases,
// queue_test.go TestQueue_setPreemptionTime), the exact check a start time falls on, what
// ExplainPending says meanwhile, and that yunikorn-1.2 never preempts for a quota.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "allocore/config.h"
#include "allocore/kernel.h"
#include "gtest/gtest.h"
#include "support/configs.h"
#include "support/profiles.h"

namespace allocore {
namespace {

// root.a holds a1 (6) and a2 (5) on node-1: 11. The configuration sets a's max and
// quota.preemption.delay; the partition's switch is on.
SchedulerConfig QuotaConfig(std::optional<int64_t> max, std::optional<std::string> delay) {
  SchedulerConfig config = test_support::RootWith({test_support::Leaf(
      "a", max ? std::optional<QuantityMap>(QuantityMap{{"memory", *max}}) : std::nullopt)});
  config.partitions[0].quota_preemption_enabled = true;
  if (delay)
    config.partitions[0].queues[0].queues[0].properties = {{"quota.preemption.delay", *delay}};
  return config;
}

class QuotaPreemptionTest : public ::testing::TestWithParam<Semantics> {
 protected:
  void Start(SchedulerConfig config) {
    auto created = Kernel::Create(std::move(config), {.semantics = GetParam()});
    ASSERT_TRUE(created.ok()) << created.status();
    kernel_ = std::move(*created);
    ASSERT_TRUE(kernel_->AddNode({.id = "node-1", .capacity = {{"memory", 100}}}, &out_).ok());
    ASSERT_TRUE(kernel_->AddApplication({.id = "app", .queue = "root.a", .user = "u"}, &out_).ok());
    for (auto [id, memory] : {std::pair<const char*, int64_t>{"a1", 6}, {"a2", 5}}) {
      ASSERT_TRUE(
          kernel_->AddAsk({.app = "app", .id = id, .resources = {{"memory", memory}}}, &out_).ok());
    }
    ASSERT_EQ(kernel_->Schedule(0, "", &out_).value(), 2);
  }
  void Reload(SchedulerConfig config) {
    ASSERT_TRUE(kernel_->UpdateConfig(std::move(config), &out_).ok());
  }
  // Advances to `t` ms and returns the quota_preemption records it wrote (with their time).
  std::vector<int64_t> AdvanceTo(int64_t t) {
    out_.clear();
    EXPECT_TRUE(kernel_->Advance(t - kernel_->now_millis(), &out_).ok());
    std::vector<int64_t> runs;
    for (const Decision& d : out_) {
      if (d.type == DecisionType::kQuotaPreemption) runs.push_back(d.count);
    }
    return runs;
  }
  bool V19() const { return GetParam() == Semantics::kYunikorn19; }
  std::vector<int64_t> Expected(std::vector<int64_t> under_v19) const {
    return V19() ? under_v19 : std::vector<int64_t>{};
  }

  std::unique_ptr<Kernel> kernel_;
  std::vector<Decision> out_;
};

INSTANTIATE_TEST_SUITE_P(Profiles, QuotaPreemptionTest, test_support::EachProfile(),
                         test_support::ProfileName);

TEST_P(QuotaPreemptionTest, LoweredMaxStartsTheDelayAndRunsOnTheCheckItFallsOn) {
  Start(QuotaConfig(20, "2s"));
  ASSERT_TRUE(kernel_->Advance(3000, &out_).ok());
  Reload(QuotaConfig(8, "2s"));  // t = 3000: start 5000, exactly a check
  EXPECT_EQ(AdvanceTo(4999), std::vector<int64_t>{});
  // 11 - 8 = 3 to give back: a2 (5) and a1 (6) are each larger: a run without victims.
  EXPECT_EQ(AdvanceTo(5000), Expected({0}));
  EXPECT_EQ(AdvanceTo(60'000), std::vector<int64_t>{});  // one round only
}

TEST_P(QuotaPreemptionTest, VictimsAreReleasedWithTheEnforcedQueue) {
  Start(QuotaConfig(20, "1s"));
  Reload(QuotaConfig(6, "1s"));
  EXPECT_EQ(AdvanceTo(1000), Expected({1}));
  if (!V19()) return;
  ASSERT_EQ(out_.size(), 2u);
  ASSERT_NE(out_[0].quota, nullptr);
  EXPECT_EQ(out_[0].queue, "root.a");
  EXPECT_EQ(out_[0].quota->preemptable.Get(kernel_->resource_types().Find("memory")), 5);
  EXPECT_EQ(out_[1].type, DecisionType::kRelease);
  EXPECT_EQ(out_[1].release_reason, ReleaseReason::kQuota);
  ASSERT_NE(out_[1].quota, nullptr);
  EXPECT_EQ(out_[1].quota->queue, "root.a");
  EXPECT_EQ(out_[1].ask, "a2");  // the smaller share of the max goes first
  EXPECT_EQ(kernel_->GetQueue("default", "root.a")
                ->allocated.Get(kernel_->resource_types().Find("memory")),
            6);
}

TEST_P(QuotaPreemptionTest, RaisedMaxNeverStartsTheDelay) {
  // Usage above a max that is raised (still below usage): YuniKorn waits for a later event.
  Start(QuotaConfig(20, std::nullopt));
  Reload(QuotaConfig(4, std::nullopt));  // no delay: no start
  Reload(QuotaConfig(6, "1s"));          // raised from 4: no start either
  EXPECT_EQ(AdvanceTo(100'000), std::vector<int64_t>{});
}

TEST_P(QuotaPreemptionTest, DelaySetOnAnUnchangedMaxStartsIt) {
  Start(QuotaConfig(20, std::nullopt));
  Reload(QuotaConfig(6, std::nullopt));
  ASSERT_TRUE(kernel_->Advance(4000, &out_).ok());
  Reload(QuotaConfig(6, "3s"));  // old delay 0: start = 4000 + 3000
  EXPECT_EQ(AdvanceTo(6999), std::vector<int64_t>{});
  EXPECT_EQ(AdvanceTo(7000), Expected({1}));
}

TEST_P(QuotaPreemptionTest, ChangedDelayMovesAStartThatIsSet) {
  Start(QuotaConfig(20, "10s"));
  Reload(QuotaConfig(6, "10s"));  // start 10,000
  ASSERT_TRUE(kernel_->Advance(2000, &out_).ok());
  Reload(QuotaConfig(6, "4s"));  // 10,000 + (4 s - 10 s) = 4,000
  EXPECT_EQ(AdvanceTo(3999), std::vector<int64_t>{});
  EXPECT_EQ(AdvanceTo(4000), Expected({1}));
}

TEST_P(QuotaPreemptionTest, ZeroDelayDoesNotCancelAStartThatIsSet) {
  Start(QuotaConfig(20, "5s"));
  Reload(QuotaConfig(6, "5s"));  // start 5,000
  Reload(QuotaConfig(6, "0"));   // delay 0: setPreemptionTime returns before anything
  EXPECT_EQ(AdvanceTo(5000), Expected({1}));
}

TEST_P(QuotaPreemptionTest, UsageBackWithinTheMaxClearsTheStart) {
  Start(QuotaConfig(20, "5s"));
  Reload(QuotaConfig(6, "5s"));                                                     // start 5,000
  ASSERT_TRUE(kernel_->ReleaseAllocation("default", "app", "a1", "", &out_).ok());  // 5 left
  EXPECT_EQ(AdvanceTo(1000), std::vector<int64_t>{});  // this check clears the start
  // 9 > 6 again: the manager's report starts a new delay (1,000 + 5 s); a second report
  // leaves it. 11 - 6 = 5 to take back: r2 (2) fits, then r (4) and a2 (5) would pass 5.
  for (auto [id, memory] : {std::pair<const char*, int64_t>{"r", 4}, {"r2", 2}}) {
    ASSERT_TRUE(
        kernel_
            ->RecoverAllocation({.ask = {.app = "app", .id = id, .resources = {{"memory", memory}}},
                                 .node = "node-1"},
                                &out_)
            .ok());
  }
  EXPECT_EQ(AdvanceTo(5999), std::vector<int64_t>{});
  EXPECT_EQ(AdvanceTo(6000), Expected({1}));
}

TEST_P(QuotaPreemptionTest, ExplainNamesTheComingRun) {
  Start(QuotaConfig(20, "5s"));
  Reload(QuotaConfig(6, "5s"));
  ASSERT_TRUE(kernel_->AddAsk({.app = "app", .id = "b", .resources = {{"memory", 1}}}, &out_).ok());
  std::string reason;
  for (const PendingExplanation& e : kernel_->ExplainPending()) {
    if (e.ask == "b") reason = e.reason;
  }
  const std::string note = "root.a is above its max: quota-change preemption at t=5000ms";
  EXPECT_EQ(reason.find(note) != std::string::npos, V19()) << reason;
}

}  // namespace
}  // namespace allocore
