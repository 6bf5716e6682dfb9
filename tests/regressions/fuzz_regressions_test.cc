// Regressions found by the fuzzers (fuzz/), one test per finding, named after it. Each test is
// the minimal call sequence the fuzzer's input decodes to; the input itself is kept in
// fuzz/corpus/<target>/regression-<name> and replayed by ctest (fuzz.<target>.corpus).
//
// A finding that is reported but not fixed yet gets a DISABLED_ test here (run those with
// --gtest_also_run_disabled_tests) and its input in fuzz/findings/.
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "allocore/config.h"
#include "allocore/kernel.h"
#include "gtest/gtest.h"
#include "reference/reference_model.h"
#include "support/configs.h"

namespace allocore {
namespace {

constexpr int64_t kMaxInt64 = std::numeric_limits<int64_t>::max();

// root (submitacl *) with one leaf root.a.
SchedulerConfig OneLeaf() { return test_support::RootWith(test_support::Leaves({"a"})); }

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
// (UBSan: signed integer overflow in partition_states.cc, the rejected app's 3-day expiry).
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

// fuzz_config "regex-huge-literal-brace": a placement filter "a{92233720368547758083" is valid
// in Go's syntax (a brace that does not close a repeat count is a literal), but std::regex read
// the digits as a repeat count and overflowed (UBSan: signed overflow in libstdc++'s regex
// compiler). Filters are now compiled by RE2, which reads Go's syntax, so the filter matches
// the literal text, as in YuniKorn.
TEST(FuzzRegression, RegexHugeLiteralBrace) {
  SchedulerConfig config = OneLeaf();
  PartitionConfig& p = config.partitions[0];
  p.queues[0].queues.push_back(QueueConfig{.name = "b"});
  PlacementRuleConfig fixed{.name = "fixed", .value = "root.b"};
  fixed.filter.type = "deny";
  fixed.filter.users = {"a{92233720368547758083"};
  p.placement_rules.push_back(fixed);
  p.placement_rules.push_back(PlacementRuleConfig{.name = "fixed", .value = "root.a"});
  SchedulerConfig validated = config;
  for (const ConfigError& e : ValidateConfig(validated)) {
    ASSERT_TRUE(e.warning) << e.ToString("config");
  }
  auto kernel = Start(config);
  ASSERT_NE(kernel, nullptr);
  std::vector<Decision> out;
  // Denied by the literal filter: the next rule places it.
  ASSERT_TRUE(kernel->AddApplication({.id = "x", .user = "a{92233720368547758083"}, &out).ok());
  EXPECT_EQ(kernel->GetApplication("default", "x").value().queue, "root.a");
  ASSERT_TRUE(kernel->AddApplication({.id = "y", .user = "alice"}, &out).ok());
  EXPECT_EQ(kernel->GetApplication("default", "y").value().queue, "root.b");
}

// The kernel and the reference model started from the same one-leaf config.
class FuzzRegressionVsModel : public ::testing::Test {
 protected:
  void SetUp() override {
    kernel_ = Start(OneLeaf());
    ASSERT_NE(kernel_, nullptr);
    auto model = reference::ReferenceModel::Create(OneLeaf());
    ASSERT_TRUE(model.ok()) << model.status();
    model_ = std::move(*model);
  }

  std::unique_ptr<Kernel> kernel_;
  std::unique_ptr<reference::ReferenceModel> model_;
  std::vector<Decision> out_;
  std::vector<reference::RefDecision> ref_;
};

// fuzz_events "saturated-ask-pending-cache": Partition::SetPending's hot path (one repeat
// allocated) subtracted the ask's resource from the cached pending while the from-scratch value
// saturated (count MaxInt64): CheckConsistency failed ("app app1: cached pending differs").
// Pending is now exact (kernel/README decision 22): an ask whose pending would pass int64 is
// refused, and nothing changes. (Counts are int32 since ApiLimits::kMaxAskCount, so the
// overflow needs a large resource as well.)
TEST(FuzzRegression, SaturatedAskPendingCache) {
  constexpr int64_t kCount = ApiLimits::kMaxAskCount;
  constexpr int64_t kFits = kMaxInt64 / kCount;  // memory per repeat that just fits
  auto kernel = Start(OneLeaf());
  ASSERT_NE(kernel, nullptr);
  std::vector<Decision> out;
  ASSERT_TRUE(
      kernel->AddNode({.id = "n5", .capacity = {{"memory", 3 * kFits - 1}, {"vcore", 50}}}, &out)
          .ok());
  ASSERT_TRUE(
      kernel->AddApplication({.id = "app1", .queue = "root.a", .user = "alice"}, &out).ok());
  out.clear();
  absl::Status refused = kernel->AddAsk({.app = "app1",
                                         .id = "k1",
                                         .resources = {{"memory", kFits + 1}, {"vcore", 5}},
                                         .count = kCount},
                                        &out);
  EXPECT_EQ(refused.code(), absl::StatusCode::kOutOfRange) << refused;
  EXPECT_TRUE(out.empty());  // still New: the refused ask did not accept the app
  auto app = kernel->GetApplication("default", "app1");
  ASSERT_TRUE(app.ok());
  EXPECT_EQ(app->state, AppState::kNew);
  EXPECT_TRUE(IsZero(app->pending));
  // The largest quantity that fits is accepted and served exactly.
  ASSERT_TRUE(kernel
                  ->AddAsk({.app = "app1",
                            .id = "k1",
                            .resources = {{"memory", kFits}, {"vcore", 5}},
                            .count = kCount},
                           &out)
                  .ok());
  auto made = kernel->Schedule(64, "", &out);
  ASSERT_TRUE(made.ok());
  EXPECT_EQ(*made, 2);
  EXPECT_TRUE(kernel->CheckConsistency().ok()) << kernel->CheckConsistency();
  app = kernel->GetApplication("default", "app1");
  ASSERT_TRUE(app.ok());
  reference::NamedQuantities exact = {{"memory", (kCount - 2) * kFits},
                                      {"vcore", (kCount - 2) * 5}};
  EXPECT_EQ(reference::ToNamed(app->pending, kernel->resource_types()), exact);
}

// fuzz_differential "saturated-ask-pending-cache": the same at the queue level. The kernel's
// root pending was MaxInt64 - 30 after three allocations of another ask, the model's (a
// from-scratch saturating sum) MaxInt64. Now both refuse the ask whose pending does not fit,
// whether alone (res x count) or summed with the partition's other asks.
TEST_F(FuzzRegressionVsModel, SaturatedQueuePendingMatchesModel) {
  NodeSpec node{.id = "n1", .capacity = {{"memory", 300}, {"vcore", 300}}};
  AppSpec app{.id = "app1", .queue = "root.a", .user = "alice"};
  AskSpec huge{.app = "app1",
               .id = "k3",
               .resources = {{"memory", 1340537274765201804}, {"vcore", kMaxInt64}},
               .count = 4};
  AskSpec half{.app = "app1", .id = "k4", .resources = {{"vcore", kMaxInt64 / 2 + 1}}};
  AskSpec other_half{.app = "app1", .id = "k5", .resources = {{"vcore", kMaxInt64 / 2 + 1}}};
  AskSpec small{
      .app = "app1", .id = "k1", .resources = {{"memory", 10}, {"vcore", 10}}, .count = 3};
  ASSERT_TRUE(kernel_->AddNode(node, &out_).ok() && model_->AddNode(node, &ref_).ok());
  ASSERT_TRUE(kernel_->AddApplication(app, &out_).ok() && model_->AddApplication(app, &ref_).ok());
  EXPECT_EQ(kernel_->AddAsk(huge, &out_).code(), absl::StatusCode::kOutOfRange);
  EXPECT_FALSE(model_->AddAsk(huge, &ref_).ok());
  ASSERT_TRUE(kernel_->AddAsk(half, &out_).ok() && model_->AddAsk(half, &ref_).ok());
  EXPECT_EQ(kernel_->AddAsk(other_half, &out_).code(), absl::StatusCode::kOutOfRange);
  EXPECT_FALSE(model_->AddAsk(other_half, &ref_).ok());
  // Replacing an ask counts its new pending instead of its old one.
  half.resources = {{"vcore", kMaxInt64 - 30}};
  ASSERT_TRUE(kernel_->AddAsk(half, &out_).ok() && model_->AddAsk(half, &ref_).ok());
  ASSERT_TRUE(kernel_->AddAsk(small, &out_).ok() && model_->AddAsk(small, &ref_).ok());
  ASSERT_TRUE(kernel_->Schedule(0, "", &out_).ok() && model_->Schedule(0, "", &ref_).ok());
  EXPECT_TRUE(kernel_->CheckConsistency().ok()) << kernel_->CheckConsistency();
  auto kq = kernel_->GetQueue("default", "root");
  auto mq = model_->GetQueue("default", "root");
  ASSERT_TRUE(kq.ok() && mq.ok());
  EXPECT_EQ(reference::ToNamed(kq->pending, kernel_->resource_types()), mq->pending)
      << "kernel "
      << reference::ToString(reference::ToNamed(kq->pending, kernel_->resource_types()))
      << ", model " << reference::ToString(mq->pending);
}

// Node capacity is summed into the partition's total (the root's max): a node that would take
// it past int64 is refused by both, by AddNode and by UpdateNode alike.
TEST_F(FuzzRegressionVsModel, CapacityPastInt64RefusedByBoth) {
  NodeSpec big{.id = "n1", .capacity = {{"memory", kMaxInt64 - 5}}};
  ASSERT_TRUE(kernel_->AddNode(big, &out_).ok() && model_->AddNode(big, &ref_).ok());
  NodeSpec more{.id = "n2", .capacity = {{"memory", 6}, {"gpu", 1}}};
  EXPECT_EQ(kernel_->AddNode(more, &out_).code(), absl::StatusCode::kOutOfRange);
  EXPECT_FALSE(model_->AddNode(more, &ref_).ok());
  EXPECT_EQ(kernel_->resource_types().Find("gpu"), -1);  // nothing registered
  more.capacity = {{"memory", 5}};
  ASSERT_TRUE(kernel_->AddNode(more, &out_).ok() && model_->AddNode(more, &ref_).ok());
  NodeUpdate grow{.id = "n2", .capacity = Quantities{{"memory", 6}}};
  EXPECT_EQ(kernel_->UpdateNode(grow, &out_).code(), absl::StatusCode::kOutOfRange);
  EXPECT_FALSE(model_->UpdateNode(grow, &ref_).ok());
  NodeUpdate shrink{.id = "n1", .capacity = Quantities{{"memory", 1}}};
  ASSERT_TRUE(kernel_->UpdateNode(shrink, &out_).ok() && model_->UpdateNode(shrink, &ref_).ok());
  EXPECT_TRUE(kernel_->UpdateNode(grow, &out_).ok());
  EXPECT_TRUE(model_->UpdateNode(grow, &ref_).ok());
  EXPECT_TRUE(kernel_->CheckConsistency().ok()) << kernel_->CheckConsistency();
}

// fuzz_differential "negative-ask-quantity": the kernel refused negative ask and node
// quantities, the reference model accepted them. Both refuse them now (kernel/README decision
// 20: a resource manager reports quantities, never debts; YuniKorn v1.2 would allocate a
// negative ask and grow the node's free space), and register none of the call's types.
TEST_F(FuzzRegressionVsModel, NegativeQuantitiesRefusedByBoth) {
  NodeSpec node{.id = "n1", .capacity = {{"memory", 100}, {"vcore", -1}}};
  EXPECT_EQ(kernel_->AddNode(node, &out_).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(model_->AddNode(node, &ref_).ok());
  NodeSpec n2{.id = "n2", .capacity = {{"memory", 100}, {"vcore", 100}}};
  ASSERT_TRUE(kernel_->AddNode(n2, &out_).ok() && model_->AddNode(n2, &ref_).ok());
  AppSpec app{.id = "app1", .queue = "root.a", .user = "alice"};
  ASSERT_TRUE(kernel_->AddApplication(app, &out_).ok() && model_->AddApplication(app, &ref_).ok());
  AskSpec ask{.app = "app1", .id = "k1", .resources = {{"gpu", 1}, {"vcore", -5}}};
  EXPECT_EQ(kernel_->AddAsk(ask, &out_).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(model_->AddAsk(ask, &ref_).ok());
  EXPECT_EQ(kernel_->resource_types().Find("gpu"), -1);
  EXPECT_EQ(model_->resource_types().Find("gpu"), -1);
}

// fuzz_config "eight-types-without-vcore": with no resourceweights, ApplyConfig registered the
// default weights' types (vcore, memory) before the queues' types, but ValidateConfig counted
// only the config's own types: eight types other than vcore validated, then Kernel::Create
// failed ("resource type 'g' is one too many"). The default weights now take no type slot
// (kernel/README decision 18): the config validates and applies, memory nodes are scored, and
// a node reporting vcore is the one refused (it would be the ninth type).
TEST(FuzzRegression, EightConfigTypesWithoutVcore) {
  SchedulerConfig config = OneLeaf();
  config.partitions[0].queues[0].queues[0].resources.max = QuantityMap{
      {"memory", 1000}, {"a", 1}, {"b", 1}, {"c", 1}, {"d", 1}, {"e", 1}, {"f", 1}, {"g", 1}};
  SchedulerConfig validated = config;
  for (const ConfigError& e : ValidateConfig(validated)) {
    EXPECT_TRUE(e.warning) << e.ToString("config");
  }
  auto kernel = Kernel::Create(config);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  std::vector<Decision> out;
  ASSERT_TRUE((*kernel)->AddNode({.id = "n1", .capacity = {{"memory", 100}}}, &out).ok());
  ASSERT_TRUE((*kernel)->AddNode({.id = "n2", .capacity = {{"memory", 100}}}, &out).ok());
  EXPECT_FALSE(
      (*kernel)->AddNode({.id = "n3", .capacity = {{"memory", 100}, {"vcore", 1}}}, &out).ok());
  ASSERT_TRUE(
      (*kernel)->AddApplication({.id = "app1", .queue = "root.a", .user = "alice"}, &out).ok());
  ASSERT_TRUE(
      (*kernel)
          ->AddAsk({.app = "app1", .id = "k1", .resources = {{"memory", 10}}, .count = 2}, &out)
          .ok());
  ASSERT_TRUE((*kernel)->Schedule(0, "", &out).ok());
  // Fair node sorting by the memory weight: the second allocation goes to the emptier node.
  std::vector<std::string> nodes;
  for (const Decision& d : out) {
    if (d.type == DecisionType::kAllocation) nodes.push_back(std::string(d.node));
  }
  EXPECT_EQ(nodes, (std::vector<std::string>{"n1", "n2"}));
  EXPECT_TRUE((*kernel)->CheckConsistency().ok());
}

// fuzz_differential "clock-overflow": Advance past the end of the clock was refused by the
// kernel (OUT_OF_RANGE) and saturated by the model. Both refuse it now and keep the clock
// (kernel/README decision 22); reaching exactly the end is allowed.
TEST_F(FuzzRegressionVsModel, ClockOverflowAgreement) {
  ASSERT_TRUE(kernel_->Advance(1, &out_).ok() && model_->Advance(1, &ref_).ok());
  EXPECT_EQ(kernel_->Advance(kMaxInt64, &out_).code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(model_->Advance(kMaxInt64, &ref_).code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(kernel_->now_millis(), 1);
  EXPECT_EQ(model_->now_millis(), 1);
  ASSERT_TRUE(kernel_->Advance(kMaxInt64 - 1, &out_).ok());
  ASSERT_TRUE(model_->Advance(kMaxInt64 - 1, &ref_).ok());
  EXPECT_EQ(kernel_->now_millis(), model_->now_millis());
}

// fuzz_differential "model-refused-node-interns-types": a refused AddNode (a ninth resource
// type) left the types it had interned in the reference model (the kernel restores them), so a
// later node naming one new type was refused by the model only. A refused call changes nothing.
TEST_F(FuzzRegressionVsModel, ModelRefusedNodeInternsNoTypes) {
  NodeSpec nine{.id = "n1"};
  for (const char* t : {"t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9"}) {
    nine.capacity.emplace_back(t, 1);
  }
  EXPECT_FALSE(kernel_->AddNode(nine, &out_).ok());
  EXPECT_FALSE(model_->AddNode(nine, &ref_).ok());
  NodeSpec one{.id = "n2", .capacity = {{"t9", 1}}};
  EXPECT_TRUE(kernel_->AddNode(one, &out_).ok());
  EXPECT_TRUE(model_->AddNode(one, &ref_).ok());
}

}  // namespace
}  // namespace allocore

namespace allocore {
namespace {

// fuzz_differential "repeated-tag-key" (found by the hostile-size generators): an application
// with two `namespace` tags under a tag placement rule. The kernel took the last value, the
// reference model the first. Tags are a map in YuniKorn (a key once); through allocore's
// API the last of repeated keys counts, in the kernel and in the model.
TEST(FuzzRegression, RepeatedTagKeyTakesTheLastValue) {
  SchedulerConfig config = OneLeaf();
  config.partitions[0].placement_rules.push_back(
      PlacementRuleConfig{.name = "tag", .create = true, .value = "namespace"});
  auto kernel = Start(config);
  ASSERT_NE(kernel, nullptr);
  auto model = reference::ReferenceModel::Create(config);
  ASSERT_TRUE(model.ok()) << model.status();
  AppSpec app{.id = "x", .user = "u", .tags = {{"namespace", "first"}, {"Namespace", "last"}}};
  std::vector<Decision> out;
  std::vector<reference::RefDecision> ref;
  ASSERT_TRUE(kernel->AddApplication(app, &out).ok());
  ASSERT_TRUE((*model)->AddApplication(app, &ref).ok());
  EXPECT_EQ(kernel->GetApplication("default", "x").value().queue, "root.last");
  EXPECT_EQ((*model)->GetApplication("default", "x").value().queue, "root.last");
}

}  // namespace
}  // namespace allocore
