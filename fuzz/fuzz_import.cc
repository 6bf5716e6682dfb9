// fuzz_import — arbitrary bytes as a YuniKorn state dump or a Kubernetes object list, through
// `allocore import` and into a run.
//
// The first byte chooses: bit 0 the source (state dump or Kubernetes objects), bit 1 the
// profile (yunikorn-1.2 or yunikorn-1.9), bit 2 --strict. The rest is the JSON document; the
// config is a fixed queues.yaml.
//
// Checked for every input:
//   1. No crash, no hang, bounded memory; a refused import has a message.
//   2. Determinism: importing the same bytes twice gives the same scenario.
//   3. What the importer writes is a scenario the loader accepts (its YAML loads back to the
//      same YAML), so `allocore run IMPORTED` never fails on the importer's own output.
//   4. The imported scenario runs, and Kernel::CheckConsistency() passes after it.
//   5. The state it ends in, exported as a state dump, imports again (the round trip of
//      cluster_export.h never refuses its own output).
// Runs are cut short where a valid import is an enormous workload: asks of more than kMaxCount
// repeats are not run, and the kernel holds at most kMaxLive allocations.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include "allocore/adapters/cluster_export.h"
#include "allocore/adapters/cluster_import.h"
#include "allocore/adapters/event_log.h"
#include "allocore/adapters/scenario.h"
#include "event_sequence.h"

namespace allocore::fuzz {
namespace {

constexpr int64_t kMaxCount = 1000;
constexpr int64_t kMaxLive = 5000;

constexpr char kConfig[] = R"(partitions:
  - name: default
    placementrules:
      - name: provided
        create: true
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: sandbox
          - name: default
          - name: a
            resources: {guaranteed: {memory: 2Gi, vcore: 2}, max: {memory: 8Gi, vcore: 8}}
          - name: b
            resources: {max: {memory: 4Gi, nvidia.com/gpu: 2}}
)";

std::string Text(const absl::Status& status) {
  return std::string(status.message().data(), status.message().size());
}

void CheckImport(uint8_t selector, std::string_view json) {
  adapters::ImportOptions options;
  options.config_text = kConfig;
  options.semantics = (selector & 2) != 0 ? Semantics::kYunikorn19 : Semantics::kYunikorn12;
  options.strict = (selector & 4) != 0;
  options.max_document_bytes = 1 << 20;
  const bool dump = (selector & 1) == 0;
  auto import = [&] {
    return dump ? adapters::ImportYunikornStateDumpText(json, "fuzz.json", options)
                : adapters::ImportKubernetesObjectsText(json, "fuzz.json", options);
  };
  absl::StatusOr<adapters::ImportResult> first = import();
  absl::StatusOr<adapters::ImportResult> second = import();
  if (first.ok() != second.ok()) Fail("the same bytes imported once and refused once");
  if (!first.ok()) {
    if (first.status().message().empty()) Fail("a refused import without a message");
    if (Text(first.status()) != Text(second.status())) Fail("two messages for one input");
    return;
  }
  std::string yaml = adapters::ScenarioToYaml(first->scenario);
  if (yaml != adapters::ScenarioToYaml(second->scenario)) {
    Fail("two imports of one input differ\n" + yaml);
  }
  absl::StatusOr<adapters::Scenario> loaded = adapters::LoadScenarioText(yaml, "imported.yaml");
  if (!loaded.ok()) {
    Fail("the imported scenario does not load: " + Text(loaded.status()) + "\n" + yaml);
  }
  if (adapters::ScenarioToYaml(*loaded) != yaml) {
    Fail("the imported scenario does not load back to itself\n" + yaml);
  }
  for (const adapters::ScenarioStep& step : loaded->steps) {
    if (const auto* ask = std::get_if<AskSpec>(&step.action); ask && ask->count > kMaxCount) {
      return;
    }
  }
  adapters::RunOptions run_options;
  run_options.keep_allocations = false;
  run_options.kernel_options.max_live_allocations = kMaxLive;
  absl::StatusOr<adapters::RunResult> run = adapters::RunScenario(*loaded, run_options, nullptr);
  if (!run.ok()) Fail("the imported scenario does not run: " + Text(run.status()));
  if (absl::Status consistent = run->kernel->CheckConsistency(); !consistent.ok()) {
    Fail("inconsistent after the imported run: " + Text(consistent));
  }
  absl::StatusOr<std::string> exported = adapters::ExportYunikornStateDump(*loaded, {});
  if (!exported.ok()) Fail("the imported scenario does not export: " + Text(exported.status()));
  adapters::ImportOptions again = options;
  again.strict = false;
  absl::StatusOr<adapters::ImportResult> reimported =
      adapters::ImportYunikornStateDumpText(*exported, "exported.json", again);
  if (!reimported.ok()) {
    Fail("the export does not import: " + Text(reimported.status()) + "\n" + *exported);
  }
}

}  // namespace
}  // namespace allocore::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view json(reinterpret_cast<const char*>(data + 1), size - 1);
  allocore::fuzz::CheckImport(data[0], json);
  return 0;
}
