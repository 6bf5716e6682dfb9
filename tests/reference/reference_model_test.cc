// The shared conformance scenarios (../shared/scenarios/*.yaml) driven through the reference
// model with direct calls. Every step advances the logical clock by 1 ms before it runs
// (nodes are registered at time 0); `advance: {seconds: N}` moves it N * 1000 ms further.

#include "reference/reference_model.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace allocore::reference {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::IsEmpty;

struct Placed {
  Placed(std::string a, std::string k, std::string n = "", std::string q = "")
      : app(std::move(a)), ask(std::move(k)), node(std::move(n)), queue(std::move(q)) {}

  std::string app;
  std::string ask;
  std::string node;   // empty: not checked
  std::string queue;  // empty: not checked

  bool operator==(const Placed& o) const {
    return app == o.app && ask == o.ask && (node.empty() || o.node.empty() || node == o.node) &&
           (queue.empty() || o.queue.empty() || queue == o.queue);
  }
};

void PrintTo(const Placed& p, std::ostream* os) {
  *os << "{" << p.app << "/" << p.ask << " on " << p.node << " in " << p.queue << "}";
}

QueueConfig Queue(std::string name, PropertyMap properties = {},
                  std::vector<QueueConfig> children = {}) {
  QueueConfig q;
  q.name = std::move(name);
  q.properties = std::move(properties);
  q.queues = std::move(children);
  return q;
}

SchedulerConfig OnePartition(QueueConfig root, std::string node_policy = "") {
  SchedulerConfig config;
  PartitionConfig& p = config.partitions.emplace_back();
  p.name = "default";
  p.node_sort_policy.type = std::move(node_policy);
  p.queues.push_back(std::move(root));
  return config;
}

// Runs scenario steps the way `allocore run` does.
class Runner {
 public:
  explicit Runner(const SchedulerConfig& config) {
    auto model = ReferenceModel::Create(config);
    EXPECT_TRUE(model.ok()) << model.status();
    model_ = std::move(model).value();
  }

  void Node(std::string id, Quantities capacity) {
    NodeSpec spec;
    spec.id = std::move(id);
    spec.capacity = std::move(capacity);
    Record(model_->AddNode(spec, &out_));
  }
  void App(std::string id, std::string queue, std::string user,
           std::vector<std::string> groups = {}) {
    Tick();
    AppSpec spec;
    spec.id = std::move(id);
    spec.queue = std::move(queue);
    spec.user = std::move(user);
    spec.groups = std::move(groups);
    Record(model_->AddApplication(spec, &out_));
  }
  void Ask(std::string app, std::string id, Quantities resources, int32_t priority = 0,
           int64_t count = 1) {
    Tick();
    AskSpec spec;
    spec.app = std::move(app);
    spec.id = std::move(id);
    spec.resources = std::move(resources);
    spec.priority = priority;
    spec.count = count;
    Record(model_->AddAsk(spec, &out_));
  }
  void Schedule(int64_t max = 0) {
    Tick();
    Record(model_->Schedule(max, "", &out_).status());
  }
  void Release(std::string app, std::string ask, std::string node = "") {
    Tick();
    Record(model_->ReleaseAllocation(kDefaultPartition, app, ask, node, 0, &out_));
  }
  void AdvanceSeconds(int64_t seconds) {
    Tick();
    Record(model_->Advance(seconds * 1000, &out_));
  }

  std::vector<Placed> Allocations() const {
    std::vector<Placed> placed;
    for (const RefDecision& d : out_) {
      if (d.type == DecisionType::kAllocation) placed.push_back({d.app, d.ask, d.node, d.queue});
    }
    return placed;
  }
  std::vector<std::string> Rejected() const {
    std::vector<std::string> apps;
    for (const RefDecision& d : out_) {
      if (d.type == DecisionType::kAppRejected) apps.push_back(d.app);
    }
    return apps;
  }
  int errors() const { return errors_; }
  ReferenceModel& model() { return *model_; }

 private:
  void Tick() { EXPECT_TRUE(model_->Advance(1, &out_).ok()); }
  void Record(const absl::Status& status) {
    if (!status.ok()) ++errors_;
  }

  std::unique_ptr<ReferenceModel> model_;
  std::vector<RefDecision> out_;
  int errors_ = 0;
};

NodeSpec MakeNode(std::string id, Quantities capacity) {
  NodeSpec spec;
  spec.id = std::move(id);
  spec.capacity = std::move(capacity);
  return spec;
}

AppSpec MakeApp(std::string id, std::string queue, std::string user, Tags tags = {}) {
  AppSpec spec;
  spec.id = std::move(id);
  spec.queue = std::move(queue);
  spec.user = std::move(user);
  spec.tags = std::move(tags);
  return spec;
}

AskSpec MakeAsk(std::string app, std::string id, Quantities resources, int64_t count = 1) {
  AskSpec spec;
  spec.app = std::move(app);
  spec.id = std::move(id);
  spec.resources = std::move(resources);
  spec.count = count;
  return spec;
}

const Quantities kTask = {{"memory", 10}, {"vcore", 1}};

TEST(ReferenceScenarioTest, FairQueuesGuaranteed) {
  QueueConfig small = Queue("small");
  small.resources.guaranteed = QuantityMap{{"memory", 97}};
  QueueConfig large = Queue("large");
  large.resources.guaranteed = QuantityMap{{"memory", 211}};
  QueueConfig root = Queue("root", {}, {small, large});
  root.submit_acl = "*";
  Runner run(OnePartition(root));
  run.Node("node-1", {{"memory", 10000}, {"vcore", 100}});
  run.App("app-s", "root.small", "u1");
  run.App("app-l", "root.large", "u1");
  run.Ask("app-s", "s", {{"memory", 10}}, 0, 5);
  run.Ask("app-l", "l", {{"memory", 10}}, 0, 9);
  run.Schedule();
  const Placed l{"app-l", "l", "node-1", "root.large"};
  const Placed s{"app-s", "s", "node-1", "root.small"};
  EXPECT_THAT(run.Allocations(), ElementsAreArray({l, s, l, l, s, l, l, s, l, l, s, l, l, s}));
  EXPECT_THAT(run.Rejected(), IsEmpty());
  EXPECT_EQ(run.errors(), 0);
}

TEST(ReferenceScenarioTest, LeafMaxHeadroom) {
  QueueConfig capped = Queue("capped");
  capped.resources.max = QuantityMap{{"memory", 50}, {"vcore", 100000}};
  QueueConfig root = Queue("root", {}, {capped, Queue("free")});
  root.submit_acl = "*";
  Runner run(OnePartition(root));
  run.Node("node-1", {{"memory", 1000}, {"vcore", 100}});
  run.App("app-c", "root.capped", "u1");
  run.App("app-f", "root.free", "u1");
  run.Ask("app-c", "c20", {{"memory", 20}, {"vcore", 1}}, 100, 3);
  run.Ask("app-c", "c10", {{"memory", 10}, {"vcore", 1}}, 50, 2);
  run.Ask("app-f", "f", {{"memory", 30}, {"vcore", 1}}, 1, 2);
  run.Schedule();
  const Placed c20{"app-c", "c20", "node-1", "root.capped"};
  const Placed c10{"app-c", "c10", "node-1", "root.capped"};
  const Placed f{"app-f", "f", "node-1", "root.free"};
  EXPECT_THAT(run.Allocations(), ElementsAre(c20, c20, c10, f, f));
  EXPECT_THAT(run.Rejected(), IsEmpty());
  EXPECT_EQ(run.errors(), 0);
  // The cap is reached: the capped queue still has priority 100 pending.
  auto capped_info = run.model().GetQueue("default", "root.capped");
  ASSERT_TRUE(capped_info.ok());
  EXPECT_EQ(capped_info->priority, 100);
  EXPECT_EQ(capped_info->allocated, (NamedQuantities{{"memory", 50}, {"vcore", 3}}));
}

TEST(ReferenceScenarioTest, NodeBinpacking) {
  QueueConfig root = Queue("root", {}, {Queue("q")});
  root.submit_acl = "*";
  Runner run(OnePartition(root, "binpacking"));
  run.Node("node-b", {{"memory", 100}, {"vcore", 10}});
  run.Node("node-a", {{"memory", 100}, {"vcore", 10}});
  run.Node("node-c", {{"memory", 300}, {"vcore", 30}});
  run.App("app-1", "root.q", "u1");
  run.Ask("app-1", "big", {{"memory", 70}, {"vcore", 1}}, 0, 2);
  run.Ask("app-1", "small", {{"memory", 20}, {"vcore", 2}}, -1, 6);
  run.Schedule();
  auto big = [](std::string node) { return Placed{"app-1", "big", std::move(node), "root.q"}; };
  auto small = [](std::string node) { return Placed{"app-1", "small", std::move(node), "root.q"}; };
  EXPECT_THAT(run.Allocations(),
              ElementsAre(big("node-a"), big("node-b"), small("node-a"), small("node-b"),
                          small("node-c"), small("node-c"), small("node-c"), small("node-c")));
  EXPECT_EQ(run.errors(), 0);
}

TEST(ReferenceScenarioTest, NodeFair) {
  QueueConfig root = Queue("root", {}, {Queue("q")});
  root.submit_acl = "*";
  Runner run(OnePartition(root));
  run.Node("node-b", {{"memory", 400}, {"vcore", 40}});
  run.Node("node-a", {{"memory", 100}, {"vcore", 10}});
  run.Node("node-c", {{"memory", 200}, {"vcore", 20}});
  run.App("app-1", "root.q", "u1");
  run.Ask("app-1", "t", {{"memory", 50}, {"vcore", 5}}, 0, 8);
  run.Schedule();
  auto t = [](std::string node) { return Placed{"app-1", "t", std::move(node), "root.q"}; };
  EXPECT_THAT(run.Allocations(), ElementsAre(t("node-a"), t("node-b"), t("node-c"), t("node-b"),
                                             t("node-b"), t("node-c"), t("node-b"), t("node-a")));
  EXPECT_EQ(run.errors(), 0);
}

TEST(ReferenceScenarioTest, PriorityFenceParents) {
  QueueConfig root =
      Queue("root", {},
            {Queue("open"),
             Queue("f10", {{"priority.policy", "fence"}, {"priority.offset", "10"}},
                   {Queue("x"), Queue("y")}),
             Queue("f60", {{"priority.policy", "fence"}, {"priority.offset", "60"}}, {Queue("z")}),
             Queue("fleaf", {{"priority.policy", "fence"}, {"priority.offset", "7"}})});
  root.submit_acl = "*";
  Runner run(OnePartition(root));
  run.Node("node-1", {{"memory", 10000}, {"vcore", 100}});
  run.App("app-open", "root.open", "u1");
  run.App("app-x", "root.f10.x", "u1");
  run.App("app-y", "root.f10.y", "u1");
  run.App("app-z", "root.f60.z", "u1");
  run.App("app-f1", "root.fleaf", "u1");
  run.App("app-f2", "root.fleaf", "u1");
  run.Ask("app-open", "open-p50", kTask, 50);
  run.Ask("app-open", "open-p8", kTask, 8);
  run.Ask("app-open", "open-p5", kTask, 5);
  run.Ask("app-x", "x-p1000", kTask, 1000);
  run.Ask("app-y", "y-p999", kTask, 999);
  run.Ask("app-y", "y-p1001", kTask, 1001);
  run.Ask("app-z", "z-m500", kTask, -500);
  run.Ask("app-f1", "f1-p100", kTask, 100);
  run.Ask("app-f2", "f2-p200", kTask, 200);
  // Before scheduling: fenced queues present their offsets.
  EXPECT_EQ(run.model().GetQueue("default", "root.f10")->priority, 10);
  EXPECT_EQ(run.model().GetQueue("default", "root.f60")->priority, 60);
  EXPECT_EQ(run.model().GetQueue("default", "root.fleaf")->priority, 7);
  EXPECT_EQ(run.model().GetQueue("default", "root.f10.y")->priority, 1001);
  run.Schedule();
  EXPECT_THAT(run.Allocations(), ElementsAre(Placed{"app-z", "z-m500", "node-1", "root.f60.z"},
                                             Placed{"app-open", "open-p50", "node-1", "root.open"},
                                             Placed{"app-y", "y-p1001", "node-1", "root.f10.y"},
                                             Placed{"app-x", "x-p1000", "node-1", "root.f10.x"},
                                             Placed{"app-y", "y-p999", "node-1", "root.f10.y"},
                                             Placed{"app-open", "open-p8", "node-1", "root.open"},
                                             Placed{"app-f2", "f2-p200", "node-1", "root.fleaf"},
                                             Placed{"app-f1", "f1-p100", "node-1", "root.fleaf"},
                                             Placed{"app-open", "open-p5", "node-1", "root.open"}));
  EXPECT_EQ(run.errors(), 0);
  // Nothing pending anywhere: "nothing pending" beats offsets and fences.
  auto f10 = run.model().GetQueue("default", "root.f10");
  EXPECT_FALSE(f10->has_pending_priority);
}

TEST(ReferenceScenarioTest, PriorityOffsetSiblings) {
  QueueConfig root = Queue("root", {},
                           {Queue("hi", {{"priority.offset", "100"}}), Queue("mid"),
                            Queue("lo", {{"priority.offset", "-100"}})});
  root.submit_acl = "*";
  Runner run(OnePartition(root));
  run.Node("node-1", {{"memory", 10000}, {"vcore", 100}});
  run.App("app-hi", "root.hi", "u1");
  run.App("app-mid", "root.mid", "u1");
  run.App("app-lo", "root.lo", "u1");
  run.Ask("app-hi", "hi-p1", kTask, 1);
  run.Ask("app-hi", "hi-m60", kTask, -60);
  run.Ask("app-mid", "mid-p50", kTask, 50);
  run.Ask("app-mid", "mid-p49", kTask, 49);
  run.Ask("app-lo", "lo-p200", kTask, 200);
  run.Ask("app-lo", "lo-p145", kTask, 145);
  run.Schedule();
  EXPECT_THAT(run.Allocations(), ElementsAre(Placed{"app-hi", "hi-p1", "node-1", "root.hi"},
                                             Placed{"app-lo", "lo-p200", "node-1", "root.lo"},
                                             Placed{"app-mid", "mid-p50", "node-1", "root.mid"},
                                             Placed{"app-mid", "mid-p49", "node-1", "root.mid"},
                                             Placed{"app-lo", "lo-p145", "node-1", "root.lo"},
                                             Placed{"app-hi", "hi-m60", "node-1", "root.hi"}));
  EXPECT_EQ(run.errors(), 0);
}

TEST(ReferenceScenarioTest, PriorityTree) {
  QueueConfig root =
      Queue("root", {},
            {Queue("system", {},
                   {Queue("system-normal", {{"priority.offset", "0"}}),
                    Queue("system-high", {{"priority.offset", "1000"}}),
                    Queue("system-low", {{"priority.offset", "-1000"}})}),
             Queue("tenants", {{"priority.policy", "fence"}},
                   {Queue("tenant-a", {{"priority.policy", "fence"}, {"priority.offset", "10"}},
                          {Queue("child-a-1"), Queue("child-a-2")}),
                    Queue("tenant-b", {{"priority.policy", "fence"}, {"priority.offset", "0"}},
                          {Queue("child-b-1"), Queue("child-b-2")})})});
  root.submit_acl = "*";
  Runner run(OnePartition(root));
  run.Node("node-1", {{"memory", 100000}, {"vcore", 1000}});
  run.App("app-high", "root.system.system-high", "ops");
  run.App("app-normal", "root.system.system-normal", "ops");
  run.App("app-low", "root.system.system-low", "ops");
  run.App("app-a1", "root.tenants.tenant-a.child-a-1", "alice");
  run.App("app-a2", "root.tenants.tenant-a.child-a-2", "alice");
  run.App("app-b1", "root.tenants.tenant-b.child-b-1", "bob");
  run.App("app-b2", "root.tenants.tenant-b.child-b-2", "bob");
  run.Ask("app-high", "high-p1", kTask, 1);
  run.Ask("app-normal", "normal-p10", kTask, 10);
  run.Ask("app-normal", "normal-p2", kTask, 2);
  run.Ask("app-low", "low-p3", kTask, 3);
  run.Ask("app-a1", "a1-p8", kTask, 8);
  run.Ask("app-a1", "a1-p5", kTask, 5);
  run.Ask("app-a2", "a2-p6", kTask, 6);
  run.Ask("app-a2", "a2-p4", kTask, 4);
  run.Ask("app-b1", "b1-p9", kTask, 9);
  run.Ask("app-b1", "b1-p7", kTask, 7);
  run.Ask("app-b2", "b2-p8", kTask, 8);
  // The priorities of the walk-through (seeds/000), before scheduling.
  auto prio = [&](const char* path) { return run.model().GetQueue("default", path)->priority; };
  EXPECT_EQ(prio("root.system"), 1001);
  EXPECT_EQ(prio("root.system.system-normal"), 10);
  EXPECT_EQ(prio("root.system.system-high"), 1001);
  EXPECT_EQ(prio("root.system.system-low"), -997);
  EXPECT_EQ(prio("root.tenants"), 0);
  EXPECT_EQ(prio("root.tenants.tenant-a"), 10);
  EXPECT_EQ(prio("root.tenants.tenant-a.child-a-1"), 8);
  EXPECT_EQ(prio("root.tenants.tenant-a.child-a-2"), 6);
  EXPECT_EQ(prio("root.tenants.tenant-b"), 0);
  EXPECT_EQ(prio("root.tenants.tenant-b.child-b-1"), 9);
  EXPECT_EQ(prio("root.tenants.tenant-b.child-b-2"), 8);
  run.Schedule();
  EXPECT_THAT(
      run.Allocations(),
      ElementsAre(Placed{"app-high", "high-p1"}, Placed{"app-normal", "normal-p10"},
                  Placed{"app-normal", "normal-p2"}, Placed{"app-a1", "a1-p8"},
                  Placed{"app-a2", "a2-p6"}, Placed{"app-a1", "a1-p5"}, Placed{"app-a2", "a2-p4"},
                  Placed{"app-b1", "b1-p9"}, Placed{"app-b2", "b2-p8"}, Placed{"app-b1", "b1-p7"},
                  Placed{"app-low", "low-p3"}));
  EXPECT_EQ(run.errors(), 0);
}

TEST(ReferenceScenarioTest, Reservation) {
  QueueConfig root = Queue("root", {}, {Queue("a"), Queue("b")});
  root.submit_acl = "*";
  Runner run(OnePartition(root));
  run.Node("node-1", {{"memory", 100}, {"vcore", 10}});
  run.Node("node-2", {{"memory", 100}, {"vcore", 10}});
  run.App("small", "root.a", "u1");
  run.Ask("small", "s1", {{"memory", 30}, {"vcore", 1}}, 0, 2);
  run.Schedule();
  run.App("big", "root.b", "u1");
  run.Ask("big", "b1", {{"memory", 80}, {"vcore", 1}}, 10);
  run.Schedule();
  EXPECT_EQ(run.model().ReservationCount("default"), 0);
  run.AdvanceSeconds(3);
  run.Schedule();
  EXPECT_EQ(run.model().ReservationCount("default"), 1);
  run.Ask("small", "s2", {{"memory", 10}, {"vcore", 1}}, 0, 3);
  run.Schedule();
  run.Release("small", "s1", "node-1");
  run.Schedule();
  EXPECT_EQ(run.model().ReservationCount("default"), 0);
  run.Ask("small", "s3", {{"memory", 10}, {"vcore", 1}}, 0, 2);
  run.Schedule();
  EXPECT_THAT(
      run.Allocations(),
      ElementsAre(
          Placed{"small", "s1", "node-1", "root.a"}, Placed{"small", "s1", "node-2", "root.a"},
          Placed{"small", "s2", "node-2", "root.a"}, Placed{"small", "s2", "node-2", "root.a"},
          Placed{"small", "s2", "node-2", "root.a"}, Placed{"big", "b1", "node-1", "root.b"},
          Placed{"small", "s3", "node-1", "root.a"}, Placed{"small", "s3", "node-2", "root.a"}));
  EXPECT_THAT(run.Rejected(), IsEmpty());
  EXPECT_EQ(run.errors(), 0);
}

TEST(ReferenceScenarioTest, SubmitAclReject) {
  QueueConfig secure = Queue("secure");
  secure.submit_acl = "alice,bob devs";
  QueueConfig open = Queue("open");
  open.submit_acl = "*";
  QueueConfig root = Queue("root", {}, {secure, open, Queue("closed")});
  Runner run(OnePartition(root));
  run.Node("node-1", {{"memory", 10000}, {"vcore", 100}});
  run.App("app-alice", "root.secure", "alice");
  run.App("app-carol", "root.secure", "carol");
  run.App("app-dave", "root.secure", "dave", {"ops", "devs"});
  run.App("app-erin", "root.open", "erin");
  run.App("app-frank", "root.closed", "frank", {"devs"});
  run.App("app-nouser", "root.open", "");
  run.Ask("app-alice", "a", kTask, 3);
  run.Ask("app-carol", "c", kTask, 9);
  run.Ask("app-dave", "d", kTask, 2);
  run.Ask("app-erin", "e", kTask, 1);
  run.Ask("app-frank", "f", kTask, 8);
  run.Schedule();
  EXPECT_THAT(run.Allocations(), ElementsAre(Placed{"app-alice", "a", "node-1", "root.secure"},
                                             Placed{"app-dave", "d", "node-1", "root.secure"},
                                             Placed{"app-erin", "e", "node-1", "root.open"}));
  EXPECT_THAT(run.Rejected(), ElementsAre("app-carol", "app-frank", "app-nouser"));
  EXPECT_EQ(run.errors(), 2);
}

// ---- Model-specific behaviour beyond the scenarios -----------------------------------------

std::vector<std::string> States(const std::vector<RefDecision>& out) {
  std::vector<std::string> states;
  for (const RefDecision& d : out) {
    if (d.type == DecisionType::kAppState) {
      states.push_back(std::string(StateName(d.from)) + ">" + std::string(StateName(d.to)));
    }
  }
  return states;
}

TEST(ReferenceModelTest, AppLifecycleWithTimers) {
  QueueConfig root = Queue("root", {}, {Queue("a")});
  root.submit_acl = "*";
  auto model = ReferenceModel::Create(OnePartition(root)).value();
  std::vector<RefDecision> out;
  ASSERT_TRUE(model->AddNode(MakeNode("n", {{"memory", 100}}), &out).ok());
  ASSERT_TRUE(model->AddApplication(MakeApp("x", "root.a", "u"), &out).ok());
  ASSERT_TRUE(model->AddAsk(MakeAsk("x", "k", {{"memory", 10}}), &out).ok());
  ASSERT_EQ(model->Schedule(0, "", &out).value(), 1);
  EXPECT_EQ(model->GetQueue("default", "root")->running_applications, 1u);
  ASSERT_TRUE(model->Advance(299999, &out).ok());
  EXPECT_EQ(model->GetApplication("default", "x")->state, AppState::kStarting);
  ASSERT_TRUE(model->Advance(1, &out).ok());
  EXPECT_EQ(model->GetApplication("default", "x")->state, AppState::kRunning);
  ASSERT_TRUE(model->ReleaseAllocation("default", "x", "k", "", 0, &out).ok());
  EXPECT_EQ(model->GetQueue("default", "root.a")->running_applications, 0u);
  ASSERT_TRUE(model->Advance(30000, &out).ok());
  EXPECT_THAT(States(out), ElementsAre("New>Accepted", "Accepted>Starting", "Starting>Running",
                                       "Running>Completing", "Completing>Completed"));
  // A completed id may be reused.
  ASSERT_TRUE(model->AddApplication(MakeApp("x", "root.a", "u"), &out).ok());
  EXPECT_EQ(model->GetApplication("default", "x")->state, AppState::kNew);
}

TEST(ReferenceModelTest, StateAwareDisableTagRunsAtOnce) {
  QueueConfig root = Queue("root", {}, {Queue("a", {{"application.sort.policy", "stateaware"}})});
  root.submit_acl = "*";
  auto model = ReferenceModel::Create(OnePartition(root)).value();
  std::vector<RefDecision> out;
  ASSERT_TRUE(model->AddNode(MakeNode("n", {{"memory", 100}}), &out).ok());
  ASSERT_TRUE(
      model
          ->AddApplication(
              MakeApp("x", "root.a", "u", {{"application.stateaware.disable", "true"}}), &out)
          .ok());
  ASSERT_TRUE(model->AddApplication(MakeApp("y", "root.a", "u"), &out).ok());
  ASSERT_TRUE(model->AddAsk(MakeAsk("x", "k", {{"memory", 10}}), &out).ok());
  ASSERT_TRUE(model->AddAsk(MakeAsk("y", "k", {{"memory", 10}}, 2), &out).ok());
  // x runs at once; y (Accepted) is then admitted and its second allocation runs it.
  ASSERT_EQ(model->Schedule(0, "", &out).value(), 3);
  EXPECT_THAT(States(out),
              ElementsAre("New>Accepted", "New>Accepted", "Accepted>Starting", "Starting>Running",
                          "Accepted>Starting", "Starting>Running"));
}

TEST(ReferenceModelTest, StateAwareAdmitsOneAcceptedAppAtATime) {
  QueueConfig root = Queue("root", {}, {Queue("a", {{"application.sort.policy", "stateaware"}})});
  root.submit_acl = "*";
  auto model = ReferenceModel::Create(OnePartition(root)).value();
  std::vector<RefDecision> out;
  ASSERT_TRUE(model->AddNode(MakeNode("n", {{"memory", 100}}), &out).ok());
  ASSERT_TRUE(model->AddApplication(MakeApp("x", "root.a", "u"), &out).ok());
  ASSERT_TRUE(model->AddAsk(MakeAsk("x", "k", {{"memory", 10}}), &out).ok());
  ASSERT_TRUE(model->AddApplication(MakeApp("y", "root.a", "u"), &out).ok());
  ASSERT_TRUE(model->AddAsk(MakeAsk("y", "k", {{"memory", 10}}, 3), &out).ok());
  // x gets its single allocation and stays Starting: y (Accepted) is blocked for 5 minutes.
  ASSERT_EQ(model->Schedule(0, "", &out).value(), 1);
  EXPECT_EQ(model->GetApplication("default", "x")->state, AppState::kStarting);
  EXPECT_EQ(model->GetApplication("default", "y")->state, AppState::kAccepted);
  ASSERT_TRUE(model->Advance(299999, &out).ok());
  ASSERT_EQ(model->Schedule(0, "", &out).value(), 0);
  ASSERT_TRUE(model->Advance(1, &out).ok());
  // y's first allocation makes it Starting, the second one Running.
  ASSERT_EQ(model->Schedule(0, "", &out).value(), 3);
  EXPECT_EQ(model->GetApplication("default", "y")->state, AppState::kRunning);
}

TEST(ReferenceModelTest, MaxApplicationsGatesAcceptedApps) {
  QueueConfig a = Queue("a");
  a.max_applications = 1;
  QueueConfig root = Queue("root", {}, {a});
  root.submit_acl = "*";
  auto model = ReferenceModel::Create(OnePartition(root)).value();
  std::vector<RefDecision> out;
  ASSERT_TRUE(model->AddNode(MakeNode("n", {{"memory", 100}}), &out).ok());
  for (const char* id : {"x", "y"}) {
    ASSERT_TRUE(model->AddApplication(MakeApp(id, "root.a", "u"), &out).ok());
    ASSERT_TRUE(model->AddAsk(MakeAsk(id, "k", {{"memory", 10}}), &out).ok());
  }
  ASSERT_EQ(model->Schedule(0, "", &out).value(), 1);
  EXPECT_EQ(model->GetQueue("default", "root.a")->running_applications, 1u);
  // x leaves Starting (decision 7): y may start.
  ASSERT_TRUE(model->ReleaseAllocation("default", "x", "k", "", 0, &out).ok());
  ASSERT_EQ(model->Schedule(0, "", &out).value(), 1);
  EXPECT_EQ(model->GetApplication("default", "y")->state, AppState::kStarting);
}

// tests/scenarios/placement-create-template.yaml through the model.
TEST(ReferenceModelTest, PlacementCreatesLeavesFromTheChildTemplate) {
  QueueConfig tenants = Queue("tenants");
  tenants.parent = true;
  tenants.child_template = ChildTemplateConfig{};
  tenants.child_template->properties = {{"application.sort.policy", "fair"}};
  tenants.child_template->resources.max = QuantityMap{{"memory", 30}};
  QueueConfig root = Queue("root", {}, {tenants, Queue("fallback")});
  root.submit_acl = "*";
  SchedulerConfig config = OnePartition(root);
  PlacementRuleConfig tag;
  tag.name = "tag";
  tag.value = "team";
  tag.create = true;
  PlacementRuleConfig parent;
  parent.name = "fixed";
  parent.value = "tenants";
  tag.parent.push_back(parent);
  PlacementRuleConfig fixed;
  fixed.name = "fixed";
  fixed.value = "fallback";
  config.partitions[0].placement_rules = {tag, fixed};
  auto model = ReferenceModel::Create(config).value();
  std::vector<RefDecision> out;
  ASSERT_TRUE(model->AddNode(MakeNode("n", {{"memory", 1000}, {"vcore", 100}}), &out).ok());
  ASSERT_TRUE(model->AddApplication(MakeApp("red-1", "", "alice", {{"team", "red"}}), &out).ok());
  ASSERT_TRUE(model->AddApplication(MakeApp("blue-1", "", "bob", {{"team", "blue"}}), &out).ok());
  ASSERT_TRUE(model->AddApplication(MakeApp("loose", "", "carol"), &out).ok());
  EXPECT_THAT(model->QueuePaths("default"), ElementsAre("root", "root.tenants", "root.tenants.red",
                                                        "root.tenants.blue", "root.fallback"));
  auto red = model->GetQueue("default", "root.tenants.red");
  ASSERT_TRUE(red.ok());
  EXPECT_EQ(red->sort_policy, "fair");
  ASSERT_TRUE(model->AddAsk(MakeAsk("red-1", "r", {{"memory", 10}, {"vcore", 1}}, 5), &out).ok());
  ASSERT_TRUE(model->AddAsk(MakeAsk("blue-1", "b", {{"memory", 15}, {"vcore", 1}}, 3), &out).ok());
  ASSERT_TRUE(model->AddAsk(MakeAsk("loose", "l", {{"memory", 10}, {"vcore", 1}}), &out).ok());
  ASSERT_EQ(model->Schedule(0, "", &out).value(), 6);  // both leaves stop at the template max
  // Removing the only app of a dynamic leaf deletes the leaf.
  ASSERT_TRUE(model->RemoveApplication("default", "blue-1", &out).ok());
  EXPECT_FALSE(model->GetQueue("default", "root.tenants.blue").ok());
}

// tests/scenarios/acl-and-limits.yaml through the model.
TEST(ReferenceModelTest, AclsAndUserGroupLimits) {
  QueueConfig shared = Queue("shared");
  shared.submit_acl = "alice,bob,ivy";
  LimitConfig one;
  one.users = {"alice"};
  one.max_applications = 1;
  LimitConfig interns;
  interns.groups = {"interns"};
  interns.max_resources = QuantityMap{{"memory", 20}};
  shared.limits = {one, interns};
  QueueConfig ops = Queue("ops");
  ops.admin_acl = "oscar";
  SchedulerConfig config = OnePartition(Queue("root", {}, {shared, ops}));
  PlacementRuleConfig provided;
  provided.name = "provided";
  config.partitions[0].placement_rules = {provided};
  Runner run(config);
  run.Node("node-1", {{"memory", 1000}, {"vcore", 100}});
  run.App("a1", "root.shared", "alice");
  run.App("a2", "root.shared", "alice");
  run.App("i1", "root.shared", "ivy", {"interns"});
  run.App("o1", "root.ops", "oscar");
  run.App("m1", "root.ops", "mallory");
  run.App("m2", "root.shared", "mallory");
  run.Ask("a1", "k", kTask);
  run.Ask("a2", "k", kTask);
  run.Ask("i1", "k", kTask, 0, 3);
  run.Ask("o1", "k", kTask);
  run.Schedule();
  run.Release("a1", "k");
  run.Schedule();
  EXPECT_THAT(run.Allocations(),
              ElementsAre(Placed("a1", "k"), Placed("o1", "k"), Placed("i1", "k"),
                          Placed("i1", "k"), Placed("a2", "k")));
  EXPECT_THAT(run.Rejected(), ElementsAre("m1", "m2"));
  EXPECT_EQ(run.errors(), 0);
}

TEST(ReferenceModelTest, TieGroupMorePendingFirst) {
  // Equal priority and usage: larger total pending first (kernel/README decision 2), which puts
  // a dominating child before the dominated one and orders incomparable ones by total.
  QueueConfig root = Queue("root", {}, {Queue("a"), Queue("b"), Queue("c")});
  root.submit_acl = "*";
  auto model = ReferenceModel::Create(OnePartition(root)).value();
  std::vector<RefDecision> out;
  ASSERT_TRUE(model->AddNode(MakeNode("n", {{"memory", 1000}, {"vcore", 1000}}), &out).ok());
  ASSERT_TRUE(model->AddApplication(MakeApp("xa", "root.a", "u"), &out).ok());
  ASSERT_TRUE(model->AddApplication(MakeApp("xb", "root.b", "u"), &out).ok());
  ASSERT_TRUE(model->AddApplication(MakeApp("xc", "root.c", "u"), &out).ok());
  // a: {memory 10}; b: {memory 10, vcore 5} dominates a; c: {vcore 50} incomparable with b.
  ASSERT_TRUE(model->AddAsk(MakeAsk("xa", "k", {{"memory", 10}}), &out).ok());
  ASSERT_TRUE(model->AddAsk(MakeAsk("xb", "k", {{"memory", 10}, {"vcore", 5}}), &out).ok());
  ASSERT_TRUE(model->AddAsk(MakeAsk("xc", "k", {{"vcore", 50}}), &out).ok());
  ASSERT_EQ(model->Schedule(1, "", &out).value(), 1);
  EXPECT_EQ(out.back().app, "xc") << "c's total 50 beats b's 15 (incomparable vectors)";
}

// ---- General preemption: the hand cases of kernel/preemption-semantics.md §6 -----------------

QueueConfig GQueue(std::string name, QuantityMap guaranteed, QuantityMap max,
                   std::vector<QueueConfig> children = {}, PropertyMap properties = {}) {
  QueueConfig q = Queue(std::move(name), std::move(properties), std::move(children));
  if (!guaranteed.empty()) q.resources.guaranteed = std::move(guaranteed);
  if (!max.empty()) q.resources.max = std::move(max);
  return q;
}

SchedulerConfig PreemptionConfig(std::vector<QueueConfig> top, bool enabled = true) {
  QueueConfig root = Queue("root", {}, std::move(top));
  root.submit_acl = "*";
  SchedulerConfig config = OnePartition(root);
  config.partitions[0].preemption_enabled = enabled;
  return config;
}

// Drives the model one step at a time, each step 1 ms after the previous one (so every ask has
// its own create time, the later one "newer").
class PreemptionRun {
 public:
  explicit PreemptionRun(const SchedulerConfig& config)
      : model_(ReferenceModel::Create(config).value()) {}

  void Node(std::string id, Quantities capacity) {
    Tick();
    EXPECT_TRUE(model_->AddNode(MakeNode(std::move(id), std::move(capacity)), &out_).ok());
  }
  void Schedulable(std::string id, bool schedulable) {
    Tick();
    NodeUpdate u;
    u.id = std::move(id);
    u.schedulable = schedulable;
    EXPECT_TRUE(model_->UpdateNode(u, &out_).ok());
  }
  void App(std::string id, std::string queue) {
    Tick();
    EXPECT_TRUE(model_->AddApplication(MakeApp(std::move(id), std::move(queue), "u"), &out_).ok());
  }
  void Ask(std::string app, std::string id, Quantities resources, int64_t count = 1) {
    Tick();
    EXPECT_TRUE(
        model_->AddAsk(MakeAsk(std::move(app), std::move(id), std::move(resources), count), &out_)
            .ok());
  }
  void Schedule() {
    Tick();
    EXPECT_TRUE(model_->Schedule(0, "", &out_).ok());
  }
  void Advance(int64_t millis) { EXPECT_TRUE(model_->Advance(millis, &out_).ok()); }

  // "app/ask -> node xN" per preemption record, "app/ask on node by app/ask" per preempted
  // release, "app/ask -> node" per allocation, in stream order; cleared on each call.
  std::vector<std::string> Take() {
    std::vector<std::string> out;
    for (const RefDecision& d : out_) {
      if (d.type == DecisionType::kPreemption) {
        out.push_back("preempt " + d.app + "/" + d.ask + " -> " + d.node + " x" +
                      std::to_string(d.count));
      } else if (d.type == DecisionType::kRelease &&
                 d.release_reason == ReleaseReason::kPreempted) {
        out.push_back("release " + d.app + "/" + d.ask + " on " + d.node + " by " + d.by_app + "/" +
                      d.by_ask);
      } else if (d.type == DecisionType::kAllocation) {
        out.push_back("alloc " + d.app + "/" + d.ask + " -> " + d.node);
      }
    }
    out_.clear();
    return out;
  }

 private:
  void Tick() { EXPECT_TRUE(model_->Advance(1, &out_).ok()); }

  std::unique_ptr<ReferenceModel> model_;
  std::vector<RefDecision> out_;
};

// Case 3: the headroom path; both nodes fit, so the victim comes from the additional-victims
// scan (the newer allocation) and the ask reserves the first node by id.
TEST(ReferencePreemptionTest, ParentGuaranteeHeadroomPath) {
  PreemptionRun run(PreemptionConfig(
      {GQueue("parent", {{"memory", 10}}, {{"memory", 10}},
              {GQueue("child1", {{"memory", 5}}, {}), GQueue("child2", {{"memory", 5}}, {})})}));
  run.Node("n1", {{"memory", 20}});
  run.Node("n2", {{"memory", 20}});
  run.App("app1", "root.parent.child1");
  run.Ask("app1", "a1", {{"memory", 5}});
  run.Schedule();
  run.Ask("app1", "a2", {{"memory", 5}});
  run.Schedule();
  EXPECT_THAT(run.Take(), ElementsAre("alloc app1/a1 -> n1", "alloc app1/a2 -> n2"));
  run.App("app2", "root.parent.child2");
  run.Ask("app2", "b", {{"memory", 5}});
  run.Schedule();
  EXPECT_THAT(run.Take(), IsEmpty()) << "the 30 s delay has not passed";
  run.Advance(30'000);
  run.Schedule();
  EXPECT_THAT(run.Take(), ElementsAre("preempt app2/b -> n1 x1", "release app1/a2 on n2 by app2/b",
                                      "alloc app2/b -> n1"));
}

// The same with preemption left off in the partition (decision 34.1): nothing happens.
TEST(ReferencePreemptionTest, OffUnlessEnabled) {
  PreemptionRun run(PreemptionConfig(
      {GQueue("parent", {{"memory", 10}}, {{"memory", 10}},
              {GQueue("child1", {{"memory", 5}}, {}), GQueue("child2", {{"memory", 5}}, {})})},
      /*enabled=*/false));
  run.Node("n1", {{"memory", 20}});
  run.App("app1", "root.parent.child1");
  run.Ask("app1", "a1", {{"memory", 5}}, 2);
  run.App("app2", "root.parent.child2");
  run.Schedule();
  run.Ask("app2", "b", {{"memory", 5}});
  run.Advance(60'000);
  run.Schedule();
  EXPECT_THAT(run.Take(), ElementsAre("alloc app1/a1 -> n1", "alloc app1/a1 -> n1"));
}

// Case 6: two full nodes need one victim each; the tie goes to the lower node id, whose
// (older) allocation is the victim. The ask reserved that node before the delay passed.
TEST(ReferencePreemptionTest, NodeIdBreaksVictimCountTie) {
  PreemptionRun run(
      PreemptionConfig({GQueue("parent", {{"memory", 10}}, {{"memory", 20}},
                               {GQueue("child1", {{"memory", 5}}, {{"memory", 10}}),
                                GQueue("child2", {{"memory", 5}}, {{"memory", 10}})})}));
  run.Node("n1", {{"memory", 5}, {"pods", 1}});
  run.Node("n2", {{"memory", 5}, {"pods", 1}});
  run.App("app1", "root.parent.child1");
  run.Ask("app1", "a1", {{"memory", 5}, {"pods", 1}});
  run.Schedule();
  run.Ask("app1", "a2", {{"memory", 5}, {"pods", 1}});
  run.Schedule();
  EXPECT_THAT(run.Take(), ElementsAre("alloc app1/a1 -> n1", "alloc app1/a2 -> n2"));
  run.App("app2", "root.parent.child2");
  run.Ask("app2", "b", {{"memory", 5}, {"pods", 1}});
  run.Advance(30'000);
  run.Schedule();
  EXPECT_THAT(run.Take(), ElementsAre("preempt app2/b -> n1 x1", "release app1/a1 on n1 by app2/b",
                                      "alloc app2/b -> n1"));
}

// Case 13: victims from two queues without guarantees, newest first, until they cover the ask;
// the oldest allocation is spared.
TEST(ReferencePreemptionTest, VictimsOnDifferentNodesCoverTheAsk) {
  PreemptionRun run(
      PreemptionConfig({GQueue("parent", {}, {{"memory", 18}},
                               {GQueue("child1", {}, {}), GQueue("child2", {{"memory", 15}}, {}),
                                GQueue("child3", {}, {})})}));
  run.Node("n1", {{"memory", 30}});
  run.Node("n2", {{"memory", 30}});
  run.App("app1", "root.parent.child1");
  run.App("app3", "root.parent.child3");
  run.Schedulable("n2", false);
  run.Ask("app1", "a1", {{"memory", 5}});
  run.Schedule();
  run.Schedulable("n2", true);
  run.Schedulable("n1", false);
  run.Ask("app1", "a2", {{"memory", 5}});
  run.Schedule();
  run.Ask("app3", "a4", {{"memory", 5}});
  run.Schedule();
  run.Schedulable("n1", true);
  EXPECT_THAT(run.Take(),
              ElementsAre("alloc app1/a1 -> n1", "alloc app1/a2 -> n2", "alloc app3/a4 -> n2"));
  run.App("app2", "root.parent.child2");
  run.Ask("app2", "b", {{"memory", 10}});
  run.Advance(30'000);
  run.Schedule();
  EXPECT_THAT(run.Take(), ElementsAre("preempt app2/b -> n1 x2", "release app1/a2 on n2 by app2/b",
                                      "release app3/a4 on n2 by app2/b", "alloc app2/b -> n1"));
}

// Case 17: the victim queue's guarantee stops the scan once it is back at it; allocations
// sharing no type with the ask are never candidates.
TEST(ReferencePreemptionTest, VictimQueueGuaranteeSparesTheLast) {
  PreemptionRun run(PreemptionConfig(
      {GQueue("parent", {}, {{"cpu", 3}},
              {GQueue("child1", {{"cpu", 2}}, {}), GQueue("child2", {{"cpu", 1}}, {})})}));
  run.Node("n1", {{"cpu", 5}, {"mem", 700}});
  run.App("app2", "root.parent.child2");
  for (const char* id : {"x1", "x2", "x3"}) run.Ask("app2", id, {{"cpu", 1}, {"mem", 100}});
  for (const char* id : {"m1", "m2", "m3"}) run.Ask("app2", id, {{"mem", 100}});
  run.Schedule();
  EXPECT_EQ(run.Take().size(), 6u);
  run.App("app1", "root.parent.child1");
  run.Ask("app1", "b", {{"cpu", 2}});
  run.Advance(30'000);
  run.Schedule();
  EXPECT_THAT(run.Take(), ElementsAre("preempt app1/b -> n1 x2", "release app2/x2 on n1 by app1/b",
                                      "release app2/x3 on n1 by app1/b", "alloc app1/b -> n1"));
}

// Cases 21 and 22: a parent guarantee shared by the ask's sibling protects it unless the ask
// queue has a guarantee of its own.
TEST(ReferencePreemptionTest, SharedParentGuarantee) {
  for (bool own : {true, false}) {
    PreemptionRun run(PreemptionConfig(
        {GQueue("parent", {}, {{"cpu", 20}},
                {GQueue("parent1", {{"cpu", 10}}, {},
                        {GQueue("child1", {}, {}),
                         GQueue("child2", own ? QuantityMap{{"cpu", 1}} : QuantityMap{}, {})}),
                 GQueue("parent2", {}, {}, {GQueue("child3", {}, {})})})}));
    run.Node("n1", {{"cpu", 2}});
    run.App("app1", "root.parent.parent1.child1");
    run.App("app2", "root.parent.parent1.child1");
    run.Ask("app1", "a1", {{"cpu", 1}});
    run.Ask("app2", "a2", {{"cpu", 1}});
    run.Schedule();
    EXPECT_EQ(run.Take().size(), 2u);
    run.App("app3", "root.parent.parent1.child2");
    run.Ask("app3", "b", {{"cpu", 1}});
    run.Advance(30'000);
    run.Schedule();
    if (own) {
      EXPECT_THAT(run.Take(), ElementsAre("preempt app3/b -> n1 x1",
                                          "release app2/a2 on n1 by app3/b", "alloc app3/b -> n1"));
    } else {
      EXPECT_THAT(run.Take(), IsEmpty());
      run.Advance(60'000);
      run.Schedule();
      EXPECT_THAT(run.Take(), IsEmpty());
    }
  }
}

// The user guide's "general" example: one victim per pending ask until queue-2 reaches its
// guarantee (queue-2 5, queue-1 7); a preemption.delay inherited from the root.
TEST(ReferencePreemptionTest, UserGuideGeneral) {
  QueueConfig parent = GQueue("parent", {}, {{"pods", 12}},
                              {GQueue("queue-1", {{"pods", 5}}, {{"pods", 10}}),
                               GQueue("queue-2", {{"pods", 5}}, {{"pods", 10}})});
  QueueConfig root = Queue("root", {{"preemption.delay", "1m30s"}}, {parent});
  root.submit_acl = "*";
  SchedulerConfig config = OnePartition(root);
  config.partitions[0].preemption_enabled = true;
  PreemptionRun run(config);
  run.Node("n1", {{"pods", 20}});
  run.App("app1", "root.parent.queue-1");
  run.Ask("app1", "p", {{"pods", 1}}, 10);
  run.Schedule();
  run.App("app2", "root.parent.queue-2");
  for (const char* id : {"k1", "k2", "k3", "k4", "k5"}) run.Ask("app2", id, {{"pods", 1}});
  run.Schedule();
  EXPECT_EQ(run.Take().size(), 12u);
  run.Advance(60'000);
  run.Schedule();
  EXPECT_THAT(run.Take(), IsEmpty()) << "the inherited 90 s delay has not passed";
  run.Advance(30'000);
  run.Schedule();
  EXPECT_THAT(run.Take(), ElementsAre("preempt app2/k3 -> n1 x1", "release app1/p on n1 by app2/k3",
                                      "alloc app2/k3 -> n1", "preempt app2/k4 -> n1 x1",
                                      "release app1/p on n1 by app2/k4", "alloc app2/k4 -> n1",
                                      "preempt app2/k5 -> n1 x1", "release app1/p on n1 by app2/k5",
                                      "alloc app2/k5 -> n1"));
}

}  // namespace
}  // namespace allocore::reference
