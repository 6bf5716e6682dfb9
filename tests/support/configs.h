// tests/support/configs.h — the small queue configurations that tests and benchmarks build
// again and again, in code, in one place (no test framework: the benchmarks include it too).
//
// Example:
//   SchedulerConfig config = test_support::RootWith(
//       {test_support::Leaf("a", QuantityMap{{"memory", 100}}), test_support::Leaf("b")});
#ifndef ALLOCORE_TESTS_SUPPORT_CONFIGS_H_
#define ALLOCORE_TESTS_SUPPORT_CONFIGS_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "allocore/config.h"

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

// Partitions (one, "default", unless named) whose root (submitacl "*") holds `children`.
inline SchedulerConfig RootWith(std::vector<QueueConfig> children,
                                const std::vector<std::string>& partitions = {"default"}) {
  SchedulerConfig config;
  for (const std::string& name : partitions) {
    PartitionConfig& p = config.partitions.emplace_back();
    p.name = name;
    QueueConfig& root = p.queues.emplace_back();
    root.name = "root";
    root.parent = true;
    root.submit_acl = "*";
    root.queues = children;
  }
  return config;
}

// Leaves of these names, without limits.
inline std::vector<QueueConfig> Leaves(const std::vector<std::string>& names) {
  std::vector<QueueConfig> leaves;
  for (const std::string& name : names) leaves.push_back(Leaf(name));
  return leaves;
}

// The queue tree of YuniKorn's BenchmarkScheduling: root.a and root.b with guarantees of
// memory 100,000 and 1,000,000, vcore 10,000 each (in milli-cores).
inline SchedulerConfig YunikornShapeConfig() {
  std::vector<QueueConfig> leaves = Leaves({"a", "b"});
  leaves[0].resources.guaranteed =
      QuantityMap{{"memory", 100000}, {"vcore", int64_t{10000} * 1000}};
  leaves[1].resources.guaranteed =
      QuantityMap{{"memory", 1000000}, {"vcore", int64_t{10000} * 1000}};
  return RootWith(std::move(leaves));
}

// The root queue of RootWith's single partition, to set its properties.
inline QueueConfig& Root(SchedulerConfig& config) { return config.partitions[0].queues[0]; }

}  // namespace allocore::test_support

#endif  // ALLOCORE_TESTS_SUPPORT_CONFIGS_H_
