// Kernel::ReleaseUnusedNames: uniquely named applications, asks and users come and go, and the
// name table stays at the size of what is alive; what is still referred to keeps its name.
#include <string>
#include <vector>

#include "allocore/kernel.h"
#include "gtest/gtest.h"
#include "support/configs.h"

namespace allocore {
namespace {

SchedulerConfig UserQueues() {
  SchedulerConfig config = test_support::RootWith({});
  // Every user gets a dynamic leaf, removed once drained: queues come and go too.
  PlacementRuleConfig& rule = config.partitions[0].placement_rules.emplace_back();
  rule.name = "user";
  rule.create = true;
  return config;
}

class NamesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto created = Kernel::Create(UserQueues());
    ASSERT_TRUE(created.ok()) << created.status();
    kernel_ = std::move(*created);
    ASSERT_TRUE(
        kernel_->AddNode({.id = "node-1", .capacity = {{"memory", 1000}, {"vcore", 100}}}, &out_)
            .ok());
  }
  // One application with one ask of a unique user, allocated, then removed.
  void PassThrough(int i) {
    const std::string app = "app-" + std::to_string(i);
    ASSERT_TRUE(kernel_
                    ->AddApplication({.id = app,
                                      .user = "user-" + std::to_string(i),
                                      .groups = {"group-" + std::to_string(i)}},
                                     &out_)
                    .ok());
    ASSERT_TRUE(kernel_
                    ->AddAsk({.app = app,
                              .id = "ask-" + std::to_string(i),
                              .resources = {{"memory", 10}},
                              .task_group = "tg-" + std::to_string(i)},
                             &out_)
                    .ok());
    ASSERT_EQ(*kernel_->Schedule(0, "", &out_), 1);
    ASSERT_TRUE(kernel_->RemoveApplication("default", app, &out_).ok());
    ASSERT_TRUE(kernel_->Advance(60 * 60 * 1000, &out_).ok());  // completion timers fire
    out_.clear();
  }

  std::unique_ptr<Kernel> kernel_;
  std::vector<Decision> out_;
};

TEST_F(NamesTest, UniqueNamesDoNotAccumulate) {
  int64_t after_first_round = 0;
  for (int round = 0; round < 4; ++round) {
    for (int i = 0; i < 500; ++i) PassThrough(round * 500 + i);
    // Terminated applications are remembered for three days before they expire.
    ASSERT_TRUE(kernel_->Advance(int64_t{4} * 24 * 60 * 60 * 1000, &out_).ok());
    out_.clear();
    EXPECT_GT(kernel_->ReleaseUnusedNames(), 0);
    ASSERT_TRUE(kernel_->CheckConsistency().ok()) << kernel_->CheckConsistency();
    if (round == 0) after_first_round = kernel_->name_count();
    EXPECT_EQ(kernel_->name_count(), after_first_round) << "round " << round;
  }
  // What remains is the configuration's and the node's names, not the applications'.
  EXPECT_LT(after_first_round, 20);
}

TEST_F(NamesTest, NamesInUseSurviveARelease) {
  ASSERT_TRUE(kernel_->AddApplication({.id = "kept", .user = "alice"}, &out_).ok());
  ASSERT_TRUE(
      kernel_
          ->AddAsk({.app = "kept", .id = "kept-ask", .resources = {{"memory", 10}}, .count = 2},
                   &out_)
          .ok());
  ASSERT_EQ(*kernel_->Schedule(1, "", &out_), 1);
  // Another user's application comes and goes without being scheduled.
  ASSERT_TRUE(kernel_->AddApplication({.id = "gone", .user = "bob"}, &out_).ok());
  ASSERT_TRUE(
      kernel_->AddAsk({.app = "gone", .id = "gone-ask", .resources = {{"memory", 1}}}, &out_).ok());
  ASSERT_TRUE(kernel_->RemoveApplication("default", "gone", &out_).ok());
  ASSERT_TRUE(kernel_->Advance(int64_t{4} * 24 * 60 * 60 * 1000, &out_).ok());

  out_.clear();
  EXPECT_GT(kernel_->ReleaseUnusedNames(), 0);
  // The application, its ask, the node and the user's dynamic queue keep their names: the
  // next decisions and queries carry them.
  ASSERT_EQ(*kernel_->Schedule(0, "", &out_), 1);
  ASSERT_EQ(out_.size(), 1u);
  EXPECT_EQ(out_[0].app, "kept");
  EXPECT_EQ(out_[0].ask, "kept-ask");
  EXPECT_EQ(out_[0].node, "node-1");
  EXPECT_EQ(out_[0].queue, "root.alice");
  out_.clear();
  ASSERT_TRUE(kernel_->ReleaseAllocation("default", "kept", "kept-ask", "", &out_).ok());
  ASSERT_EQ(out_.size(), 1u);
  EXPECT_EQ(out_[0].app, "kept");
  // Once its last allocation goes the application completes; a completed application whose
  // dynamic queue has gone still reports both until it expires.
  out_.clear();
  ASSERT_TRUE(kernel_->ReleaseAllocation("default", "kept", "kept-ask", "", &out_).ok());
  ASSERT_TRUE(kernel_->Advance(60 * 60 * 1000, &out_).ok());
  EXPECT_FALSE(kernel_->GetQueue("default", "root.alice").ok()) << "the drained queue stays";
  out_.clear();
  kernel_->ReleaseUnusedNames();
  auto info = kernel_->GetApplication("default", "kept");
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->id, "kept");
  EXPECT_EQ(info->queue, "root.alice");
  ASSERT_TRUE(kernel_->CheckConsistency().ok()) << kernel_->CheckConsistency();
}

}  // namespace
}  // namespace allocore
