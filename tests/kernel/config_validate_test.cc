// Tests of allocore::ValidateConfig on configs built in code (no YAML): the YuniKorn rules of
// semantics §2.3/§2.4, allocore's apply-time rules (§2.6) and the Appendix A.2 limit rules.
// The YAML corpus in tests/configs covers the same rules through the loader.
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "allocore/config.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace allocore {

// Readable gtest output for errors.
void PrintTo(const ConfigError& e, std::ostream* os) { *os << e.ToString("config"); }

namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using ::testing::UnorderedElementsAre;

QueueConfig Q(std::string name, std::vector<QueueConfig> children = {}) {
  QueueConfig q;
  q.name = std::move(name);
  q.queues = std::move(children);
  return q;
}

QueueConfig WithMax(QueueConfig q, QuantityMap max) {
  q.resources.max = std::move(max);
  return q;
}

QueueConfig WithGuaranteed(QueueConfig q, QuantityMap guaranteed) {
  q.resources.guaranteed = std::move(guaranteed);
  return q;
}

QueueConfig WithMaxApps(QueueConfig q, uint64_t max) {
  q.max_applications = max;
  return q;
}

SchedulerConfig OnePartition(std::vector<QueueConfig> top) {
  SchedulerConfig config;
  PartitionConfig& p = config.partitions.emplace_back();
  p.name = "default";
  p.queues = std::move(top);
  return config;
}

std::vector<ConfigError> Errors(SchedulerConfig& config) {
  std::vector<ConfigError> out;
  for (ConfigError& e : ValidateConfig(config)) {
    if (!e.warning) out.push_back(std::move(e));
  }
  return out;
}

std::vector<ConfigError> Errors(SchedulerConfig&& config) { return Errors(config); }

auto Message(const std::string& substring) {
  return Field(&ConfigError::message, HasSubstr(substring));
}

// ---- §2.3 root insertion -------------------------------------------------------------------

TEST(ConfigValidateTest, InsertsRootAboveSeveralTopLevelQueues) {
  SchedulerConfig config = OnePartition({Q("a"), Q("root")});
  EXPECT_THAT(Errors(config), IsEmpty());
  ASSERT_THAT(config.partitions[0].queues, SizeIs(1));
  const QueueConfig& root = config.partitions[0].queues[0];
  EXPECT_EQ(root.name, "root");
  EXPECT_TRUE(root.parent);
  ASSERT_THAT(root.queues, SizeIs(2));
  EXPECT_EQ(root.queues[0].name, "a");
  EXPECT_EQ(root.queues[1].name, "root");
}

TEST(ConfigValidateTest, InsertsRootAboveASingleNonRootQueue) {
  SchedulerConfig config = OnePartition({Q("a", {Q("b")})});
  EXPECT_THAT(Errors(config), IsEmpty());
  const QueueConfig& root = config.partitions[0].queues[0];
  EXPECT_EQ(root.name, "root");
  ASSERT_THAT(root.queues, SizeIs(1));
  EXPECT_EQ(root.queues[0].name, "a");
}

TEST(ConfigValidateTest, InsertsRootIntoAnEmptyQueueList) {
  SchedulerConfig config = OnePartition({});
  EXPECT_THAT(Errors(config), IsEmpty());
  ASSERT_THAT(config.partitions[0].queues, SizeIs(1));
  EXPECT_EQ(config.partitions[0].queues[0].name, "root");
  EXPECT_THAT(config.partitions[0].queues[0].queues, IsEmpty());
}

TEST(ConfigValidateTest, KeepsASingleRootAndForcesItToBeAParent) {
  SchedulerConfig config = OnePartition({Q("root")});
  config.partitions[0].queues[0].submit_acl = "*";
  EXPECT_THAT(Errors(config), IsEmpty());
  ASSERT_THAT(config.partitions[0].queues, SizeIs(1));
  EXPECT_TRUE(config.partitions[0].queues[0].parent);
  EXPECT_EQ(config.partitions[0].queues[0].submit_acl, "*");
}

TEST(ConfigValidateTest, SingleTopQueueNamedRootInOtherCaseIsAnError) {
  for (const char* name : {"Root", "ROOT", "rOOt"}) {
    SchedulerConfig config = OnePartition({Q(name, {Q("a")})});
    config.partitions[0].queues[0].field_locations = {{"name", {3, 9}}};
    EXPECT_THAT(Errors(config),
                ElementsAre(AllOf(Message("must be named exactly 'root'"),
                                  Field(&ConfigError::queue_path, "root"),
                                  Field(&ConfigError::field, "name"),
                                  Field(&ConfigError::location, Field(&SourceLocation::line, 3)))))
        << name;
  }
}

TEST(ConfigValidateTest, RootMayNotCarryResourcesEvenEmpty) {
  SchedulerConfig config = OnePartition({WithGuaranteed(Q("root"), {})});
  EXPECT_THAT(Errors(config),
              ElementsAre(AllOf(Message("root queue must not have resource limits set"),
                                Field(&ConfigError::field, "resources.guaranteed"))));
  EXPECT_THAT(Errors(OnePartition({WithMax(Q("root"), {{"memory", 1}})})),
              ElementsAre(Message("root queue must not have resource limits set")));
  // Everything else is allowed on the root.
  QueueConfig root = WithMaxApps(Q("root", {Q("a")}), 5);
  root.properties = {{"priority.policy", "fence"}};
  root.child_template.emplace().max_applications = 3;
  root.limits.push_back({.users = {"*"}, .max_applications = 2});
  root.queues[0].max_applications = 5;
  EXPECT_THAT(Errors(OnePartition({root})), IsEmpty());
}

// ---- §2.4.1-2 partitions -------------------------------------------------------------------

TEST(ConfigValidateTest, NormalisesPartitionNames) {
  SchedulerConfig config;
  for (const char* name : {"", "Gpu"}) {
    PartitionConfig& p = config.partitions.emplace_back();
    p.name = name;
  }
  EXPECT_THAT(Errors(config), IsEmpty());
  EXPECT_EQ(config.partitions[0].name, "default");
  EXPECT_EQ(config.partitions[1].name, "Gpu");

  SchedulerConfig upper;
  upper.partitions.emplace_back().name = "DEFAULT";
  EXPECT_THAT(Errors(upper), IsEmpty());
  EXPECT_EQ(upper.partitions[0].name, "default");
}

TEST(ConfigValidateTest, DuplicatePartitionNamesAreComparedCaseInsensitively) {
  SchedulerConfig config;
  for (const char* name : {"default", "", "gpu", "GPU", "cpu"}) {
    PartitionConfig& p = config.partitions.emplace_back();
    p.name = name;
    p.location = {static_cast<int>(config.partitions.size()) * 10, 3};
  }
  EXPECT_THAT(Errors(config),
              ElementsAre(AllOf(Message("duplicate partition name found with name 'default'"),
                                Message("first defined at line 10"),
                                Field(&ConfigError::partition, "default")),
                          AllOf(Message("duplicate partition name found with name 'GPU'"),
                                Field(&ConfigError::location, Field(&SourceLocation::line, 40)))));
}

TEST(ConfigValidateTest, QueuesMustBePresent) {
  SchedulerConfig config = OnePartition({Q("a")});
  config.partitions[0].queues_present = false;
  config.partitions[0].queues.clear();
  EXPECT_THAT(Errors(config), ElementsAre(Message("queue config is not set")));
  EXPECT_THAT(config.partitions[0].queues, IsEmpty());  // no root inserted
}

// ---- §2.4.4 ACLs and names -------------------------------------------------------------------

TEST(ConfigValidateTest, AclsAcceptedByValidatorAndParser) {
  for (const char* acl :
       {"", "*", "alice", "alice,bob devs,ops", " devs", "alice ", "alice\tdevs", "alice,* devs"}) {
    QueueConfig a = Q("a");
    a.submit_acl = acl;
    a.admin_acl = acl;
    EXPECT_THAT(Errors(OnePartition({a})), IsEmpty()) << "'" << acl << "'";
  }
}

TEST(ConfigValidateTest, AclWithMoreThanTwoWhitespaceSeparatedParts) {
  QueueConfig a = Q("a");
  a.submit_acl = "alice bob carol";
  a.field_locations = {{"submitacl", {7, 9}}};
  EXPECT_THAT(Errors(OnePartition({a})),
              ElementsAre(AllOf(Message("multiple spaces found in ACL: 'alice bob carol'"),
                                Field(&ConfigError::field, "submitacl"),
                                Field(&ConfigError::queue_path, "root.a"),
                                Field(&ConfigError::location, Field(&SourceLocation::line, 7)))));
}

TEST(ConfigValidateTest, AclsOnlyTheSingleSpaceParserRejects) {
  for (const char* acl : {"alice  devs", "alice devs ", " * ", "  "}) {
    QueueConfig a = Q("a");
    a.admin_acl = acl;
    EXPECT_THAT(Errors(OnePartition({a})),
                ElementsAre(AllOf(Message("has 3 parts when split on single spaces"),
                                  Field(&ConfigError::field, "adminacl"))))
        << "'" << acl << "'";
  }
}

TEST(ConfigValidateTest, ChildNames) {
  std::string longest(64, 'x');
  EXPECT_THAT(Errors(OnePartition({Q(longest), Q("A_b-9", {Q("same")}), Q("c", {Q("same")})})),
              IsEmpty());
  EXPECT_THAT(Errors(OnePartition({Q(longest + "x"), Q("a.b"), Q("")})),
              ElementsAre(Message("invalid child name"), Message("invalid child name 'a.b'"),
                          Message("invalid child name ''")));
  // Root's own name is not checked against the pattern (it is checked to be "root").
}

TEST(ConfigValidateTest, SiblingNamesAreUniqueCaseInsensitively) {
  SchedulerConfig config = OnePartition({Q("a", {Q("x"), Q("X")}), Q("A")});
  EXPECT_THAT(
      Errors(config),
      UnorderedElementsAre(AllOf(Message("duplicate child name found with name 'X', level 2"),
                                 Field(&ConfigError::queue_path, "root.a.x")),
                           AllOf(Message("duplicate child name found with name 'A', level 1"),
                                 Field(&ConfigError::queue_path, "root.a"))));
}

// ---- §2.4.5 resources ----------------------------------------------------------------------

TEST(ConfigValidateTest, GuaranteedMustFitOwnMax) {
  EXPECT_THAT(Errors(OnePartition({WithMax(WithGuaranteed(Q("a"), {{"memory", 100}, {"gpu", 5}}),
                                           {{"memory", 100}})})),
              IsEmpty());  // gpu has no max: not compared
  EXPECT_THAT(
      Errors(OnePartition({WithMax(WithGuaranteed(Q("a"), {{"memory", 101}, {"vcore", 2000}}),
                                   {{"memory", 100}})})),
      ElementsAre(AllOf(Message("guaranteed resource {memory: 101, vcore: 2000m} is larger than "
                                "maximum resource {memory: 100}"),
                        Field(&ConfigError::field, "resources.guaranteed"))));
}

TEST(ConfigValidateTest, MaxMustFitEveryAncestorsMax) {
  auto tree = [](int64_t leaf_memory) {
    return OnePartition({WithMax(
        Q("a", {WithMax(Q("b", {WithMax(Q("c"), {{"memory", leaf_memory}, {"vcore", 10}})}),
                        {{"vcore", 20}})}),
        {{"memory", 500}})});
  };
  EXPECT_THAT(Errors(tree(500)), IsEmpty());
  EXPECT_THAT(Errors(tree(501)),
              ElementsAre(AllOf(Message("max resource of parent {memory: 500, vcore: 20m} is "
                                        "smaller than maximum resource {memory: 501, vcore: 10m}"),
                                Field(&ConfigError::queue_path, "root.a.b.c"),
                                Field(&ConfigError::field, "resources.max"))));
}

TEST(ConfigValidateTest, ParentGuaranteedUsesTheRelaxedV140Rule) {
  auto config = [](int64_t child_memory) {
    return OnePartition(
        {WithGuaranteed(Q("a", {WithGuaranteed(Q("b"), {{"memory", child_memory}, {"gpu", 1}}),
                                Q("c", {WithGuaranteed(Q("d"), {{"memory", 50}, {"vcore", 1}})})}),
                        {{"memory", 100}})});
  };
  // gpu and vcore are guaranteed by children only: v1.2.0 rejected that, v1.4.0 does not.
  EXPECT_THAT(Errors(config(50)), IsEmpty());
  EXPECT_THAT(Errors(config(51)),
              ElementsAre(AllOf(Message("guaranteed resource of parent {memory: 100} is smaller "
                                        "than sum of guaranteed resources {gpu: 1, memory: 101, "
                                        "vcore: 1m} of the children"),
                                Field(&ConfigError::queue_path, "root.a"))));
}

TEST(ConfigValidateTest, ChildrenGuaranteedMustFitTheEffectiveMax) {
  auto config = [](int64_t second) {
    return OnePartition({WithMax(Q("a", {Q("p", {WithGuaranteed(Q("b"), {{"memory", 60}}),
                                                 WithGuaranteed(Q("c"), {{"memory", second}})})}),
                                 {{"memory", 100}})});
  };
  EXPECT_THAT(Errors(config(40)), IsEmpty());
  // root.a.p has no max of its own: its effective max is root.a's.
  EXPECT_THAT(Errors(config(41)),
              ElementsAre(AllOf(Message("max resource {memory: 100} is smaller than sum of "
                                        "guaranteed resources {memory: 101} of the children"),
                                Field(&ConfigError::queue_path, "root.a.p")),
                          AllOf(Message("max resource {memory: 100} is smaller than sum of "
                                        "guaranteed resources {memory: 101} of the children"),
                                Field(&ConfigError::queue_path, "root.a"))));
}

TEST(ConfigValidateTest, NegativeQuantitiesAreRefused) {
  EXPECT_THAT(Errors(OnePartition({WithMax(Q("a"), {{"memory", -1}})})),
              ElementsAre(Message("resources.max.memory is -1: resource quantities must be >= 0")));
}

TEST(ConfigValidateTest, AtMostEightResourceTypes) {
  QuantityMap eight;
  for (int i = 0; i < 8; ++i) eight.emplace_back("r" + std::to_string(i), 1);
  auto weighing_r0 = [](SchedulerConfig config) {
    config.partitions[0].node_sort_policy.resource_weights = {{"r0", 1.0}};
    return config;
  };
  EXPECT_THAT(Errors(weighing_r0(OnePartition({WithMax(Q("a"), eight)}))), IsEmpty());
  SchedulerConfig nine =
      weighing_r0(OnePartition({WithMax(Q("a"), eight), WithMax(Q("b"), {{"r8", 1}})}));
  EXPECT_THAT(Errors(nine), ElementsAre(AllOf(Message("resource type 'r8' is resource type "
                                                      "number 9"),
                                              Field(&ConfigError::queue_path, "root.b"))));
}

// The default node-sort weights (vcore, memory) take no type slot; configured weights do.
TEST(ConfigValidateTest, ConfiguredNodeSortWeightsCountAsResourceTypes) {
  QuantityMap eight;
  for (int i = 0; i < 8; ++i) eight.emplace_back("r" + std::to_string(i), 1);
  EXPECT_THAT(Errors(OnePartition({WithMax(Q("a"), eight)})), IsEmpty());
  SchedulerConfig weighted = OnePartition({WithMax(Q("a"), eight)});
  weighted.partitions[0].node_sort_policy.resource_weights = {{"vcore", 1.0}};
  EXPECT_THAT(Errors(weighted),
              ElementsAre(Message("resource type 'r7' is resource type number 9 in this config; "
                                  "allocore supports at most 8 distinct resource types (vcore, "
                                  "r0")));
}

// ---- §2.4.11 maxapplications ---------------------------------------------------------------

TEST(ConfigValidateTest, ChildMaxApplicationsWithinParent) {
  EXPECT_THAT(Errors(OnePartition({WithMaxApps(Q("a", {WithMaxApps(Q("b"), 10)}), 10),
                                   Q("c", {WithMaxApps(Q("d"), 99)})})),
              IsEmpty());
  QueueConfig more = WithMaxApps(Q("more"), 11);
  more.field_locations = {{"maxapplications", {12, 13}}};
  QueueConfig unlimited = Q("unlimited");
  unlimited.location = {14, 11};
  EXPECT_THAT(
      Errors(OnePartition({WithMaxApps(Q("a", {more, unlimited}), 10)})),
      ElementsAre(
          AllOf(Message("maxapplications 11 exceeds the parent's 10"),
                Field(&ConfigError::location, Field(&SourceLocation::line, 12)),
                Field(&ConfigError::field, "maxapplications")),
          AllOf(Message("maxapplications is unlimited (0) but the parent root.a allows at most 10"),
                Field(&ConfigError::location, Field(&SourceLocation::line, 14)))));
}

// ---- §2.4.6 placement rules ------------------------------------------------------------------

PlacementRuleConfig Rule(std::string name, std::string value = "") {
  PlacementRuleConfig r;
  r.name = std::move(name);
  r.value = std::move(value);
  return r;
}

SchedulerConfig WithRules(std::vector<PlacementRuleConfig> rules) {
  SchedulerConfig config = OnePartition({Q("a")});
  config.partitions[0].placement_rules = std::move(rules);
  return config;
}

TEST(ConfigValidateTest, KnownRulesWithTheirValues) {
  PlacementRuleConfig with_parent = Rule("FIXED", "users");
  with_parent.parent.push_back(Rule("tag", "namespace"));
  EXPECT_THAT(Errors(WithRules({Rule("Provided"), Rule("user"), Rule("tag", "namespace"),
                                Rule("fixed", "root.a"), with_parent, Rule("recovery")})),
              IsEmpty());
}

TEST(ConfigValidateTest, RuleNamesValuesAndParents) {
  PlacementRuleConfig qualified = Rule("fixed", "rootx");
  qualified.parent.push_back(Rule("user"));
  PlacementRuleConfig bad_parent = Rule("user");
  bad_parent.parent.push_back(Rule("tag"));
  EXPECT_THAT(Errors(WithRules({Rule("1st"), Rule("namespace"), Rule("tag"), Rule("fixed"),
                                qualified, bad_parent})),
              ElementsAre(Message("invalid placement rule name '1st'"),
                          Message("unknown placement rule 'namespace'"),
                          Message("placement rule 'tag' requires a `value`"),
                          Message("placement rule 'fixed' requires a `value`"),
                          Message("with the fully qualified value 'rootx' cannot have a parent"),
                          Message("parent placement rule 'tag' requires a `value`")));
}

TEST(ConfigValidateTest, FilterTypes) {
  for (const char* type : {"", "allow", "deny", "Deny", "ALLOW"}) {
    PlacementRuleConfig r = Rule("user");
    r.filter.type = type;
    EXPECT_THAT(Errors(WithRules({r})), IsEmpty()) << type;
  }
  PlacementRuleConfig r = Rule("user");
  r.filter.type = "permit";
  EXPECT_THAT(Errors(WithRules({r})),
              ElementsAre(AllOf(Message("invalid filter type 'permit'"),
                                Field(&ConfigError::field, "filter.type"))));
}

std::vector<ConfigError> FilterUserErrors(const std::string& user) {
  PlacementRuleConfig r = Rule("user");
  r.filter.users = {user};
  r.filter.groups = {user};
  return Errors(WithRules({r}));
}

TEST(ConfigValidateTest, SingleFilterEntriesAreNamesOrRe2Expressions) {
  for (const char* ok :
       {"alice", "^dev.*$", "a|b", "(?i)bob", "(?i:bob)", "(?P<n>x)+", "x*?", "[[:alpha:]]+",
        "[^a-z\\d]", "\\d{2,3}", "a{,3}", "^$", "\\Q*\\E", "\\x41\\x{263a}", "\\pL+\\p{Greek}",
        "[]a]", "x{1000}", "(a)(b)|c*", "^\\.ok$"}) {
    EXPECT_THAT(FilterUserErrors(ok), IsEmpty()) << ok;
  }
  for (const char* bad : {"a(b",   "a)",    "*a",     "a**",     "a+*",         "[z-a]",  "(?=x)",
                          "(?!x)", "\\1",   "a{2,1}", "x{1001}", "[[:bogus:]]", "x\\",    "(?P<>x)",
                          "[a",    "(?z)x", "a b",    "\\q+",    "(|+)",        "a{2}{3}"}) {
    EXPECT_THAT(FilterUserErrors(bad), SizeIs(2)) << bad;  // the user and the group entry
  }
  // A valid user name that is not a valid group name, and lists of two or more entries, which
  // are not validated.
  PlacementRuleConfig r = Rule("user");
  r.filter.users = {"bob@example.com$"};
  r.filter.groups = {"not valid", "(("};
  EXPECT_THAT(Errors(WithRules({r})), IsEmpty());
}

// ---- §2.4.8 and A.2 limits -----------------------------------------------------------------

LimitConfig Limit(std::vector<std::string> users, std::vector<std::string> groups,
                  uint64_t max_apps, std::optional<QuantityMap> max = std::nullopt) {
  LimitConfig l;
  l.users = std::move(users);
  l.groups = std::move(groups);
  l.max_applications = max_apps;
  l.max_resources = std::move(max);
  return l;
}

std::vector<ConfigError> LimitErrors(std::vector<LimitConfig> limits, uint64_t queue_max_apps = 0,
                                     std::optional<QuantityMap> queue_max = std::nullopt) {
  QueueConfig a = WithMaxApps(Q("a"), queue_max_apps);
  a.resources.max = std::move(queue_max);
  a.limits = std::move(limits);
  return Errors(OnePartition({a}));
}

TEST(ConfigValidateTest, LimitEntries) {
  EXPECT_THAT(LimitErrors({Limit({"sue", "bob.smith@corp$"}, {"dev_ops-1"}, 1),
                           Limit({}, {"*"}, 0, QuantityMap{{"memory", 0}, {"vcore", 1}})}),
              IsEmpty());
  EXPECT_THAT(LimitErrors({Limit({}, {}, 1), Limit({"1bob"}, {"dev.ops"}, 1), Limit({"sue"}, {}, 0),
                           Limit({"ann"}, {}, 0, QuantityMap{{"x", 0}})}),
              ElementsAre(Message("empty user and group lists defined in limit #1"),
                          Message("invalid user name '1bob' in limit #2"),
                          Message("invalid group name 'dev.ops' in limit #2"),
                          Message("invalid resource combination for limit #3"),
                          Message("invalid resource combination for limit #4")));
}

TEST(ConfigValidateTest, LimitListRulesOfAppendixA2) {
  // Named before the wildcard, distinct names: fine.
  EXPECT_THAT(LimitErrors({Limit({"sue"}, {"dev"}, 1), Limit({"*"}, {"*"}, 1)}), IsEmpty());
  EXPECT_THAT(
      LimitErrors({Limit({"sue", "*"}, {}, 1), Limit({"sue"}, {}, 1), Limit({}, {"*", "ops"}, 1)}),
      ElementsAre(Message("user 'sue' in limit #2 follows the wildcard user '*'"),
                  Message("user 'sue' appears more than once"),
                  Message("group 'ops' in limit #3 follows the wildcard group '*'")));
}

TEST(ConfigValidateTest, LimitsAgainstTheQueue) {
  EXPECT_THAT(LimitErrors({Limit({"sue"}, {}, 10, QuantityMap{{"memory", 100}, {"gpu", 9}})}, 10,
                          QuantityMap{{"memory", 100}}),
              IsEmpty());
  EXPECT_THAT(LimitErrors({Limit({"sue"}, {}, 11, QuantityMap{{"memory", 101}})}, 10,
                          QuantityMap{{"memory", 100}}),
              ElementsAre(Message("maxresources {memory: 101} of limit #1 exceed the queue's max "
                                  "resources {memory: 100}"),
                          Message("maxapplications 11 of limit #1 exceeds the queue's "
                                  "maxapplications 10")));
  EXPECT_THAT(LimitErrors({Limit({"sue"}, {}, 1, QuantityMap{{"memory", 0}})}),
              ElementsAre(Message("must be strictly positive")));
}

TEST(ConfigValidateTest, PartitionLimitsUseTheSameRules) {
  SchedulerConfig config = OnePartition({Q("a")});
  config.partitions[0].limits = {Limit({"sue"}, {}, 0)};
  EXPECT_THAT(Errors(config),
              ElementsAre(AllOf(Message("invalid resource combination for limit #1"),
                                Field(&ConfigError::queue_path, ""))));
}

TEST(ConfigValidateTest, WildcardGroupMayNotBeTheOnlyGroupLimit) {
  // A named group next to the wildcard, or no group limit at all: fine.
  EXPECT_THAT(LimitErrors({Limit({}, {"dev"}, 1), Limit({}, {"*"}, 1)}), IsEmpty());
  EXPECT_THAT(LimitErrors({Limit({"sue"}, {}, 1), Limit({"*"}, {}, 1)}), IsEmpty());
  LimitConfig only = Limit({"sue"}, {"*"}, 1);
  only.limit = "everyone";
  only.field_locations = {{"groups", {21, 13}}};
  EXPECT_THAT(LimitErrors({Limit({"bob"}, {}, 2), only}),
              ElementsAre(AllOf(Message("the wildcard group '*' in limit 'everyone' is the only "
                                        "group limit of queue root.a"),
                                Field(&ConfigError::queue_path, "root.a"),
                                Field(&ConfigError::field, "groups"),
                                Field(&ConfigError::location, Field(&SourceLocation::line, 21)))));
  // The partition's limits too.
  SchedulerConfig config = OnePartition({Q("a")});
  config.partitions[0].limits = {Limit({}, {"*"}, 5)};
  EXPECT_THAT(Errors(config), ElementsAre(AllOf(Message("is the only group limit of this "
                                                        "partition"),
                                                Field(&ConfigError::queue_path, ""))));
}

// root.a (limits `parent`) > root.a.b (no limits) > root.a.b.c (limits `leaf`).
SchedulerConfig ThreeLevels(std::vector<LimitConfig> parent, std::vector<LimitConfig> leaf) {
  QueueConfig c = Q("c");
  c.limits = std::move(leaf);
  QueueConfig a = Q("a", {Q("b", {c})});
  a.limits = std::move(parent);
  return OnePartition({a});
}

TEST(ConfigValidateTest, ChildLimitsWithinTheAncestorsLimitsForTheSameName) {
  // Equal or smaller, across a level without limits; types the ancestor does not limit are
  // unlimited; bob and ops have no entry above (root.a's wildcards are not theirs).
  EXPECT_THAT(
      Errors(ThreeLevels(
          {Limit({"sue"}, {"dev"}, 10, QuantityMap{{"memory", 100}}), Limit({"*"}, {"*"}, 4)},
          {Limit({"sue"}, {"dev"}, 10, QuantityMap{{"memory", 100}, {"gpu", 7}}),
           Limit({"bob"}, {"ops"}, 4), Limit({"*"}, {"*"}, 3)})),
      IsEmpty());
  LimitConfig leaf = Limit({"sue"}, {}, 11, QuantityMap{{"memory", 101}});
  leaf.limit = "sue-leaf";
  leaf.field_locations = {{"maxresources", {30, 13}}, {"maxapplications", {31, 13}}};
  EXPECT_THAT(
      Errors(ThreeLevels({Limit({"sue"}, {}, 10, QuantityMap{{"memory", 100}})}, {leaf})),
      ElementsAre(
          AllOf(Message("maxresources {memory: 101} of user 'sue' in limit 'sue-leaf' exceed the "
                        "maxresources {memory: 100} that root.a sets for user 'sue'"),
                Field(&ConfigError::queue_path, "root.a.b.c"),
                Field(&ConfigError::field, "maxresources"),
                Field(&ConfigError::location, Field(&SourceLocation::line, 30))),
          AllOf(Message("maxapplications 11 of user 'sue' in limit 'sue-leaf' exceeds the 10 "
                        "that root.a allows for user 'sue'"),
                Field(&ConfigError::field, "maxapplications"),
                Field(&ConfigError::location, Field(&SourceLocation::line, 31)))));
  // Groups, and the wildcard entry against the ancestors' wildcard.
  EXPECT_THAT(Errors(ThreeLevels({Limit({}, {"dev"}, 2), Limit({"*"}, {"*"}, 5)},
                                 {Limit({}, {"dev"}, 3), Limit({"*"}, {"*"}, 6)})),
              ElementsAre(Message("maxapplications 3 of group 'dev' in limit #1 exceeds the 2"),
                          Message("maxapplications 6 of user '*' in limit #2 exceeds the 5"),
                          Message("maxapplications 6 of group '*' in limit #2 exceeds the 5")));
}

// YuniKorn (checkLimitResource, checkLimitMaxApplications) compares a child's limit only with
// what the levels above carry for the exact same name: a named user or group is never held to
// a wildcard entry above, and '*' only to '*'. None of these is refused.
TEST(ConfigValidateTest, NamedLimitsAreNeverHeldToAWildcardLimitAbove) {
  // root '*' 2 applications (memory 10); root.a alice 5 (memory 50).
  auto named_under_wildcard = [](std::optional<QuantityMap> root_max,
                                 std::optional<QuantityMap> child_max) {
    QueueConfig a = Q("a");
    a.limits = {Limit({"alice"}, {}, 5, std::move(child_max))};
    QueueConfig root = Q("root", {a});
    root.limits = {Limit({"*"}, {}, 2, std::move(root_max))};
    return OnePartition({root});
  };
  EXPECT_THAT(Errors(named_under_wildcard(std::nullopt, std::nullopt)), IsEmpty());
  EXPECT_THAT(
      Errors(named_under_wildcard(QuantityMap{{"memory", 10}}, QuantityMap{{"memory", 50}})),
      IsEmpty());
  // The same for groups, across a level without limits.
  EXPECT_THAT(Errors(ThreeLevels({Limit({}, {"ops"}, 1), Limit({}, {"*"}, 2)},
                                 {Limit({}, {"dev"}, 9, QuantityMap{{"memory", 1}})})),
              IsEmpty());
  // A level's wildcard does not narrow what the levels above set for a name: root alice
  // memory 100, root.a '*' memory 10, root.a.b alice memory 50 is held to alice's 100 only.
  {
    QueueConfig b = Q("b");
    b.limits = {Limit({"alice"}, {}, 0, QuantityMap{{"memory", 50}})};
    QueueConfig a = Q("a", {b});
    a.limits = {Limit({"*"}, {}, 0, QuantityMap{{"memory", 10}})};
    QueueConfig root = Q("root", {a});
    root.limits = {Limit({"alice"}, {}, 0, QuantityMap{{"memory", 100}})};
    EXPECT_THAT(Errors(OnePartition({root})), IsEmpty());
    root.queues[0].queues[0].limits[0].max_resources = QuantityMap{{"memory", 101}};
    EXPECT_THAT(Errors(OnePartition({root})),
                ElementsAre(AllOf(Message("maxresources {memory: 101} of user 'alice' in limit "
                                          "#1 exceed the maxresources {memory: 100} that root "
                                          "sets for user 'alice'"),
                                  Field(&ConfigError::queue_path, "root.a.b"))));
  }
  // Names a level does not list are not held to its wildcard either.
  EXPECT_THAT(Errors(ThreeLevels({Limit({"sue"}, {}, 50), Limit({"*"}, {}, 5)},
                                 {Limit({"bob"}, {}, 6, QuantityMap{{"memory", 1}})})),
              IsEmpty());
  QueueConfig a = Q("a", {Q("b")});
  a.limits = {Limit({"ann"}, {}, 5), Limit({"*"}, {}, 5)};
  a.queues[0].limits = {Limit({"sue"}, {}, 6)};
  QueueConfig root = Q("root", {a});
  root.limits = {Limit({"sue"}, {}, 50)};
  EXPECT_THAT(Errors(OnePartition({root})), IsEmpty());
  QueueConfig c = Q("c");
  c.limits = {Limit({"bob"}, {}, 1, QuantityMap{{"memory", 500}})};
  QueueConfig b = Q("b", {c});
  b.limits = {Limit({"bob"}, {}, 1, QuantityMap{{"vcore", 5}})};
  QueueConfig top = Q("a", {b});
  top.limits = {Limit({"*"}, {}, 1, QuantityMap{{"memory", 100}})};
  EXPECT_THAT(Errors(OnePartition({top})), IsEmpty());
  // The wildcard against the wildcard above is compared.
  QueueConfig wide = Q("a");
  wide.limits = {Limit({"*"}, {}, 3, QuantityMap{{"memory", 20}})};
  QueueConfig narrow = Q("root", {wide});
  narrow.limits = {Limit({"*"}, {}, 2, QuantityMap{{"memory", 10}})};
  EXPECT_THAT(
      Errors(OnePartition({narrow})),
      ElementsAre(AllOf(Message("maxresources {memory: 20} of user '*' in limit #1 exceed the "
                                "maxresources {memory: 10} that root sets for user '*'"),
                        Field(&ConfigError::queue_path, "root.a")),
                  AllOf(Message("maxapplications 3 of user '*' in limit #1 exceeds the 2 that "
                                "root allows for user '*'"),
                        Field(&ConfigError::queue_path, "root.a"))));
}

// What the levels above carry: the resource limits of every name, narrowed level by level
// (a level with limits that do not list a name passes its entry on); the application counts
// only through levels without limits (a level with limits passes on only the names it lists).
TEST(ConfigValidateTest, WhatTheLevelsAboveCarryForAName) {
  // root alice 2 applications, root.a bob 5, root.a.b alice 3: root.a's limits end alice's 2.
  auto apps = [](uint64_t alice_below) {
    QueueConfig b = Q("b");
    b.limits = {Limit({"alice"}, {}, alice_below)};
    QueueConfig a = Q("a", {b});
    a.limits = {Limit({"bob"}, {}, 5)};
    QueueConfig root = Q("root", {a});
    root.limits = {Limit({"alice"}, {}, 2)};
    return OnePartition({root});
  };
  EXPECT_THAT(Errors(apps(3)), IsEmpty());
  EXPECT_THAT(Errors(apps(100)), IsEmpty());
  // Resources go on: root alice memory 100, root.a bob memory 10, root.a.b alice memory 150.
  auto resources = [](int64_t alice_below) {
    QueueConfig b = Q("b");
    b.limits = {Limit({"alice"}, {}, 3, QuantityMap{{"memory", alice_below}})};
    QueueConfig a = Q("a", {b});
    a.limits = {Limit({"bob"}, {}, 5, QuantityMap{{"memory", 10}})};
    QueueConfig root = Q("root", {a});
    root.limits = {Limit({"alice"}, {}, 2, QuantityMap{{"memory", 100}})};
    return OnePartition({root});
  };
  EXPECT_THAT(Errors(resources(100)), IsEmpty());
  LimitConfig located = Limit({"alice"}, {}, 3, QuantityMap{{"memory", 150}});
  located.field_locations = {{"maxresources", {12, 15}}};
  SchedulerConfig refused = resources(150);
  refused.partitions[0].queues[0].queues[0].queues[0].limits = {located};
  EXPECT_THAT(Errors(refused),
              ElementsAre(AllOf(Message("maxresources {memory: 150} of user 'alice' in limit #1 "
                                        "exceed the maxresources {memory: 100} that root sets "
                                        "for user 'alice'"),
                                Field(&ConfigError::queue_path, "root.a.b"),
                                Field(&ConfigError::field, "maxresources"),
                                Field(&ConfigError::location, Field(&SourceLocation::line, 12)))));
  // Narrowed level by level: root sue {memory 100}, root.a sue {vcore 5}, root.a.b sue
  // {memory 101} is held to {memory 100, vcore 5m}.
  QueueConfig b = Q("b");
  b.limits = {Limit({}, {"dev"}, 1, QuantityMap{{"memory", 101}})};
  QueueConfig a = Q("a", {b});
  a.limits = {Limit({}, {"dev"}, 1, QuantityMap{{"vcore", 5}})};
  QueueConfig root = Q("root", {a});
  root.limits = {Limit({}, {"dev"}, 1, QuantityMap{{"memory", 100}})};
  EXPECT_THAT(Errors(OnePartition({root})),
              ElementsAre(Message("maxresources {memory: 101} of group 'dev' in limit #1 exceed "
                                  "the maxresources {memory: 100, vcore: 5m} that root.a sets "
                                  "for group 'dev'")));
}

// A child limit with maxapplications 0 (unlimited, e.g. a resource-only limit) under a
// non-zero maxapplications carried for the same name is refused, like a child queue with 0
// under a limited parent (§2.4.11); under a carried 0 any value is fine.
TEST(ConfigValidateTest, UnlimitedChildApplicationsUnderALimitedAncestor) {
  EXPECT_THAT(Errors(ThreeLevels(
                  {Limit({"sue"}, {}, 0, QuantityMap{{"memory", 100}})},
                  {Limit({"sue"}, {}, 0, QuantityMap{{"memory", 50}}), Limit({"bob"}, {}, 7)})),
              IsEmpty());
  EXPECT_THAT(Errors(ThreeLevels({Limit({"sue"}, {}, 3)},
                                 {Limit({"sue"}, {}, 0, QuantityMap{{"memory", 50}})})),
              ElementsAre(AllOf(Message("maxapplications of user 'sue' in limit #1 is unlimited "
                                        "(0) but root.a allows at most 3 for user 'sue': set "
                                        "maxapplications from 1 to 3"),
                                Field(&ConfigError::queue_path, "root.a.b.c"))));
  // A 0 is carried on as YuniKorn carries it, the plain minimum of the two counts: under
  // root.a's resource-only limit for sue, root.a.b's 5 for sue carries 0, so root.a.b.c's 9 is
  // not compared with 5 (YuniKorn accepts this configuration).
  QueueConfig c = Q("c");
  c.limits = {Limit({"sue"}, {}, 9)};
  QueueConfig b = Q("b", {c});
  b.limits = {Limit({"sue"}, {}, 5)};
  QueueConfig a = Q("a", {b});
  a.limits = {Limit({"sue"}, {}, 0, QuantityMap{{"memory", 100}})};
  EXPECT_THAT(Errors(OnePartition({a})), IsEmpty());
}

TEST(ConfigValidateTest, PartitionLimitsApplyToARootWithoutLimits) {
  auto config = [](uint64_t child_apps) {
    QueueConfig a = Q("a");
    a.limits = {Limit({"sue"}, {}, child_apps)};
    SchedulerConfig c = OnePartition({Q("root", {a})});
    c.partitions[0].limits = {Limit({"sue"}, {}, 4)};
    return c;
  };
  EXPECT_THAT(Errors(config(4)), IsEmpty());
  EXPECT_THAT(Errors(config(5)),
              ElementsAre(AllOf(Message("maxapplications 5 of user 'sue' in limit #1 exceeds the "
                                        "4 that root allows for user 'sue'"),
                                Field(&ConfigError::queue_path, "root.a"))));
  // And against the root's maxapplications.
  SchedulerConfig capped = OnePartition({WithMaxApps(Q("root", {WithMaxApps(Q("a"), 3)}), 3)});
  capped.partitions[0].limits = {Limit({"sue"}, {}, 4)};
  EXPECT_THAT(Errors(capped), ElementsAre(Message("maxapplications 4 of limit #1 exceeds the root "
                                                  "queue's maxapplications 3")));
}

TEST(ConfigValidateTest, PartitionAndRootLimitsMustBeTheSame) {
  auto config = [](std::vector<LimitConfig> partition, std::vector<LimitConfig> root) {
    SchedulerConfig c = OnePartition({Q("root", {Q("a")})});
    c.partitions[0].limits = std::move(partition);
    c.partitions[0].queues[0].limits = std::move(root);
    c.partitions[0].field_locations = {{"limits", {4, 5}}};
    return c;
  };
  // Same entries in the same order; descriptions and the order of resource types do not count,
  // nor absent against empty maxresources.
  LimitConfig described = Limit({"sue", "bob"}, {"dev"}, 3, QuantityMap{{"vcore", 1}, {"gpu", 2}});
  described.limit = "partition copy";
  LimitConfig empty_resources = Limit({"*"}, {"*"}, 2, QuantityMap{});
  EXPECT_THAT(
      Errors(config({described, empty_resources},
                    {Limit({"sue", "bob"}, {"dev"}, 3, QuantityMap{{"gpu", 2}, {"vcore", 1}}),
                     Limit({"*"}, {"*"}, 2)})),
      IsEmpty());
  // Only one of them set: nothing to compare.
  EXPECT_THAT(Errors(config({Limit({"sue"}, {}, 3)}, {})), IsEmpty());
  EXPECT_THAT(Errors(config({}, {Limit({"sue"}, {}, 3)})), IsEmpty());

  EXPECT_THAT(Errors(config({Limit({"sue"}, {}, 3)}, {Limit({"sue"}, {}, 4)})),
              ElementsAre(AllOf(Message("the partition limits and the limits of the root queue are "
                                        "both set but differ (entry #1: maxapplications 3 against "
                                        "4)"),
                                Field(&ConfigError::field, "limits"),
                                Field(&ConfigError::location, Field(&SourceLocation::line, 4)))));
  EXPECT_THAT(Errors(config({Limit({"sue"}, {}, 3), Limit({"bob"}, {}, 3)},
                            {Limit({"bob"}, {}, 3), Limit({"sue"}, {}, 3)})),
              ElementsAre(Message("differ (entry #1: users [sue] against [bob])")));
  EXPECT_THAT(Errors(config({Limit({"sue", "bob"}, {}, 3)}, {Limit({"bob", "sue"}, {}, 3)})),
              ElementsAre(Message("entry #1: users [sue, bob] against [bob, sue]")));
  EXPECT_THAT(
      Errors(config({Limit({"sue"}, {}, 3, QuantityMap{{"memory", 1}})}, {Limit({"sue"}, {}, 3)})),
      ElementsAre(Message("entry #1: maxresources {memory: 1} against {}")));
  EXPECT_THAT(
      Errors(config({Limit({"sue"}, {}, 3)}, {Limit({"sue"}, {}, 3), Limit({"bob"}, {}, 1)})),
      ElementsAre(Message("differ (1 entries against 2)")));
}

// ---- §2.4.9-10 node sorting, state dump; templates -----------------------------------------

TEST(ConfigValidateTest, NodeSortPolicy) {
  for (const char* type : {"", "fair", "binpacking"}) {
    SchedulerConfig config = OnePartition({Q("a")});
    config.partitions[0].node_sort_policy.type = type;
    config.partitions[0].node_sort_policy.resource_weights = {{"vcore", 0}, {"memory", 4}};
    EXPECT_THAT(Errors(config), IsEmpty()) << type;
  }
  SchedulerConfig config = OnePartition({Q("a")});
  config.partitions[0].node_sort_policy.type = "BinPacking";
  config.partitions[0].node_sort_policy.resource_weights = {{"vcore", -1}};
  EXPECT_THAT(Errors(config), ElementsAre(Message("undefined policy: 'BinPacking'"),
                                          Message("resource weight for 'vcore' is -1")));
}

TEST(ConfigValidateTest, WarningsDoNotInvalidate) {
  SchedulerConfig config = OnePartition({Q("leaf")});
  config.partitions[0].state_dump_file_path = "/tmp/dump";
  config.partitions[0].queues[0].child_template.emplace();
  std::vector<ConfigError> all = ValidateConfig(config);
  EXPECT_THAT(all,
              UnorderedElementsAre(AllOf(Message("statedumpfilepath is deprecated"),
                                         Field(&ConfigError::warning, true)),
                                   AllOf(Message("childtemplate on a leaf queue has no effect"),
                                         Field(&ConfigError::warning, true))));
}

// YuniKorn accepts a template whose guarantee exceeds its max (every release does): a warning.
TEST(ConfigValidateTest, ChildTemplateGuaranteedAboveTemplateMaxIsAWarning) {
  QueueConfig a = Q("a");
  a.parent = true;
  ChildTemplateConfig& t = a.child_template.emplace();
  t.max_applications = 7;
  t.resources.guaranteed = QuantityMap{{"memory", 10}};
  t.resources.max = QuantityMap{{"memory", 10}};
  EXPECT_THAT(Errors(OnePartition({a})), IsEmpty());
  a.child_template->resources.guaranteed = QuantityMap{{"memory", 11}};
  EXPECT_THAT(Errors(OnePartition({a})), IsEmpty());
  SchedulerConfig config = OnePartition({a});
  EXPECT_THAT(ValidateConfig(config),
              ElementsAre(AllOf(Message("childtemplate guaranteed resource {memory: 11} is larger "
                                        "than the childtemplate maximum resource {memory: 10}"),
                                Field(&ConfigError::warning, true))));
}

// ---- Reporting -------------------------------------------------------------------------------

TEST(ConfigValidateTest, ReportsEveryErrorInDocumentOrder) {
  QueueConfig a = WithMaxApps(Q("a", {WithMaxApps(Q("b"), 20)}), 10);
  a.location = {5, 7};
  a.submit_acl = "x y z";
  a.field_locations = {{"submitacl", {9, 9}}};
  a.queues[0].location = {12, 11};
  QueueConfig bad = Q("b.c");
  bad.location = {3, 7};
  SchedulerConfig config = OnePartition({a, bad});
  config.partitions[0].location = {1, 3};
  config.partitions[0].node_sort_policy.type = "x";
  std::vector<ConfigError> errors = Errors(config);
  ASSERT_THAT(errors, SizeIs(4));
  EXPECT_THAT(errors[0], Message("undefined policy"));  // partition location, line 1
  EXPECT_THAT(errors[1], Message("invalid child name 'b.c'"));
  EXPECT_THAT(errors[2], Message("multiple spaces found in ACL"));
  EXPECT_THAT(errors[3], Message("maxapplications 20 exceeds the parent's 10"));
  EXPECT_EQ(errors[3].ToString("q.yaml"),
            "q.yaml:12:11: partition default, queue root.a.b: maxapplications 20 exceeds the "
            "parent's 10 (root.a): a child may allow at most as many running applications as "
            "its parent");
}

TEST(ConfigValidateTest, ValidatingTwiceChangesNothing) {
  SchedulerConfig config = OnePartition({Q("a"), Q("b")});
  config.partitions[0].name = "";
  ASSERT_THAT(Errors(config), IsEmpty());
  SchedulerConfig again = config;
  ASSERT_THAT(Errors(again), IsEmpty());
  EXPECT_EQ(again.partitions[0].name, "default");
  ASSERT_THAT(again.partitions[0].queues, SizeIs(1));
  EXPECT_THAT(again.partitions[0].queues[0].queues, SizeIs(2));
}

TEST(ConfigValidateTest, TheDefaultConfigIsValid) {
  SchedulerConfig config = DefaultSchedulerConfig();
  EXPECT_THAT(ValidateConfig(config), IsEmpty());
}

TEST(ConfigValidateTest, HierarchiesDeeperThanTheLimitAreRefused) {
  QueueConfig chain = Q("leaf");
  for (int i = 0; i < kMaxQueueDepth + 5; ++i) chain = Q("q", {std::move(chain)});
  EXPECT_THAT(Errors(OnePartition({std::move(chain)})),
              ElementsAre(Message("the queue hierarchy is deeper than 64 levels")));
}

}  // namespace
}  // namespace allocore

namespace allocore {
namespace {

// A programmatic config may repeat a resource type; the validator checks the value the kernel
// applies (the last one), not another one. (With its own quantity maps it kept the first: a
// max of {memory: 10, memory: 1000} was validated as 10 and applied as 1000.)
TEST(ConfigValidateTest, RepeatedResourceTypeIsCheckedAsTheKernelAppliesIt) {
  QueueConfig a = Q("a");
  a.resources.max = QuantityMap{{"memory", 10}, {"memory", 1000}};
  a.resources.guaranteed = QuantityMap{{"memory", 100}};
  EXPECT_THAT(Errors(OnePartition({a})), IsEmpty());
  a.resources.max = QuantityMap{{"memory", 1000}, {"memory", 10}};
  EXPECT_THAT(Errors(OnePartition({a})),
              ElementsAre(Message("guaranteed resource {memory: 100} is larger than maximum "
                                  "resource {memory: 10}")));
}

}  // namespace
}  // namespace allocore
