// allocore/adapters/config_loader.h — YuniKorn queues.yaml text -> validated SchedulerConfig.
//
// Decoding is strict like YuniKorn's (unknown keys and duplicate keys are errors), quantity
// strings are parsed as YuniKorn does (suffixes, `vcore` in milli-cores, overflow), hostile
// input (alias bombs, deep nesting, NUL bytes, invalid UTF-8, huge scalars) is refused with a
// message naming the limit, and every semantic rule is checked by allocore::ValidateConfig.
// Every error found is reported, not only the first.
#ifndef ALLOCORE_ADAPTERS_CONFIG_LOADER_H_
#define ALLOCORE_ADAPTERS_CONFIG_LOADER_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "allocore/config.h"
#include "allocore/export.h"

namespace allocore::adapters {

struct ConfigLoadResult {
  std::optional<SchedulerConfig> config;  // set iff there is no error (warnings allowed)
  std::vector<ConfigError> errors;        // errors and warnings, in document order
};

// `source_name` is used in messages ("queues.yaml:14:9: ..."). Empty text -> the built-in
// default config.
// `semantics`: the profile whose rules validate the config (allocore/semantics.h).
ALLOCORE_EXPORT ConfigLoadResult LoadConfigText(std::string_view text,
                                                const std::string& source_name,
                                                Semantics semantics = Semantics::kYunikorn12);
ALLOCORE_EXPORT ConfigLoadResult LoadConfigFile(const std::string& path,
                                                Semantics semantics = Semantics::kYunikorn12);

// The config as a JSON document (stable key order); loading it back gives the same structs.
ALLOCORE_EXPORT std::string ConfigToJson(const SchedulerConfig& config);

}  // namespace allocore::adapters

#endif  // ALLOCORE_ADAPTERS_CONFIG_LOADER_H_
