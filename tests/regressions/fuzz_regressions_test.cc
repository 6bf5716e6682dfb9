// Regressions found by the fuzzers (fuzz/), one test per finding, named after it. Each test is
// the minimal call sequence the fuzzer's input decodes to; the input itself is kept in
// fuzz/corpus/<target>/regression-<name> and replayed by ctest (fuzz.<target>.corpus).
//
// Tests prefixed DISABLED_ reproduce findings that are reported but not fixed yet: they fail
// until the fix lands (run them with --gtest_also_run_disabled_tests).
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "allocore/config.h"
#include "allocore/kernel.h"
#include "gtest/gtest.h"
#include "reference/reference_model.h"

namespace allocore {
namespace {

constexpr int64_t kMaxInt64 = std::numeric_limits<int64_t>::max();

// root (submitacl *) with one leaf root.a.
SchedulerConfig OneLeaf() {
  SchedulerConfig config;
  PartitionConfig& p = config.partitions.emplace_back();
  p.name = "default";
  QueueConfig& root = p.queues.emplace_back();
  root.name = "root";
  root.submit_acl = "*";
  root.queues.push_back(QueueConfig{.name = "a"});
  return config;
}

std::unique_ptr<Kernel> Start(const SchedulerConfig& config) {
  auto kernel = Kernel::Create(config);
  EXPECT_TRUE(kernel.ok()) << kernel.status();
  return kernel.ok() ? std::move(*kernel) : nullptr;
}

std::vector<std::string> States(const std::vector<Decision>& out) {
  std::vector<std::string> states;
  for (const Decision& d : out) {
    if (d.type != DecisionType::kAppState) continue;
    states.push_back(std::string(d.app) + " " + std::string(AppStateName(d.from)) + ">" +
                     std::string(AppStateName(d.to)));
  }
  return states;
}

// fuzz_events: with the clock near its end, a timer due "now + timeout" overflowed int64
// (UBSan: signed integer overflow in partition_events.cc, the rejected app's 3-day expiry).
// Timers now saturate at the end of the clock and fire when the clock gets there.
TEST(FuzzRegression, TimerDuePastClockEnd) {
  auto kernel = Start(OneLeaf());
  ASSERT_NE(kernel, nullptr);
  std::vector<Decision> out;
  ASSERT_TRUE(kernel->Advance(kMaxInt64 - 100'000, &out).ok());
  ASSERT_TRUE(kernel->AddNode({.id = "n1", .capacity = {{"memory", 100}}}, &out).ok());
  // Rejected (empty user): its expiry timer is due 3 days later.
  ASSERT_TRUE(kernel->AddApplication({.id = "late", .queue = "root.a"}, &out).ok());
  // Starting: its timer is due 5 minutes later.
  ASSERT_TRUE(kernel->AddApplication({.id = "app1", .queue = "root.a", .user = "u"}, &out).ok());
  ASSERT_TRUE(
      kernel->AddAsk({.app = "app1", .id = "k1", .resources = {{"memory", 10}}}, &out).ok());
  ASSERT_TRUE(kernel->Schedule(0, "", &out).ok());
  EXPECT_TRUE(kernel->CheckConsistency().ok());
  out.clear();
  ASSERT_TRUE(kernel->Advance(kMaxInt64 - kernel->now_millis(), &out).ok());
  EXPECT_EQ(kernel->now_millis(), kMaxInt64);
  // Both due at the end of the clock: in the order the timers were set.
  std::vector<std::string> expected = {"late Rejected>Expired", "app1 Starting>Running"};
  EXPECT_EQ(States(out), expected);
  // Completing at the end of the clock: due at once (saturated), fires on the next tick.
  out.clear();
  ASSERT_TRUE(kernel->ReleaseAllocation("default", "app1", "k1", "", &out).ok());
  ASSERT_TRUE(kernel->Advance(0, &out).ok());
  expected = {"app1 Running>Completing", "app1 Completing>Completed", "app1 Completed>Expired"};
  EXPECT_EQ(States(out), expected);
  EXPECT_TRUE(kernel->CheckConsistency().ok());
}

// ---- Reported, not fixed yet ---------------------------------------------------------------

// fuzz_events: Partition::SetPending's hot path (one repeat allocated) subtracts the ask's
// resource from the cached pending, but the from-scratch value is the saturating
// Multiply(resource, remaining repeats): with a huge count they differ and CheckConsistency
// fails ("app app1: cached pending differs"). Expected: the cache equals the recomputation
// (here pending stays {memory: MaxInt64, vcore: MaxInt64}).
TEST(FuzzRegression, DISABLED_SaturatedAskPendingCache) {
  auto kernel = Start(OneLeaf());
  ASSERT_NE(kernel, nullptr);
  std::vector<Decision> out;
  ASSERT_TRUE(
      kernel->AddNode({.id = "n5", .capacity = {{"memory", 50}, {"vcore", 50}}}, &out).ok());
  ASSERT_TRUE(
      kernel->AddApplication({.id = "app1", .queue = "root.a", .user = "alice"}, &out).ok());
  ASSERT_TRUE(kernel
                  ->AddAsk({.app = "app1",
                            .id = "k1",
                            .resources = {{"memory", 20}, {"vcore", 5}},
                            .count = kMaxInt64},
                           &out)
                  .ok());
  auto made = kernel->Schedule(64, "", &out);
  ASSERT_TRUE(made.ok());
  EXPECT_EQ(*made, 2);
  EXPECT_TRUE(kernel->CheckConsistency().ok()) << kernel->CheckConsistency();
  auto app = kernel->GetApplication("default", "app1");
  ASSERT_TRUE(app.ok());
  reference::NamedQuantities saturated = {{"memory", kMaxInt64}, {"vcore", kMaxInt64}};
  EXPECT_EQ(reference::ToNamed(app->pending, kernel->resource_types()), saturated);
}

// fuzz_differential: the same at the queue level with huge quantities and a small count: the
// kernel's root pending vcore is MaxInt64 - 30 after three allocations of another ask, the
// reference model's (a from-scratch saturating sum) MaxInt64.
TEST(FuzzRegression, DISABLED_SaturatedQueuePendingMatchesModel) {
  SchedulerConfig config = OneLeaf();
  auto kernel = Start(config);
  ASSERT_NE(kernel, nullptr);
  auto model = reference::ReferenceModel::Create(config);
  ASSERT_TRUE(model.ok()) << model.status();
  std::vector<Decision> out;
  std::vector<reference::RefDecision> ref;
  NodeSpec node{.id = "n1", .capacity = {{"memory", 300}, {"vcore", 300}}};
  AppSpec app{.id = "app1", .queue = "root.a", .user = "alice"};
  AskSpec huge{.app = "app1",
               .id = "k3",
               .resources = {{"memory", 1340537274765201804}, {"vcore", kMaxInt64}},
               .count = 4};
  AskSpec small{
      .app = "app1", .id = "k1", .resources = {{"memory", 10}, {"vcore", 10}}, .count = 3};
  ASSERT_TRUE(kernel->AddNode(node, &out).ok() && (*model)->AddNode(node, &ref).ok());
  ASSERT_TRUE(kernel->AddApplication(app, &out).ok() && (*model)->AddApplication(app, &ref).ok());
  ASSERT_TRUE(kernel->AddAsk(huge, &out).ok() && (*model)->AddAsk(huge, &ref).ok());
  ASSERT_TRUE(kernel->AddAsk(small, &out).ok() && (*model)->AddAsk(small, &ref).ok());
  ASSERT_TRUE(kernel->Schedule(0, "", &out).ok() && (*model)->Schedule(0, "", &ref).ok());
  auto kq = kernel->GetQueue("default", "root");
  auto mq = (*model)->GetQueue("default", "root");
  ASSERT_TRUE(kq.ok() && mq.ok());
  EXPECT_EQ(reference::ToNamed(kq->pending, kernel->resource_types()), mq->pending)
      << "kernel " << reference::ToString(reference::ToNamed(kq->pending, kernel->resource_types()))
      << ", model " << reference::ToString(mq->pending);
}

// fuzz_differential: the kernel refuses negative ask and node quantities ("ask k1: negative
// quantity ...", "add_node: negative quantity ..."); YuniKorn accepts them (semantics §7.3:
// only a zero resource is refused; §10.1) and so does the reference model
// (tests/reference/README.md item 20). Expected: accepted; such an ask is never allocated.
TEST(FuzzRegression, DISABLED_NegativeQuantitiesAccepted) {
  SchedulerConfig config = OneLeaf();
  auto kernel = Start(config);
  ASSERT_NE(kernel, nullptr);
  auto model = reference::ReferenceModel::Create(config);
  ASSERT_TRUE(model.ok());
  std::vector<Decision> out;
  std::vector<reference::RefDecision> ref;
  NodeSpec node{.id = "n1", .capacity = {{"memory", 100}, {"vcore", -1}}};
  EXPECT_EQ(kernel->AddNode(node, &out).ok(), (*model)->AddNode(node, &ref).ok());
  NodeSpec n2{.id = "n2", .capacity = {{"memory", 100}, {"vcore", 100}}};
  ASSERT_TRUE(kernel->AddNode(n2, &out).ok() && (*model)->AddNode(n2, &ref).ok());
  AppSpec app{.id = "app1", .queue = "root.a", .user = "alice"};
  ASSERT_TRUE(kernel->AddApplication(app, &out).ok() && (*model)->AddApplication(app, &ref).ok());
  AskSpec ask{.app = "app1", .id = "k1", .resources = {{"memory", 10}, {"vcore", -5}}};
  EXPECT_TRUE((*model)->AddAsk(ask, &ref).ok());
  EXPECT_TRUE(kernel->AddAsk(ask, &out).ok());
}

// fuzz_config: with no resourceweights, ApplyConfig interns the default weights' types (vcore,
// memory) before the queues' types, but ValidateConfig counts only the config's own types. A
// config naming eight types other than vcore validates, then Kernel::Create fails ("resource
// type 'g' is one too many"). Expected: "a config that validates is always applied in full"
// (config.h) — Create succeeds, or validation reports the limit.
TEST(FuzzRegression, DISABLED_EightConfigTypesWithoutVcore) {
  SchedulerConfig config = OneLeaf();
  config.partitions[0].queues[0].queues[0].resources.max = QuantityMap{
      {"memory", 1}, {"a", 1}, {"b", 1}, {"c", 1}, {"d", 1}, {"e", 1}, {"f", 1}, {"g", 1}};
  SchedulerConfig validated = config;
  for (const ConfigError& e : ValidateConfig(validated)) {
    ASSERT_TRUE(e.warning) << e.ToString("config");
  }
  auto kernel = Kernel::Create(config);
  EXPECT_TRUE(kernel.ok()) << kernel.status();
}

// fuzz_differential: Advance past the end of the clock. The kernel refuses it (OUT_OF_RANGE,
// "the logical clock would overflow"), the reference model saturates the clock and accepts.
// Neither kernel/README.md nor tests/reference/README.md says which; they must agree.
TEST(FuzzRegression, DISABLED_ClockOverflowAgreement) {
  SchedulerConfig config = OneLeaf();
  auto kernel = Start(config);
  ASSERT_NE(kernel, nullptr);
  auto model = reference::ReferenceModel::Create(config);
  ASSERT_TRUE(model.ok());
  std::vector<Decision> out;
  std::vector<reference::RefDecision> ref;
  ASSERT_TRUE(kernel->Advance(1, &out).ok() && (*model)->Advance(1, &ref).ok());
  EXPECT_EQ(kernel->Advance(kMaxInt64, &out).ok(), (*model)->Advance(kMaxInt64, &ref).ok());
  EXPECT_EQ(kernel->now_millis(), (*model)->now_millis());
}

// fuzz_differential: a refused AddNode (a ninth resource type) leaves the types it interned
// before failing in the reference model (the kernel restores them), so a later node naming one
// new type is refused by the model only. Expected: a refused call changes nothing.
TEST(FuzzRegression, DISABLED_ModelRefusedNodeInternsNoTypes) {
  SchedulerConfig config = OneLeaf();
  auto kernel = Start(config);
  ASSERT_NE(kernel, nullptr);
  auto model = reference::ReferenceModel::Create(config);
  ASSERT_TRUE(model.ok());
  std::vector<Decision> out;
  std::vector<reference::RefDecision> ref;
  NodeSpec nine{.id = "n1"};
  for (const char* t : {"t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9"}) {
    nine.capacity.emplace_back(t, 1);
  }
  EXPECT_FALSE(kernel->AddNode(nine, &out).ok());
  EXPECT_FALSE((*model)->AddNode(nine, &ref).ok());
  NodeSpec one{.id = "n2", .capacity = {{"t9", 1}}};
  EXPECT_TRUE(kernel->AddNode(one, &out).ok());
  EXPECT_TRUE((*model)->AddNode(one, &ref).ok());
}

}  // namespace
}  // namespace allocore
