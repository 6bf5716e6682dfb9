// adapters/scenario/scenario_decode.h — internal: the scenario decoder over YamlTrees, for the
// loader (one tree for the whole file) and the streaming reader (a tree per step).
#ifndef ALLOCORE_ADAPTERS_SCENARIO_SCENARIO_DECODE_H_
#define ALLOCORE_ADAPTERS_SCENARIO_SCENARIO_DECODE_H_

#include <cstddef>
#include <string>
#include <vector>

#include "allocore/adapters/scenario.h"
#include "yaml_tree.h"

namespace allocore::adapters::internal {

// The scenario whose top-level mapping is `tree`'s root (an empty tree: an empty scenario).
// Problems are appended to `errors`, one per entry, "file:line:col: ..." as LoadScenarioText
// reports them.
void DecodeScenarioTree(const YamlTree& tree, const std::string& source_name,
                        const ScenarioLoadOptions& options, Scenario* out,
                        std::vector<std::string>* errors);

// One entry of `steps:` (`index` is 1-based) whose node is `tree`'s root, appended to
// out->steps when it is valid; problems as above.
void DecodeScenarioStep(const YamlTree& tree, size_t index, const std::string& source_name,
                        Scenario* out, std::vector<std::string>* errors);

}  // namespace allocore::adapters::internal

#endif  // ALLOCORE_ADAPTERS_SCENARIO_SCENARIO_DECODE_H_
