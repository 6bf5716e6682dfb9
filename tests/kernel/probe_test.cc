// Kernel::Probe, the what-if query: it names the node the next schedule takes, agrees with
// ExplainPending word for word, and changes nothing (no state, no name, no resource type).
#include <random>
#include <string>
#include <vector>

#include "allocore/kernel.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/configs.h"

namespace allocore {
namespace {

using ::testing::HasSubstr;

QueueConfig Leaf(std::string name) {
  QueueConfig q;
  q.name = std::move(name);
  return q;
}

SchedulerConfig Config(std::vector<QueueConfig> leaves, std::string node_policy = "") {
  SchedulerConfig config = test_support::RootWith(std::move(leaves));
  config.partitions[0].node_sort_policy.type = std::move(node_policy);
  return config;
}

std::unique_ptr<Kernel> Create(SchedulerConfig config, KernelOptions options = {}) {
  auto created = Kernel::Create(std::move(config), options);
  EXPECT_TRUE(created.ok()) << created.status();
  return created.ok() ? std::move(*created) : nullptr;
}

// A random cluster drained by Schedule(0): whatever is still pending cannot be allocated, so
// the next Schedule(1) after adding one more ask allocates that ask or nothing, and the probe
// of the same ask must have said which.
TEST(ProbeTest, NamesTheNodeTheNextScheduleTakes) {
  int placed = 0, stopped = 0;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    std::mt19937_64 rng(seed);
    auto pick = [&](int64_t lo, int64_t hi) {
      return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
    };
    QueueConfig capped = Leaf("capped");
    capped.resources.max = QuantityMap{{"memory", pick(2, 20) * 1000}};
    QueueConfig one_app = Leaf("one-app");
    one_app.max_applications = 1;
    QueueConfig stateaware = Leaf("stateaware");
    stateaware.properties = {{"application.sort.policy", "stateaware"}};
    auto kernel = Create(
        Config({Leaf("open"), capped, one_app, stateaware}, seed % 2 ? "binpacking" : "fair"));
    ASSERT_NE(kernel, nullptr);
    std::vector<Decision> out;
    const int nodes = static_cast<int>(pick(1, 6));
    for (int n = 0; n < nodes; ++n) {
      ASSERT_TRUE(
          kernel
              ->AddNode({.id = "node-" + std::to_string(n),
                         .capacity = {{"memory", pick(4, 16) * 1000}, {"vcore", pick(2, 8) * 1000}},
                         .schedulable = pick(0, 5) != 0},
                        &out)
              .ok());
    }
    const std::vector<std::string> queues = {"root.open", "root.capped", "root.one-app",
                                             "root.stateaware"};
    const int apps = static_cast<int>(pick(1, 6));
    for (int a = 0; a < apps; ++a) {
      std::string app = "app-" + std::to_string(a);
      ASSERT_TRUE(
          kernel
              ->AddApplication(
                  {.id = app, .queue = queues[static_cast<size_t>(pick(0, 3))], .user = "u"}, &out)
              .ok());
      for (int k = static_cast<int>(pick(0, 3)); k > 0; --k) {
        ASSERT_TRUE(kernel
                        ->AddAsk({.app = app,
                                  .id = "ask-" + std::to_string(k),
                                  .resources = {{"memory", pick(1, 6) * 1000},
                                                {"vcore", pick(0, 3) * 1000}},
                                  .priority = static_cast<int32_t>(pick(0, 2)),
                                  .count = pick(1, 4)},
                                 &out)
                        .ok());
      }
    }
    for (int probe = 0; probe < 6; ++probe) {
      ASSERT_TRUE(kernel->Schedule(0, "", &out).ok());
      AskSpec spec{.app = "app-" + std::to_string(pick(0, apps - 1)),
                   .id = "probe-" + std::to_string(probe),
                   .resources = {{"memory", pick(1, 6) * 1000}, {"vcore", pick(0, 3) * 1000}},
                   .priority = static_cast<int32_t>(pick(0, 2))};
      const int64_t names = kernel->name_count();
      absl::StatusOr<ProbeResult> answer = kernel->Probe(spec);
      ASSERT_TRUE(answer.ok()) << answer.status();
      EXPECT_EQ(kernel->name_count(), names);
      EXPECT_EQ(answer->node.empty(), !answer->reason.empty()) << answer->reason;

      out.clear();
      ASSERT_TRUE(kernel->AddAsk(spec, &out).ok());
      ASSERT_TRUE(kernel->Schedule(1, "", &out).ok());
      std::vector<std::string> allocated;
      for (const Decision& d : out) {
        if (d.type == DecisionType::kAllocation) {
          allocated.push_back(std::string(d.app) + "/" + std::string(d.ask) + "@" +
                              std::string(d.node));
        }
      }
      if (answer->node.empty()) {
        EXPECT_TRUE(allocated.empty()) << "seed " << seed << ": the probe said '" << answer->reason
                                       << "' but " << allocated[0] << " came";
        ++stopped;
      } else {
        EXPECT_THAT(allocated,
                    ::testing::ElementsAre(spec.app + "/" + spec.id + "@" + answer->node))
            << "seed " << seed;
        ++placed;
      }
      ASSERT_TRUE(kernel->CheckConsistency().ok());
    }
  }
  // Both answers must be exercised, or the test proves nothing.
  EXPECT_GT(placed, 200);
  EXPECT_GT(stopped, 200);
}

// For an ask that is pending, the probe of the same spec gives ExplainPending's reason.
TEST(ProbeTest, AgreesWithExplainPending) {
  QueueConfig capped = Leaf("capped");
  capped.resources.max = QuantityMap{{"memory", 3000}};
  QueueConfig one_app = Leaf("one-app");
  one_app.max_applications = 1;
  auto kernel = Create(Config({Leaf("open"), capped, one_app}));
  ASSERT_NE(kernel, nullptr);
  std::vector<Decision> out;
  ASSERT_TRUE(
      kernel->AddNode({.id = "n1", .capacity = {{"memory", 4000}, {"vcore", 4000}}}, &out).ok());
  ASSERT_TRUE(
      kernel->AddNode({.id = "n2", .capacity = {{"memory", 8000}, {"vcore", 1000}}}, &out).ok());
  const std::vector<AskSpec> asks = {
      // Within the cluster's capacity, but no node has both.
      {.app = "big", .id = "a", .resources = {{"memory", 5000}, {"vcore", 4500}}},
      {.app = "capped", .id = "a", .resources = {{"memory", 3500}}},  // queue max
      {.app = "second", .id = "a", .resources = {{"memory", 100}}},   // maxapplications
      {.app = "first", .id = "a", .resources = {{"memory", 100}}, .count = 1}};
  ASSERT_TRUE(kernel->AddApplication({.id = "big", .queue = "root.open", .user = "u"}, &out).ok());
  ASSERT_TRUE(
      kernel->AddApplication({.id = "capped", .queue = "root.capped", .user = "u"}, &out).ok());
  ASSERT_TRUE(
      kernel->AddApplication({.id = "first", .queue = "root.one-app", .user = "u"}, &out).ok());
  ASSERT_TRUE(
      kernel->AddApplication({.id = "second", .queue = "root.one-app", .user = "u"}, &out).ok());
  ASSERT_TRUE(kernel->AddAsk(asks[3], &out).ok());
  ASSERT_TRUE(kernel->Schedule(0, "", &out).ok());
  for (size_t i = 0; i < 3; ++i) ASSERT_TRUE(kernel->AddAsk(asks[i], &out).ok());
  ASSERT_TRUE(kernel->Schedule(0, "", &out).ok());

  std::vector<PendingExplanation> pending = kernel->ExplainPending();
  ASSERT_EQ(pending.size(), 3u);
  for (const PendingExplanation& e : pending) {
    SCOPED_TRACE(e.app);
    const AskSpec* spec = nullptr;
    for (const AskSpec& a : asks) {
      if (a.app == e.app) spec = &a;
    }
    ASSERT_NE(spec, nullptr);
    absl::StatusOr<ProbeResult> answer = kernel->Probe(*spec);
    ASSERT_TRUE(answer.ok()) << answer.status();
    EXPECT_EQ(answer->reason, e.reason);
    EXPECT_EQ(answer->queue, e.queue);
    EXPECT_TRUE(answer->node.empty());
  }
  EXPECT_THAT(pending[0].reason, HasSubstr("no node fits"));
  EXPECT_THAT(pending[1].reason, HasSubstr("root.capped"));
  EXPECT_THAT(pending[2].reason, HasSubstr("maxapplications 1"));
}

// Probes interleaved with the calls leave the decision stream exactly as it is without them.
TEST(ProbeTest, ChangesNothing) {
  auto run = [](bool probe) {
    auto kernel = Create(Config({Leaf("a")}, "binpacking"));
    std::vector<Decision> out;
    std::vector<std::string> stream;
    auto maybe_probe = [&](const AskSpec& spec) {
      if (!probe) return;
      const int64_t names = kernel->name_count();
      const int types = kernel->resource_types().size();
      const Kernel::Usage usage = kernel->usage();
      EXPECT_TRUE(kernel->Probe(spec).ok());
      // An unknown type, an unknown required node and task group: nothing is registered.
      absl::StatusOr<ProbeResult> odd = kernel->Probe({.app = spec.app,
                                                       .resources = {{"nvidia.com/gpu", 1}},
                                                       .task_group = "never-seen",
                                                       .required_node = "nowhere"});
      EXPECT_TRUE(odd.ok()) << odd.status();
      if (odd.ok()) {
        EXPECT_EQ(odd->reason, "no node has resource type nvidia.com/gpu");
      }
      EXPECT_EQ(kernel->name_count(), names);
      EXPECT_EQ(kernel->resource_types().size(), types);
      EXPECT_EQ(kernel->usage().asks, usage.asks);
      EXPECT_TRUE(kernel->CheckConsistency().ok());
    };
    for (int n = 0; n < 3; ++n) {
      EXPECT_TRUE(kernel
                      ->AddNode({.id = "n" + std::to_string(n),
                                 .capacity = {{"memory", 4000}, {"vcore", 4000}}},
                                &out)
                      .ok());
    }
    for (int a = 0; a < 4; ++a) {
      std::string app = "app-" + std::to_string(a);
      EXPECT_TRUE(kernel->AddApplication({.id = app, .queue = "root.a", .user = "u"}, &out).ok());
      AskSpec spec{.app = app, .id = "x", .resources = {{"memory", 1500}}, .count = 2};
      maybe_probe(spec);
      EXPECT_TRUE(kernel->AddAsk(spec, &out).ok());
      maybe_probe(spec);
      EXPECT_TRUE(kernel->Schedule(1, "", &out).ok());
    }
    EXPECT_TRUE(kernel->Schedule(0, "", &out).ok());
    for (const Decision& d : out) {
      stream.push_back(std::to_string(static_cast<int>(d.type)) + " " + std::string(d.app) + "/" +
                       std::string(d.ask) + "@" + std::string(d.node));
    }
    return stream;
  };
  std::vector<std::string> without = run(false);
  EXPECT_EQ(run(true), without);
  EXPECT_GT(without.size(), 8u);
}

TEST(ProbeTest, RequiredNodeNamesTheNodeOrThePreemption) {
  auto kernel = Create(Config({Leaf("a")}));
  ASSERT_NE(kernel, nullptr);
  std::vector<Decision> out;
  ASSERT_TRUE(kernel->AddNode({.id = "n1", .capacity = {{"memory", 1000}}}, &out).ok());
  ASSERT_TRUE(kernel->AddNode({.id = "n2", .capacity = {{"memory", 4000}}}, &out).ok());
  ASSERT_TRUE(kernel->AddApplication({.id = "app", .queue = "root.a", .user = "u"}, &out).ok());
  AskSpec daemon{.app = "app", .resources = {{"memory", 1000}}, .required_node = "n2"};
  absl::StatusOr<ProbeResult> answer = kernel->Probe(daemon);
  ASSERT_TRUE(answer.ok());
  EXPECT_EQ(answer->node, "n2");
  // Three 1,300 allocations fill n2 (n1 is too small); the daemon then needs one of them.
  ASSERT_TRUE(
      kernel
          ->AddAsk({.app = "app", .id = "fill", .resources = {{"memory", 1300}}, .count = 3}, &out)
          .ok());
  ASSERT_TRUE(kernel->Schedule(0, "", &out).ok());
  answer = kernel->Probe(daemon);
  ASSERT_TRUE(answer.ok());
  EXPECT_EQ(answer->node, "");
  EXPECT_EQ(answer->preemption_victims, 1);
  EXPECT_THAT(answer->reason, HasSubstr("preempting 1 allocation(s) on n2"));
  daemon.priority = -1;  // the victims all have a higher priority
  answer = kernel->Probe(daemon);
  ASSERT_TRUE(answer.ok());
  EXPECT_EQ(answer->preemption_victims, 0);
  EXPECT_THAT(answer->reason, HasSubstr("no allocation there may be preempted"));
  answer = kernel->Probe({.app = "app", .resources = {{"memory", 1}}, .required_node = "n9"});
  ASSERT_TRUE(answer.ok());
  EXPECT_EQ(answer->reason, "required node n9 is not registered");
}

TEST(ProbeTest, FullAllocationBudgetStopsEveryProbe) {
  auto kernel = Create(Config({Leaf("a")}), {.max_live_allocations = 1});
  ASSERT_NE(kernel, nullptr);
  std::vector<Decision> out;
  ASSERT_TRUE(kernel->AddNode({.id = "n1", .capacity = {{"memory", 4000}}}, &out).ok());
  ASSERT_TRUE(kernel->AddApplication({.id = "app", .queue = "root.a", .user = "u"}, &out).ok());
  AskSpec spec{.app = "app", .id = "x", .resources = {{"memory", 1000}}};
  absl::StatusOr<ProbeResult> answer = kernel->Probe(spec);
  ASSERT_TRUE(answer.ok());
  EXPECT_EQ(answer->node, "n1");
  ASSERT_TRUE(kernel->AddAsk(spec, &out).ok());
  ASSERT_TRUE(kernel->Schedule(0, "", &out).ok());
  answer = kernel->Probe(spec);
  ASSERT_TRUE(answer.ok());
  EXPECT_EQ(answer->node, "");
  EXPECT_THAT(answer->reason, HasSubstr("live allocation budget is full"));
}

TEST(ProbeTest, RefusesWhatAddAskRefuses) {
  auto kernel = Create(Config({Leaf("a")}));
  ASSERT_NE(kernel, nullptr);
  std::vector<Decision> out;
  ASSERT_TRUE(kernel->AddApplication({.id = "app", .queue = "root.a", .user = "u"}, &out).ok());
  EXPECT_EQ(kernel->Probe({.app = "nobody", .resources = {{"memory", 1}}}).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(kernel->Probe({.partition = "elsewhere", .app = "app", .resources = {{"memory", 1}}})
                .status()
                .code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(kernel->Probe({.app = "app", .resources = {{"memory", 0}}}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(kernel->Probe({.app = "app", .resources = {{"memory", -5}}}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(kernel->Probe({.app = "app", .resources = {{"memory", 1}}, .count = 0}).status().code(),
            absl::StatusCode::kInvalidArgument);
  absl::Status long_name =
      kernel->Probe({.app = std::string(ApiLimits::kMaxNameBytes + 1, 'x')}).status();
  EXPECT_EQ(long_name.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(long_name.message(), HasSubstr("probe"));
  EXPECT_EQ(kernel->Probe({.app = "app", .resources = {{"memory", 1}}, .placeholder = true})
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace allocore
