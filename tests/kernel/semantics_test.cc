// Semantics profiles through the public API: the profile is fixed per kernel, refused when
// unknown, and the rules it chooses keep their caches consistent (CheckConsistency compares
// every cached order key with one derived from scratch).
#include "allocore/semantics.h"

#include <string>
#include <vector>

#include "allocore/config.h"
#include "allocore/kernel.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/configs.h"

namespace allocore {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(SemanticsTest, NamesRoundTripAndUnknownNamesAreRefused) {
  for (Semantics s : {Semantics::kYunikorn12, Semantics::kYunikorn19}) {
    EXPECT_EQ(ParseSemantics(SemanticsName(s)), s);
  }
  EXPECT_EQ(SemanticsName(Semantics::kYunikorn19), "yunikorn-1.9");
  EXPECT_FALSE(ParseSemantics("yunikorn-1.6").has_value());
  EXPECT_FALSE(ParseSemantics("YUNIKORN-1.9").has_value());
  EXPECT_FALSE(ParseSemantics("").has_value());
}

TEST(SemanticsTest, KernelRefusesAProfileOutsideTheEnum) {
  KernelOptions options;
  options.semantics = static_cast<Semantics>(7);
  auto kernel = Kernel::Create({}, options);
  ASSERT_FALSE(kernel.ok());
  EXPECT_THAT(std::string(kernel.status().message()), HasSubstr("yunikorn-1.2, yunikorn-1.9"));
  EXPECT_EQ(Kernel::Create({}, {}).value()->options().semantics, Semantics::kYunikorn12);
}

// Two leaves without guarantees: a (max memory 100) holds 50, b holds 200. Under 1.9 their
// shares are 50/100 and 200/cluster, so the cluster's size decides who goes first, and a node
// that joins re-orders the queues. (Fails without Partition::ClusterCapacityChanged: the keys
// keep the old size and CheckConsistency finds them stale.)
class FairMaxTest : public ::testing::TestWithParam<Semantics> {
 protected:
  void SetUp() override {
    SchedulerConfig config = test_support::RootWith(
        {test_support::Leaf("a", QuantityMap{{"memory", 100}}), test_support::Leaf("b")});
    auto created = Kernel::Create(std::move(config), {.semantics = GetParam()});
    ASSERT_TRUE(created.ok()) << created.status();
    kernel_ = std::move(*created);
    Ok(kernel_->AddNode({.id = "n1", .capacity = {{"memory", 300}}}, &out_));
    Ok(kernel_->AddApplication({.id = "app-a", .queue = "root.a", .user = "u"}, &out_));
    Ok(kernel_->AddApplication({.id = "app-b", .queue = "root.b", .user = "u"}, &out_));
    Ok(kernel_->AddAsk({.app = "app-a", .id = "a1", .resources = {{"memory", 50}}}, &out_));
    Ok(kernel_->AddAsk({.app = "app-b", .id = "b1", .resources = {{"memory", 200}}}, &out_));
    EXPECT_EQ(Allocated(0).size(), 2u);
  }
  void Ok(const absl::Status& status) { ASSERT_TRUE(status.ok()) << status; }
  std::vector<std::string> Allocated(int64_t max) {
    out_.clear();
    EXPECT_TRUE(kernel_->Schedule(max, "", &out_).ok());
    EXPECT_TRUE(kernel_->CheckConsistency().ok()) << kernel_->CheckConsistency();
    std::vector<std::string> apps;
    for (const Decision& d : out_) {
      if (d.type == DecisionType::kAllocation) apps.emplace_back(d.app);
    }
    return apps;
  }
  void AskBoth() {
    Ok(kernel_->AddAsk({.app = "app-a", .id = "a2", .resources = {{"memory", 10}}}, &out_));
    Ok(kernel_->AddAsk({.app = "app-b", .id = "b2", .resources = {{"memory", 10}}}, &out_));
  }
  std::unique_ptr<Kernel> kernel_;
  std::vector<Decision> out_;
};

TEST_P(FairMaxTest, ANodeThatJoinsReordersTheQueuesUnder19) {
  AskBoth();
  // Cluster 300: a 0.5 < b 0.67 (1.9); raw 50 < 200 (1.2). a first either way.
  Ok(kernel_->AddNode({.id = "n2", .capacity = {{"memory", 1000}}}, &out_));
  ASSERT_TRUE(kernel_->CheckConsistency().ok()) << kernel_->CheckConsistency();
  // Cluster 1,300: b's share is 200/1300 = 0.15 < a's 0.5 under 1.9; v1.2.0 still compares raw.
  if (GetParam() == Semantics::kYunikorn19) {
    EXPECT_THAT(Allocated(1), ElementsAre("app-b"));
  } else {
    EXPECT_THAT(Allocated(1), ElementsAre("app-a"));
  }
  // The node goes again: the cluster is back to 300 and a's 0.5 is below b's 0.7.
  Ok(kernel_->RemoveNode("default", "n2", &out_));
  ASSERT_TRUE(kernel_->CheckConsistency().ok()) << kernel_->CheckConsistency();
}

INSTANTIATE_TEST_SUITE_P(Profiles, FairMaxTest,
                         ::testing::Values(Semantics::kYunikorn12, Semantics::kYunikorn19),
                         [](const ::testing::TestParamInfo<Semantics>& param_info) {
                           return param_info.param == Semantics::kYunikorn12 ? "v12" : "v19";
                         });

TEST(SemanticsTest, EffectiveQueuesReadStateawareAsFifoUnder19) {
  PartitionConfig p;
  p.name = "default";
  QueueConfig& root = p.queues.emplace_back();
  root.name = "root";
  QueueConfig& leaf = root.queues.emplace_back();
  leaf.name = "a";
  leaf.properties = {{"application.sort.policy", "stateaware"}};
  EXPECT_EQ(EffectiveQueues(p)[1].app_sort_policy, "stateaware");
  EXPECT_EQ(EffectiveQueues(p, Semantics::kYunikorn19)[1].app_sort_policy, "fifo");
}

TEST(SemanticsTest, ValidationFollowsTheProfilesCharacterSetsAndKeys) {
  SchedulerConfig config;
  PartitionConfig& p = config.partitions.emplace_back();
  p.name = "default";
  p.state_dump_file_path = "/tmp/x";
  QueueConfig& root = p.queues.emplace_back();
  root.name = "root";
  root.queues.emplace_back().name = "ns#1";
  auto errors = [](SchedulerConfig c, Semantics s) {
    std::vector<std::string> out;
    for (const ConfigError& e : ValidateConfig(c, s)) {
      if (!e.warning) out.push_back(e.field);
    }
    return out;
  };
  EXPECT_THAT(errors(config, Semantics::kYunikorn12), ElementsAre("name"));
  EXPECT_THAT(errors(config, Semantics::kYunikorn19), ElementsAre("statedumpfilepath"));
}

}  // namespace
}  // namespace allocore
