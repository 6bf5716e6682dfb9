// What both importers share: the cluster's consistency checks, its order on the logical clock,
// the resource types the kernel can hold, and the scenario.
#include "import_model.h"

#include <algorithm>
#include <set>
#include <tuple>
#include <utility>

#include "allocore/adapters/config_loader.h"
#include "allocore/resource.h"
#include "str_util.h"

namespace allocore::adapters::internal {

void ImportWarnings::Add(std::string_view what, std::string_view example) {
  auto it = index_.find(what);
  if (it != index_.end()) {
    ++warnings_[it->second].count;
    return;
  }
  index_.emplace(std::string(what), warnings_.size());
  warnings_.push_back(ImportWarning{std::string(what), 1, std::string(example)});
}

std::optional<int64_t> JsonInteger(const JsonValue& value) {
  if (value.kind != JsonValue::Kind::kNumber) return std::nullopt;
  std::string_view text = value.text;
  bool negative = !text.empty() && text[0] == '-';
  if (negative) text.remove_prefix(1);
  if (text.empty() || text.size() > 19) return std::nullopt;
  uint64_t magnitude = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;  // a fraction or an exponent
    magnitude = magnitude * 10 + static_cast<uint64_t>(c - '0');
  }
  constexpr uint64_t kMax = static_cast<uint64_t>(INT64_MAX);
  if (magnitude > kMax + (negative ? 1 : 0)) return std::nullopt;
  if (negative) return magnitude == kMax + 1 ? INT64_MIN : -static_cast<int64_t>(magnitude);
  return static_cast<int64_t>(magnitude);
}

// ---------------------------------------------------------------------------------------------
// FieldReader

const JsonValue* FieldReader::Find(std::string_view path) const {
  const JsonValue* at = &value_;
  while (!path.empty()) {
    size_t dot = path.find('.');
    std::string_view step = path.substr(0, dot);
    if (at->kind != JsonValue::Kind::kObject) return nullptr;
    at = at->Find(step);
    if (at == nullptr || at->is_null()) return nullptr;
    path = dot == std::string_view::npos ? std::string_view() : path.substr(dot + 1);
  }
  return at;
}

absl::Status FieldReader::ErrorAt(const JsonValue& at, std::string_view path,
                                  std::string_view why) const {
  return absl::InvalidArgumentError(
      Cat(source_, ":", at.line, ": ", object_, ": ", path, path.empty() ? "" : ": ", why));
}

absl::Status FieldReader::Error(std::string_view path, std::string_view why) const {
  const JsonValue* at = Find(path);
  return ErrorAt(at != nullptr ? *at : value_, path, why);
}

absl::StatusOr<std::optional<std::string>> FieldReader::OptionalString(
    std::string_view path) const {
  const JsonValue* at = Find(path);
  if (at == nullptr) return std::optional<std::string>();
  if (at->kind != JsonValue::Kind::kString) {
    return ErrorAt(*at, path, Cat("expected a string, found ", JsonKindName(at->kind)));
  }
  return std::optional<std::string>(at->text);
}

absl::StatusOr<std::string> FieldReader::String(std::string_view path) const {
  absl::StatusOr<std::optional<std::string>> text = OptionalString(path);
  if (!text.ok()) return text.status();
  if (!*text) return Error(path, "missing");
  return std::move(**text);
}

absl::StatusOr<std::optional<int64_t>> FieldReader::OptionalInteger(std::string_view path) const {
  const JsonValue* at = Find(path);
  if (at == nullptr) return std::optional<int64_t>();
  std::optional<int64_t> number = JsonInteger(*at);
  if (!number) {
    if (at->kind == JsonValue::Kind::kNumber) {
      return ErrorAt(*at, path, Cat("expected a 64-bit integer, found ", at->text));
    }
    return ErrorAt(*at, path, Cat("expected an integer, found ", JsonKindName(at->kind)));
  }
  return number;
}

absl::StatusOr<std::optional<bool>> FieldReader::OptionalBool(std::string_view path) const {
  const JsonValue* at = Find(path);
  if (at == nullptr) return std::optional<bool>();
  if (at->kind != JsonValue::Kind::kBool) {
    return ErrorAt(*at, path, Cat("expected true or false, found ", JsonKindName(at->kind)));
  }
  return std::optional<bool>(at->boolean);
}

absl::StatusOr<Tags> FieldReader::StringMap(std::string_view path) const {
  Tags out;
  const JsonValue* at = Find(path);
  if (at == nullptr) return out;
  if (at->kind != JsonValue::Kind::kObject) {
    return ErrorAt(*at, path, Cat("expected an object, found ", JsonKindName(at->kind)));
  }
  for (size_t m = 0; m < at->keys.size(); ++m) {
    const std::string& key = at->keys[m];
    const JsonValue& value = at->items[m];
    if (value.kind != JsonValue::Kind::kString) {
      return ErrorAt(value, Cat(path, ".", key),
                     Cat("expected a string, found ", JsonKindName(value.kind)));
    }
    out.emplace_back(key, value.text);
  }
  return out;
}

absl::StatusOr<Quantities> FieldReader::Amounts(std::string_view path,
                                                const AmountReader& amount) const {
  Quantities out;
  const JsonValue* map = Find(path);
  if (map == nullptr) return out;
  if (map->kind != JsonValue::Kind::kObject) {
    return ErrorAt(*map, path,
                   Cat("expected an object of quantities, found ", JsonKindName(map->kind)));
  }
  for (size_t m = 0; m < map->keys.size(); ++m) {
    const JsonValue& value = map->items[m];
    absl::StatusOr<std::pair<std::string, int64_t>> read = amount(map->keys[m], value);
    std::string field = Cat(path, ".", map->keys[m]);
    if (!read.ok()) {
      return ErrorAt(value, field,
                     std::string(read.status().message().data(), read.status().message().size()));
    }
    const std::string& type = read->first;
    if (std::any_of(out.begin(), out.end(), [&type](const auto& e) { return e.first == type; })) {
      return ErrorAt(value, field, "listed twice");
    }
    out.push_back(std::move(*read));
  }
  return out;
}

absl::StatusOr<std::optional<int64_t>> FieldReader::IntegerOrString(std::string_view path) const {
  const JsonValue* at = Find(path);
  if (at == nullptr) return std::optional<int64_t>();
  if (at->kind == JsonValue::Kind::kString) {
    JsonValue number;
    number.kind = JsonValue::Kind::kNumber;
    number.text = at->text;
    std::optional<int64_t> value = JsonInteger(number);
    if (!value) return ErrorAt(*at, path, Cat("\"", at->text, "\" is not an integer"));
    return value;
  }
  return OptionalInteger(path);
}

// ---------------------------------------------------------------------------------------------
// The input

absl::Status StreamImportInput(const ImportInput& input, const ImportOptions& options,
                               const JsonStreamShape& shape, const JsonElementSink& sink) {
  JsonStreamLimits limits;
  limits.max_document_bytes = options.max_document_bytes;
  if (input.text) return StreamJsonText(*input.text, input.source_name, limits, sink, shape);
  return StreamJsonFile(input.path, limits, sink, shape);
}

// ---------------------------------------------------------------------------------------------
// The config

absl::StatusOr<SchedulerConfig> LoadImportConfig(const ImportOptions& options, Semantics semantics,
                                                 std::vector<std::string>* config_warnings) {
  if (options.config_path.empty() && options.config_text.empty()) {
    return absl::InvalidArgumentError(
        "a queues.yaml (or its ConfigMap) is required: the source does not carry ACLs, "
        "placement rules or user limits");
  }
  std::string name = options.config_path.empty() ? "<config>" : options.config_path;
  ConfigLoadResult loaded = options.config_path.empty()
                                ? LoadConfigText(options.config_text, name, semantics)
                                : LoadConfigFile(options.config_path, semantics);
  std::string errors;
  for (const ConfigError& problem : loaded.errors) {
    std::string text = problem.ToString(name);
    if (problem.warning) {
      config_warnings->push_back(std::move(text));
    } else {
      Append(&errors, errors.empty() ? "" : "\n", text);
    }
  }
  if (!loaded.config) {
    return absl::InvalidArgumentError(errors.empty() ? Cat(name, ": could not be loaded") : errors);
  }
  return std::move(*loaded.config);
}

// ---------------------------------------------------------------------------------------------
// The scenario

namespace {

// Every resource type the config names, in config order: limits and weights are decisions'
// inputs even where no pod asks for the type.
void ConfigTypes(const QueueConfig& queue, std::vector<std::string>* out) {
  auto add = [out](const std::optional<QuantityMap>& map) {
    if (!map) return;
    for (const auto& [name, value] : *map) out->push_back(name);
  };
  add(queue.resources.guaranteed);
  add(queue.resources.max);
  for (const LimitConfig& limit : queue.limits) add(limit.max_resources);
  if (queue.child_template) {
    add(queue.child_template->resources.guaranteed);
    add(queue.child_template->resources.max);
  }
  for (const QueueConfig& child : queue.queues) ConfigTypes(child, out);
}

void RemoveZeroes(Quantities* quantities) {
  std::erase_if(*quantities, [](const auto& entry) { return entry.second == 0; });
}

bool Empty(const Quantities& quantities) {
  return std::all_of(quantities.begin(), quantities.end(),
                     [](const auto& entry) { return entry.second == 0; });
}

// Keeps at most kMaxResourceTypes types: those the config and the pods name first, then the
// nodes' own. A type dropped from nodes alone changes no decision (no ask needs it, no limit
// or weight reads it); one that pods request does, and says so.
class TypeBudget {
 public:
  void Need(std::string_view type) { Add(type, &needed_); }
  void Offer(std::string_view type) { Add(type, &offered_); }

  void Decide(ImportWarnings* warnings) {
    for (const std::string& type : needed_) Keep(type, warnings, true);
    std::vector<std::string> rest;
    for (const std::string& type : offered_) {
      if (!kept_.contains(type) && !dropped_.contains(type)) rest.push_back(type);
    }
    std::sort(rest.begin(), rest.end());
    for (const std::string& type : rest) Keep(type, warnings, false);
  }

  bool Kept(std::string_view type) const { return kept_.contains(std::string(type)); }

  void Filter(Quantities* quantities) const {
    std::erase_if(*quantities, [this](const auto& entry) { return !Kept(entry.first); });
  }

 private:
  static void Add(std::string_view type, std::vector<std::string>* into) {
    if (std::find(into->begin(), into->end(), type) == into->end()) into->emplace_back(type);
  }
  void Keep(const std::string& type, ImportWarnings* warnings, bool needed) {
    if (kept_.contains(type) || dropped_.contains(type)) return;
    if (kept_.size() < static_cast<size_t>(kMaxResourceTypes)) {
      kept_.insert(type);
      return;
    }
    dropped_.insert(type);
    warnings->Add(needed
                      ? Cat("resource type dropped: the kernel holds at most ", kMaxResourceTypes,
                            " types, and pods or the config name this one: decisions may differ")
                      : Cat("resource type dropped from nodes: the kernel holds at most ",
                            kMaxResourceTypes, " types and no pod or limit names this one"),
                  Cat("resource ", type));
  }

  std::vector<std::string> needed_;
  std::vector<std::string> offered_;
  std::set<std::string, std::less<>> kept_;
  std::set<std::string, std::less<>> dropped_;
};

// A day of one-second cycles: longer horizons are a workload, not a look at the next minutes.
constexpr int64_t kMaxFollowSeconds = 86'400;

// The first control character of `text` (C0 or DEL), if any. No Kubernetes or YuniKorn name
// holds one, and a scenario file may not (its YAML would not load).
std::optional<unsigned char> ControlCharacter(std::string_view text) {
  for (char c : text) {
    auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7F) return byte;
  }
  return std::nullopt;
}

// Every name and tag the scenario will hold, refused with the object and field when it holds a
// control character.
absl::Status CheckNames(const ImportedCluster& cluster, const std::string& source) {
  auto check = [&source](std::string_view text, const std::string& object,
                         std::string_view field) -> absl::Status {
    std::optional<unsigned char> c = ControlCharacter(text);
    if (!c) return absl::OkStatus();
    constexpr char kHex[] = "0123456789ABCDEF";
    return absl::InvalidArgumentError(Cat(source, ": ", object, ": ", field,
                                          ": control character 0x", std::string(1, kHex[*c >> 4]),
                                          std::string(1, kHex[*c & 15]), " in a name"));
  };
  auto check_tags = [&check](const Tags& tags, const std::string& object,
                             std::string_view field) -> absl::Status {
    for (const auto& [key, value] : tags) {
      if (absl::Status s = check(key, object, field); !s.ok()) return s;
      if (absl::Status s = check(value, object, field); !s.ok()) return s;
    }
    return absl::OkStatus();
  };
  auto check_types = [&check](const Quantities& amounts, const std::string& object) {
    for (const auto& entry : amounts) {
      if (absl::Status s = check(entry.first, object, "resource type"); !s.ok()) return s;
    }
    return absl::OkStatus();
  };
  for (const ImportedNode& node : cluster.nodes) {
    for (std::string_view name : {std::string_view(node.partition), std::string_view(node.id)}) {
      if (absl::Status s = check(name, node.described_as, "id"); !s.ok()) return s;
    }
    if (absl::Status s = check_tags(node.attributes, node.described_as, "attributes"); !s.ok())
      return s;
    if (absl::Status s = check_types(node.capacity, node.described_as); !s.ok()) return s;
  }
  for (const ImportedApp& app : cluster.apps) {
    for (std::string_view name : {std::string_view(app.partition), std::string_view(app.id),
                                  std::string_view(app.queue), std::string_view(app.user)}) {
      if (absl::Status s = check(name, app.described_as, "id, queue or user"); !s.ok()) return s;
    }
    for (const std::string& group : app.groups) {
      if (absl::Status s = check(group, app.described_as, "groups"); !s.ok()) return s;
    }
    if (absl::Status s = check_tags(app.tags, app.described_as, "tags"); !s.ok()) return s;
    if (absl::Status s = check_types(app.placeholder_ask, app.described_as); !s.ok()) return s;
  }
  for (const ImportedPod& pod : cluster.pods) {
    const AskSpec& ask = pod.ask;
    for (std::string_view name :
         {std::string_view(ask.id), std::string_view(ask.task_group),
          std::string_view(ask.required_node), std::string_view(pod.node)}) {
      if (absl::Status s = check(name, pod.described_as, "key, task group or node"); !s.ok())
        return s;
    }
    if (absl::Status s = check_types(ask.resources, pod.described_as); !s.ok()) return s;
  }
  for (const ImportedForeign& foreign : cluster.foreign) {
    const ForeignAllocationSpec& f = foreign.allocation;
    for (std::string_view name : {std::string_view(f.id), std::string_view(f.node)}) {
      if (absl::Status s = check(name, foreign.described_as, "key or node"); !s.ok()) return s;
    }
    if (absl::Status s = check_types(f.resources, foreign.described_as); !s.ok()) return s;
  }
  return absl::OkStatus();
}

ScenarioStep Step(StepAction action) { return ScenarioStep{std::move(action), {}, std::nullopt}; }

}  // namespace

absl::StatusOr<ImportResult> BuildImportedScenario(ImportedCluster cluster,
                                                   const ImportOptions& options,
                                                   const std::string& source_name,
                                                   ImportWarnings warnings) {
  ImportResult result;
  Scenario& scenario = result.scenario;
  scenario.semantics =
      options.semantics.value_or(cluster.source_semantics.value_or(Semantics::kYunikorn12));
  scenario.name = Cat("imported from ", source_name);
  scenario.source_name = source_name;
  absl::StatusOr<SchedulerConfig> config =
      LoadImportConfig(options, scenario.semantics, &scenario.config_warnings);
  if (!config.ok()) return config.status();
  scenario.config = std::move(*config);

  std::set<std::string, std::less<>> partitions;
  for (const PartitionConfig& partition : scenario.config.partitions) {
    partitions.insert(partition.name);
  }
  auto check_partition = [&](std::string_view partition,
                             const std::string& object) -> absl::Status {
    if (partitions.contains(partition)) return absl::OkStatus();
    return absl::InvalidArgumentError(
        Cat(source_name, ": ", object, ": partition \"", partition,
            "\" is not in the config (it has: ", Join(partitions, ", "), ")"));
  };

  if (absl::Status s = CheckNames(cluster, source_name); !s.ok()) return s;

  // Nodes: unique per partition; what pods run on must exist.
  std::set<std::pair<std::string, std::string>> node_ids;
  for (const ImportedNode& node : cluster.nodes) {
    if (absl::Status s = check_partition(node.partition, node.described_as); !s.ok()) return s;
    if (!node_ids.emplace(node.partition, node.id).second) {
      return absl::InvalidArgumentError(
          Cat(source_name, ": ", node.described_as, ": listed twice"));
    }
  }
  std::set<std::pair<std::string, std::string>> app_ids;
  for (const ImportedApp& app : cluster.apps) {
    if (absl::Status s = check_partition(app.partition, app.described_as); !s.ok()) return s;
    if (!app_ids.emplace(app.partition, app.id).second) {
      return absl::InvalidArgumentError(Cat(source_name, ": ", app.described_as, ": listed twice"));
    }
  }
  std::set<std::tuple<std::string, std::string, std::string>> pod_ids;
  for (const ImportedPod& pod : cluster.pods) {
    const AskSpec& ask = pod.ask;
    if (!app_ids.contains({ask.partition, ask.app})) {
      return absl::InvalidArgumentError(Cat(source_name, ": ", pod.described_as, ": application ",
                                            ask.app, " is not in the input"));
    }
    if (!pod_ids.emplace(ask.partition, ask.app, ask.id).second) {
      return absl::InvalidArgumentError(Cat(source_name, ": ", pod.described_as, ": key ", ask.id,
                                            " is used twice in application ", ask.app));
    }
    if (!pod.node.empty() && !node_ids.contains({ask.partition, pod.node})) {
      return absl::InvalidArgumentError(Cat(source_name, ": ", pod.described_as, ": runs on node ",
                                            pod.node, ", which is not in the input"));
    }
    if (!ask.required_node.empty() && !node_ids.contains({ask.partition, ask.required_node})) {
      warnings.Add("required node not in the input: the ask waits for it to register",
                   pod.described_as);
    }
  }
  std::set<std::pair<std::string, std::string>> foreign_ids;
  for (const ImportedForeign& foreign : cluster.foreign) {
    const ForeignAllocationSpec& f = foreign.allocation;
    if (!node_ids.contains({f.partition, f.node})) {
      return absl::InvalidArgumentError(Cat(source_name, ": ", foreign.described_as,
                                            ": runs on node ", f.node,
                                            ", which is not in the input"));
    }
    if (!foreign_ids.emplace(f.partition, f.id).second) {
      return absl::InvalidArgumentError(
          Cat(source_name, ": ", foreign.described_as, ": listed twice"));
    }
  }

  // Resource types within the kernel's cap.
  TypeBudget types;
  std::vector<std::string> config_types;
  for (const PartitionConfig& partition : scenario.config.partitions) {
    for (const QueueConfig& queue : partition.queues) ConfigTypes(queue, &config_types);
    for (const LimitConfig& limit : partition.limits) {
      if (!limit.max_resources) continue;
      for (const auto& [name, value] : *limit.max_resources) config_types.push_back(name);
    }
    for (const auto& [name, weight] : partition.node_sort_policy.resource_weights) {
      config_types.push_back(name);
    }
  }
  for (const std::string& type : config_types) types.Need(type);
  std::vector<ImportedPod*> kept_pods;
  for (ImportedPod& pod : cluster.pods) {
    RemoveZeroes(&pod.ask.resources);
    if (pod.ask.resources.empty()) {
      warnings.Add(pod.node.empty()
                       ? "pod requests no resources: skipped (the kernel refuses an empty ask)"
                       : "running pod holds no resources: skipped (the kernel refuses an "
                         "empty allocation)",
                   pod.described_as);
      continue;
    }
    kept_pods.push_back(&pod);
  }
  std::sort(kept_pods.begin(), kept_pods.end(), [](const ImportedPod* a, const ImportedPod* b) {
    return std::tie(a->created_nanos, a->ask.partition, a->ask.app, a->ask.id) <
           std::tie(b->created_nanos, b->ask.partition, b->ask.app, b->ask.id);
  });
  for (const ImportedPod* pod : kept_pods) {
    for (const auto& [name, value] : pod->ask.resources) types.Need(name);
  }
  for (ImportedApp& app : cluster.apps) {
    RemoveZeroes(&app.placeholder_ask);
    for (const auto& [name, value] : app.placeholder_ask) types.Need(name);
  }
  for (ImportedForeign& foreign : cluster.foreign) {
    RemoveZeroes(&foreign.allocation.resources);
    for (const auto& [name, value] : foreign.allocation.resources) types.Offer(name);
  }
  for (ImportedNode& node : cluster.nodes) {
    RemoveZeroes(&node.capacity);
    for (const auto& [name, value] : node.capacity) types.Offer(name);
  }
  types.Decide(&warnings);

  // Time: Unix nanoseconds onto the logical clock, whose 0 is the second of the earliest time
  // in the source. The first step advances the clock to the moment the source was taken.
  int64_t earliest = 0;
  int64_t latest = 0;
  auto see = [&](int64_t nanos) {
    if (nanos <= 0) return;
    earliest = earliest == 0 ? nanos : std::min(earliest, nanos);
    latest = std::max(latest, nanos);
  };
  for (const ImportedApp& app : cluster.apps) see(app.submitted_nanos);
  for (const ImportedPod* pod : kept_pods) see(pod->created_nanos);
  constexpr int64_t kNanosPerSecond = 1'000'000'000;
  int64_t origin = earliest - earliest % kNanosPerSecond;
  int64_t now = std::max(cluster.now_nanos, latest);
  if (earliest > 0 && now > origin) {
    AdvanceStep advance;
    advance.millis = (now - origin + 999'999) / 1'000'000;
    scenario.steps.push_back(Step(advance));
  }

  std::sort(cluster.nodes.begin(), cluster.nodes.end(), [](const auto& a, const auto& b) {
    return std::tie(a.partition, a.id) < std::tie(b.partition, b.id);
  });
  for (ImportedNode& node : cluster.nodes) {
    types.Filter(&node.capacity);
    AddNodeStep step;
    step.node.partition = node.partition;
    step.node.id = node.id;
    step.node.capacity = std::move(node.capacity);
    step.node.schedulable = node.schedulable;
    step.attributes = std::move(node.attributes);
    scenario.nodes.push_back(std::move(step));
  }
  result.summary.nodes = static_cast<int64_t>(scenario.nodes.size());

  std::sort(cluster.foreign.begin(), cluster.foreign.end(), [](const auto& a, const auto& b) {
    return std::tie(a.allocation.partition, a.allocation.node, a.allocation.id) <
           std::tie(b.allocation.partition, b.allocation.node, b.allocation.id);
  });
  for (ImportedForeign& foreign : cluster.foreign) {
    types.Filter(&foreign.allocation.resources);
    scenario.steps.push_back(Step(std::move(foreign.allocation)));
    ++result.summary.foreign;
  }

  std::sort(cluster.apps.begin(), cluster.apps.end(), [](const auto& a, const auto& b) {
    return std::tie(a.submitted_nanos, a.partition, a.id) <
           std::tie(b.submitted_nanos, b.partition, b.id);
  });
  for (ImportedApp& app : cluster.apps) {
    AppSpec spec;
    spec.partition = app.partition;
    spec.id = app.id;
    spec.queue = app.queue;
    spec.user = app.user;
    spec.groups = app.groups;
    spec.tags = app.tags;
    spec.gang_style = app.gang_style;
    spec.placeholder_timeout_millis = app.placeholder_timeout_millis;
    spec.placeholder_ask = app.placeholder_ask;
    types.Filter(&spec.placeholder_ask);
    scenario.steps.push_back(Step(std::move(spec)));
  }
  result.summary.applications = static_cast<int64_t>(cluster.apps.size());

  auto creation_seconds = [&](const ImportedPod& pod) -> std::optional<int64_t> {
    if (pod.created_nanos <= 0 || earliest == 0) return std::nullopt;
    return (pod.created_nanos - origin) / kNanosPerSecond;
  };
  for (int pass = 0; pass < 2; ++pass) {  // running pods first, then the pending ones
    for (ImportedPod* pod : kept_pods) {
      if (pod->node.empty() != (pass == 1)) continue;
      types.Filter(&pod->ask.resources);
      if (Empty(pod->ask.resources)) continue;  // every type it named was dropped (warned)
      if (std::optional<int64_t> seconds = creation_seconds(*pod)) {
        pod->ask.creation_time_millis = *seconds * 1000;
      }
      if (pass == 0) {
        scenario.steps.push_back(Step(RecoverSpec{std::move(pod->ask), std::move(pod->node)}));
        ++result.summary.running;
      } else {
        result.summary.pending += pod->ask.count;
        scenario.steps.push_back(Step(std::move(pod->ask)));
      }
    }
  }
  if (options.schedule) scenario.steps.push_back(Step(ScheduleStep{}));
  if (options.follow_seconds < 0 || options.follow_seconds > kMaxFollowSeconds) {
    return absl::InvalidArgumentError(
        Cat("follow: ", options.follow_seconds, " seconds is outside 0..", kMaxFollowSeconds));
  }
  for (int64_t second = 0; second < options.follow_seconds; ++second) {
    scenario.steps.push_back(Step(AdvanceStep{1000}));
    scenario.steps.push_back(Step(ScheduleStep{}));
  }
  result.summary.source_version = cluster.source_version;
  result.warnings = warnings.Take();
  if (options.strict && !result.warnings.empty()) {
    return absl::FailedPreconditionError(Cat(source_name,
                                             ": --strict: the import would drop or guess:\n",
                                             FormatImportWarnings(result.warnings)));
  }
  return result;
}

}  // namespace allocore::adapters::internal

namespace allocore::adapters {

std::string FormatImportWarnings(const std::vector<ImportWarning>& warnings) {
  std::string out;
  for (const ImportWarning& warning : warnings) {
    internal::Append(&out, "  ", warning.count, " x ", warning.what);
    if (!warning.example.empty()) internal::Append(&out, " (first: ", warning.example, ")");
    out += '\n';
  }
  return out;
}

}  // namespace allocore::adapters
