// The walk and its verdict share one list of gates in one order (kernel/src/ask_gates.h):
// a required-node ask that can neither be allocated nor reserve its node ends every regular walk,
// and --explain and Kernel::Probe name it for the asks after it instead of a node; the required
// node's own gates come before the queue max, in the walk and in the verdict. Under both
// profiles: YuniKorn 1.2 and 1.9 both answer "Reserved" for such an ask (application.go
// tryAllocate, tryRequiredNode), the partition cannot reserve, and the cycle has had its result.
#include <random>
#include <string>
#include <vector>

#include "allocore/kernel.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/configs.h"
#include "support/kernel_fixture.h"
#include "support/profiles.h"

namespace allocore {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

class WalkGateOrderTest : public test_support::KernelFixture {};

class WalkEndTest : public ::testing::TestWithParam<Semantics> {
 protected:
  void Start(SchedulerConfig config) {
    auto created = Kernel::Create(std::move(config), {.semantics = GetParam()});
    ASSERT_TRUE(created.ok()) << created.status();
    kernel_ = std::move(*created);
  }
  void Ok(const absl::Status& status) {
    ASSERT_TRUE(status.ok()) << status;
    ASSERT_TRUE(kernel_->CheckConsistency().ok()) << kernel_->CheckConsistency();
  }
  // The allocations one Schedule(max) call makes, as "app/ask@node".
  std::vector<std::string> Schedule(int64_t max = 0) {
    out_.clear();
    auto made = kernel_->Schedule(max, "", &out_);
    EXPECT_TRUE(made.ok()) << made.status();
    EXPECT_TRUE(kernel_->CheckConsistency().ok()) << kernel_->CheckConsistency();
    std::vector<std::string> allocated;
    for (const Decision& d : out_) {
      if (d.type == DecisionType::kAllocation) {
        allocated.push_back(std::string(d.app) + "/" + std::string(d.ask) + "@" +
                            std::string(d.node));
      }
    }
    return allocated;
  }
  std::string Why(std::string_view ask) const {
    for (const PendingExplanation& e : kernel_->ExplainPending()) {
      if (e.ask == ask) return e.reason;
    }
    return "(not pending)";
  }

  std::unique_ptr<Kernel> kernel_;
  std::vector<Decision> out_;
};

// tests/scenarios/reqnode-starves-later-asks.yaml, call by call.
TEST_P(WalkEndTest, AnAskThatCannotReserveItsNodeStarvesTheAsksAfterIt) {
  Start(test_support::RootWith(test_support::Leaves({"a", "b"})));
  Ok(kernel_->AddNode({.id = "node-1", .capacity = {{"memory", 100}}}, &out_));
  Ok(kernel_->AddNode({.id = "node-2", .capacity = {{"memory", 1000}}}, &out_));
  Ok(kernel_->AddApplication({.id = "app-1", .queue = "root.a", .user = "u"}, &out_));
  Ok(kernel_->AddAsk(
      {.app = "app-1", .id = "ds", .resources = {{"memory", 500}}, .required_node = "node-1"},
      &out_));
  Ok(kernel_->AddApplication({.id = "app-2", .queue = "root.b", .user = "u"}, &out_));
  Ok(kernel_->AddAsk({.app = "app-2", .id = "k", .resources = {{"memory", 10}}}, &out_));

  EXPECT_THAT(Why("ds"), HasSubstr("required node node-1 lacks {memory: 400}; it cannot reserve "
                                   "node-1 either (it exceeds the node's capacity)"));
  const std::string starved =
      "the scheduling walk ends before this ask at app-1/ds in root.a, a required-node ask that "
      "can neither be allocated on node-1 nor reserve it; the walk ends there every cycle while "
      "it is pending";
  EXPECT_EQ(Why("k"), starved);
  // root.b sorts after root.a (nothing allocated, configuration order): an ask of app-2 waits.
  absl::StatusOr<ProbeResult> probe =
      kernel_->Probe({.app = "app-2", .resources = {{"memory", 10}}});
  ASSERT_TRUE(probe.ok()) << probe.status();
  EXPECT_EQ(probe->node, "");
  EXPECT_EQ(probe->reason, starved);
  // Unless it is of a higher priority: root.b then sorts first, and the walk tries it before ds.
  probe = kernel_->Probe({.app = "app-2", .resources = {{"memory", 10}}, .priority = 5});
  ASSERT_TRUE(probe.ok()) << probe.status();
  EXPECT_EQ(probe->node, "node-1");
  // In app-1 a higher priority sorts before ds; the same priority after it.
  probe = kernel_->Probe({.app = "app-1", .resources = {{"memory", 10}}, .priority = 1});
  ASSERT_TRUE(probe.ok()) << probe.status();
  EXPECT_EQ(probe->node, "node-1");
  probe = kernel_->Probe({.app = "app-1", .resources = {{"memory", 10}}});
  ASSERT_TRUE(probe.ok()) << probe.status();
  EXPECT_EQ(probe->reason, starved);

  EXPECT_THAT(Schedule(), IsEmpty()) << "the walk ends at ds every cycle";
  EXPECT_EQ(Why("k"), starved);
  Ok(kernel_->AddAsk({.app = "app-1", .id = "first", .resources = {{"memory", 10}}, .priority = 1},
                     &out_));
  EXPECT_EQ(Why("first"), "fits node node-1 now: will be allocated by the next schedule");
  EXPECT_EQ(Why("k"), starved);
  // Once root.a holds `first`, root.b sorts first (fair share) and the walk meets k before ds.
  EXPECT_THAT(Schedule(), ::testing::ElementsAre("app-1/first@node-1", "app-2/k@node-2"));
  EXPECT_THAT(Why("ds"), HasSubstr("it cannot reserve node-1 either"));
}

// The required node's own gates come before the max, in the walk (which tries the app's next ask
// when the node is not registered) and in the verdict. yunikorn-1.2: its root max refuses a type
// the cluster has none of, which the headroom lets through (1.9 prunes such types from the max).
TEST_F(WalkGateOrderTest, TheRequiredNodeIsCheckedBeforeTheMax) {
  Start(test_support::RootWith(test_support::Leaves({"q"})));
  Ok(kernel_->AddNode({.id = "n1", .capacity = {{"memory", 100}, {"gpu", 4}}}, &out_));
  Ok(kernel_->AddApplication({.id = "app", .queue = "root.q", .user = "u"}, &out_));
  Ok(kernel_->AddAsk({.app = "app", .id = "g", .resources = {{"memory", 10}, {"gpu", 2}}}, &out_));
  Schedule();
  // The root is over its gpu max now: the headroom takes a memory ask, the max does not.
  Ok(kernel_->UpdateNode({.id = "n1", .capacity = Quantities{{"memory", 100}}}, &out_));
  Ok(kernel_->AddAsk(
      {.app = "app", .id = "nowhere", .resources = {{"memory", 10}}, .required_node = "n9"},
      &out_));
  Ok(kernel_->AddAsk({.app = "app", .id = "plain", .resources = {{"memory", 10}}}, &out_));
  EXPECT_EQ(Why("nowhere"), "required node n9 is not registered");
  EXPECT_THAT(Why("plain"), HasSubstr("queue root cannot take the ask"));
  absl::StatusOr<ProbeResult> probe =
      kernel_->Probe({.app = "app", .resources = {{"memory", 10}}, .required_node = "n9"});
  ASSERT_TRUE(probe.ok()) << probe.status();
  EXPECT_EQ(probe->reason, "required node n9 is not registered");
  out_.clear();
  Schedule();
  for (const Decision& d : out_) EXPECT_NE(d.type, DecisionType::kAllocation) << d.ask;
}

// A random cluster with required-node asks that end the walk, drained by Schedule(0): the next
// Schedule(1) after adding one more ask allocates that ask or nothing, and its probe said which.
// The probe's own queues move in their orders as it is added (more pending, maybe a higher
// priority), which decides whether the walk meets the ask that ends it first.
TEST_P(WalkEndTest, ProbeNamesTheNodeOrTheWalksEndAsTheNextScheduleFinds) {
  int placed = 0, ended = 0, other = 0;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    std::mt19937_64 rng(seed);
    auto pick = [&](int64_t lo, int64_t hi) {
      return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
    };
    std::vector<QueueConfig> leaves = test_support::Leaves({"a", "b", "c"});
    leaves[1].properties = {{"application.sort.policy", "fifo"}};
    leaves[2].properties = {{"application.unschedasks.backoff", "2"}};
    SchedulerConfig config = test_support::RootWith(std::move(leaves));
    if (seed % 2) config.partitions[0].node_sort_policy.type = "binpacking";
    Start(std::move(config));
    const int nodes = static_cast<int>(pick(1, 4));
    for (int n = 0; n < nodes; ++n) {
      Ok(kernel_->AddNode(
          {.id = "node-" + std::to_string(n), .capacity = {{"memory", pick(4, 12) * 1000}}},
          &out_));
    }
    const std::vector<std::string> queues = {"root.a", "root.b", "root.c"};
    const int apps = static_cast<int>(pick(2, 6));
    for (int a = 0; a < apps; ++a) {
      Ok(kernel_->AddApplication({.id = "app-" + std::to_string(a),
                                  .queue = queues[static_cast<size_t>(pick(0, 2))],
                                  .user = "u"},
                                 &out_));
    }
    // A required node may be one that cannot take the ask whole (`ends_walk`: the walk ends
    // there), one it may fit, or one that is not registered.
    auto random_ask = [&](std::string id, bool* ends_walk) {
      AskSpec ask{.app = "app-" + std::to_string(pick(0, apps - 1)),
                  .id = std::move(id),
                  .resources = {{"memory", pick(1, 6) * 1000}},
                  .priority = static_cast<int32_t>(pick(0, 2)),
                  .count = pick(1, 2)};
      *ends_walk = false;
      switch (pick(0, 4)) {
        case 0:
          ask.required_node = "node-" + std::to_string(pick(0, nodes - 1));
          ask.resources = {{"memory", 13000}};
          *ends_walk = true;
          break;
        case 1:
          ask.required_node = "node-" + std::to_string(pick(0, nodes - 1));
          break;
        case 2:
          ask.required_node = "node-9";
          break;
        default:
          break;
      }
      return ask;
    };
    // Drained before the asks that end the walk come: none waits behind them that could be
    // allocated without them.
    std::vector<AskSpec> enders;
    for (int k = static_cast<int>(pick(2, 8)); k > 0; --k) {
      bool ends_walk = false;
      AskSpec ask = random_ask("ask-" + std::to_string(k), &ends_walk);
      if (ends_walk) {
        enders.push_back(std::move(ask));
        continue;
      }
      Ok(kernel_->AddAsk(ask, &out_));
      Schedule();
    }
    for (const AskSpec& ask : enders) Ok(kernel_->AddAsk(ask, &out_));
    for (int probe = 0; probe < 6; ++probe) {
      EXPECT_THAT(Schedule(), IsEmpty());
      bool ends_walk = false;
      AskSpec spec = random_ask("probe-" + std::to_string(probe), &ends_walk);
      absl::StatusOr<ProbeResult> answer = kernel_->Probe(spec);
      ASSERT_TRUE(answer.ok()) << answer.status();
      ASSERT_EQ(answer->node.empty(), !answer->reason.empty()) << answer->reason;
      Ok(kernel_->AddAsk(spec, &out_));
      std::vector<std::string> allocated = Schedule(1);
      if (answer->preemption_victims > 0) {
        // The preemptor frees the node within the same call: the ask may take it, and the
        // cluster is not drained any more.
        if (!allocated.empty()) {
          EXPECT_THAT(allocated,
                      ::testing::ElementsAre(spec.app + "/" + spec.id + "@" + spec.required_node));
        }
        break;
      }
      if (answer->node.empty()) {
        EXPECT_THAT(allocated, IsEmpty()) << "seed " << seed << " " << spec.app << "/" << spec.id
                                          << ": the probe said '" << answer->reason << "'";
        if (answer->reason.find("walk ends before") != std::string::npos) {
          ++ended;
        } else {
          ++other;
        }
      } else {
        EXPECT_THAT(allocated,
                    ::testing::ElementsAre(spec.app + "/" + spec.id + "@" + answer->node))
            << "seed " << seed;
        ++placed;
      }
      // What is left of it goes: the cluster stays drained.
      Ok(kernel_->RemoveAsk("default", spec.app, spec.id, &out_));
    }
  }
  // Every answer must be exercised, or the test proves nothing.
  EXPECT_GT(placed, 200);
  EXPECT_GT(ended, 150);
  EXPECT_GT(other, 400);
}

INSTANTIATE_TEST_SUITE_P(Profiles, WalkEndTest, test_support::EachProfile(),
                         test_support::ProfileName);

}  // namespace
}  // namespace allocore
