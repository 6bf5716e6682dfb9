// tests/support/configs.h — what the kernel tests build again and again, in one place: small
// queue configurations in code, and the two semantics profiles as a test parameter.
//
// Example:
//   class MyTest : public ::testing::TestWithParam<Semantics> {};
//   INSTANTIATE_TEST_SUITE_P(Profiles, MyTest, test_support::EachProfile(),
//                            test_support::ProfileName);
//   SchedulerConfig config = test_support::RootWith(
//       {test_support::Leaf("a", QuantityMap{{"memory", 100}}), test_support::Leaf("b")});
#ifndef ALLOCORE_TESTS_SUPPORT_CONFIGS_H_
#define ALLOCORE_TESTS_SUPPORT_CONFIGS_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "allocore/config.h"
#include "allocore/semantics.h"
#include "gtest/gtest.h"

namespace allocore::test_support {

// A leaf queue, with a max when given.
inline QueueConfig Leaf(std::string name, std::optional<QuantityMap> max = std::nullopt) {
  QueueConfig q;
  q.name = std::move(name);
  q.resources.max = std::move(max);
  return q;
}

// A parent queue over `children`.
inline QueueConfig Parent(std::string name, std::vector<QueueConfig> children) {
  QueueConfig q;
  q.name = std::move(name);
  q.parent = true;
  q.queues = std::move(children);
  return q;
}

// One partition, "default", whose root (submitacl "*") holds `children`.
inline SchedulerConfig RootWith(std::vector<QueueConfig> children) {
  SchedulerConfig config;
  PartitionConfig& p = config.partitions.emplace_back();
  p.name = "default";
  QueueConfig& root = p.queues.emplace_back();
  root.name = "root";
  root.parent = true;
  root.submit_acl = "*";
  root.queues = std::move(children);
  return config;
}

// The root queue of RootWith's single partition, to set its properties.
inline QueueConfig& Root(SchedulerConfig& config) { return config.partitions[0].queues[0]; }

// Both profiles, named V12 and V19 in test names.
inline auto EachProfile() {
  return ::testing::Values(Semantics::kYunikorn12, Semantics::kYunikorn19);
}
inline std::string ProfileName(const ::testing::TestParamInfo<Semantics>& info) {
  return info.param == Semantics::kYunikorn12 ? "V12" : "V19";
}

}  // namespace allocore::test_support

#endif  // ALLOCORE_TESTS_SUPPORT_CONFIGS_H_
