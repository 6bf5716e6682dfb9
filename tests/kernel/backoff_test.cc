// The unschedulable-ask backoff (YUNIKORN-3115) through the public API: the properties as each
// profile reads them (inheritance, templates, values YuniKorn reads as the default), and what
// ExplainPending and Probe say about a backed-off application until its deadline passes.
#include <memory>
#include <string>
#include <vector>

#include "allocore/config.h"
#include "allocore/kernel.h"
#include "gtest/gtest.h"
#include "support/configs.h"
#include "support/profiles.h"

namespace allocore {
namespace {

class BackoffTest : public ::testing::TestWithParam<Semantics> {
 protected:
  // root (backoff 1, delay `delay`) > parent > leaf; root.dyn's template sets backoff 1.
  void Create(const std::string& backoff, const std::string& delay) {
    QueueConfig dyn = test_support::Parent("dyn", {});
    dyn.child_template = ChildTemplateConfig{};
    dyn.child_template->properties = {{"application.unschedasks.backoff", "1"}};
    SchedulerConfig config = test_support::RootWith(
        {test_support::Parent("parent", {test_support::Leaf("leaf")}), std::move(dyn)});
    config.partitions[0].placement_rules.push_back({.name = "provided", .create = true});
    test_support::Root(config).properties = {{"application.unschedasks.backoff", backoff},
                                             {"application.unschedasks.backoff.delay", delay}};
    auto created = Kernel::Create(std::move(config), {.semantics = GetParam()});
    ASSERT_TRUE(created.ok()) << created.status();
    kernel_ = std::move(*created);
    // Two nodes of 30: an ask of 40 is within the queues' headroom (the cluster's 60), so it
    // is tried and found unschedulable (an ask over the headroom is skipped without counting).
    for (const char* node : {"n1", "n2"}) {
      ASSERT_TRUE(kernel_->AddNode({.id = node, .capacity = {{"memory", 30}}}, &out_).ok());
    }
  }
  bool V19() const { return GetParam() == Semantics::kYunikorn19; }
  // An app in `queue` with two asks no node fits and a third that fits.
  void AddApp(const std::string& id, const std::string& queue) {
    ASSERT_TRUE(kernel_->AddApplication({.id = id, .queue = queue, .user = "u"}, &out_).ok());
    for (const char* ask : {"big-1", "big-2"}) {
      ASSERT_TRUE(
          kernel_->AddAsk({.app = id, .id = ask, .resources = {{"memory", 40}}}, &out_).ok());
    }
    ASSERT_TRUE(
        kernel_
            ->AddAsk({.app = id, .id = "small", .resources = {{"memory", 1}}, .priority = -1},
                     &out_)
            .ok());
  }
  std::string Reason(const std::string& app, const std::string& ask) {
    for (const PendingExplanation& e : kernel_->ExplainPending()) {
      if (e.app == app && e.ask == ask) return e.reason;
    }
    return "(not pending)";
  }

  std::unique_ptr<Kernel> kernel_;
  std::vector<Decision> out_;
};

INSTANTIATE_TEST_SUITE_P(Profiles, BackoffTest, test_support::EachProfile(),
                         test_support::ProfileName);

// A configured leaf inherits the root's properties; after one unschedulable ask the next
// request backs the app off for the delay, and both queries say so until it ends.
TEST_P(BackoffTest, ConfiguredLeafInheritsAndQueriesSayUntilWhen) {
  Create("1", "5s");
  AddApp("app-1", "root.parent.leaf");
  ASSERT_TRUE(kernel_->Schedule(0, "", &out_).ok());
  if (!V19()) {
    // v1.2.0 has no backoff: the small ask is allocated at once.
    EXPECT_EQ(Reason("app-1", "small"), "(not pending)");
    return;
  }
  const int64_t deadline = kernel_->now_millis() + 5000;
  const std::string reason = Reason("app-1", "small");
  EXPECT_EQ(
      reason.rfind(
          "application backed off for 5s more (until t=" + std::to_string(deadline) + "ms)", 0),
      0u)
      << reason;
  EXPECT_NE(reason.find("application.unschedasks.backoff 1 of queue root.parent.leaf"),
            std::string::npos)
      << reason;
  absl::StatusOr<ProbeResult> probe =
      kernel_->Probe({.app = "app-1", .resources = {{"memory", 1}}});
  ASSERT_TRUE(probe.ok()) << probe.status();
  EXPECT_TRUE(probe->node.empty());
  EXPECT_EQ(probe->reason, reason);
  // Not over until the deadline, whatever changes meanwhile (a node that fits everything).
  ASSERT_TRUE(kernel_->AddNode({.id = "n3", .capacity = {{"memory", 500}}}, &out_).ok());
  ASSERT_TRUE(kernel_->Advance(4999, &out_).ok());
  EXPECT_EQ(kernel_->Schedule(0, "", &out_).value(), 0);
  ASSERT_TRUE(kernel_->Advance(1, &out_).ok());
  EXPECT_EQ(kernel_->Schedule(0, "", &out_).value(), 3);
  EXPECT_TRUE(kernel_->CheckConsistency().ok());
}

// A dynamic leaf takes the backoff from its parent's template only.
TEST_P(BackoffTest, DynamicLeafReadsTheTemplate) {
  Create("0", "30s");  // the root: off
  AddApp("app-1", "root.dyn.team");
  ASSERT_TRUE(kernel_->Schedule(0, "", &out_).ok());
  EXPECT_EQ(Reason("app-1", "small").rfind("application backed off for 30s more", 0) == 0, V19())
      << Reason("app-1", "small");
}

// Values YuniKorn does not parse read as the defaults: backoff 0 (off), delay 30s.
TEST_P(BackoffTest, UnparsableValuesReadAsTheDefaults) {
  Create("-1", "bogus");
  AddApp("app-1", "root.parent.leaf");
  ASSERT_TRUE(kernel_->Schedule(0, "", &out_).ok());
  EXPECT_EQ(Reason("app-1", "small"), "(not pending)");  // no backoff: allocated
  Create("1", "-3s");
  AddApp("app-1", "root.parent.leaf");
  ASSERT_TRUE(kernel_->Schedule(0, "", &out_).ok());
  EXPECT_EQ(Reason("app-1", "small").rfind("application backed off for 30s more", 0) == 0, V19())
      << Reason("app-1", "small");
}

// YuniKorn 1.9 prunes zero quantities from the partition total, the root's max: a type no node
// has any of (here a node reports gpu 0) limits nothing at the root, so asks for it pass the
// headroom, find no node and count; v1.2.0 kept the zero, and its headroom skips them without
// counting. With no quantity above zero left the root has no max and 1.9 does not schedule the
// partition at all: nothing counts, so nothing backs off.
TEST_P(BackoffTest, ATypeNoNodeHasCountsAndAnEmptyClusterIsNotScheduled) {
  Create("2", "30s");
  ASSERT_TRUE(kernel_->AddNode({.id = "n3", .capacity = {{"memory", 30}, {"gpu", 0}}}, &out_).ok());
  ASSERT_TRUE(
      kernel_->AddApplication({.id = "app-1", .queue = "root.parent.leaf", .user = "u"}, &out_)
          .ok());
  for (const char* ask : {"gpu-1", "gpu-2"}) {
    ASSERT_TRUE(kernel_
                    ->AddAsk({.app = "app-1",
                              .id = ask,
                              .resources = {{"memory", 1}, {"gpu", 1}},
                              .priority = 1},
                             &out_)
                    .ok());
  }
  ASSERT_TRUE(
      kernel_->AddAsk({.app = "app-1", .id = "small", .resources = {{"memory", 1}}}, &out_).ok());
  ASSERT_TRUE(kernel_->Schedule(0, "", &out_).ok());
  if (!V19()) {
    EXPECT_EQ(Reason("app-1", "small"), "(not pending)");
    EXPECT_EQ(Reason("app-1", "gpu-1").rfind("queue root headroom too small: lacks {gpu: 1}", 0),
              0u)
        << Reason("app-1", "gpu-1");
    return;
  }
  EXPECT_EQ(Reason("app-1", "small").rfind("application backed off for 30s more", 0), 0u)
      << Reason("app-1", "small");
  // Every node leaves; once the backoff is over, the empty cluster is not scheduled.
  for (const char* node : {"n1", "n2", "n3"}) {
    ASSERT_TRUE(kernel_->RemoveNode("default", node, &out_).ok());
  }
  ASSERT_TRUE(kernel_->Advance(30000, &out_).ok());
  EXPECT_EQ(kernel_->Schedule(0, "", &out_).value(), 0);
  EXPECT_EQ(Reason("app-1", "gpu-1"),
            "no resources in the partition: no node reports a quantity above zero");
  // Had that walk run, the gpu asks would have backed the app off again.
  ASSERT_TRUE(kernel_->AddNode({.id = "n4", .capacity = {{"memory", 30}, {"gpu", 2}}}, &out_).ok());
  EXPECT_EQ(kernel_->Schedule(0, "", &out_).value(), 3);
  EXPECT_TRUE(kernel_->CheckConsistency().ok());
}

}  // namespace
}  // namespace allocore
