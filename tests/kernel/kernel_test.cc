// Kernel behaviour through the public API: the orders of the shared conformance scenarios
// built as direct calls, refused calls that change nothing, timers, and cache consistency.
#include "allocore/kernel.h"

#include <algorithm>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace allocore {
namespace {

using ::testing::ElementsAre;

QueueConfig Leaf(std::string name, PropertyMap properties = {}) {
  QueueConfig q;
  q.name = std::move(name);
  q.properties = std::move(properties);
  return q;
}

QueueConfig Parent(std::string name, std::vector<QueueConfig> children, PropertyMap props = {}) {
  QueueConfig q;
  q.name = std::move(name);
  q.queues = std::move(children);
  q.properties = std::move(props);
  return q;
}

SchedulerConfig Config(std::vector<QueueConfig> top, std::string node_policy = "") {
  SchedulerConfig config;
  PartitionConfig& p = config.partitions.emplace_back();
  p.name = "default";
  QueueConfig root = Parent("root", std::move(top));
  root.submit_acl = "*";
  p.queues.push_back(std::move(root));
  p.node_sort_policy.type = std::move(node_policy);
  return config;
}

class KernelTest : public ::testing::Test {
 protected:
  void Start(SchedulerConfig config) {
    auto created = Kernel::Create(std::move(config));
    ASSERT_TRUE(created.ok()) << created.status();
    kernel_ = std::move(*created);
  }
  void Node(std::string id, int64_t memory, int64_t vcore) {
    ASSERT_TRUE(
        kernel_->AddNode({.id = id, .capacity = {{"memory", memory}, {"vcore", vcore}}}, &out_)
            .ok());
  }
  void App(std::string id, std::string queue, std::string user = "u1") {
    Tick();
    ASSERT_TRUE(kernel_->AddApplication({.id = id, .queue = queue, .user = user}, &out_).ok());
  }
  void Ask(std::string app, std::string id, int64_t memory, int64_t vcore, int32_t priority = 0,
           int64_t count = 1) {
    Tick();
    Quantities resources{{"memory", memory}};
    if (vcore > 0) resources.push_back({"vcore", vcore});
    ASSERT_TRUE(kernel_
                    ->AddAsk({.app = app,
                              .id = id,
                              .resources = resources,
                              .priority = priority,
                              .count = count},
                             &out_)
                    .ok());
  }
  void Tick() { ASSERT_TRUE(kernel_->Advance(1, &out_).ok()); }
  void Schedule() {
    Tick();
    ASSERT_TRUE(kernel_->Schedule(0, "", &out_).ok());
    ASSERT_TRUE(kernel_->CheckConsistency().ok()) << kernel_->CheckConsistency();
  }
  // "app/ask@node" for every allocation so far.
  std::vector<std::string> Allocations() const {
    std::vector<std::string> result;
    for (const Decision& d : out_) {
      if (d.type == DecisionType::kAllocation) {
        result.push_back(std::string(d.app) + "/" + std::string(d.ask) + "@" + std::string(d.node));
      }
    }
    return result;
  }

  std::unique_ptr<Kernel> kernel_;
  std::vector<Decision> out_;
};

TEST_F(KernelTest, PriorityTreeOfSeed000FollowsEffectivePriorities) {
  Start(Config({Parent("system", {Leaf("system-normal", {{"priority.offset", "0"}}),
                                  Leaf("system-high", {{"priority.offset", "1000"}}),
                                  Leaf("system-low", {{"priority.offset", "-1000"}})}),
                Parent("tenants",
                       {Parent("tenant-a", {Leaf("child-a-1"), Leaf("child-a-2")},
                               {{"priority.policy", "fence"}, {"priority.offset", "10"}}),
                        Parent("tenant-b", {Leaf("child-b-1"), Leaf("child-b-2")},
                               {{"priority.policy", "fence"}, {"priority.offset", "0"}})},
                       {{"priority.policy", "fence"}})}));
  Node("node-1", 100000, 1000);
  App("high", "root.system.system-high");
  App("normal", "root.system.system-normal");
  App("low", "root.system.system-low");
  App("a1", "root.tenants.tenant-a.child-a-1");
  App("a2", "root.tenants.tenant-a.child-a-2");
  App("b1", "root.tenants.tenant-b.child-b-1");
  App("b2", "root.tenants.tenant-b.child-b-2");
  Ask("high", "p1", 10, 1, 1);
  Ask("normal", "p10", 10, 1, 10);
  Ask("normal", "p2", 10, 1, 2);
  Ask("low", "p3", 10, 1, 3);
  Ask("a1", "p8", 10, 1, 8);
  Ask("a1", "p5", 10, 1, 5);
  Ask("a2", "p6", 10, 1, 6);
  Ask("a2", "p4", 10, 1, 4);
  Ask("b1", "p9", 10, 1, 9);
  Ask("b1", "p7", 10, 1, 7);
  Ask("b2", "p8", 10, 1, 8);
  EXPECT_EQ(kernel_->GetQueue("default", "root.system").value().priority, 1001);
  EXPECT_EQ(kernel_->GetQueue("default", "root.system.system-low").value().priority, -997);
  EXPECT_EQ(kernel_->GetQueue("default", "root.tenants").value().priority, 0);
  EXPECT_EQ(kernel_->GetQueue("default", "root.tenants.tenant-a").value().priority, 10);
  Schedule();
  EXPECT_THAT(Allocations(),
              ElementsAre("high/p1@node-1", "normal/p10@node-1", "normal/p2@node-1", "a1/p8@node-1",
                          "a2/p6@node-1", "a1/p5@node-1", "a2/p4@node-1", "b1/p9@node-1",
                          "b2/p8@node-1", "b1/p7@node-1", "low/p3@node-1"));
  EXPECT_FALSE(kernel_->GetQueue("default", "root").value().has_pending_priority);
}

TEST_F(KernelTest, FairQueuesFollowGuaranteedShareThenPending) {
  QueueConfig small = Leaf("small");
  small.resources.guaranteed = QuantityMap{{"memory", 97}};
  QueueConfig large = Leaf("large");
  large.resources.guaranteed = QuantityMap{{"memory", 211}};
  Start(Config({small, large}));
  Node("node-1", 10000, 100);
  App("s", "root.small");
  App("l", "root.large");
  Ask("s", "s", 10, 0, 0, 5);
  Ask("l", "l", 10, 0, 0, 9);
  Schedule();
  std::vector<std::string> apps;
  for (const std::string& a : Allocations()) apps.push_back(a.substr(0, 1));
  EXPECT_THAT(apps,
              ElementsAre("l", "s", "l", "l", "s", "l", "l", "s", "l", "l", "s", "l", "l", "s"));
}

// The leaf order's btree holds compact entries (top share only); applications whose top
// shares tie are ordered by their next share, which only the full key holds.
TEST_F(KernelTest, FairAppsWithEqualTopShareGoByTheirNextShare) {
  Start(Config({Leaf("q", {{"application.sort.policy", "fair"}})}));
  Node("node-1", 10000, 100);
  App("a", "root.q");
  App("b", "root.q");
  Ask("a", "a1", 10, 5);
  Ask("b", "b1", 10, 3);
  Schedule();
  ASSERT_THAT(Allocations(), ElementsAre("a/a1@node-1", "b/b1@node-1"));
  // Shares now: a (10, 5), b (10, 3); b is further below its share.
  Ask("a", "a2", 1, 0);
  Ask("b", "b2", 1, 0);
  Schedule();
  EXPECT_THAT(Allocations(),
              ElementsAre("a/a1@node-1", "b/b1@node-1", "b/b2@node-1", "a/a2@node-1"));
}

// EffectiveQueues (what `allocore check` prints) reads properties the way the kernel does:
// the running kernel reports the same leafness, sort policy and priority settings per queue.
TEST_F(KernelTest, EffectiveQueuesAgreeWithTheRunningKernel) {
  SchedulerConfig config =
      Config({Parent("tenants",
                     {Leaf("fair", {{"application.sort.policy", "fair"}}),
                      Leaf("typo", {{"application.sort.policy", "FAIR"}, {"priority.offset", "x"}}),
                      Parent("fenced", {Leaf("inner", {{"priority.offset", "-7"}})},
                             {{"priority.policy", "Fence"}, {"priority.offset", "12"}})},
                     {{"application.sort.policy", "stateaware"},
                      {"application.sort.priority", "Disabled"},
                      {"priority.offset", "3"}}),
              Leaf("plain")});
  std::vector<EffectiveQueue> effective = EffectiveQueues(config.partitions[0]);
  Start(config);
  ASSERT_EQ(effective.size(), 7u);
  for (const EffectiveQueue& e : effective) {
    SCOPED_TRACE(e.path);
    absl::StatusOr<QueueInfo> info = kernel_->GetQueue("default", e.path);
    ASSERT_TRUE(info.ok()) << info.status();
    EXPECT_EQ(e.leaf, info->is_leaf);
    EXPECT_EQ(e.depth, info->depth);
    EXPECT_EQ(e.leaf ? e.app_sort_policy : "fair", info->sort_policy);
    EXPECT_EQ(e.priority_sort_enabled, info->priority_sort_enabled);
    EXPECT_EQ(e.priority_fenced, info->fenced);
    EXPECT_EQ(e.priority_offset, info->offset);
  }
  // Inheritance: priority.* is reset for children, the rest carries over.
  EXPECT_EQ(effective[2].path, "root.tenants.fair");
  EXPECT_EQ(effective[2].app_sort_policy, "fair");
  EXPECT_FALSE(effective[2].priority_sort_enabled);
  EXPECT_EQ(effective[2].priority_offset, 0);
  EXPECT_EQ(effective[3].app_sort_policy, "fifo");  // "FAIR" is not understood
  EXPECT_EQ(effective[5].path, "root.tenants.fenced.inner");
  EXPECT_EQ(effective[5].priority_offset, -7);
  EXPECT_EQ(effective[5].app_sort_policy, "stateaware");
}

TEST_F(KernelTest, NodeFairPicksLeastUsedThenId) {
  Start(Config({Leaf("q")}));
  Node("node-b", 400, 40);
  Node("node-a", 100, 10);
  Node("node-c", 200, 20);
  App("app", "root.q");
  Ask("app", "t", 50, 5, 0, 8);
  Schedule();
  EXPECT_THAT(Allocations(),
              ElementsAre("app/t@node-a", "app/t@node-b", "app/t@node-c", "app/t@node-b",
                          "app/t@node-b", "app/t@node-c", "app/t@node-b", "app/t@node-a"));
}

// Equal scores are ordered by node id through ranks the partition deals (kernel/README
// decision 36). Ids that arrive in descending order, or always into the same gap, exhaust the
// gaps between ranks and make the partition deal them all again; ids that share their first
// 16 bytes differ only past them. The order must stay the byte order of the ids throughout.
TEST_F(KernelTest, EqualScoresGoByNodeIdWhateverOrderTheNodesCameIn) {
  Start(Config({Leaf("q")}));
  std::vector<std::string> ids;
  for (int i = 99; i >= 40; --i) ids.push_back("openb-node-0000-r" + std::to_string(i));
  for (int i = 0; i < 40; ++i)
    ids.push_back("openb-node-0000-r3" + std::string(static_cast<size_t>(i) + 1, '5'));
  for (const std::string& id : ids) Node(id, 100, 10);
  ASSERT_TRUE(kernel_->CheckConsistency().ok()) << kernel_->CheckConsistency();
  App("app", "root.q");
  Ask("app", "t", 100, 10, 0, static_cast<int64_t>(ids.size()));
  Schedule();
  std::vector<std::string> expected;
  std::sort(ids.begin(), ids.end());
  for (const std::string& id : ids) expected.push_back("app/t@" + id);
  EXPECT_EQ(Allocations(), expected);
}

// Queue paths match case-insensitively (FindQueue looks a lower-cased path up in its index;
// most paths arrive lower-case and skip the copy).
TEST_F(KernelTest, ApplicationQueuePathMatchesWhateverItsCase) {
  Start(Config({Parent("team", {Leaf("q")})}));
  Node("node-1", 100, 10);
  App("app", "ROOT.Team.Q");
  Ask("app", "t", 10, 1);
  Schedule();
  EXPECT_THAT(Allocations(), ElementsAre("app/t@node-1"));
  ASSERT_FALSE(out_.empty());
  EXPECT_EQ(out_.back().queue, "root.team.q");
}

TEST_F(KernelTest, NodeBinpackingFillsMostUsedFirst) {
  Start(Config({Leaf("q")}, "binpacking"));
  Node("node-b", 100, 10);
  Node("node-a", 100, 10);
  Node("node-c", 300, 30);
  App("app", "root.q");
  Ask("app", "big", 70, 1, 0, 2);
  Ask("app", "small", 20, 2, -1, 6);
  Schedule();
  EXPECT_THAT(Allocations(), ElementsAre("app/big@node-a", "app/big@node-b", "app/small@node-a",
                                         "app/small@node-b", "app/small@node-c", "app/small@node-c",
                                         "app/small@node-c", "app/small@node-c"));
}

TEST_F(KernelTest, ReservationHidesNodeUntilItFreesUp) {
  Start(Config({Leaf("a"), Leaf("b")}));
  Node("node-1", 100, 10);
  Node("node-2", 100, 10);
  App("small", "root.a");
  Ask("small", "s1", 30, 1, 0, 2);
  Schedule();
  App("big", "root.b");
  Ask("big", "b1", 80, 1, 10);
  Schedule();
  ASSERT_TRUE(kernel_->Advance(3000, &out_).ok());
  Schedule();
  Ask("small", "s2", 10, 1, 0, 3);
  Schedule();
  Tick();
  ASSERT_TRUE(kernel_->ReleaseAllocation("default", "small", "s1", "node-1", &out_).ok());
  Schedule();
  Ask("small", "s3", 10, 1, 0, 2);
  Schedule();
  EXPECT_THAT(Allocations(), ElementsAre("small/s1@node-1", "small/s1@node-2", "small/s2@node-2",
                                         "small/s2@node-2", "small/s2@node-2", "big/b1@node-1",
                                         "small/s3@node-1", "small/s3@node-2"));
}

TEST_F(KernelTest, LeafMaxCapsTheQueueAndTheWalkMovesOn) {
  QueueConfig capped = Leaf("capped");
  capped.resources.max = QuantityMap{{"memory", 50}, {"vcore", 100000}};
  Start(Config({capped, Leaf("free")}));
  Node("node-1", 1000, 100);
  App("c", "root.capped");
  App("f", "root.free");
  Ask("c", "c20", 20, 1, 100, 3);
  Ask("c", "c10", 10, 1, 50, 2);
  Ask("f", "f", 30, 1, 1, 2);
  Schedule();
  EXPECT_THAT(Allocations(), ElementsAre("c/c20@node-1", "c/c20@node-1", "c/c10@node-1",
                                         "f/f@node-1", "f/f@node-1"));
}

TEST_F(KernelTest, SubmitAclRejectsWithReasonNamingUserAndQueue) {
  SchedulerConfig config = Config({Leaf("secure"), Leaf("closed")});
  config.partitions[0].queues[0].submit_acl = "";
  config.partitions[0].queues[0].queues[0].submit_acl = "alice,bob devs";
  Start(config);
  App("ok", "root.secure", "alice");
  App("bad", "root.secure", "carol");
  Tick();
  ASSERT_TRUE(
      kernel_
          ->AddApplication(
              {.id = "grp", .queue = "root.secure", .user = "dave", .groups = {"ops", "devs"}},
              &out_)
          .ok());
  std::vector<std::string> rejected;
  for (const Decision& d : out_) {
    if (d.type == DecisionType::kAppRejected) {
      rejected.emplace_back(d.app);
      EXPECT_THAT(d.reason, ::testing::HasSubstr("carol"));
      EXPECT_THAT(d.reason, ::testing::HasSubstr("root.secure"));
    }
  }
  EXPECT_THAT(rejected, ElementsAre("bad"));
}

TEST_F(KernelTest, RefusedCallsChangeNothing) {
  Start(Config({Leaf("q")}));
  Node("node-1", 100, 10);
  App("app", "root.q");
  Ask("app", "a", 10, 1, 5, 2);
  auto before = kernel_->ListQueues("default").value();
  size_t decisions = out_.size();
  EXPECT_FALSE(
      kernel_->AddAsk({.app = "nope", .id = "x", .resources = {{"memory", 1}}}, &out_).ok());
  EXPECT_FALSE(
      kernel_->AddAsk({.app = "app", .id = "x", .resources = {{"memory", -1}}}, &out_).ok());
  EXPECT_FALSE(
      kernel_->AddAsk({.app = "app", .id = "x", .resources = {{"memory", 0}}}, &out_).ok());
  EXPECT_FALSE(
      kernel_->AddAsk({.app = "app", .id = "x", .resources = {{"memory", 1}}, .count = 0}, &out_)
          .ok());
  EXPECT_FALSE(kernel_->AddNode({.id = "node-1", .capacity = {{"memory", 5}}}, &out_).ok());
  EXPECT_FALSE(kernel_->RemoveNode("default", "ghost", &out_).ok());
  EXPECT_FALSE(kernel_->ReleaseAllocation("default", "app", "a", "", &out_).ok());
  EXPECT_FALSE(kernel_->Advance(-1, &out_).ok());
  EXPECT_FALSE(kernel_->Schedule(0, "nope", &out_).ok());
  EXPECT_EQ(out_.size(), decisions);
  auto after = kernel_->ListQueues("default").value();
  ASSERT_EQ(before.size(), after.size());
  for (size_t i = 0; i < before.size(); ++i) {
    EXPECT_EQ(before[i].priority, after[i].priority);
    EXPECT_EQ(before[i].pending, after[i].pending);
    EXPECT_EQ(before[i].allocated, after[i].allocated);
  }
  EXPECT_TRUE(kernel_->CheckConsistency().ok());
}

TEST_F(KernelTest, AppStatesFollowAllocationsTimersAndCompletion) {
  Start(Config({Leaf("q")}));
  Node("node-1", 100, 10);
  App("app", "root.q");
  EXPECT_EQ(kernel_->GetApplication("default", "app").value().state, AppState::kNew);
  Ask("app", "a", 10, 1, 0, 1);
  EXPECT_EQ(kernel_->GetApplication("default", "app").value().state, AppState::kAccepted);
  Schedule();
  EXPECT_EQ(kernel_->GetApplication("default", "app").value().state, AppState::kStarting);
  ASSERT_TRUE(kernel_->Advance(5 * 60 * 1000, &out_).ok());
  EXPECT_EQ(kernel_->GetApplication("default", "app").value().state, AppState::kRunning);
  ASSERT_TRUE(kernel_->ReleaseAllocation("default", "app", "a", "", &out_).ok());
  EXPECT_EQ(kernel_->GetApplication("default", "app").value().state, AppState::kCompleting);
  ASSERT_TRUE(kernel_->Advance(30 * 1000, &out_).ok());
  EXPECT_EQ(kernel_->GetApplication("default", "app").value().state, AppState::kCompleted);
  EXPECT_TRUE(kernel_->CheckConsistency().ok());
  // The id may be reused once the application completed.
  App("app", "root.q");
  EXPECT_EQ(kernel_->GetApplication("default", "app").value().state, AppState::kNew);
}

TEST_F(KernelTest, StateAwareAdmitsOneAcceptedAppAtATime) {
  Start(Config({Leaf("q", {{"application.sort.policy", "stateaware"}})}));
  Node("node-1", 1000, 100);
  App("first", "root.q");
  App("second", "root.q");
  Ask("first", "a", 10, 1, 0, 1);
  Ask("second", "b", 10, 1, 9, 2);
  Schedule();
  // `first` (the oldest Accepted app) goes Starting with its only allocation and then blocks
  // the Accepted `second`, despite its higher priority, until the 5-minute timer fires.
  EXPECT_THAT(Allocations(), ElementsAre("first/a@node-1"));
  EXPECT_THAT(kernel_->ExplainPending()[0].reason, ::testing::HasSubstr("Starting"));
  ASSERT_TRUE(kernel_->Advance(5 * 60 * 1000, &out_).ok());
  EXPECT_EQ(kernel_->GetApplication("default", "first").value().state, AppState::kRunning);
  Schedule();
  EXPECT_THAT(Allocations(), ElementsAre("first/a@node-1", "second/b@node-1", "second/b@node-1"));
}

TEST_F(KernelTest, MaxApplicationsGatesAcceptedApps) {
  QueueConfig q = Leaf("q");
  q.max_applications = 1;
  Start(Config({q}));
  Node("node-1", 1000, 100);
  App("one", "root.q");
  App("two", "root.q");
  Ask("one", "a", 10, 1, 0, 1);
  Ask("two", "b", 10, 1, 0, 1);
  Schedule();
  EXPECT_THAT(Allocations(), ElementsAre("one/a@node-1"));
  auto explanations = kernel_->ExplainPending();
  ASSERT_EQ(explanations.size(), 1u);
  EXPECT_THAT(explanations[0].reason, ::testing::HasSubstr("maxapplications"));
}

TEST_F(KernelTest, ExplainNamesTheNodeTheWalkTakesOrTheClosestOne) {
  Start(Config({Leaf("q")}));
  Node("node-1", 100, 10);
  Node("node-2", 1000, 100);  // the fair order puts the less used first; both are empty
  App("x", "root.q");
  Ask("x", "small", 50, 1, 0, 1);
  Ask("x", "huge", 1050, 1, 0, 1);  // within the cluster (1100), above every node
  // Before scheduling, the explanation names the node the walk then takes.
  std::string node_named;
  for (const PendingExplanation& e : kernel_->ExplainPending()) {
    if (e.ask == "small") node_named = e.reason;
    if (e.ask == "huge") {
      EXPECT_THAT(e.reason, ::testing::HasSubstr("no node fits; closest is node-2, which lacks "
                                                 "{memory: 50}"));
    }
  }
  Schedule();
  ASSERT_THAT(Allocations(), ElementsAre(::testing::StartsWith("x/small@")));
  const std::string taken = Allocations()[0].substr(std::string("x/small@").size());
  EXPECT_EQ(node_named, "fits node " + taken + " now: will be allocated by the next schedule");
}

TEST_F(KernelTest, ReloadChangesOffsetsAtOnceAndRefusedReloadChangesNothing) {
  Start(Config({Leaf("a"), Leaf("b")}));
  Node("node-1", 1000, 100);
  App("x", "root.a");
  Ask("x", "k", 10, 1, 5, 1);
  EXPECT_EQ(kernel_->GetQueue("default", "root.a").value().priority, 5);
  SchedulerConfig next = Config({Leaf("a", {{"priority.offset", "100"}}), Leaf("b")});
  ASSERT_TRUE(kernel_->UpdateConfig(next, &out_).ok());
  EXPECT_EQ(kernel_->GetQueue("default", "root.a").value().priority, 105);
  EXPECT_EQ(kernel_->GetQueue("default", "root").value().priority, 105);
  // `a` holds an application: it cannot become a parent.
  SchedulerConfig bad = Config({Parent("a", {Leaf("inner")}), Leaf("b")});
  EXPECT_FALSE(kernel_->UpdateConfig(bad, &out_).ok());
  EXPECT_EQ(kernel_->GetQueue("default", "root.a").value().priority, 105);
  EXPECT_TRUE(kernel_->GetQueue("default", "root.a").value().is_leaf);
  EXPECT_TRUE(kernel_->CheckConsistency().ok());
}

// A reload whose types no longer fit the registry (the nodes took seven slots, the config adds
// a partition naming a ninth type) used to fail half-applied, leaving a null partition behind
// (the next call crashed). It is now refused before anything changes.
TEST_F(KernelTest, ReloadThatWouldOverflowTheTypesIsRefusedWhole) {
  Start(Config({Leaf("a")}));
  Quantities eight = {{"vcore", 1}, {"memory", 1}};
  for (const char* t : {"t1", "t2", "t3", "t4", "t5", "t6"}) eight.emplace_back(t, 1);
  ASSERT_TRUE(kernel_->AddNode({.id = "n1", .capacity = eight}, &out_).ok());
  SchedulerConfig next = Config({Leaf("a"), Leaf("b")});
  PartitionConfig second = next.partitions[0];
  second.name = "p2";
  second.queues[0].queues[0].resources.max = QuantityMap{{"gpu", 1}};
  next.partitions.push_back(second);
  absl::Status refused = kernel_->UpdateConfig(next, &out_);
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition) << refused;
  EXPECT_NE(refused.message().find("'gpu'"), std::string_view::npos) << refused;
  EXPECT_FALSE(kernel_->GetQueue("default", "root.b").ok());  // nothing applied
  EXPECT_FALSE(kernel_->GetQueue("p2", "root").ok());
  App("x", "root.a");
  Ask("x", "k", 1, 1);
  Schedule();
  EXPECT_EQ(Allocations(), std::vector<std::string>{"x/k@n1"});
  // Without the ninth type the same reload applies, the new partition included.
  next.partitions[1].queues[0].queues[0].resources.max = QuantityMap{{"t1", 1}};
  ASSERT_TRUE(kernel_->UpdateConfig(next, &out_).ok());
  EXPECT_TRUE(kernel_->GetQueue("default", "root.b").ok());
  EXPECT_TRUE(kernel_->GetQueue("p2", "root.a").ok());
  EXPECT_TRUE(kernel_->CheckConsistency().ok());
}

TEST_F(KernelTest, ExplainNamesTheLevelOverItsMaxAfterANodeShrinks) {
  Start(Config({Leaf("q")}));
  ASSERT_TRUE(
      kernel_->AddNode({.id = "n1", .capacity = {{"memory", 100}, {"gpu", 4}}}, &out_).ok());
  App("app", "root.q");
  Tick();
  ASSERT_TRUE(
      kernel_->AddAsk({.app = "app", .id = "g", .resources = {{"memory", 10}, {"gpu", 2}}}, &out_)
          .ok());
  Schedule();
  ASSERT_TRUE(
      kernel_->UpdateNode({.id = "n1", .capacity = Quantities{{"memory", 100}}}, &out_).ok());
  Ask("app", "plain", 10, 0);
  Schedule();
  EXPECT_EQ(Allocations().size(), 1u) << "the root is over its gpu max: nothing more fits";
  auto explanations = kernel_->ExplainPending();
  ASSERT_EQ(explanations.size(), 1u);
  EXPECT_THAT(explanations[0].reason, ::testing::HasSubstr("queue root cannot take the ask"));
}

}  // namespace
}  // namespace allocore
