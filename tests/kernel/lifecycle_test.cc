// A manager's lifecycle through the kernel's API: recovered allocations, in-place resize and
// other schedulers' pods, under both semantics profiles. Every test ends with CheckConsistency,
// which recomputes usage, orders and node scores from scratch (a node whose score lags behind a
// foreign change included).
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "allocore/config.h"
#include "allocore/events.h"
#include "allocore/kernel.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/configs.h"
#include "support/profiles.h"

namespace allocore {
namespace {

using ::testing::HasSubstr;

// root.a (max memory 50) and root.b; two nodes of 100 memory, fair node policy.
class LifecycleTest : public ::testing::TestWithParam<Semantics> {
 protected:
  void SetUp() override { Start({}); }

  void Start(KernelOptions options) {
    SchedulerConfig config = test_support::RootWith(
        {test_support::Leaf("a", QuantityMap{{"memory", 50}}), test_support::Leaf("b")});
    options.semantics = GetParam();
    auto created = Kernel::Create(std::move(config), options);
    ASSERT_TRUE(created.ok()) << created.status();
    kernel_ = std::move(*created);
    Ok(kernel_->AddNode({.id = "n1", .capacity = {{"memory", 100}}}, &out_));
    Ok(kernel_->AddNode({.id = "n2", .capacity = {{"memory", 100}}}, &out_));
    Ok(kernel_->AddApplication({.id = "app", .queue = "root.a", .user = "u"}, &out_));
    Ok(kernel_->AddApplication({.id = "other", .queue = "root.b", .user = "u"}, &out_));
    out_.clear();
  }
  bool V19() const { return GetParam() == Semantics::kYunikorn19; }
  void Ok(const absl::Status& status) { ASSERT_TRUE(status.ok()) << status; }
  void Consistent() {
    absl::Status status = kernel_->CheckConsistency();
    EXPECT_TRUE(status.ok()) << status;
  }
  int64_t Memory(const Resource& r) {
    const int type = kernel_->resource_types().Find("memory");
    return type >= 0 ? r.Get(type) : 0;
  }
  int64_t QueueMemory(std::string_view path) {
    return Memory(kernel_->GetQueue("default", path).value().allocated);
  }
  int64_t QueuePending(std::string_view path) {
    return Memory(kernel_->GetQueue("default", path).value().pending);
  }
  // The node the next attempt would give an ask of `memory` in root.b ("" when none fits).
  std::string ProbeNode(int64_t memory) {
    auto probe = kernel_->Probe({.app = "other", .resources = {{"memory", memory}}});
    EXPECT_TRUE(probe.ok()) << probe.status();
    return probe.ok() ? probe->node : "";
  }
  RecoverSpec Pod(std::string id, std::string node, int64_t memory) {
    return {.ask = {.app = "app", .id = std::move(id), .resources = {{"memory", memory}}},
            .node = std::move(node)};
  }
  // What a refused call must leave as it was: every query's answer.
  std::string Observed() {
    std::string text =
        absl::StrCat(kernel_->name_count(), "/", kernel_->resource_types().size(), "/");
    absl::StatusOr<std::vector<QueueInfo>> queues = kernel_->ListQueues("default");
    EXPECT_TRUE(queues.ok());
    if (!queues.ok()) return text;
    for (const QueueInfo& q : *queues) {
      absl::StrAppend(&text, q.path, ":", Memory(q.allocated), ",", Memory(q.pending), ";");
    }
    AppInfo app = kernel_->GetApplication("default", "app").value();
    absl::StrAppend(&text, std::string(AppStateName(app.state)), Memory(app.allocated), ",",
                    Memory(app.pending));
    for (int64_t size : {10, 60, 95}) absl::StrAppend(&text, "/", ProbeNode(size));
    for (const PendingExplanation& p : kernel_->ExplainPending()) {
      absl::StrAppend(&text, "|", p.ask, ":", p.pending_count);
    }
    return text;
  }

  std::unique_ptr<Kernel> kernel_;
  std::vector<Decision> out_;
};

INSTANTIATE_TEST_SUITE_P(Profiles, LifecycleTest, test_support::EachProfile(),
                         test_support::ProfileName);

TEST_P(LifecycleTest, RecoveryTakesWhatRunsPastEveryLimit) {
  // 80 in a queue whose max is 50, and 120 on a node of 100: both taken as reported.
  Ok(kernel_->RecoverAllocation(Pod("r1", "n1", 80), &out_));
  Ok(kernel_->RecoverAllocation(Pod("r2", "n1", 40), &out_));
  ASSERT_EQ(out_.size(), V19() ? 4u : 5u);  // New->Accepted, r1, Accepted->started, r2 (+Running)
  EXPECT_EQ(out_[0].type, DecisionType::kAppState);
  EXPECT_EQ(out_[1].type, DecisionType::kRecovered);
  EXPECT_EQ(out_[1].seq, 0);
  EXPECT_EQ(out_[1].node, "n1");
  EXPECT_EQ(out_[1].queue, "root.a");
  EXPECT_EQ(out_[2].to, V19() ? AppState::kRunning : AppState::kStarting);
  EXPECT_EQ(QueueMemory("root.a"), 120);
  EXPECT_EQ(QueueMemory("root"), 120);
  EXPECT_EQ(Memory(kernel_->GetApplication("default", "app")->allocated), 120);
  EXPECT_EQ(QueuePending("root"), 0);
  EXPECT_EQ(ProbeNode(60), "n2");  // n1 holds 120 of 100: nothing fits there
  Consistent();

  // The recovered allocations release like any, without a seq; the queue is then under its max.
  out_.clear();
  Ok(kernel_->ReleaseAllocation("default", "app", "r2", "", &out_));
  ASSERT_FALSE(out_.empty());
  EXPECT_EQ(out_[0].type, DecisionType::kRelease);
  EXPECT_EQ(out_[0].seq, 0);
  Ok(kernel_->AddAsk({.app = "app", .id = "k", .resources = {{"memory", 10}}}, &out_));
  out_.clear();
  EXPECT_EQ(kernel_->Schedule(0, "", &out_).value(), 0);  // 80 + 10 > 50
  Ok(kernel_->ReleaseAllocation("default", "app", "r1", "", &out_));
  EXPECT_EQ(kernel_->Schedule(0, "", &out_).value(), 1);
  EXPECT_EQ(out_.back().seq, 1) << "recovered allocations take no seq";
  Consistent();
}

TEST_P(LifecycleTest, RefusedRecoveriesChangeNothing) {
  Ok(kernel_->AddAsk({.app = "app", .id = "pending", .resources = {{"memory", 10}}}, &out_));
  Ok(kernel_->RecoverAllocation(Pod("live", "n2", 10), &out_));
  const std::string before = Observed();
  const int64_t names = kernel_->name_count();
  struct Case {
    RecoverSpec spec;
    absl::StatusCode code;
    std::string says;
  };
  std::vector<Case> cases;
  auto with = [&](auto change) {
    RecoverSpec spec = Pod("new", "n1", 10);
    change(spec);
    return spec;
  };
  cases.push_back({with([](RecoverSpec& s) { s.ask.app = "nobody"; }), absl::StatusCode::kNotFound,
                   "unknown application nobody"});
  cases.push_back(
      {with([](RecoverSpec& s) { s.node = "n9"; }), absl::StatusCode::kNotFound, "unknown node"});
  cases.push_back({with([](RecoverSpec& s) { s.node = ""; }), absl::StatusCode::kInvalidArgument,
                   "the node it runs on is required"});
  cases.push_back({with([](RecoverSpec& s) {
                     s.ask.resources = {{"memory", 0}};
                   }),
                   absl::StatusCode::kInvalidArgument, "must not be zero"});
  cases.push_back({with([](RecoverSpec& s) {
                     s.ask.resources = {{"gpu-new", -1}};
                   }),
                   absl::StatusCode::kInvalidArgument, "negative quantity"});
  cases.push_back({with([](RecoverSpec& s) { s.ask.count = 2; }),
                   absl::StatusCode::kInvalidArgument, "count must be 1"});
  cases.push_back({with([](RecoverSpec& s) { s.ask.placeholder = true; }),
                   absl::StatusCode::kInvalidArgument, "placeholder needs a task_group"});
  cases.push_back({with([](RecoverSpec& s) {
                     s.ask.resources = {{"memory", INT64_MAX}};
                   }),
                   absl::StatusCode::kOutOfRange, "int64"});
  if (!V19()) {
    cases.push_back({with([](RecoverSpec& s) { s.ask.id = "pending"; }),
                     absl::StatusCode::kFailedPrecondition, "new ids only"});
    cases.push_back({with([](RecoverSpec& s) { s.ask.id = "live"; }),
                     absl::StatusCode::kFailedPrecondition, "new ids only"});
  }
  for (const Case& c : cases) {
    out_.clear();
    absl::Status status = kernel_->RecoverAllocation(c.spec, &out_);
    EXPECT_EQ(status.code(), c.code) << c.says << ": " << status;
    EXPECT_THAT(std::string(status.message()), HasSubstr(c.says));
    EXPECT_TRUE(out_.empty()) << c.says;
    EXPECT_EQ(Observed(), before) << c.says;
    EXPECT_EQ(kernel_->name_count(), names) << c.says;
  }
  // A finished application takes nothing either.
  Ok(kernel_->AddApplication({.id = "done", .queue = "root.b", .user = "u"}, &out_));
  Ok(kernel_->AddAsk({.app = "done", .id = "x", .resources = {{"memory", 1}}}, &out_));
  Ok(kernel_->RemoveApplication("default", "done", &out_));
  RecoverSpec late = Pod("y", "n1", 1);
  late.ask.app = "done";
  EXPECT_FALSE(kernel_->RecoverAllocation(late, &out_).ok());
  Consistent();
}

TEST_P(LifecycleTest, ReportsOfKnownIdsFollowTheProfile) {
  Ok(kernel_->AddAsk({.app = "app", .id = "k", .resources = {{"memory", 30}}}, &out_));
  out_.clear();
  absl::Status placed = kernel_->RecoverAllocation(Pod("k", "n2", 20), &out_);
  if (!V19()) {
    EXPECT_EQ(placed.code(), absl::StatusCode::kFailedPrecondition);
    return;
  }
  // 1.9: the manager placed the pending ask itself, with 20 instead of 30.
  Ok(placed);
  EXPECT_EQ(QueuePending("root.a"), 0);
  EXPECT_EQ(QueueMemory("root.a"), 20);
  bool recovered = false;
  for (const Decision& d : out_) recovered |= d.type == DecisionType::kRecovered && d.node == "n2";
  EXPECT_TRUE(recovered);
  // A report of the running pod is a resize.
  Ok(kernel_->RecoverAllocation(Pod("k", "n1", 45), &out_));
  EXPECT_EQ(QueueMemory("root.a"), 45);
  Consistent();
}

TEST_P(LifecycleTest, ResizeFollowsEveryTotalUnder19AndIsRefusedUnder12) {
  Ok(kernel_->AddAsk({.app = "app", .id = "web", .resources = {{"memory", 40}}}, &out_));
  ASSERT_EQ(kernel_->Schedule(0, "", &out_).value(), 1);
  Ok(kernel_->AddAsk({.app = "app", .id = "wait", .resources = {{"memory", 5}}}, &out_));
  const std::string before = Observed();
  out_.clear();
  absl::Status grown =
      kernel_->UpdateAllocation({.app = "app", .ask = "web", .resources = {{"memory", 70}}}, &out_);
  absl::Status asked =
      kernel_->UpdateAsk({.app = "app", .id = "wait", .resources = {{"memory", 8}}}, &out_);
  EXPECT_TRUE(out_.empty()) << "a resize decides nothing";
  if (!V19()) {
    EXPECT_EQ(grown.code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_EQ(asked.code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_THAT(std::string(grown.message()), HasSubstr("yunikorn-1.2 cannot resize"));
    EXPECT_EQ(Observed(), before);
    return;
  }
  Ok(grown);
  Ok(asked);
  EXPECT_EQ(QueueMemory("root.a"), 70);  // past the max of 50: taken as reported
  EXPECT_EQ(QueueMemory("root"), 70);
  EXPECT_EQ(QueuePending("root.a"), 8);
  EXPECT_EQ(Memory(kernel_->GetApplication("default", "app")->allocated), 70);
  EXPECT_EQ(ProbeNode(40), "n2");                         // n1 holds 70 of 100
  EXPECT_EQ(kernel_->Schedule(0, "", &out_).value(), 0);  // the queue is over its max
  Consistent();
  // Refusals change nothing.
  const std::string now = Observed();
  EXPECT_EQ(
      kernel_->UpdateAllocation({.app = "app", .ask = "web", .resources = {{"memory", 0}}}, &out_)
          .code(),
      absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(kernel_
                ->UpdateAllocation(
                    {.app = "app", .ask = "web", .node = "n2", .resources = {{"memory", 5}}}, &out_)
                .code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(
      kernel_->UpdateAllocation({.app = "app", .ask = "wait", .resources = {{"memory", 5}}}, &out_)
          .code(),
      absl::StatusCode::kNotFound);
  EXPECT_EQ(
      kernel_->UpdateAsk({.app = "app", .id = "web", .resources = {{"memory", 5}}}, &out_).code(),
      absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(kernel_->UpdateAsk({.app = "app", .id = "wait", .resources = {{"new-type", -2}}}, &out_)
                .code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Observed(), now);
  // Shrunk back under the max, the waiting ask (now 8) goes.
  Ok(kernel_->UpdateAllocation({.app = "app", .ask = "web", .resources = {{"memory", 30}}}, &out_));
  EXPECT_EQ(kernel_->Schedule(0, "", &out_).value(), 1);
  EXPECT_EQ(QueueMemory("root.a"), 38);
  Consistent();
}

TEST_P(LifecycleTest, ForeignPodsTakeNodeRoomOnlyAndRescoreOnlyUnder12) {
  // Both nodes empty: the tie goes to n1. A foreign pod of 60 on n1 re-scores it under 1.2
  // only; the free space is current under both.
  Ok(kernel_->AddForeignAllocation({.id = "f1", .node = "n1", .resources = {{"memory", 60}}},
                                   &out_));
  EXPECT_TRUE(out_.empty());
  EXPECT_EQ(ProbeNode(10), V19() ? "n1" : "n2");
  EXPECT_EQ(ProbeNode(45), "n2");  // 40 left on n1
  EXPECT_EQ(QueueMemory("root"), 0) << "foreign pods count against no queue";
  Consistent();
  // A known id again is an update; a removal frees the room.
  Ok(kernel_->AddForeignAllocation({.id = "f1", .node = "n1", .resources = {{"memory", 95}}},
                                   &out_));
  EXPECT_EQ(ProbeNode(10), "n2");
  Ok(kernel_->UpdateForeignAllocation({.id = "f1", .resources = {{"memory", 0}}}, &out_));
  EXPECT_EQ(ProbeNode(99), "n1");
  Consistent();
  const std::string before = Observed();
  EXPECT_EQ(
      kernel_
          ->UpdateForeignAllocation({.id = "f1", .node = "n2", .resources = {{"memory", 1}}}, &out_)
          .code(),
      absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      kernel_->UpdateForeignAllocation({.id = "f1", .resources = {{"memory", -1}}}, &out_).code(),
      absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      kernel_->AddForeignAllocation({.id = "f2", .node = "n7", .resources = {}}, &out_).code(),
      absl::StatusCode::kNotFound);
  EXPECT_EQ(kernel_->RemoveForeignAllocation("default", "f2", &out_).code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(Observed(), before);
  Ok(kernel_->RemoveForeignAllocation("default", "f1", &out_));
  EXPECT_EQ(kernel_->RemoveForeignAllocation("default", "f1", &out_).code(),
            absl::StatusCode::kNotFound);
  Consistent();
}

TEST_P(LifecycleTest, ANodeTakesItsForeignPodsAlongAndNamesSurviveARelease) {
  Ok(kernel_->AddForeignAllocation({.id = "pod-on-n2", .node = "n2", .resources = {{"memory", 5}}},
                                   &out_));
  Ok(kernel_->AddForeignAllocation({.id = "pod-on-n1", .node = "n1", .resources = {{"memory", 5}}},
                                   &out_));
  // The ids stay interned while their pods are known (ASan sees a dangling view otherwise).
  kernel_->ReleaseUnusedNames();
  Ok(kernel_->UpdateForeignAllocation({.id = "pod-on-n1", .resources = {{"memory", 6}}}, &out_));
  Ok(kernel_->RemoveNode("default", "n2", &out_));
  EXPECT_EQ(kernel_->RemoveForeignAllocation("default", "pod-on-n2", &out_).code(),
            absl::StatusCode::kNotFound);
  Ok(kernel_->RemoveForeignAllocation("default", "pod-on-n1", &out_));
  Consistent();
}

TEST_P(LifecycleTest, RecoveryCountsAgainstTheLiveAllocationBudget) {
  Start({.max_live_allocations = 1});
  Ok(kernel_->RecoverAllocation(Pod("r1", "n1", 10), &out_));
  const std::string before = Observed();
  absl::Status full = kernel_->RecoverAllocation(Pod("r2", "n1", 10), &out_);
  EXPECT_EQ(full.code(), absl::StatusCode::kResourceExhausted) << full;
  EXPECT_EQ(Observed(), before);
}

TEST_P(LifecycleTest, HostileReportsAreBoundedAndChangeNothing) {
  Ok(kernel_->AddForeignAllocation({.id = "f", .node = "n1", .resources = {{"memory", 10}}},
                                   &out_));
  Ok(kernel_->RecoverAllocation(Pod("r", "n1", 10), &out_));
  out_.clear();
  const std::string before = Observed();
  const std::string long_name(ApiLimits::kMaxNameBytes + 1, 'x');
  Quantities many;
  for (size_t i = 0; i <= ApiLimits::kMaxQuantityEntries; ++i) {
    many.emplace_back("t" + std::to_string(i), 1);
  }
  std::vector<absl::Status> refused = {
      kernel_->AddForeignAllocation({.id = long_name, .node = "n1"}, &out_),
      kernel_->AddForeignAllocation({.id = "g", .node = "n1", .resources = many}, &out_),
      kernel_->AddForeignAllocation({.id = "g", .node = "n1", .resources = {{"memory", INT64_MAX}}},
                                    &out_),
      kernel_->AddForeignAllocation({.partition = "nowhere", .id = "g", .node = "n1"}, &out_),
      kernel_->RemoveForeignAllocation("default", long_name, &out_),
      kernel_->RecoverAllocation(
          {.ask = {.app = "app", .id = long_name, .resources = {{"memory", 1}}}, .node = "n1"},
          &out_),
      kernel_->RecoverAllocation(
          {.ask = {.app = "app", .id = "r2", .resources = many}, .node = "n1"}, &out_),
      kernel_->UpdateAllocation({.app = "app", .ask = "r", .resources = many}, &out_),
      kernel_->UpdateAsk({.app = "app", .id = long_name, .resources = {{"memory", 1}}}, &out_),
  };
  for (size_t i = 0; i < refused.size(); ++i) {
    EXPECT_FALSE(refused[i].ok()) << "call " << i;
    EXPECT_FALSE(refused[i].message().empty()) << "call " << i;
  }
  EXPECT_TRUE(out_.empty());
  EXPECT_EQ(Observed(), before);
  Consistent();
  // At the int64 edge, what fits is taken; the node's free space saturates and its score (under
  // 1.9, still the one of its last notified change) stays consistent.
  Ok(kernel_->UpdateForeignAllocation({.id = "f", .resources = {{"memory", INT64_MAX}}}, &out_));
  Consistent();
  if (V19()) {
    Ok(kernel_->UpdateAllocation({.app = "app", .ask = "r", .resources = {{"memory", INT64_MAX}}},
                                 &out_));
    Consistent();
    Ok(kernel_->UpdateAllocation({.app = "app", .ask = "r", .resources = {{"memory", 1}}}, &out_));
  }
  Ok(kernel_->RemoveForeignAllocation("default", "f", &out_));
  Consistent();
  EXPECT_EQ(ProbeNode(10), "n2");  // n1 holds r: n2 is less used under both profiles
}

TEST_P(LifecycleTest, ByHandleTheCallsDoWhatTheyDoByName) {
  PartitionHandle partition = kernel_->FindPartition("default").value();
  AppHandle app = kernel_->FindApplication(partition, "app").value();
  NodeHandle n2 = kernel_->FindNode(partition, "n2").value();
  const int memory = kernel_->ResourceTypeId("memory").value();
  Resource thirty;
  thirty.Set(memory, 30);
  Ok(kernel_->RecoverAllocation(app, {.id = "pod", .resources = thirty}, n2, &out_));
  ASSERT_FALSE(out_.empty());
  bool recovered = false;
  for (const Decision& d : out_) {
    recovered |= d.type == DecisionType::kRecovered && d.node == "n2" && d.ask_handle.valid();
  }
  EXPECT_TRUE(recovered);
  EXPECT_EQ(QueueMemory("root.a"), 30);
  AskHandle pod = kernel_->FindAsk(app, "pod").value();
  Resource twenty;
  twenty.Set(memory, 20);
  absl::Status resized = kernel_->UpdateAllocation(pod, n2, twenty, &out_);
  EXPECT_EQ(resized.ok(), V19()) << resized;
  EXPECT_EQ(QueueMemory("root.a"), V19() ? 20 : 30);
  // Unregistered type ids and zero are refused, nothing changed.
  Resource unregistered;
  unregistered.Set(kMaxResourceTypes - 1, 5);
  EXPECT_FALSE(
      kernel_->RecoverAllocation(app, {.id = "bad", .resources = unregistered}, n2, &out_).ok());
  EXPECT_FALSE(kernel_->RecoverAllocation(app, {.id = "bad", .resources = {}}, n2, &out_).ok());
  EXPECT_FALSE(kernel_->UpdateAsk(pod, twenty, &out_).ok()) << "nothing pending";
  // Another scheduler's pod on a node by handle; an unregistered type is refused.
  Ok(kernel_->AddForeignAllocation(n2, "other-pod", twenty, ForeignKind::kStatic, &out_));
  EXPECT_EQ(kernel_->ListNodes("default").value()[1].foreign_allocations, 1);
  EXPECT_FALSE(
      kernel_->AddForeignAllocation(n2, "odd", unregistered, ForeignKind::kDefault, &out_).ok());
  Ok(kernel_->RemoveForeignAllocation("default", "other-pod", &out_));
  // A node that is gone makes its handle stale.
  Ok(kernel_->RemoveNode("default", "n1", &out_));
  NodeHandle gone = kernel_->FindNode(partition, "n2").value();
  Ok(kernel_->RemoveNode("default", "n2", &out_));
  EXPECT_EQ(
      kernel_->RecoverAllocation(app, {.id = "late", .resources = thirty}, gone, &out_).code(),
      absl::StatusCode::kFailedPrecondition);
  Consistent();
}

TEST_P(LifecycleTest, InventoryListsNodesApplicationsAndLiveAllocations) {
  Ok(kernel_->RecoverAllocation(Pod("running", "n2", 30), &out_));
  Ok(kernel_->AddAsk({.app = "app", .id = "k", .resources = {{"memory", 10}}, .count = 2}, &out_));
  ASSERT_EQ(kernel_->Schedule(0, "", &out_).value(), 2);
  Ok(kernel_->AddForeignAllocation({.id = "f", .node = "n1", .resources = {{"memory", 5}}}, &out_));
  std::vector<NodeInfo> nodes = kernel_->ListNodes("default").value();
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(nodes[0].id, "n1");
  EXPECT_EQ(nodes[1].id, "n2");
  int64_t allocated = 0;
  for (const NodeInfo& n : nodes) {
    allocated += Memory(n.allocated);
    EXPECT_EQ(Memory(n.available), Memory(n.capacity) - Memory(n.allocated) - Memory(n.occupied));
  }
  EXPECT_EQ(allocated, 50);
  EXPECT_EQ(Memory(nodes[0].occupied), 5);
  EXPECT_EQ(nodes[0].foreign_allocations, 1);
  EXPECT_EQ(nodes[0].allocations + nodes[1].allocations, 3);

  std::vector<AppInfo> apps = kernel_->ListApplications("default").value();
  ASSERT_EQ(apps.size(), 2u);  // app and other, in submission order
  EXPECT_EQ(apps[0].id, "app");
  EXPECT_EQ(Memory(apps[0].allocated), 50);

  std::vector<AllocationInfo> all = kernel_->ListAllocations("default", "", "").value();
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].ask, "running");  // oldest first: the recovered pod, no seq
  EXPECT_EQ(all[0].seq, 0);
  EXPECT_EQ(all[1].seq, 1);
  EXPECT_EQ(all[2].seq, 2);
  EXPECT_EQ(kernel_->ListAllocations("default", "app", "n2").value().size(),
            1u + (all[1].node == "n2") + (all[2].node == "n2"));
  EXPECT_TRUE(kernel_->ListAllocations("default", "other", "").value().empty());
  EXPECT_EQ(kernel_->ListAllocations("default", "ghost", "").status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(kernel_->ListAllocations("default", "", "n9").status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(kernel_->ListNodes("nowhere").status().code(), absl::StatusCode::kNotFound);
  // Releasing by the listed seq releases exactly that one.
  Ok(kernel_->ReleaseAllocation("default", "app", "k", "", all[2].seq, &out_));
  EXPECT_EQ(kernel_->ListAllocations("default", "app", "").value().size(), 2u);
  Consistent();
}

TEST_P(LifecycleTest, EventsCarryTheNewCalls) {
  std::vector<Event> batch = {
      RecoverSpec{Pod("r1", "n1", 10)},
      ForeignAllocationSpec{.id = "f", .node = "n2", .resources = {{"memory", 10}}},
      ForeignAllocationUpdate{.id = "f", .resources = {{"memory", 20}}},
      RemoveForeignAllocationEvent{.id = "f"},
      AllocationUpdate{.app = "app", .ask = "r1", .resources = {{"memory", 15}}},
      AskUpdate{.app = "app", .id = "r1", .resources = {{"memory", 15}}},
  };
  std::vector<EventResult> results;
  ApplyEvents(*kernel_, batch, &out_, &results);
  ASSERT_EQ(results.size(), batch.size());
  for (size_t i = 0; i < 4; ++i) EXPECT_TRUE(results[i].status.ok()) << i << results[i].status;
  EXPECT_EQ(results[4].status.ok(), V19());
  EXPECT_FALSE(results[5].status.ok()) << "nothing pending to resize";
  EXPECT_EQ(QueueMemory("root.a"), V19() ? 15 : 10);
  Consistent();
}

}  // namespace
}  // namespace allocore
