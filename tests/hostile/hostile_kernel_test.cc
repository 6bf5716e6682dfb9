// Hostile input through the library API: every ApiLimits limit, the KernelOptions budget, and
// the placement filters on long names. Each case runs on a thread with a 256 KiB stack (what an
// embedding manager's worker thread may have), and every refused call is checked to have
// changed nothing: no decision, the same queries before and after.
#include <pthread.h>

#include <functional>
#include <string>
#include <vector>

#include "allocore/kernel.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/configs.h"

namespace allocore {
namespace {

using ::testing::HasSubstr;

// The promise is for the built library: 256 KiB. ASan and UBSan builds are unoptimised and put
// redzones around every local, which makes the validator's frames about 4x larger (a
// 64-level hierarchy took more than 256 KiB there), so they run the same cases on 1 MiB.
#ifndef ALLOCORE_SANITIZED
constexpr size_t kSmallStack = 256 * 1024;
#else
constexpr size_t kSmallStack = 1024 * 1024;
#endif

// Runs `body` on a fresh thread with a kSmallStack stack and waits for it.
void OnSmallStack(const std::function<void()>& body) {
  pthread_attr_t attr;
  ASSERT_EQ(pthread_attr_init(&attr), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&attr, kSmallStack), 0);
  pthread_t thread;
  auto trampoline = [](void* arg) -> void* {
    (*static_cast<const std::function<void()>*>(arg))();
    return nullptr;
  };
  ASSERT_EQ(pthread_create(&thread, &attr, trampoline, const_cast<std::function<void()>*>(&body)),
            0);
  ASSERT_EQ(pthread_join(thread, nullptr), 0);
  pthread_attr_destroy(&attr);
}

SchedulerConfig TwoLeaves() { return test_support::RootWith(test_support::Leaves({"a", "b"})); }

// A config whose first rule places users that match `pattern` in root.a, everyone else in b.
SchedulerConfig FilteredByUser(std::string pattern) {
  SchedulerConfig config = TwoLeaves();
  PlacementRuleConfig matched{.name = "fixed", .value = "root.a"};
  matched.filter.type = "allow";
  matched.filter.users = {std::move(pattern)};
  config.partitions[0].placement_rules.push_back(matched);
  config.partitions[0].placement_rules.push_back(
      PlacementRuleConfig{.name = "fixed", .value = "root.b"});
  return config;
}

std::unique_ptr<Kernel> Start(SchedulerConfig config, KernelOptions options = {}) {
  auto created = Kernel::Create(std::move(config), options);
  EXPECT_TRUE(created.ok()) << created.status();
  return created.ok() ? std::move(*created) : nullptr;
}

// What a refused call must leave as it was.
struct Snapshot {
  Kernel::Usage usage;
  std::vector<std::string> queues;
  size_t pending = 0;
  bool operator==(const Snapshot& o) const {
    return usage.applications == o.usage.applications && usage.asks == o.usage.asks &&
           usage.live_allocations == o.usage.live_allocations && queues == o.queues &&
           pending == o.pending;
  }
};

Snapshot Take(const Kernel& kernel) {
  Snapshot s;
  s.usage = kernel.usage();
  absl::StatusOr<std::vector<QueueInfo>> queues = kernel.ListQueues("default");
  if (queues.ok()) {
    for (const QueueInfo& q : *queues) s.queues.push_back(q.path);
  }
  s.pending = kernel.ExplainPending().size();
  return s;
}

// Expects `call` to be refused with `code`, a message naming `limit`, no decision and no change.
void ExpectRefused(Kernel& kernel, absl::StatusCode code, std::string_view limit,
                   const std::function<absl::Status(std::vector<Decision>*)>& call) {
  Snapshot before = Take(kernel);
  std::vector<Decision> out;
  absl::Status status = call(&out);
  EXPECT_EQ(status.code(), code) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr(std::string(limit)));
  EXPECT_TRUE(out.empty());
  EXPECT_TRUE(Take(kernel) == before) << "a refused call changed the kernel's state";
  EXPECT_TRUE(kernel.CheckConsistency().ok()) << kernel.CheckConsistency();
}

class HostileKernelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    kernel_ = Start(TwoLeaves());
    ASSERT_NE(kernel_, nullptr);
    std::vector<Decision> out;
    ASSERT_TRUE(kernel_->AddNode({.id = "n1", .capacity = {{"memory", 100}}}, &out).ok());
    ASSERT_TRUE(kernel_->AddApplication({.id = "app", .queue = "root.a", .user = "u"}, &out).ok());
  }
  void Refused(std::string_view limit,
               const std::function<absl::Status(std::vector<Decision>*)>& call) {
    OnSmallStack([&] { ExpectRefused(*kernel_, absl::StatusCode::kInvalidArgument, limit, call); });
  }
  std::unique_ptr<Kernel> kernel_;
};

const std::string kLongName(ApiLimits::kMaxNameBytes + 1, 'x');
const std::string kLongestName(ApiLimits::kMaxNameBytes, 'x');

TEST_F(HostileKernelTest, NamesOverTheLimitAreRefusedEverywhere) {
  Refused("kMaxNameBytes", [&](auto* out) {
    return kernel_->AddApplication({.id = kLongName, .queue = "root.a", .user = "u"}, out);
  });
  Refused("kMaxNameBytes", [&](auto* out) {
    return kernel_->AddApplication({.id = "x", .queue = "root.a", .user = kLongName}, out);
  });
  Refused("kMaxNameBytes", [&](auto* out) {
    return kernel_->AddApplication({.partition = kLongName, .id = "x", .user = "u"}, out);
  });
  Refused("kMaxNameBytes", [&](auto* out) {
    return kernel_->AddAsk({.app = "app", .id = kLongName, .resources = {{"memory", 1}}}, out);
  });
  Refused("kMaxNameBytes", [&](auto* out) {
    return kernel_->AddAsk({.app = kLongName, .id = "k", .resources = {{"memory", 1}}}, out);
  });
  Refused("kMaxNameBytes", [&](auto* out) {
    return kernel_->AddAsk(
        {.app = "app", .id = "k", .resources = {{"memory", 1}}, .task_group = kLongName}, out);
  });
  Refused("kMaxNameBytes", [&](auto* out) {
    return kernel_->AddAsk(
        {.app = "app", .id = "k", .resources = {{"memory", 1}}, .required_node = kLongName}, out);
  });
  Refused("kMaxNameBytes", [&](auto* out) {
    return kernel_->AddAsk({.app = "app", .id = "k", .resources = {{kLongName, 1}}}, out);
  });
  Refused("kMaxNameBytes", [&](auto* out) {
    return kernel_->AddNode({.id = kLongName, .capacity = {{"memory", 1}}}, out);
  });
  Refused("kMaxNameBytes", [&](auto* out) {
    return kernel_->UpdateNode({.id = kLongName, .schedulable = false}, out);
  });
  Refused("kMaxNameBytes",
          [&](auto* out) { return kernel_->RemoveNode("default", kLongName, out); });
  Refused("kMaxNameBytes",
          [&](auto* out) { return kernel_->RemoveApplication("default", kLongName, out); });
  Refused("kMaxNameBytes",
          [&](auto* out) { return kernel_->RemoveAsk("default", "app", kLongName, out); });
  Refused("kMaxNameBytes", [&](auto* out) {
    return kernel_->ReleaseAllocation("default", "app", "k", kLongName, out);
  });
  Refused("kMaxNameBytes",
          [&](auto* out) { return kernel_->Schedule(0, kLongName, out).status(); });
  // At the limit, a name is an ordinary name.
  std::vector<Decision> out;
  ASSERT_TRUE(
      kernel_->AddApplication({.id = kLongestName, .queue = "root.a", .user = kLongestName}, &out)
          .ok());
  EXPECT_TRUE(kernel_->GetApplication("default", kLongestName).ok());
}

TEST_F(HostileKernelTest, GroupsTagsPathsAndQuantitiesOverTheirLimits) {
  Refused("kMaxGroupsPerApplication", [&](auto* out) {
    AppSpec app{.id = "x", .queue = "root.a", .user = "u"};
    app.groups.assign(ApiLimits::kMaxGroupsPerApplication + 1, "g");
    return kernel_->AddApplication(app, out);
  });
  Refused("kMaxNameBytes", [&](auto* out) {
    return kernel_->AddApplication(
        {.id = "x", .queue = "root.a", .user = "u", .groups = {kLongName}}, out);
  });
  Refused("kMaxTagsPerApplication", [&](auto* out) {
    AppSpec app{.id = "x", .queue = "root.a", .user = "u"};
    app.tags.assign(ApiLimits::kMaxTagsPerApplication + 1, {"k", "v"});
    return kernel_->AddApplication(app, out);
  });
  Refused("kMaxTagBytes", [&](auto* out) {
    std::string value(ApiLimits::kMaxTagBytes + 1, 'v');
    return kernel_->AddApplication(
        {.id = "x", .queue = "root.a", .user = "u", .tags = {{"namespace", value}}}, out);
  });
  Refused("kMaxQueuePathBytes", [&](auto* out) {
    std::string path = "root";
    while (path.size() <= ApiLimits::kMaxQueuePathBytes) path += ".q";
    return kernel_->AddApplication({.id = "x", .queue = path, .user = "u"}, out);
  });
  Refused("kMaxQuantityEntries", [&](auto* out) {
    Quantities many(ApiLimits::kMaxQuantityEntries + 1, {"memory", 1});
    return kernel_->AddAsk({.app = "app", .id = "k", .resources = many}, out);
  });
  Refused("kMaxQuantityEntries", [&](auto* out) {
    Quantities many(ApiLimits::kMaxQuantityEntries + 1, {"memory", 1});
    return kernel_->AddNode({.id = "n2", .capacity = many}, out);
  });
}

// YuniKorn's protocol carries an ask's count as int32: 9223372036854775807 repeats used to
// make Schedule run for ever.
TEST_F(HostileKernelTest, CountOverInt32IsRefused) {
  for (int64_t count : {ApiLimits::kMaxAskCount + 1, int64_t{9223372036854775807}}) {
    Refused("kMaxAskCount", [&](auto* out) {
      return kernel_->AddAsk(
          {.app = "app", .id = "k", .resources = {{"memory", 1}}, .count = count}, out);
    });
  }
  std::vector<Decision> out;
  EXPECT_TRUE(kernel_
                  ->AddAsk({.app = "app",
                            .id = "k",
                            .resources = {{"memory", 1}},
                            .count = ApiLimits::kMaxAskCount},
                           &out)
                  .ok());
}

// std::regex recursed once per character (a 60,000-character user name crashed on a 1 MiB
// stack) and backtracked for seconds on `.*x`. A name over the limit is refused; up to the
// limit RE2 matches in linear time without recursion, on a small stack.
TEST(HostileFilterTest, LongUserNamesAgainstRegexFilters) {
  for (std::string pattern : {"^[a-z]+$", ".*x", "^(a|aa)+$"}) {
    OnSmallStack([&] {
      auto kernel = Start(FilteredByUser(pattern));
      ASSERT_NE(kernel, nullptr);
      ExpectRefused(*kernel, absl::StatusCode::kInvalidArgument, "kMaxNameBytes", [&](auto* out) {
        return kernel->AddApplication({.id = "long", .user = std::string(60000, 'a')}, out);
      });
      std::vector<Decision> out;
      const std::string longest(ApiLimits::kMaxNameBytes, 'a');
      ASSERT_TRUE(kernel->AddApplication({.id = "at-limit", .user = longest}, &out).ok());
      const bool matches = pattern != ".*x";
      EXPECT_EQ(kernel->GetApplication("default", "at-limit").value().queue,
                matches ? "root.a" : "root.b")
          << pattern;
    });
  }
}

// 1,500 nested groups: validated, compiled and matched on a small stack (RE2's parser and
// matcher keep their stacks on the heap).
TEST(HostileFilterTest, DeeplyNestedPatternOnASmallStack) {
  OnSmallStack([] {
    std::string pattern = "^" + std::string(1500, '(') + "a" + std::string(1500, ')') + "$";
    auto kernel = Start(FilteredByUser(pattern));
    ASSERT_NE(kernel, nullptr);
    std::vector<Decision> out;
    ASSERT_TRUE(kernel->AddApplication({.id = "x", .user = "a"}, &out).ok());
    EXPECT_EQ(kernel->GetApplication("default", "x").value().queue, "root.a");
  });
}

// A chain of `levels` queues below root (root.a.q1...), the last one a leaf.
SchedulerConfig Chain(int levels) {
  SchedulerConfig config = TwoLeaves();
  QueueConfig* level = &config.partitions[0].queues[0].queues[0];
  level->parent = true;
  for (int depth = 2; depth < levels; ++depth) {
    level->queues.push_back(QueueConfig{.name = "q" + std::to_string(depth), .parent = true});
    level = &level->queues.back();
  }
  level->parent = false;
  return config;
}

// A hierarchy as deep as allowed (kMaxQueueDepth levels, root included) is validated, built,
// scheduled and explained on a small stack; one level more is refused, configured or dynamic.
// (At 400 levels the validator's recursion overflowed a 256 KiB stack.)
TEST(HostileConfigTest, DeepestHierarchyOnASmallStack) {
  OnSmallStack([] {
    SchedulerConfig config = Chain(kMaxQueueDepth);
    std::string leaf = "root.a";
    for (int depth = 2; depth < kMaxQueueDepth; ++depth) leaf += ".q" + std::to_string(depth);
    auto kernel = Start(config);
    ASSERT_NE(kernel, nullptr);
    std::vector<Decision> out;
    ASSERT_TRUE(kernel->AddNode({.id = "n", .capacity = {{"memory", 10}}}, &out).ok());
    ASSERT_TRUE(kernel->AddApplication({.id = "x", .queue = leaf, .user = "u"}, &out).ok());
    ASSERT_TRUE(kernel->AddAsk({.app = "x", .id = "k", .resources = {{"memory", 1}}}, &out).ok());
    EXPECT_EQ(kernel->Schedule(0, "", &out).value(), 1);
    EXPECT_TRUE(kernel->ExplainPending().empty());
    EXPECT_TRUE(kernel->CheckConsistency().ok()) << kernel->CheckConsistency();

    absl::StatusOr<std::unique_ptr<Kernel>> deeper = Kernel::Create(Chain(kMaxQueueDepth + 1));
    EXPECT_FALSE(deeper.ok());
    EXPECT_THAT(std::string(deeper.status().message()), HasSubstr("deeper than 64 levels"));
  });
}

TEST(HostileConfigTest, DynamicQueuesStopAtTheDepthLimit) {
  OnSmallStack([] {
    SchedulerConfig config = TwoLeaves();
    config.partitions[0].queues[0].queues.push_back(QueueConfig{.name = "d", .parent = true});
    config.partitions[0].placement_rules.push_back(
        PlacementRuleConfig{.name = "provided", .create = true});
    auto kernel = Start(config);
    ASSERT_NE(kernel, nullptr);
    std::string path = "root.d";
    for (int depth = 2; depth < kMaxQueueDepth; ++depth) path += ".q" + std::to_string(depth);
    std::vector<Decision> out;
    ASSERT_TRUE(kernel->AddApplication({.id = "ok", .queue = path, .user = "u"}, &out).ok());
    EXPECT_EQ(kernel->GetApplication("default", "ok").value().queue, path);
    out.clear();
    ASSERT_TRUE(
        kernel->AddApplication({.id = "deep", .queue = path + ".one_more", .user = "u"}, &out)
            .ok());
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].type, DecisionType::kAppRejected);
    EXPECT_THAT(out[0].reason, HasSubstr("at most 64"));
    EXPECT_TRUE(kernel->CheckConsistency().ok()) << kernel->CheckConsistency();
  });
}

TEST(HostileBudgetTest, ApplicationsAsksAndAllocationsStopAtTheirCaps) {
  OnSmallStack([] {
    auto kernel =
        Start(TwoLeaves(), {.max_applications = 2, .max_asks = 2, .max_live_allocations = 3});
    ASSERT_NE(kernel, nullptr);
    std::vector<Decision> out;
    ASSERT_TRUE(kernel->AddNode({.id = "n1", .capacity = {{"memory", 1000}}}, &out).ok());
    ASSERT_TRUE(kernel->AddApplication({.id = "a1", .queue = "root.a", .user = "u"}, &out).ok());
    ASSERT_TRUE(kernel->AddApplication({.id = "a2", .queue = "root.a", .user = "u"}, &out).ok());
    ExpectRefused(*kernel, absl::StatusCode::kResourceExhausted, "max_applications", [&](auto* o) {
      return kernel->AddApplication({.id = "a3", .queue = "root.a", .user = "u"}, o);
    });
    ASSERT_TRUE(
        kernel
            ->AddAsk({.app = "a1", .id = "k1", .resources = {{"memory", 1}}, .count = 100000000},
                     &out)
            .ok());
    ASSERT_TRUE(kernel->AddAsk({.app = "a2", .id = "k2", .resources = {{"memory", 1}}}, &out).ok());
    ExpectRefused(*kernel, absl::StatusCode::kResourceExhausted, "max_asks", [&](auto* o) {
      return kernel->AddAsk({.app = "a2", .id = "k3", .resources = {{"memory", 1}}}, o);
    });
    // Adding an ask again under its key replaces it: no new record, so no refusal.
    EXPECT_TRUE(
        kernel
            ->AddAsk({.app = "a1", .id = "k1", .resources = {{"memory", 1}}, .count = 100000000},
                     &out)
            .ok());
    out.clear();
    // A hundred million repeats, but the budget holds three live allocations.
    absl::StatusOr<int64_t> made = kernel->Schedule(0, "", &out);
    ASSERT_TRUE(made.ok());
    EXPECT_EQ(*made, 3);
    EXPECT_EQ(kernel->usage().live_allocations, 3);
    EXPECT_TRUE(kernel->allocation_budget_blocks());
    for (const PendingExplanation& e : kernel->ExplainPending()) {
      EXPECT_THAT(e.reason, HasSubstr("live allocation budget is full")) << e.ask;
    }
    EXPECT_TRUE(kernel->CheckConsistency().ok()) << kernel->CheckConsistency();
    // A release makes room for exactly one more.
    ASSERT_TRUE(kernel->ReleaseAllocation("default", "a1", "k1", "", &out).ok());
    EXPECT_FALSE(kernel->allocation_budget_blocks());
    made = kernel->Schedule(0, "", &out);
    ASSERT_TRUE(made.ok());
    EXPECT_EQ(*made, 1);
  });
}

TEST(HostileBudgetTest, NegativeBudgetIsRefused) {
  auto kernel = Kernel::Create(TwoLeaves(), {.max_asks = -1});
  EXPECT_EQ(kernel.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace allocore
