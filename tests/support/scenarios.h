// tests/support/scenarios.h — the parts of scenario files (docs/scenario-format.md) that
// tests write again and again: a config whose one root anyone may submit to, over the test's
// own queues, and the one-node cluster the small worked examples run on. The test still writes
// what it is about: its queues and its steps.
//
// Example:
//   LoadScenarioText(test_support::OneNodeScenario("[{name: a}]", R"(
//     - add_app: {id: x, queue: root.a, user: u}
//     - schedule: {}
//   )"), "s.yaml");
#ifndef ALLOCORE_TESTS_SUPPORT_SCENARIOS_H_
#define ALLOCORE_TESTS_SUPPORT_SCENARIOS_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "allocore/adapters/scenario.h"
#include "allocore/adapters/workload_gen.h"

namespace allocore::test_support {

// The `config:` block of a scenario: one partition, "default", whose root (submitacl "*") holds
// `queues`, either one flow-style list ("[{name: a}, {name: b}]") or block-style list items
// written from column 0, which are indented under the root here. Block items keep the lines a
// file written out by hand would have, so that messages name the same lines.
inline std::string OpenRootConfig(std::string_view queues) {
  std::string text = "config:\n  partitions:\n    - name: default\n      queues:\n";
  text += "        - name: root\n          submitacl: \"*\"\n          queues:";
  if (queues.starts_with('[')) return text.append(" ").append(queues).append("\n");
  text += "\n";
  while (!queues.empty()) {
    const size_t end = queues.find('\n');
    const std::string_view line = queues.substr(0, end);
    if (!line.empty()) text.append(12, ' ').append(line).append("\n");
    queues.remove_prefix(end == std::string_view::npos ? queues.size() : end + 1);
  }
  return text;
}

// A scenario on one node, n1, of 10 `slots`, under OpenRootConfig(queues); `steps` are the
// items of its `steps:` list (indented by two spaces, as in a file).
inline std::string OneNodeScenario(std::string_view queues, std::string_view steps) {
  std::string text = OpenRootConfig(queues);
  text += "nodes:\n  - {id: n1, resources: {slots: 10}}\nsteps:\n";
  text += steps.starts_with('\n') ? steps.substr(1) : steps;
  return text;
}

// The random workload of `options` (allocore/adapters/workload_gen.h), loaded.
inline absl::StatusOr<adapters::Scenario> LoadGeneratedScenario(
    const adapters::RandomScenarioOptions& options,
    const adapters::ScenarioLoadOptions& load_options = {}) {
  absl::StatusOr<std::string> text = adapters::GenerateRandomScenario(options);
  if (!text.ok()) return text.status();
  return adapters::LoadScenarioText(*text, "random.yaml", load_options);
}

}  // namespace allocore::test_support

#endif  // ALLOCORE_TESTS_SUPPORT_SCENARIOS_H_
