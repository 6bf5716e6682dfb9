// The handle API (allocore/handles.h): the same decisions as the calls by name, and a handle
// that outlived its entity refused (FailedPrecondition), never silently reused.
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

SchedulerConfig Config(const std::vector<std::string>& partitions = {"default"}) {
  return test_support::RootWith(test_support::Leaves({"a", "b"}), partitions);
}

std::unique_ptr<Kernel> Create(SchedulerConfig config = Config()) {
  auto created = Kernel::Create(std::move(config));
  EXPECT_TRUE(created.ok()) << created.status();
  return created.ok() ? std::move(*created) : nullptr;
}

std::string Describe(const std::vector<Decision>& out) {
  std::string text;
  for (const Decision& d : out) {
    text += std::to_string(static_cast<int>(d.type)) + " " + std::string(d.app) + "/" +
            std::string(d.ask) + "@" + std::string(d.node) + " seq=" + std::to_string(d.seq) + " " +
            std::string(ReleaseReasonName(d.release_reason)) + " " + d.reason + "\n";
  }
  return text;
}

// One random workload applied twice: by name to one kernel, by handle (resolved by Find* just
// before each call) to the other. Decisions and the verdict of every call are the same.
TEST(HandlesTest, SameDecisionsAsTheCallsByName) {
  int64_t allocations = 0, releases = 0;
  for (uint64_t seed = 0; seed < 60; ++seed) {
    SCOPED_TRACE(seed);
    std::mt19937_64 rng(seed);
    auto pick = [&](int64_t lo, int64_t hi) {
      return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
    };
    auto by_name = Create();
    auto by_handle = Create();
    ASSERT_TRUE(by_name && by_handle);
    std::vector<Decision> out_name, out_handle;
    const PartitionHandle partition = *by_handle->FindPartition("default");
    for (int step = 0; step < 300; ++step) {
      const std::string app = "app-" + std::to_string(pick(0, 5));
      const std::string ask = "ask-" + std::to_string(pick(0, 4));
      const std::string node = "node-" + std::to_string(pick(0, 3));
      absl::Status name_status, handle_status;
      switch (pick(0, 9)) {
        case 0: {
          NodeSpec spec{.id = node, .capacity = {{"memory", pick(1, 8) * 100}, {"vcore", 8000}}};
          name_status = by_name->AddNode(spec, &out_name);
          handle_status = by_handle->AddNode(spec, &out_handle);
          break;
        }
        case 1: {
          AppSpec spec{.id = app, .queue = pick(0, 1) ? "root.a" : "root.b", .user = "u"};
          name_status = by_name->AddApplication(spec, &out_name);
          handle_status = by_handle->AddApplication(spec, &out_handle);
          break;
        }
        case 2:
        case 3: {
          const int64_t memory = pick(1, 4) * 50, count = pick(1, 3);
          const auto priority = static_cast<int32_t>(pick(0, 2));
          name_status = by_name->AddAsk({.app = app,
                                         .id = ask,
                                         .resources = {{"memory", memory}},
                                         .priority = priority,
                                         .count = count},
                                        &out_name);
          absl::StatusOr<AppHandle> a = by_handle->FindApplication(partition, app);
          absl::StatusOr<int> memory_type = by_handle->ResourceTypeId("memory");
          ASSERT_TRUE(memory_type.ok());
          handle_status = a.status();
          if (a.ok()) {
            AskArgs args{.id = ask, .priority = priority, .count = count};
            args.resources.Set(*memory_type, memory);
            absl::StatusOr<AskHandle> added = by_handle->AddAsk(*a, args, &out_handle);
            handle_status = added.status();
            if (added.ok()) {
              absl::StatusOr<AskHandle> found = by_handle->FindAsk(*a, ask);
              ASSERT_TRUE(found.ok());
              EXPECT_EQ(*found, *added);
            }
          }
          break;
        }
        case 4:
        case 5: {
          const bool on_node = pick(0, 1) == 1;
          name_status =
              by_name->ReleaseAllocation("default", app, ask, on_node ? node : "", &out_name);
          absl::StatusOr<AppHandle> a = by_handle->FindApplication(partition, app);
          absl::StatusOr<AskHandle> k = a.ok() ? by_handle->FindAsk(*a, ask) : a.status();
          NodeHandle n;
          absl::Status node_status;
          if (on_node) {
            absl::StatusOr<NodeHandle> found = by_handle->FindNode(partition, node);
            node_status = found.status();
            if (found.ok()) n = *found;
          }
          handle_status = !k.ok() ? k.status() : node_status;
          if (handle_status.ok()) handle_status = by_handle->ReleaseAllocation(*k, n, &out_handle);
          break;
        }
        case 6: {
          name_status = by_name->RemoveAsk("default", app, ask, &out_name);
          absl::StatusOr<AppHandle> a = by_handle->FindApplication(partition, app);
          absl::StatusOr<AskHandle> k = a.ok() ? by_handle->FindAsk(*a, ask) : a.status();
          handle_status = k.ok() ? by_handle->RemoveAsk(*k, &out_handle) : k.status();
          break;
        }
        case 7: {
          name_status = by_name->RemoveApplication("default", app, &out_name);
          absl::StatusOr<AppHandle> a = by_handle->FindApplication(partition, app);
          handle_status = a.ok() ? by_handle->RemoveApplication(*a, &out_handle) : a.status();
          break;
        }
        case 8: {
          if (pick(0, 3) != 0) break;
          name_status = by_name->RemoveNode("default", node, &out_name);
          absl::StatusOr<NodeHandle> n = by_handle->FindNode(partition, node);
          handle_status = n.ok() ? by_handle->RemoveNode(*n, &out_handle) : n.status();
          break;
        }
        case 9: {
          const int64_t max = pick(0, 3);
          ASSERT_TRUE(by_name->Schedule(max, "", &out_name).ok());
          ASSERT_TRUE(by_handle->Schedule(max, "", &out_handle).ok());
          break;
        }
      }
      EXPECT_EQ(name_status.ok(), handle_status.ok())
          << "step " << step << ": by name " << name_status << ", by handle " << handle_status;
      ASSERT_TRUE(by_name->Advance(1, &out_name).ok());
      ASSERT_TRUE(by_handle->Advance(1, &out_handle).ok());
    }
    EXPECT_EQ(Describe(out_name), Describe(out_handle));
    EXPECT_TRUE(by_handle->CheckConsistency().ok()) << by_handle->CheckConsistency();
    for (const Decision& d : out_name) {
      allocations += d.type == DecisionType::kAllocation ? 1 : 0;
      releases += d.type == DecisionType::kRelease ? 1 : 0;
    }
  }
  // The workload must reach the calls it compares.
  EXPECT_GT(allocations, 1000);
  EXPECT_GT(releases, 500);
}

TEST(HandlesTest, StaleHandlesAreRefusedAndChangeNothing) {
  auto kernel = Create();
  ASSERT_NE(kernel, nullptr);
  std::vector<Decision> out;
  const PartitionHandle partition = *kernel->FindPartition("default");
  ASSERT_TRUE(kernel->AddNode({.id = "n1", .capacity = {{"memory", 1000}}}, &out).ok());
  ASSERT_TRUE(kernel->AddApplication({.id = "app-1", .queue = "root.a", .user = "u"}, &out).ok());
  const int memory = *kernel->ResourceTypeId("memory");
  AppHandle app = *kernel->FindApplication(partition, "app-1");
  AskArgs args{.id = "x"};
  args.resources.Set(memory, 100);
  AskHandle ask = *kernel->AddAsk(app, args, &out);
  NodeHandle node = *kernel->FindNode(partition, "n1");

  // The application goes; another one takes its slot (and its ask's slot).
  ASSERT_TRUE(kernel->RemoveApplication(app, &out).ok());
  ASSERT_TRUE(kernel->AddApplication({.id = "app-2", .queue = "root.a", .user = "u"}, &out).ok());
  AppHandle reused = *kernel->FindApplication(partition, "app-2");
  EXPECT_EQ(reused.slot, app.slot);
  AskHandle reused_ask = *kernel->AddAsk(reused, args, &out);
  EXPECT_EQ(reused_ask.slot, ask.slot);
  out.clear();
  absl::Status stale = kernel->RemoveApplication(app, &out);
  EXPECT_EQ(stale.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(stale.message(), HasSubstr("stale application handle"));
  EXPECT_EQ(kernel->AddAsk(app, args, &out).status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(kernel->RemoveAsk(ask, &out).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(kernel->GetApplication("default", "app-2")->pending.Get(memory), 100);

  // The node goes and comes back under the same id: a new node, a new handle.
  ASSERT_TRUE(kernel->RemoveNode(node, &out).ok());
  ASSERT_TRUE(kernel->AddNode({.id = "n1", .capacity = {{"memory", 1000}}}, &out).ok());
  EXPECT_EQ(kernel->RemoveNode(node, &out).code(), absl::StatusCode::kFailedPrecondition);
  NodeHandle again = *kernel->FindNode(partition, "n1");
  EXPECT_NE(again, node);
  ASSERT_TRUE(kernel->Schedule(0, "", &out).ok());
  EXPECT_EQ(kernel->ReleaseAllocation(reused_ask, node, &out).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(kernel->ReleaseAllocation(reused_ask, again, &out).ok());
  // Nothing left on the node: the refusal names it, as the call by name does.
  out.clear();
  absl::Status none = kernel->ReleaseAllocation(reused_ask, again, &out);
  EXPECT_EQ(none.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(none.message(),
            kernel->ReleaseAllocation("default", "app-2", "x", "n1", &out).message());
  EXPECT_THAT(none.message(), HasSubstr("on node n1"));
  EXPECT_TRUE(out.empty());
  EXPECT_TRUE(kernel->CheckConsistency().ok());
}

TEST(HandlesTest, APartitionAReloadRemovedIsStale) {
  auto kernel = Create(Config({"default", "gpu"}));
  ASSERT_NE(kernel, nullptr);
  std::vector<Decision> out;
  const PartitionHandle gpu = *kernel->FindPartition("gpu");
  EXPECT_EQ(gpu.index, 1u);
  ASSERT_TRUE(kernel->UpdateConfig(Config({"default"}), &out).ok());
  absl::StatusOr<AppHandle> app = kernel->FindApplication(gpu, "anything");
  EXPECT_EQ(app.status().code(), absl::StatusCode::kFailedPrecondition);
  // Back again: a new partition in the same place, so the old handle stays stale.
  ASSERT_TRUE(kernel->UpdateConfig(Config({"default", "gpu"}), &out).ok());
  EXPECT_EQ(kernel->FindApplication(gpu, "anything").status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(kernel->FindApplication(*kernel->FindPartition("gpu"), "anything").status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(kernel->FindPartition("nowhere").status().code(), absl::StatusCode::kNotFound);
}

TEST(HandlesTest, QueueHandlesReadAQueueUntilItIsRemoved) {
  SchedulerConfig config = Config();
  PlacementRuleConfig rule;
  rule.name = "tag";
  rule.value = "namespace";
  rule.create = true;
  config.partitions[0].placement_rules.push_back(rule);
  auto kernel = Create(config);
  ASSERT_NE(kernel, nullptr);
  std::vector<Decision> out;
  const PartitionHandle partition = *kernel->FindPartition("default");
  QueueHandle a = *kernel->FindQueue(partition, "root.a");
  EXPECT_EQ(kernel->GetQueue(a)->path, "root.a");
  EXPECT_EQ(kernel->FindQueue(partition, "root.nowhere").status().code(),
            absl::StatusCode::kNotFound);
  // A dynamic queue lives while it has applications.
  ASSERT_TRUE(
      kernel->AddApplication({.id = "app", .user = "u", .tags = {{"namespace", "team"}}}, &out)
          .ok());
  absl::StatusOr<QueueHandle> team = kernel->FindQueue(partition, "root.team");
  ASSERT_TRUE(team.ok()) << team.status();
  EXPECT_TRUE(kernel->GetQueue(*team)->dynamic);
  ASSERT_TRUE(kernel->RemoveApplication("default", "app", &out).ok());
  EXPECT_EQ(kernel->GetQueue(*team).status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(kernel->GetQueue(a).ok());
}

// Decisions name their entities by handle too: the handles Find* gives, usable at once.
TEST(HandlesTest, DecisionsCarryTheHandlesOfTheirEntities) {
  auto kernel = Create(Config({"first", "second"}));
  ASSERT_NE(kernel, nullptr);
  std::vector<Decision> out;
  const PartitionHandle second = *kernel->FindPartition("second");
  ASSERT_TRUE(
      kernel->AddNode({.partition = "second", .id = "n1", .capacity = {{"memory", 100}}}, &out)
          .ok());
  ASSERT_TRUE(kernel
                  ->AddApplication(
                      {.partition = "second", .id = "app", .queue = "root.a", .user = "u"}, &out)
                  .ok());
  ASSERT_TRUE(kernel
                  ->AddAsk({.partition = "second",
                            .app = "app",
                            .id = "x",
                            .resources = {{"memory", 10}},
                            .count = 2},
                           &out)
                  .ok());
  out.clear();
  ASSERT_TRUE(kernel->Schedule(0, "", &out).ok());
  const AppHandle app = *kernel->FindApplication(second, "app");
  const AskHandle ask = *kernel->FindAsk(app, "x");
  const NodeHandle node = *kernel->FindNode(second, "n1");
  int allocations = 0, states = 0;
  for (const Decision& d : out) {
    EXPECT_EQ(d.app_handle, app);
    if (d.type == DecisionType::kAllocation) {
      ++allocations;
      EXPECT_EQ(d.ask_handle, ask);
      EXPECT_EQ(d.node_handle, node);
    } else {
      ++states;
      EXPECT_FALSE(d.ask_handle.valid());
    }
  }
  EXPECT_EQ(allocations, 2);
  EXPECT_GT(states, 0);
  // A release reported by handle, and the handles still work after a reload moved the
  // partition to another position.
  out.clear();
  ASSERT_TRUE(kernel->ReleaseAllocation(ask, node, &out).ok());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].ask_handle, ask);
  ASSERT_TRUE(kernel->UpdateConfig(Config({"second"}), &out).ok());
  EXPECT_EQ(kernel->FindPartition("second")->index, 0u);
  EXPECT_TRUE(kernel->ReleaseAllocation(ask, NodeHandle(), &out).ok());
}

TEST(HandlesTest, AskArgsAreCheckedAsTheCallByName) {
  auto kernel = Create();
  ASSERT_NE(kernel, nullptr);
  std::vector<Decision> out;
  ASSERT_TRUE(kernel->AddApplication({.id = "app", .queue = "root.a", .user = "u"}, &out).ok());
  AppHandle app = *kernel->FindApplication(*kernel->FindPartition("default"), "app");
  const int memory = *kernel->ResourceTypeId("memory");
  EXPECT_EQ(*kernel->ResourceTypeId("memory"), memory);
  EXPECT_EQ(kernel->resource_types().Find("memory"), memory);
  AskArgs args{.id = "x"};
  EXPECT_THAT(kernel->AddAsk(app, args, &out).status().message(), HasSubstr("must not be zero"));
  args.resources.Set(memory, -1);
  EXPECT_THAT(kernel->AddAsk(app, args, &out).status().message(),
              HasSubstr("negative quantity -1 for resource 'memory'"));
  args.resources = Resource();
  args.resources.Set(kMaxResourceTypes - 1, 5);
  EXPECT_THAT(kernel->AddAsk(app, args, &out).status().message(), HasSubstr("not registered"));
  args.resources = Resource();
  args.resources.Set(memory, 5);
  args.count = ApiLimits::kMaxAskCount + int64_t{1};
  EXPECT_EQ(kernel->AddAsk(app, args, &out).status().code(), absl::StatusCode::kInvalidArgument);
  args.count = 0;
  EXPECT_EQ(kernel->AddAsk(app, args, &out).status().code(), absl::StatusCode::kInvalidArgument);
  args.count = 1;
  args.id = "";
  EXPECT_EQ(kernel->AddAsk(app, args, &out).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(kernel->usage().asks, 0);
  args.id = "x";
  EXPECT_TRUE(kernel->AddAsk(app, args, &out).ok());
  EXPECT_EQ(kernel->usage().asks, 1);
}

}  // namespace
}  // namespace allocore
