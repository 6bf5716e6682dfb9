// adapters/src/yaml_config_decode.h — internal: yaml-cpp nodes -> config structs.
// Shared by the config loader and the scenario loader (a scenario embeds a `config:` block).
#ifndef ALLOCORE_ADAPTERS_SRC_YAML_CONFIG_DECODE_H_
#define ALLOCORE_ADAPTERS_SRC_YAML_CONFIG_DECODE_H_

#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "allocore/config.h"
#include "yaml-cpp/yaml.h"

namespace allocore::adapters::internal {

// Refuses text that would make yaml-cpp crash, recurse too deep or blow up (nesting depth,
// aliases, NUL bytes, invalid UTF-8, size limits). The message names the limit hit and the
// line. Must be called before YAML::Load on untrusted text.
absl::Status CheckYamlText(std::string_view text);

// Decodes a queues.yaml document node (the mapping holding `partitions:`) into `out`, strictly:
// unknown and duplicate keys, wrong node kinds and bad quantities are appended to `errors`
// with their line/column. Fills every SourceLocation. Does not run ValidateConfig.
void DecodeConfigNode(const YAML::Node& node, SchedulerConfig* out,
                      std::vector<ConfigError>* errors);

}  // namespace allocore::adapters::internal

#endif  // ALLOCORE_ADAPTERS_SRC_YAML_CONFIG_DECODE_H_
