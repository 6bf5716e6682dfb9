// adapters/config/yaml_config_decode.h — internal: yaml-cpp nodes -> config structs.
// Shared by the config loader and the scenario loader (a scenario embeds a `config:` block):
// DecodeConfigTree is exported for allocore_scenario, as yaml_tree.h says.
#ifndef ALLOCORE_ADAPTERS_CONFIG_YAML_CONFIG_DECODE_H_
#define ALLOCORE_ADAPTERS_CONFIG_YAML_CONFIG_DECODE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "allocore/config.h"
#include "allocore/export.h"
#include "yaml-cpp/yaml.h"
#include "yaml_tree.h"

namespace allocore::adapters::internal {

// Refuses text that would make yaml-cpp crash, recurse too deep or blow up (nesting depth,
// aliases, NUL bytes, invalid UTF-8, size limits). The message names the limit hit and the
// line. Must be called before YAML::Load on untrusted text. The message starts with
// "line:column: " when the position is known. Limits: see yaml_tree.h (kMaxYaml*).
absl::Status CheckYamlText(std::string_view text);

// Decodes a queues.yaml document node (the mapping holding `partitions:`) into `out`, strictly:
// unknown and duplicate keys, wrong node kinds and bad quantities are appended to `errors`
// with their line/column. Fills every SourceLocation. Does not run ValidateConfig.
void DecodeConfigNode(const YAML::Node& node, SchedulerConfig* out,
                      std::vector<ConfigError>* errors);

// As DecodeConfigNode, on the loader's own tree. Returns false when some value could not be
// decoded (wrong kind, bad quantity, bad number, ...): the structs are then incomplete and a
// semantic validation would report follow-on errors. Unknown and duplicate keys (the first
// occurrence is used) leave the result complete.
ALLOCORE_EXPORT bool DecodeConfigTree(const YamlTree& tree, YamlTree::Id node, SchedulerConfig* out,
                                      std::vector<ConfigError>* errors);

// YuniKorn's quantity syntax (semantics §1.2) for resource `name`: digits, optional
// whitespace, optional suffix (k M G T P E, Ki Mi Gi Ti Pi Ei); `vcore` in milli-cores (`m`
// suffix allowed only there). On failure returns nullopt and sets `error` to the reason.
std::optional<int64_t> ParseQuantity(std::string_view name, std::string_view text,
                                     std::string* error);

}  // namespace allocore::adapters::internal

#endif  // ALLOCORE_ADAPTERS_CONFIG_YAML_CONFIG_DECODE_H_
