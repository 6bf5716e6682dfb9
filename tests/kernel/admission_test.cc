// Admission: ACL forms, placement rules, dynamic queues with templates, user/group limits.
#include <string>
#include <vector>

#include "allocore/kernel.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace allocore {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

QueueConfig Queue(std::string name, std::vector<QueueConfig> children = {}, bool parent = false) {
  QueueConfig q;
  q.name = std::move(name);
  q.queues = std::move(children);
  q.parent = parent;
  return q;
}

PlacementRuleConfig Rule(std::string name, bool create = false, std::string value = "") {
  PlacementRuleConfig r;
  r.name = std::move(name);
  r.create = create;
  r.value = std::move(value);
  return r;
}

class AdmissionTest : public ::testing::Test {
 protected:
  void Start(std::vector<QueueConfig> top, std::vector<PlacementRuleConfig> rules = {},
             std::string root_acl = "*") {
    SchedulerConfig config;
    PartitionConfig& p = config.partitions.emplace_back();
    p.name = "default";
    QueueConfig root = Queue("root", std::move(top));
    root.submit_acl = std::move(root_acl);
    p.queues.push_back(std::move(root));
    p.placement_rules = std::move(rules);
    Start(std::move(config));
  }
  void Start(SchedulerConfig config) {
    auto created = Kernel::Create(std::move(config));
    ASSERT_TRUE(created.ok()) << created.status();
    kernel_ = std::move(*created);
    ASSERT_TRUE(
        kernel_->AddNode({.id = "n1", .capacity = {{"memory", 10000}, {"vcore", 1000}}}, &out_)
            .ok());
  }
  // Returns the queue the app landed in, or "rejected: <reason>".
  std::string Submit(std::string id, std::string queue, std::string user,
                     std::vector<std::string> groups = {}, Tags tags = {}) {
    out_.clear();
    absl::Status status = kernel_->AddApplication(
        {.id = id, .queue = queue, .user = user, .groups = groups, .tags = tags}, &out_);
    EXPECT_TRUE(status.ok()) << status;
    for (const Decision& d : out_) {
      if (d.type == DecisionType::kAppRejected) return "rejected: " + d.reason;
    }
    auto info = kernel_->GetApplication("default", id);
    return info.ok() ? info->queue : "missing";
  }
  void Ask(std::string app, std::string id, int64_t memory, int64_t count = 1) {
    ASSERT_TRUE(
        kernel_
            ->AddAsk({.app = app, .id = id, .resources = {{"memory", memory}}, .count = count},
                     &out_)
            .ok());
  }
  std::vector<std::string> ScheduleAll() {
    out_.clear();
    EXPECT_TRUE(kernel_->Schedule(0, "", &out_).ok());
    EXPECT_TRUE(kernel_->CheckConsistency().ok()) << kernel_->CheckConsistency();
    std::vector<std::string> allocated;
    for (const Decision& d : out_) {
      if (d.type == DecisionType::kAllocation) allocated.emplace_back(d.app);
    }
    return allocated;
  }

  std::unique_ptr<Kernel> kernel_;
  std::vector<Decision> out_;
};

TEST_F(AdmissionTest, AclFormsUsersGroupsWildcardsAndInheritance) {
  QueueConfig users = Queue("users");
  users.submit_acl = "alice,bob";
  QueueConfig groups = Queue("groups");
  groups.submit_acl = " devs";
  QueueConfig star_group = Queue("anygroup");
  star_group.submit_acl = "nobody *";
  QueueConfig admin = Queue("admin");
  admin.admin_acl = "carol";
  QueueConfig parent = Queue("team", {Queue("inner")});
  parent.submit_acl = "dave";
  Start({users, groups, star_group, admin, parent}, {}, "");
  EXPECT_EQ(Submit("a1", "root.users", "alice"), "root.users");
  EXPECT_THAT(Submit("a2", "root.users", "mallory"), HasSubstr("no submit permission"));
  EXPECT_EQ(Submit("a3", "root.groups", "erin", {"devs"}), "root.groups");
  EXPECT_THAT(Submit("a4", "root.groups", "devs", {"other"}), HasSubstr("rejected"))
      << "a user is in the group named after it only when no groups are given";
  EXPECT_THAT(Submit("a5", "root.groups", "devs", {}), HasSubstr("rejected"))
      << "a user without groups gets the groups cached for it: [other] from a4";
  ASSERT_TRUE(kernel_->Advance(300'000, &out_).ok());
  EXPECT_EQ(Submit("a5b", "root.groups", "devs", {}), "root.groups")
      << "after 300 s the cached entry expired: the user is in the group named after it";
  EXPECT_EQ(Submit("a6", "root.anygroup", "zed"), "root.anygroup");
  EXPECT_EQ(Submit("a7", "root.admin", "carol"), "root.admin") << "admin implies submit";
  EXPECT_EQ(Submit("a8", "root.team.inner", "dave"), "root.team.inner") << "checked up the tree";
  EXPECT_THAT(Submit("a9", "root.team.inner", "erin"), HasSubstr("root.team.inner"));
  EXPECT_THAT(Submit("a10", "root.team", "dave"), HasSubstr("parent queue"));
  EXPECT_THAT(Submit("a11", "root.nope", "dave"), HasSubstr("does not exist"));
  EXPECT_THAT(Submit("a12", "root.users", ""), HasSubstr("empty user"));
}

TEST_F(AdmissionTest, ProvidedRuleUsesTheSubmittedQueue) {
  Start({Queue("a"), Queue("b")}, {Rule("provided")});
  EXPECT_EQ(Submit("x", "root.a", "u"), "root.a");
  EXPECT_EQ(Submit("y", "b", "u"), "root.b") << "unqualified names go under root";
  EXPECT_THAT(Submit("z", "root.c", "u"), HasSubstr("no placement rule matched"))
      << "without create the queue must exist";
}

TEST_F(AdmissionTest, UserRuleCreatesDynamicQueueUnderParentRule) {
  PlacementRuleConfig user = Rule("user", true);
  user.parent.push_back(Rule("fixed", false, "users"));
  Start({Queue("users", {}, true)}, {user});
  EXPECT_EQ(Submit("x", "", "jane.doe"), "root.users.jane_dot_doe");
  auto q = kernel_->GetQueue("default", "root.users.jane_dot_doe");
  ASSERT_TRUE(q.ok());
  EXPECT_TRUE(q->dynamic);
  EXPECT_TRUE(q->is_leaf);
}

TEST_F(AdmissionTest, TagRuleAndFixedRuleAndFallThrough) {
  Start({Queue("fallback"), Queue("ns", {}, true)},
        {Rule("tag", true, "namespace"), Rule("fixed", false, "fallback")});
  EXPECT_EQ(Submit("x", "", "u", {}, {{"Namespace", "dev"}}), "root.dev");
  EXPECT_EQ(Submit("y", "", "u", {}, {{"namespace", "root.ns.team"}}), "root.ns.team");
  EXPECT_EQ(Submit("z", "", "u"), "root.fallback") << "missing tag: next rule";
}

TEST_F(AdmissionTest, FilterAllowAndDenyWithExactNamesAndRegexps) {
  PlacementRuleConfig only_devs = Rule("fixed", false, "devq");
  only_devs.filter.type = "allow";
  only_devs.filter.groups = {"devs"};
  PlacementRuleConfig deny_bots = Rule("fixed", false, "other");
  deny_bots.filter.type = "DENY";
  deny_bots.filter.users = {"^bot"};
  Start({Queue("devq"), Queue("other")}, {only_devs, deny_bots});
  EXPECT_EQ(Submit("a", "", "ann", {"ops", "devs"}), "root.devq");
  EXPECT_EQ(Submit("b", "", "bob", {"ops"}), "root.other");
  EXPECT_THAT(Submit("c", "", "bot-7", {"ops"}), HasSubstr("no placement rule matched"))
      << "DENY in capitals denies (the later YuniKorn fix)";
}

// Filter regexps are Go (RE2) syntax: a brace that closes no repeat count is a literal, while a
// valid {n,m} stays a repeat; braces in a class or escaped are literals.
TEST_F(AdmissionTest, FilterRegexpBracesReadAsGoReadsThem) {
  auto allow = [](std::string queue, std::string pattern) {
    PlacementRuleConfig rule = Rule("fixed", false, std::move(queue));
    rule.filter.type = "allow";
    rule.filter.users = {std::move(pattern)};
    return rule;
  };
  Start(
      {Queue("repeat"), Queue("open"), Queue("closing"), Queue("cls"), Queue("esc"), Queue("rest")},
      {allow("repeat", "^ab{2,3}$"), allow("open", "^x{1"), allow("closing", "^y}$"),
       allow("cls", "^[{]z$"), allow("esc", "^w\\{2\\}$"), Rule("fixed", false, "rest")});
  EXPECT_EQ(Submit("a", "", "abbb"), "root.repeat");
  EXPECT_EQ(Submit("b", "", "ab{2,3}"), "root.rest");
  EXPECT_EQ(Submit("c", "", "x{1"), "root.open");
  EXPECT_EQ(Submit("d", "", "y}"), "root.closing");
  EXPECT_EQ(Submit("e", "", "{z"), "root.cls");
  EXPECT_EQ(Submit("f", "", "w{2}"), "root.esc");
  EXPECT_EQ(Submit("g", "", "ww"), "root.rest");
}

TEST_F(AdmissionTest, DynamicLeafTakesTheNearestChildTemplate) {
  QueueConfig parent = Queue("tenants", {}, true);
  parent.child_template = ChildTemplateConfig{};
  parent.child_template->properties = {{"application.sort.policy", "fair"},
                                       {"priority.offset", "7"}};
  parent.child_template->resources.max = QuantityMap{{"memory", 30}};
  parent.child_template->max_applications = 3;
  PlacementRuleConfig tag = Rule("tag", true, "team");
  Start({parent}, {tag});
  EXPECT_EQ(Submit("x", "", "u", {}, {{"team", "root.tenants.red"}}), "root.tenants.red");
  auto q = kernel_->GetQueue("default", "root.tenants.red").value();
  EXPECT_EQ(q.sort_policy, "fair");
  EXPECT_EQ(q.offset, 7);
  EXPECT_EQ(q.max_applications, 3u);
  Ask("x", "k", 10, 5);
  EXPECT_EQ(ScheduleAll().size(), 3u) << "the template max of 30 caps three 10s";
}

TEST_F(AdmissionTest, DynamicQueueIsRemovedOnceEmpty) {
  Start({}, {Rule("user", true)});
  EXPECT_EQ(Submit("x", "", "temp"), "root.temp");
  ASSERT_TRUE(kernel_->RemoveApplication("default", "x", &out_).ok());
  EXPECT_FALSE(kernel_->GetQueue("default", "root.temp").ok());
}

TEST_F(AdmissionTest, InvalidDynamicNameAndLeafParentReject) {
  Start({Queue("leaf")}, {Rule("tag", true, "q")});
  EXPECT_THAT(Submit("x", "", "u", {}, {{"q", "root.bad name"}}),
              HasSubstr("failed to create rule based queue"));
  EXPECT_THAT(Submit("y", "", "u", {}, {{"q", "root.leaf.below"}}), HasSubstr("is a leaf"));
}

TEST_F(AdmissionTest, UserMaxApplicationsMakesAcceptedAppsWait) {
  QueueConfig q = Queue("q");
  LimitConfig limit;
  limit.users = {"alice"};
  limit.max_applications = 1;
  q.limits.push_back(limit);
  Start({q});
  Submit("a1", "root.q", "alice");
  Submit("a2", "root.q", "alice");
  Submit("b1", "root.q", "bob");
  Ask("a1", "k", 10);
  Ask("a2", "k", 10);
  Ask("b1", "k", 10);
  EXPECT_THAT(ScheduleAll(), ElementsAre("a1", "b1"));
  bool explained = false;
  for (const PendingExplanation& e : kernel_->ExplainPending()) {
    if (e.app == "a2") {
      explained = true;
      EXPECT_THAT(e.reason, HasSubstr("user alice reached maxapplications 1"));
    }
  }
  EXPECT_TRUE(explained);
  // Once a1 completes, a2 runs: waiting, not lost.
  ASSERT_TRUE(kernel_->ReleaseAllocation("default", "a1", "k", "", &out_).ok());
  EXPECT_THAT(ScheduleAll(), ElementsAre("a2"));
}

// An Accepted application that reserved a node counts against maxapplications once, as the
// one it already is: the walk lets it go on (YuniKorn's allocating-Accepted set), and
// ExplainPending, which runs the walk's own checks, must not name maxapplications for it.
TEST_F(AdmissionTest, ReservingAcceptedAppIsNotRefusedByItsOwnMaxApplicationsSlot) {
  QueueConfig a = Queue("a");
  a.max_applications = 1;
  Start({a, Queue("b")});
  // n1 (10000) keeps 1000 free after the filler; n2 adds 4000, so the cluster has room for x's
  // 5000 but no node has: x reserves n1, its tightest fit by capacity.
  ASSERT_TRUE(
      kernel_->AddNode({.id = "n2", .capacity = {{"memory", 4000}, {"vcore", 1000}}}, &out_).ok());
  Submit("filler", "root.b", "u");
  Ask("filler", "f", 9000);
  EXPECT_THAT(ScheduleAll(), ElementsAre("filler"));
  Submit("x", "root.a", "u");
  Ask("x", "k", 5000);
  EXPECT_THAT(ScheduleAll(), ElementsAre());
  ASSERT_TRUE(kernel_->Advance(3000, &out_).ok());  // past the reservation delay
  EXPECT_THAT(ScheduleAll(), ElementsAre());        // x reserves a node, and stays Accepted
  EXPECT_EQ(kernel_->GetApplication("default", "x")->state, AppState::kAccepted);
  bool explained = false;
  for (const PendingExplanation& e : kernel_->ExplainPending()) {
    if (e.app != "x") continue;
    explained = true;
    EXPECT_THAT(e.reason, Not(HasSubstr("maxapplications")));
    EXPECT_THAT(e.reason, HasSubstr("holds a reservation"));
  }
  EXPECT_TRUE(explained);
}

// ExplainPending names the first check the walk fails, in the walk's order: the walk passes an
// Accepted application by at maxapplications before it looks at any of its asks, so a gang
// member that would also wait for its placeholders is explained by maxapplications.
TEST_F(AdmissionTest, ExplainNamesTheApplicationCheckBeforeTheAskCheck) {
  QueueConfig a = Queue("a");
  a.max_applications = 1;
  Start({a});
  Submit("running", "root.a", "u");
  Ask("running", "k", 10);
  EXPECT_THAT(ScheduleAll(), ElementsAre("running"));
  Submit("gang", "root.a", "u");
  ASSERT_TRUE(kernel_
                  ->AddAsk({.app = "gang",
                            .id = "ph",
                            .resources = {{"memory", 10}},
                            .task_group = "g",
                            .placeholder = true},
                           &out_)
                  .ok());
  ASSERT_TRUE(
      kernel_
          ->AddAsk({.app = "gang", .id = "real", .resources = {{"memory", 10}}, .task_group = "g"},
                   &out_)
          .ok());
  EXPECT_THAT(ScheduleAll(), ElementsAre());
  bool explained = false;
  for (const PendingExplanation& e : kernel_->ExplainPending()) {
    if (e.ask != "real") continue;
    explained = true;
    EXPECT_THAT(e.reason, HasSubstr("maxapplications 1 of queue root.a reached (1 running)"));
  }
  EXPECT_TRUE(explained);
}

TEST_F(AdmissionTest, GroupMaxResourcesWithWildcardCapsUsage) {
  QueueConfig q = Queue("q");
  // A wildcard group limit may not be a queue's only group limit (A.2); nobody here is green.
  LimitConfig named;
  named.groups = {"green"};
  named.max_resources = QuantityMap{{"memory", 1000}};
  q.limits.push_back(named);
  LimitConfig limit;
  limit.groups = {"*"};
  limit.max_resources = QuantityMap{{"memory", 25}};
  q.limits.push_back(limit);
  Start({q});
  Submit("a", "root.q", "ann", {"red"});
  Submit("b", "root.q", "ben", {"blue"});
  Ask("a", "k", 10, 5);
  Ask("b", "k", 10, 5);
  std::vector<std::string> got = ScheduleAll();
  EXPECT_EQ(std::count(got.begin(), got.end(), "a"), 2);
  EXPECT_EQ(std::count(got.begin(), got.end(), "b"), 2);
}

TEST_F(AdmissionTest, ReloadKeepsRunningAppsAndAppliesNewRulesToNewSubmissions) {
  Start({Queue("a")}, {});
  Submit("x", "root.a", "u");
  Ask("x", "k", 10);
  ScheduleAll();
  SchedulerConfig next;
  PartitionConfig& p = next.partitions.emplace_back();
  p.name = "default";
  QueueConfig root = Queue("root", {Queue("a"), Queue("b")});
  root.submit_acl = "*";
  p.queues.push_back(root);
  p.placement_rules.push_back(Rule("fixed", false, "b"));
  ASSERT_TRUE(kernel_->UpdateConfig(next, &out_).ok());
  EXPECT_EQ(kernel_->GetApplication("default", "x").value().queue, "root.a");
  EXPECT_EQ(Submit("y", "root.a", "u"), "root.b");
}

}  // namespace
}  // namespace allocore
