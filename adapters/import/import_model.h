// adapters/import/import_model.h — internal: what both importers read out of their sources, and
// the one place that turns it into a scenario (ordering, time, resource types, warnings).
#ifndef ALLOCORE_ADAPTERS_IMPORT_IMPORT_MODEL_H_
#define ALLOCORE_ADAPTERS_IMPORT_IMPORT_MODEL_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "allocore/adapters/cluster_import.h"
#include "json_stream.h"

namespace allocore::adapters::internal {

// Warnings counted by kind, in the order each kind first happened.
class ImportWarnings {
 public:
  void Add(std::string_view what, std::string_view example);
  std::vector<ImportWarning> Take() { return std::move(warnings_); }
  bool empty() const { return warnings_.empty(); }

 private:
  std::vector<ImportWarning> warnings_;
  std::map<std::string, size_t, std::less<>> index_;
};

struct ImportedNode {
  std::string partition;
  std::string id;
  Quantities capacity;
  bool schedulable = true;
  Tags attributes;
  std::string described_as;  // "node X": for messages
};

struct ImportedApp {
  std::string partition;
  std::string id;
  std::string queue;
  std::string user;
  std::vector<std::string> groups;
  Tags tags;
  int64_t submitted_nanos = 0;  // Unix time
  GangStyle gang_style = GangStyle::kSoft;
  int64_t placeholder_timeout_millis = 0;
  Quantities placeholder_ask;
  std::string described_as;
};

// A pod (or a YuniKorn ask): running when `node` is set, pending otherwise.
struct ImportedPod {
  AskSpec ask;                       // partition, app, id, resources, priority, gang keys, ...
  std::string node;                  // running: where
  int64_t created_nanos = 0;         // Unix time; 0: unknown
  int64_t sort_nanos = 0;            // running: when it was allocated (orders repeats of one key)
  std::string pod_name;              // what the source calls the pod, when it says
  bool labeled_placeholder = false;  // the source's tags say the pod is a placeholder
  std::string described_as;
};

struct ImportedForeign {
  ForeignAllocationSpec allocation;
  std::string described_as;
};

struct ImportedCluster {
  std::vector<ImportedNode> nodes;
  std::vector<ImportedApp> apps;
  std::vector<ImportedPod> pods;
  std::vector<ImportedForeign> foreign;
  int64_t now_nanos = 0;  // when the source was taken (Unix time); 0: the latest time in it
  std::optional<Semantics> source_semantics;  // what the source says it came from
  std::string source_version;
};

// Where an importer's document comes from: a file ("-": stdin) or text in memory.
struct ImportInput {
  std::string path;  // used when `text` is unset
  std::optional<std::string_view> text;
  std::string source_name;  // for messages: the path, "<stdin>" or the caller's name
};

// Streams the input under the options' document limit; what both importers read through.
absl::Status StreamImportInput(const ImportInput& input, const ImportOptions& options,
                               const JsonStreamShape& shape, const JsonElementSink& sink);

// The config named by the options, loaded under `semantics`; errors and warnings formatted.
absl::StatusOr<SchedulerConfig> LoadImportConfig(const ImportOptions& options, Semantics semantics,
                                                 std::vector<std::string>* config_warnings);

// Checks references and names (duplicate nodes and pods, pods on unknown nodes, apps of pods),
// orders everything, maps times onto the logical clock, keeps resource types within the
// kernel's cap, and writes the scenario. `warnings` already holds the source's own.
absl::StatusOr<ImportResult> BuildImportedScenario(ImportedCluster cluster,
                                                   const ImportOptions& options,
                                                   const std::string& source_name,
                                                   ImportWarnings warnings);

// Reading fields of a streamed JSON value, with errors that name the object and the field.
class FieldReader {
 public:
  FieldReader(const std::string& source, const JsonValue& value, std::string object)
      : source_(source), value_(value), object_(std::move(object)) {}

  void set_object(std::string object) { object_ = std::move(object); }
  const std::string& object() const { return object_; }

  // The member at a dotted path ("metadata.name"), or nullptr when a step is absent or null.
  const JsonValue* Find(std::string_view path) const;
  // Absent or null: nullopt; present with another kind: an error.
  absl::StatusOr<std::optional<std::string>> OptionalString(std::string_view path) const;
  absl::StatusOr<std::string> String(std::string_view path) const;  // required
  absl::StatusOr<std::optional<int64_t>> OptionalInteger(std::string_view path) const;
  absl::StatusOr<std::optional<bool>> OptionalBool(std::string_view path) const;
  // An object of string values ("labels"); absent: empty.
  absl::StatusOr<Tags> StringMap(std::string_view path) const;
  // An object of resource amounts ("capacity", "status.allocatable"); absent: empty. `amount`
  // reads one member: the type it counts as and its value, or why not (the error then names the
  // member). A type listed twice is refused.
  using AmountReader = std::function<absl::StatusOr<std::pair<std::string, int64_t>>(
      const std::string& name, const JsonValue& value)>;
  absl::StatusOr<Quantities> Amounts(std::string_view path, const AmountReader& amount) const;
  // An integer written as a number or as a decimal string (the dump's priorities).
  absl::StatusOr<std::optional<int64_t>> IntegerOrString(std::string_view path) const;

  // "FILE:LINE: OBJECT: FIELD: why" as InvalidArgument.
  absl::Status Error(std::string_view path, std::string_view why) const;
  absl::Status ErrorAt(const JsonValue& at, std::string_view path, std::string_view why) const;

 private:
  const std::string& source_;
  const JsonValue& value_;
  std::string object_;
};

// An integer JSON number (no fraction, no exponent) within int64.
std::optional<int64_t> JsonInteger(const JsonValue& value);

}  // namespace allocore::adapters::internal

#endif  // ALLOCORE_ADAPTERS_IMPORT_IMPORT_MODEL_H_
