// fuzz_config — arbitrary bytes as a queues.yaml, through adapters::LoadConfigText.
//
// Checked for every input:
//   1. No crash, no hang, bounded memory (libFuzzer's -timeout / -rss_limit_mb).
//   2. A rejected text has at least one error, and every problem carries a message.
//   3. An accepted text has no error; Kernel::Create succeeds on it; UpdateConfig with the
//      same config makes no decision and changes no query answer (ListQueues of every
//      partition before and after).
//   4. ConfigToJson round-trips: the JSON loads again and prints the same JSON.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "allocore/adapters/config_loader.h"
#include "allocore/config.h"
#include "allocore/kernel.h"
#include "digest.h"
#include "event_sequence.h"

namespace allocore::fuzz {
namespace {

std::string Problems(const std::vector<ConfigError>& errors) {
  std::string out;
  for (const ConfigError& e : errors) out += "\n  " + e.ToString("fuzz.yaml");
  return out;
}

std::string QueuesText(const Kernel& kernel) {
  std::string out;
  for (const std::string& partition : kernel.PartitionNames()) {
    out += "[" + partition + "]";
    auto queues = kernel.ListQueues(partition);
    if (!queues.ok()) {
      out += " " + queues.status().ToString() + "\n";
      continue;
    }
    for (const QueueInfo& q : *queues) out += "\n  " + QueueText(q, kernel.resource_types());
    out += "\n";
  }
  return out;
}

void CheckText(std::string_view text) {
  adapters::ConfigLoadResult loaded = adapters::LoadConfigText(text, "fuzz.yaml");
  for (const ConfigError& e : loaded.errors) {
    if (e.message.empty()) Fail("a config problem without a message:" + Problems(loaded.errors));
    (void)e.ToString("fuzz.yaml");
  }
  if (!loaded.config) {
    bool has_error = false;
    for (const ConfigError& e : loaded.errors) has_error |= !e.warning;
    if (!has_error) Fail("config refused without an error:" + Problems(loaded.errors));
    return;
  }
  for (const ConfigError& e : loaded.errors) {
    if (!e.warning) Fail("config accepted despite an error:" + Problems(loaded.errors));
  }
  const SchedulerConfig& config = *loaded.config;

  auto kernel = Kernel::Create(config);
  if (!kernel.ok() && Avoid("type-limit") &&
      kernel.status().message().find("one too many") != std::string_view::npos) {
    return;
  }
  if (!kernel.ok()) {
    Fail("an accepted config is refused by Kernel::Create: " + kernel.status().ToString() +
         "\n--- config (JSON) ---\n" + adapters::ConfigToJson(config));
  }
  const std::string before = QueuesText(**kernel);
  std::vector<Decision> out;
  absl::Status reload = (*kernel)->UpdateConfig(config, &out);
  if (!reload.ok()) {
    Fail("reloading the same config is refused: " + reload.ToString() +
         "\n--- config (JSON) ---\n" + adapters::ConfigToJson(config));
  }
  if (!out.empty()) Fail("reloading the same config made decisions");
  const std::string after = QueuesText(**kernel);
  if (before != after) {
    Fail("reloading the same config changed the queues:\n--- before ---\n" + before +
         "--- after ---\n" + after);
  }
  absl::Status consistency = (*kernel)->CheckConsistency();
  if (!consistency.ok()) Fail("CheckConsistency after reload: " + consistency.ToString());

  const std::string json = adapters::ConfigToJson(config);
  adapters::ConfigLoadResult again = adapters::LoadConfigText(json, "fuzz.json");
  if (!again.config) {
    Fail("ConfigToJson output does not load:" + Problems(again.errors) + "\n--- JSON ---\n" + json);
  }
  const std::string json_again = adapters::ConfigToJson(*again.config);
  if (json != json_again) {
    Fail("ConfigToJson does not round-trip:\n--- first ---\n" + json + "\n--- second ---\n" +
         json_again);
  }
}

}  // namespace
}  // namespace allocore::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  allocore::fuzz::CheckText(text);
  return 0;
}
