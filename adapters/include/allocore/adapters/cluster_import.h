// allocore/adapters/cluster_import.h — a running cluster as a scenario (`allocore import`).
//
// Two sources a YuniKorn user already has:
//   ImportYunikornStateDump   the JSON of YuniKorn's GET /ws/v1/fullstatedump (v1.2 and v1.9)
//   ImportKubernetesObjects   `kubectl get nodes,pods -A -o json`, mapped to applications and
//                             asks as the k8shim of the chosen release maps them
// Each gives a Scenario that rebuilds the cluster: the given queues.yaml, the nodes, running
// pods as recover_allocation steps, other schedulers' pods as add_foreign, pending pods as
// add_ask with their creation times, priorities, task groups and required nodes, and (unless
// told not to) one `schedule` step: what the scheduler would do next. The field-by-field
// mapping, with the YuniKorn and shim source it follows, is docs/import.md.
//
// Guarantees:
//   1. The input is hostile: malformed JSON, unknown units, negative or overflowing
//      quantities, duplicate names, dangling references and unknown versions are errors that
//      name the file, the line and the object (`pod ns/name`, `node X`, `application A`) and
//      the field. A failed import returns no scenario.
//   2. Bounded memory: the document is streamed, one node, pod or application at a time.
//   3. Nothing is dropped silently: what the importer skips, guesses or cannot model is a
//      warning with a count; ImportOptions::strict turns warnings into an error.
//   4. Deterministic: the scenario does not depend on the order of the input's lists (a state
//      dump lists in Go's random map order).
#ifndef ALLOCORE_ADAPTERS_CLUSTER_IMPORT_H_
#define ALLOCORE_ADAPTERS_CLUSTER_IMPORT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "allocore/adapters/scenario.h"
#include "allocore/export.h"

namespace allocore::adapters {

struct ImportOptions {
  // The queues.yaml the cluster runs with (or a ConfigMap holding it). A state dump carries
  // queue limits but not ACLs, placement rules or user limits, so it is always needed.
  // `config_text` is used instead of reading `config_path` when `config_path` is empty.
  std::string config_path;
  std::string config_text;
  // The profile; when unset, what the source says (a v1.9 dump), else yunikorn-1.2.
  std::optional<Semantics> semantics;
  bool strict = false;   // any warning fails the import
  bool schedule = true;  // end with one `schedule` step
  // Then the scheduler's next cycles: this many times, one second on the clock and a
  // `schedule` (what happens once timers such as preemption.delay run out).
  int64_t follow_seconds = 0;
  // Kubernetes: pods whose spec.schedulerName is this one are YuniKorn's.
  std::string scheduler_name = "yunikorn";
  // The largest document read (bytes); larger ones are refused.
  uint64_t max_document_bytes = uint64_t{4} << 30;
};

// One kind of thing the importer dropped, guessed or could not model.
struct ImportWarning {
  std::string what;     // "pod phase Succeeded: pod skipped"
  int64_t count = 0;    // how many times
  std::string example;  // the first object it happened to ("pod default/web-1")
};

struct ImportSummary {
  int64_t nodes = 0;
  int64_t applications = 0;
  int64_t running = 0;         // recover_allocation steps
  int64_t pending = 0;         // add_ask steps (pods, or asks times their count)
  int64_t foreign = 0;         // add_foreign steps
  std::string source_version;  // what the input says of its producer ("yunikorn 1.2", ...)
};

struct ImportResult {
  Scenario scenario;
  std::vector<ImportWarning> warnings;  // in a stable order
  ImportSummary summary;
};

ALLOCORE_EXPORT absl::StatusOr<ImportResult> ImportYunikornStateDump(const std::string& path,
                                                                     const ImportOptions& options);
ALLOCORE_EXPORT absl::StatusOr<ImportResult> ImportKubernetesObjects(const std::string& path,
                                                                     const ImportOptions& options);

// The same over a document in memory; `source_name` is used in messages.
ALLOCORE_EXPORT absl::StatusOr<ImportResult> ImportYunikornStateDumpText(
    std::string_view json, const std::string& source_name, const ImportOptions& options);
ALLOCORE_EXPORT absl::StatusOr<ImportResult> ImportKubernetesObjectsText(
    std::string_view json, const std::string& source_name, const ImportOptions& options);

// "  3 × pod phase Succeeded: pod skipped (first: pod default/job-1)" lines, one per warning.
ALLOCORE_EXPORT std::string FormatImportWarnings(const std::vector<ImportWarning>& warnings);

}  // namespace allocore::adapters

#endif  // ALLOCORE_ADAPTERS_CLUSTER_IMPORT_H_
