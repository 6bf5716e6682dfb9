// Namespace tags through the public API: what each profile reads from an application's tags
// into the dynamic leaf it joins, what it ignores, and that the queue orders stay consistent
// with the changed limits (CheckConsistency recomputes every key from scratch).
#include <string>
#include <vector>

#include "allocore/config.h"
#include "allocore/kernel.h"
#include "gtest/gtest.h"
#include "support/configs.h"
#include "support/profiles.h"

namespace allocore {
namespace {

constexpr char kQuota30[] = R"({"resources":{"memory":{"value":30}}})";
constexpr char kGuarantee5[] = R"({"resources":{"memory":{"value":5}}})";

class NamespaceTagsTest : public ::testing::TestWithParam<Semantics> {
 protected:
  void SetUp() override {
    SchedulerConfig config;
    PartitionConfig& p = config.partitions.emplace_back();
    p.name = "default";
    p.placement_rules.push_back({.name = "tag", .create = true, .value = "namespace"});
    QueueConfig& root = p.queues.emplace_back();
    root.name = "root";
    root.submit_acl = "*";
    QueueConfig& ops = root.queues.emplace_back();
    ops.name = "ops";
    ops.resources.max = QuantityMap{{"memory", 1000}};
    auto created = Kernel::Create(std::move(config), {.semantics = GetParam()});
    ASSERT_TRUE(created.ok()) << created.status();
    kernel_ = std::move(*created);
    ASSERT_TRUE(kernel_->AddNode({.id = "n1", .capacity = {{"memory", 1000}}}, &out_).ok());
  }
  bool V19() const { return GetParam() == Semantics::kYunikorn19; }
  void Add(const std::string& id, Tags tags) {
    ASSERT_TRUE(
        kernel_->AddApplication({.id = id, .user = "u", .tags = std::move(tags)}, &out_).ok());
    ASSERT_TRUE(kernel_->AddAsk({.app = id, .id = "k", .resources = {{"memory", 1}}}, &out_).ok());
    absl::Status consistent = kernel_->CheckConsistency();
    EXPECT_TRUE(consistent.ok()) << consistent;
  }
  QueueInfo Queue(const std::string& path) { return kernel_->GetQueue("default", path).value(); }
  int64_t Memory(const std::optional<Resource>& r) {
    const int type = kernel_->resource_types().Find("memory");
    return r && type >= 0 && r->Has(type) ? r->Get(type) : -1;  // -1: not set
  }

  std::unique_ptr<Kernel> kernel_;
  std::vector<Decision> out_;
};

INSTANTIATE_TEST_SUITE_P(Profiles, NamespaceTagsTest, test_support::EachProfile(),
                         test_support::ProfileName);

TEST_P(NamespaceTagsTest, TagsSetTheDynamicLeafsLimits) {
  Add("a1", {{"namespace", "team"},
             {"NAMESPACE.RESOURCEQUOTA", kQuota30},
             {"namespace.resourceguaranteed", kGuarantee5},
             {"namespace.resourcemaxapps", "3"}});
  QueueInfo team = Queue("root.team");
  EXPECT_TRUE(team.dynamic);
  EXPECT_EQ(Memory(team.max), 30);
  EXPECT_EQ(Memory(team.guaranteed), V19() ? 5 : -1);
  EXPECT_EQ(team.max_applications, V19() ? 3u : 0u);
  // Only a guarantee now: 1.9 clears the max (a side left out), v1.2.0 ignores the tag.
  Add("a2", {{"namespace", "team"}, {"namespace.resourceguaranteed", kGuarantee5}});
  team = Queue("root.team");
  EXPECT_EQ(Memory(team.max), V19() ? -1 : 30);
  EXPECT_EQ(team.max_applications, V19() ? 3u : 0u);
  // No namespace tag: nothing changes.
  Add("a3", {{"namespace", "team"}});
  EXPECT_EQ(Memory(Queue("root.team").max), V19() ? -1 : 30);
}

TEST_P(NamespaceTagsTest, BadTagsAndConfiguredQueuesAreLeftAlone) {
  Add("a1", {{"namespace", "team"}, {"namespace.resourcequota", kQuota30}});
  for (const char* bad : {"{yyyyy}", R"({"resources":{"memory":{"value":0}}})",
                          R"({"resources":{"memory":{"value":-4}}})",
                          R"({"resources":{"memory":{"value":1.5}}})", ""}) {
    Add(std::string("b") + std::to_string(out_.size()),
        {{"namespace", "team"}, {"namespace.resourcequota", bad}});
    EXPECT_EQ(Memory(Queue("root.team").max), 30) << bad;
  }
  Add("o1", {{"namespace", "ops"}, {"namespace.resourcequota", kQuota30}});
  EXPECT_EQ(Memory(Queue("root.ops").max), 1000) << "a configured queue keeps its limits";
  // A max of 30 holds back what exceeds it.
  ASSERT_TRUE(
      kernel_->AddAsk({.app = "a1", .id = "big", .resources = {{"memory", 40}}}, &out_).ok());
  out_.clear();
  ASSERT_TRUE(kernel_->Schedule(0, "", &out_).ok());
  for (const Decision& d : out_) {
    EXPECT_FALSE(d.type == DecisionType::kAllocation && d.ask == "big") << "past the tag's max";
  }
}

}  // namespace
}  // namespace allocore
