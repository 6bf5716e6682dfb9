// `kubectl get nodes,pods -A -o json` -> the cluster YuniKorn's shim would report: the k8shim
// of the profile's release decides which pods are YuniKorn's, their applications, queues,
// users, task groups and resources (docs/import.md, "Kubernetes objects", with the shim source
// each rule follows).
#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "allocore/adapters/cluster_import.h"
#include "import_model.h"
#include "json_stream.h"
#include "k8s_quantity.h"
#include "str_util.h"

namespace allocore::adapters {
namespace {

using internal::Cat;
using internal::FieldReader;
using internal::ImportedApp;
using internal::ImportedCluster;
using internal::ImportedForeign;
using internal::ImportedNode;
using internal::ImportedPod;
using internal::ImportWarnings;
using internal::JsonElementPath;
using internal::JsonValue;

// The shim's annotation and label keys.
constexpr char kAppIdKey[] = "yunikorn.apache.org/app-id";  // annotation; a label too in 1.9
constexpr char kAppIdLabel[] = "applicationId";
constexpr char kSparkAppLabel[] = "spark-app-selector";
constexpr char kQueueKey[] = "yunikorn.apache.org/queue";  // annotation; a label too in 1.9
constexpr char kQueueLabel[] = "queue";
constexpr char kUserInfoAnnotation[] = "yunikorn.apache.org/user.info";
constexpr char kUserLabel[] = "yunikorn.apache.org/username";
constexpr char kTaskGroupNameAnnotation[] = "yunikorn.apache.org/task-group-name";
constexpr char kTaskGroupsAnnotation[] = "yunikorn.apache.org/task-groups";
constexpr char kSchedulingPolicyAnnotation[] = "yunikorn.apache.org/schedulingPolicyParameters";
constexpr char kPlaceholderAnnotation19[] = "internal.yunikorn.apache.org/placeholder";
constexpr char kPlaceholderAnnotation[] = "yunikorn.apache.org/placeholder";
constexpr char kPlaceholderLabel[] = "placeholder";
constexpr char kAllowPreemptionAnnotation[] = "yunikorn.apache.org/allow-preemption";
constexpr char kDefaultUser[] = "nobody";
constexpr char kSandboxQueue12[] = "root.sandbox";
// A BestEffort pod under the 1.2 shim asks for this much memory and nothing else.
constexpr int64_t kBestEffortMemory12 = 1'000'000;
constexpr size_t kMaxGeneratedIdBytes = 63;

struct Owner {
  std::string kind;
  std::string uid;
};

// What the importer keeps of a pod between reading it and grouping pods into applications.
struct PodRecord {
  std::string described_as;  // "pod ns/name"
  std::string ns;
  std::string name;
  std::string uid;
  std::string app_id;
  std::string queue;
  bool names_queue = false;  // the queue is the pod's own, not the shim's default
  std::string user;
  bool names_user = false;
  std::vector<std::string> groups;
  bool user_info_invalid = false;
  std::string task_group;
  std::string task_groups_json;
  std::string scheduling_policy;
  bool placeholder = false;
  int32_t priority = 0;
  std::string required_node;
  bool allow_preemption = true;
  bool has_owner = false;
  bool disable_state_aware = false;  // 1.2: the admission controller's label
  std::string node;
  Quantities resources;
  int64_t created_nanos = 0;
};

// A pod's labels and annotations; a key present with an empty value counts as unset.
struct Metadata {
  const Tags& labels;
  const Tags& annotations;

  std::optional<std::string> label(std::string_view key) const { return Lookup(labels, key); }
  std::optional<std::string> annotation(std::string_view key) const {
    return Lookup(annotations, key);
  }
  static std::optional<std::string> Lookup(const Tags& tags, std::string_view key) {
    for (const auto& [name, value] : tags) {
      if (name == key && !value.empty()) return value;
    }
    return std::nullopt;
  }
};

bool IsTrue(std::string_view text) {  // Go's strconv.ParseBool, true side
  return text == "1" || text == "t" || text == "T" || text == "TRUE" || text == "true" ||
         text == "True";
}

// "2024-05-01T10:00:00Z" or with a fraction and an offset: Unix nanoseconds.
std::optional<int64_t> ParseRfc3339(std::string_view text) {
  auto digits = [&](size_t at, size_t n) -> std::optional<int64_t> {
    if (at + n > text.size()) return std::nullopt;
    int64_t value = 0;
    for (size_t i = at; i < at + n; ++i) {
      if (text[i] < '0' || text[i] > '9') return std::nullopt;
      value = value * 10 + (text[i] - '0');
    }
    return value;
  };
  auto year = digits(0, 4), month = digits(5, 2), day = digits(8, 2);
  auto hour = digits(11, 2), minute = digits(14, 2), second = digits(17, 2);
  if (!year || !month || !day || !hour || !minute || !second || text.size() < 20 ||
      text[4] != '-' || text[7] != '-' || (text[10] != 'T' && text[10] != 't') || text[13] != ':' ||
      text[16] != ':' || *month < 1 || *month > 12 || *day < 1 || *day > 31 || *hour > 23 ||
      *minute > 59 || *second > 60) {
    return std::nullopt;
  }
  size_t at = 19;
  int64_t fraction = 0;
  if (text[at] == '.') {
    int64_t scale = 100'000'000;
    ++at;
    size_t start = at;
    while (at < text.size() && text[at] >= '0' && text[at] <= '9') {
      fraction += (text[at] - '0') * scale;
      scale /= 10;
      ++at;
    }
    if (at == start) return std::nullopt;
  }
  int64_t offset_seconds = 0;
  if (at < text.size() && (text[at] == 'Z' || text[at] == 'z')) {
    ++at;
  } else if (at < text.size() && (text[at] == '+' || text[at] == '-')) {
    auto oh = digits(at + 1, 2), om = digits(at + 4, 2);
    if (!oh || !om || at + 3 >= text.size() || text[at + 3] != ':') return std::nullopt;
    offset_seconds = (*oh * 3600 + *om * 60) * (text[at] == '+' ? 1 : -1);
    at += 6;
  } else {
    return std::nullopt;
  }
  if (at != text.size()) return std::nullopt;
  // Days from the civil date (proleptic Gregorian).
  int64_t y = *year - (*month <= 2 ? 1 : 0);
  int64_t era = y / 400;
  int64_t yoe = y - era * 400;
  int64_t mp = (*month + 9) % 12;
  int64_t doy = (153 * mp + 2) / 5 + *day - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  int64_t days = era * 146097 + doe - 719468;
  int64_t seconds = days * 86400 + *hour * 3600 + *minute * 60 + *second - offset_seconds;
  // Unix nanoseconds in int64 reach from 1970 (earlier is refused anyway) to 2262.
  constexpr int64_t kLastSecond = INT64_MAX / 1'000'000'000 - 1;
  if (seconds < 0 || seconds > kLastSecond) return std::nullopt;
  return seconds * 1'000'000'000 + fraction;
}

class ObjectsReader {
 public:
  ObjectsReader(const std::string& source, const ImportOptions& options, Semantics semantics,
                ImportWarnings* warnings)
      : source_(source),
        options_(options),
        v19_(semantics == Semantics::kYunikorn19),
        warnings_(warnings) {}

  absl::Status OnElement(const JsonElementPath& path, JsonValue&& value) {
    if (path.key == "items") {
      saw_items_ = true;
      if (!path.index) {
        if (value.is_null()) return absl::OkStatus();
        return absl::InvalidArgumentError(Cat(source_, ":", value.line,
                                              ": \"items\": expected a list, found ",
                                              internal::JsonKindName(value.kind)));
      }
      return Item(value, *path.index);
    }
    if (path.key == "kind" && !path.index && value.kind == JsonValue::Kind::kString) {
      list_kind_ = value.text;
    }
    return absl::OkStatus();  // apiVersion, kind, metadata of the list
  }

  absl::StatusOr<ImportedCluster> Finish() {
    // `"items": []` hands over no element: a list's kind tells it from a document without items.
    if (!saw_items_ && !std::string_view(list_kind_).ends_with("List")) {
      return absl::InvalidArgumentError(
          Cat(source_,
              ": not a Kubernetes list: no \"items\" (write it with `kubectl get "
              "nodes,pods -A -o json`)",
              list_kind_.empty() ? "" : Cat("; its kind is ", list_kind_)));
    }
    BuildApplications();
    cluster_.source_version = "kubernetes objects";
    return std::move(cluster_);
  }

 private:
  absl::Status Item(const JsonValue& item, int64_t index) {
    FieldReader object(source_, item, Cat("items[", index, "]"));
    if (item.kind != JsonValue::Kind::kObject) {
      return object.ErrorAt(item, "",
                            Cat("expected an object, found ", internal::JsonKindName(item.kind)));
    }
    absl::StatusOr<std::optional<std::string>> kind = object.OptionalString("kind");
    if (!kind.ok()) return kind.status();
    if (*kind == "Node") return Node(object);
    if (*kind == "Pod") return Pod(object);
    warnings_->Add(Cat("object of kind ", kind->value_or("(none)"), ": ignored"), object.object());
    return absl::OkStatus();
  }

  absl::Status Node(FieldReader& node) {
    absl::StatusOr<std::string> name = node.String("metadata.name");
    if (!name.ok()) return name.status();
    node.set_object(Cat("node ", *name));
    if (!node_names_.insert(*name).second) return node.Error("metadata.name", "listed twice");
    ImportedNode out;
    out.partition = kDefaultPartition;
    out.id = *name;
    out.described_as = node.object();
    absl::StatusOr<Quantities> allocatable = ResourceList(node, "status.allocatable");
    if (!allocatable.ok()) return allocatable.status();
    out.capacity = std::move(*allocatable);
    absl::StatusOr<std::optional<bool>> cordoned = node.OptionalBool("spec.unschedulable");
    if (!cordoned.ok()) return cordoned.status();
    out.schedulable = !cordoned->value_or(false);
    if (node.Find("spec.taints") != nullptr) {
      warnings_->Add("node taints: not modelled (the shim checks them in its predicates)",
                     node.object());
    }
    cluster_.nodes.push_back(std::move(out));
    return absl::OkStatus();
  }

  // A resource list of quantity strings: cpu becomes vcore in thousandths, the rest units.
  absl::StatusOr<Quantities> ResourceList(const FieldReader& object, std::string_view path) {
    return object.Amounts(
        path,
        [&](const std::string& name,
            const JsonValue& value) -> absl::StatusOr<std::pair<std::string, int64_t>> {
          // kubectl writes strings; a bare number reads the same.
          if (value.kind != JsonValue::Kind::kString && value.kind != JsonValue::Kind::kNumber) {
            return absl::InvalidArgumentError(
                Cat("expected a quantity, found ", internal::JsonKindName(value.kind)));
          }
          const bool cpu = name == "cpu";
          absl::StatusOr<internal::QuantityValue> parsed =
              internal::ParseKubernetesQuantity(value.text, cpu);
          if (!parsed.ok()) return parsed.status();
          if (parsed->rounded) {
            warnings_->Add("quantity below the unit: rounded up, as the shim does",
                           Cat(object.object(), " ", path, ".", name, " ", value.text));
          }
          return std::pair<std::string, int64_t>(cpu ? "vcore" : name, parsed->value);
        });
  }

  absl::Status Pod(FieldReader& pod) {
    absl::StatusOr<std::string> name = pod.String("metadata.name");
    if (!name.ok()) return name.status();
    absl::StatusOr<std::optional<std::string>> ns = pod.OptionalString("metadata.namespace");
    if (!ns.ok()) return ns.status();
    PodRecord record;
    record.ns = ns->value_or("default");
    record.name = *name;
    record.described_as = Cat("pod ", record.ns, "/", record.name);
    pod.set_object(record.described_as);
    if (!pod_names_.insert(Cat(record.ns, "/", record.name)).second) {
      return pod.Error("metadata.name", "listed twice");
    }
    absl::StatusOr<std::string> uid = pod.String("metadata.uid");
    if (!uid.ok()) return uid.status();
    if (uid->empty()) return pod.Error("metadata.uid", "empty (asks are keyed by the pod's UID)");
    if (!pod_uids_.insert(*uid).second) return pod.Error("metadata.uid", "used by another pod");
    record.uid = *uid;
    absl::StatusOr<std::optional<std::string>> phase = pod.OptionalString("status.phase");
    if (!phase.ok()) return phase.status();
    absl::StatusOr<std::optional<std::string>> node = pod.OptionalString("spec.nodeName");
    if (!node.ok()) return node.status();
    record.node = node->value_or("");
    absl::StatusOr<std::optional<std::string>> scheduler = pod.OptionalString("spec.schedulerName");
    if (!scheduler.ok()) return scheduler.status();
    absl::StatusOr<Tags> labels = pod.StringMap("metadata.labels");
    if (!labels.ok()) return labels.status();
    absl::StatusOr<Tags> annotations = pod.StringMap("metadata.annotations");
    if (!annotations.ok()) return annotations.status();
    const Metadata meta{*labels, *annotations};
    auto label = [&](std::string_view key) { return meta.label(key); };
    auto annotation = [&](std::string_view key) { return meta.annotation(key); };

    if (*phase == "Succeeded" || *phase == "Failed") {
      warnings_->Add(Cat("pod phase ", **phase, ": skipped (terminated pods hold nothing)"),
                     record.described_as);
      return absl::OkStatus();
    }
    // Which pods are YuniKorn's: its scheduler name, and (before 1.4) an application id.
    bool ours = scheduler->value_or("default-scheduler") == options_.scheduler_name;
    if (ours) record.app_id = AppId(meta, record);
    if (ours && record.app_id.empty()) {
      ours = false;  // the 1.2 shim leaves a pod without an application id to other schedulers
      warnings_->Add(
          "pod names the scheduler but no application id: another scheduler's pod "
          "for the 1.2 shim",
          record.described_as);
    }
    absl::StatusOr<Quantities> resources = PodResources(pod);
    if (!resources.ok()) return resources.status();
    record.resources = std::move(*resources);
    if (!ours) {
      if (record.node.empty()) {
        warnings_->Add("pending pod of another scheduler: ignored (it holds nothing yet)",
                       record.described_as);
        return absl::OkStatus();
      }
      ImportedForeign foreign;
      foreign.allocation.partition = kDefaultPartition;
      foreign.allocation.id = record.uid;
      foreign.allocation.node = record.node;
      foreign.allocation.resources = std::move(record.resources);
      const JsonValue* owners = pod.Find("metadata.ownerReferences");
      if (v19_ && owners != nullptr && owners->kind == JsonValue::Kind::kArray) {
        for (const JsonValue& owner : owners->items) {
          const JsonValue* kind = owner.Find("kind");
          if (kind != nullptr && kind->kind == JsonValue::Kind::kString && kind->text == "Node") {
            foreign.allocation.kind = ForeignKind::kStatic;  // a mirror pod
          }
        }
      }
      foreign.described_as = record.described_as;
      cluster_.foreign.push_back(std::move(foreign));
      return absl::OkStatus();
    }
    if (v19_ && pod.Find("spec.schedulingGates") != nullptr &&
        !pod.Find("spec.schedulingGates")->items.empty()) {
      warnings_->Add(
          "pod with scheduling gates: skipped until they are removed, as the 1.9 "
          "shim does",
          record.described_as);
      return absl::OkStatus();
    }

    std::optional<std::string> named_queue = NamedQueue(meta);
    record.names_queue = named_queue.has_value();
    record.queue = named_queue.value_or(v19_ ? "" : kSandboxQueue12);
    User(meta, &record);
    record.disable_state_aware = !v19_ && IsTrue(label("disableStateAware").value_or(""));
    record.task_group = annotation(kTaskGroupNameAnnotation).value_or("");
    record.task_groups_json = annotation(kTaskGroupsAnnotation).value_or("");
    record.scheduling_policy = annotation(kSchedulingPolicyAnnotation).value_or("");
    std::optional<std::string> placeholder =
        v19_ ? First({annotation(kPlaceholderAnnotation19), annotation(kPlaceholderAnnotation),
                      label(kPlaceholderLabel)})
             : First({annotation(kPlaceholderAnnotation), label(kPlaceholderLabel)});
    record.placeholder = placeholder && IsTrue(*placeholder);
    if (record.placeholder && record.task_group.empty()) {
      warnings_->Add("placeholder pod without a task group name: taken as a real pod",
                     record.described_as);
      record.placeholder = false;
    }
    if (std::optional<std::string> allow = annotation(kAllowPreemptionAnnotation)) {
      record.allow_preemption = *allow != "false";
    }
    absl::StatusOr<std::optional<int64_t>> priority = pod.OptionalInteger("spec.priority");
    if (!priority.ok()) return priority.status();
    if (*priority) {
      if (**priority < INT32_MIN || **priority > INT32_MAX) {
        return pod.Error("spec.priority", Cat(**priority, " is outside int32"));
      }
      record.priority = static_cast<int32_t>(**priority);
    }
    if (absl::Status s = RequiredNode(pod, &record); !s.ok()) return s;
    NotModelled(pod, meta, record);
    absl::StatusOr<std::optional<std::string>> created =
        pod.OptionalString("metadata.creationTimestamp");
    if (!created.ok()) return created.status();
    if (*created) {
      std::optional<int64_t> nanos = ParseRfc3339(**created);
      if (!nanos || *nanos < 0) {
        return pod.Error("metadata.creationTimestamp",
                         Cat("\"", **created, "\" is not an RFC 3339 time from 1970 to 2262"));
      }
      record.created_nanos = *nanos;
    }
    const JsonValue* owners = pod.Find("metadata.ownerReferences");
    record.has_owner =
        owners != nullptr && owners->kind == JsonValue::Kind::kArray && !owners->items.empty();
    pods_.push_back(std::move(record));
    return absl::OkStatus();
  }

  std::string AppId(const Metadata& meta, const PodRecord& record) {
    auto label = [&](std::string_view key) { return meta.label(key); };
    auto annotation = [&](std::string_view key) { return meta.annotation(key); };
    std::optional<std::string> id =
        v19_ ? First({label(kAppIdKey), annotation(kAppIdKey), label(kAppIdLabel),
                      label(kSparkAppLabel)})
             : First({annotation(kAppIdKey), label(kAppIdLabel), label(kSparkAppLabel)});
    if (!v19_) return id.value_or("");
    if (id) {
      constexpr std::string_view kUniqueSuffix = "-uniqueautogen";
      if (std::string_view(*id).ends_with(kUniqueSuffix)) {
        id->resize(id->size() - kUniqueSuffix.size());
        *id += Cat("-", record.uid);
      }
      return *id;
    }
    warnings_->Add(
        "pod without an application id: the 1.9 shim's generated id "
        "yunikorn-<namespace>-autogen (generateUniqueAppId is not known here)",
        record.described_as);
    std::string generated = Cat("yunikorn-", record.ns, "-autogen");
    if (generated.size() > kMaxGeneratedIdBytes) generated.resize(kMaxGeneratedIdBytes);
    return generated;
  }

  // The queue the pod names, if any.
  std::optional<std::string> NamedQueue(const Metadata& meta) {
    auto label = [&](std::string_view key) { return meta.label(key); };
    auto annotation = [&](std::string_view key) { return meta.annotation(key); };
    if (v19_) return First({label(kQueueKey), annotation(kQueueKey), label(kQueueLabel)});
    return First({label(kQueueLabel), annotation(kQueueKey)});
  }

  void User(const Metadata& meta, PodRecord* record) {
    auto label = [&](std::string_view key) { return meta.label(key); };
    auto annotation = [&](std::string_view key) { return meta.annotation(key); };
    record->user = kDefaultUser;
    if (std::optional<std::string> info = annotation(kUserInfoAnnotation)) {
      std::string user;
      std::vector<std::string> groups;
      absl::Status parsed = internal::StreamJsonText(
          *info, "user.info", {},
          [&](const JsonElementPath& path, JsonValue&& value) -> absl::Status {
            if (!path.index && value.is_null()) return absl::OkStatus();  // as Go reads null
            if (path.key == "user" && !path.index && value.kind == JsonValue::Kind::kString) {
              user = value.text;
            } else if (path.key == "groups" && path.index &&
                       value.kind == JsonValue::Kind::kString) {
              groups.push_back(value.text);
            } else if (path.key == "user" || path.key == "groups") {
              return absl::InvalidArgumentError("wrong kind");
            }
            return absl::OkStatus();
          });
      if (!parsed.ok()) {
        warnings_->Add(
            "user.info annotation that is not valid JSON: user nobody, as the shim "
            "reads it",
            record->described_as);
        return;
      }
      if (!user.empty()) record->user = user;
      record->groups = std::move(groups);
      record->names_user = true;
      return;
    }
    if (std::optional<std::string> name = label(kUserLabel)) {
      record->user = *name;
      record->names_user = true;
    }
  }

  // What a YuniKorn pod says that decides placement in a real cluster but that allocore does not
  // model: each is a warning, so that nothing is lost silently.
  void NotModelled(const FieldReader& pod, const Metadata& meta, const PodRecord& record) {
    // The shim's own keys that the importer does not read (namespace quotas live on Namespace
    // objects; the rest configure the shim or the admission controller).
    static constexpr std::string_view kRead[] = {kAppIdKey,
                                                 kQueueKey,
                                                 kUserInfoAnnotation,
                                                 kUserLabel,
                                                 kTaskGroupNameAnnotation,
                                                 kTaskGroupsAnnotation,
                                                 kSchedulingPolicyAnnotation,
                                                 kPlaceholderAnnotation19,
                                                 kPlaceholderAnnotation,
                                                 kAllowPreemptionAnnotation};
    for (const Tags* tags : {&meta.annotations, &meta.labels}) {
      for (const auto& [key, value] : *tags) {
        bool ours = key.starts_with("yunikorn.apache.org/") ||
                    key.starts_with("internal.yunikorn.apache.org/");
        if (!ours || std::find(std::begin(kRead), std::end(kRead), key) != std::end(kRead)) {
          continue;
        }
        warnings_->Add(
            Cat(tags == &meta.annotations ? "annotation " : "label ", key, ": not modelled"),
            record.described_as);
      }
    }
    // Node selection beyond a DaemonSet's own node: allocore places on any node that fits.
    const JsonValue* selector = pod.Find("spec.nodeSelector");
    if (selector != nullptr && !selector->items.empty()) {
      warnings_->Add("pod nodeSelector: not modelled (any node that fits is taken)",
                     record.described_as);
    }
    // Tolerations matter only against taints, which the nodes' warning names already.
    for (const char* field : {"spec.affinity.podAffinity", "spec.affinity.podAntiAffinity",
                              "spec.topologySpreadConstraints"}) {
      const JsonValue* value = pod.Find(field);
      if (value == nullptr || (value->kind == JsonValue::Kind::kArray && value->items.empty())) {
        continue;
      }
      warnings_->Add(Cat("pod ", std::string_view(field).substr(5), ": not modelled"),
                     record.described_as);
    }
    if (pod.Find("spec.affinity.nodeAffinity") != nullptr && record.required_node.empty()) {
      warnings_->Add("pod affinity.nodeAffinity: not modelled (any node that fits is taken)",
                     record.described_as);
    }
  }

  // A DaemonSet pod's node: its required node affinity's matchFields on metadata.name.
  absl::Status RequiredNode(const FieldReader& pod, PodRecord* record) {
    const JsonValue* owners = pod.Find("metadata.ownerReferences");
    if (owners == nullptr || owners->kind != JsonValue::Kind::kArray) return absl::OkStatus();
    bool daemon = false;
    for (const JsonValue& owner : owners->items) {
      const JsonValue* kind = owner.Find("kind");
      if (kind != nullptr && kind->kind == JsonValue::Kind::kString && kind->text == "DaemonSet") {
        daemon = true;
      }
    }
    if (!daemon) return absl::OkStatus();
    const JsonValue* terms = pod.Find(
        "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
        "nodeSelectorTerms");
    if (terms == nullptr || terms->kind != JsonValue::Kind::kArray) return absl::OkStatus();
    for (const JsonValue& term : terms->items) {
      const JsonValue* fields = term.Find("matchFields");
      if (fields == nullptr || fields->kind != JsonValue::Kind::kArray) continue;
      for (const JsonValue& field : fields->items) {
        const JsonValue* key = field.Find("key");
        const JsonValue* values = field.Find("values");
        if (key == nullptr || key->text != "metadata.name" || values == nullptr ||
            values->kind != JsonValue::Kind::kArray || values->items.empty() ||
            values->items[0].kind != JsonValue::Kind::kString) {
          continue;
        }
        record->required_node = values->items[0].text;  // the last one wins, as in the shim
      }
    }
    return absl::OkStatus();
  }

  // The pod's request as the shim computes it (docs/import.md, "Pod resources").
  absl::StatusOr<Quantities> PodResources(const FieldReader& pod) {
    std::map<std::string, std::vector<std::pair<std::string, int64_t>>> status_requests;
    if (v19_) {
      for (const char* list : {"status.containerStatuses", "status.initContainerStatuses"}) {
        const JsonValue* statuses = pod.Find(list);
        if (statuses == nullptr || statuses->kind != JsonValue::Kind::kArray) continue;
        for (size_t i = 0; i < statuses->items.size(); ++i) {
          FieldReader status(source_, statuses->items[i], pod.object());
          absl::StatusOr<std::optional<std::string>> name = status.OptionalString("name");
          if (!name.ok()) return name.status();
          if (!*name) continue;
          for (const char* field : {"allocatedResources", "resources.requests"}) {
            absl::StatusOr<Quantities> amounts = ResourceList(
                FieldReader(source_, statuses->items[i], Cat(pod.object(), " ", list, "[", i, "]")),
                field);
            if (!amounts.ok()) return amounts.status();
            Max(&status_requests[**name], *amounts);
          }
        }
      }
    }
    Quantities total;
    bool any_cpu_or_memory = false;
    auto note_qos = [&](const FieldReader& c) {
      for (const char* path : {"resources.requests", "resources.limits"}) {
        const JsonValue* list = c.Find(path);
        if (list == nullptr || list->kind != JsonValue::Kind::kObject) continue;
        for (size_t m = 0; m < list->keys.size(); ++m) {
          const std::string& name = list->keys[m];
          const JsonValue& value = list->items[m];
          if (name != "cpu" && name != "memory") continue;
          // Kubernetes compares the quantity with zero, so "0m" and "0Gi" do not count.
          absl::StatusOr<internal::QuantityValue> amount =
              internal::ParseKubernetesQuantity(value.text, true);
          if (!amount.ok() || amount->value > 0) any_cpu_or_memory = true;
        }
      }
    };
    const JsonValue* containers = pod.Find("spec.containers");
    if (containers != nullptr && containers->kind == JsonValue::Kind::kArray) {
      for (size_t i = 0; i < containers->items.size(); ++i) {
        FieldReader c(source_, containers->items[i], pod.object());
        note_qos(c);
        absl::StatusOr<Quantities> r = ContainerRequest(
            pod, containers->items[i], Cat("spec.containers[", i, "]"), status_requests);
        if (!r.ok()) return r.status();
        if (!Add(&total, *r)) return pod.Error("spec.containers", "the sum overflows int64");
      }
    }
    const JsonValue* inits = pod.Find("spec.initContainers");
    Quantities init_max;
    Quantities sidecars;
    if (inits != nullptr && inits->kind == JsonValue::Kind::kArray) {
      for (size_t i = 0; i < inits->items.size(); ++i) {
        FieldReader c(source_, inits->items[i], pod.object());
        note_qos(c);
        absl::StatusOr<Quantities> r = ContainerRequest(
            pod, inits->items[i], Cat("spec.initContainers[", i, "]"), status_requests);
        if (!r.ok()) return r.status();
        if (!v19_) {
          Max(&init_max, *r);
          continue;
        }
        // 1.9: a native sidecar (restartPolicy Always) keeps running beside what follows.
        Quantities with_sidecars = *r;
        if (!Add(&with_sidecars, sidecars)) {
          return pod.Error("spec.initContainers", "the sum overflows int64");
        }
        Max(&init_max, with_sidecars);
        absl::StatusOr<std::optional<std::string>> restart = c.OptionalString("restartPolicy");
        if (!restart.ok()) return restart.status();
        if (*restart == "Always" && !Add(&sidecars, *r)) {
          return pod.Error("spec.initContainers", "the sum overflows int64");
        }
      }
    }
    if (!v19_) {
      if (!any_cpu_or_memory) return Quantities{{"memory", kBestEffortMemory12}};  // BestEffort
      Max(&total, init_max);
      return total;
    }
    if (!Add(&total, sidecars)) return pod.Error("spec.initContainers", "the sum overflows int64");
    Max(&total, init_max);
    // Pod-level requests replace cpu and memory (1.7+).
    absl::StatusOr<Quantities> pod_level = ResourceList(pod, "spec.resources.requests");
    if (!pod_level.ok()) return pod_level.status();
    for (const auto& [name, value] : *pod_level) {
      if (name != "vcore" && name != "memory") continue;
      Set(&total, name, value);
    }
    absl::StatusOr<Quantities> overhead = ResourceList(pod, "spec.overhead");
    if (!overhead.ok()) return overhead.status();
    if (!Add(&total, *overhead)) return pod.Error("spec.overhead", "the sum overflows int64");
    if (!Add(&total, Quantities{{"pods", 1}})) return pod.Error("", "pods overflow");
    return total;
  }

  // One container's request; 1.9 also takes what the kubelet reports for it (a resize).
  absl::StatusOr<Quantities> ContainerRequest(
      const FieldReader& pod, const JsonValue& c, const std::string& at,
      const std::map<std::string, std::vector<std::pair<std::string, int64_t>>>& statuses) {
    FieldReader reader(source_, c, pod.object());
    absl::StatusOr<Quantities> requests = ResourceList(reader, "resources.requests");
    if (!requests.ok()) {
      std::string message(requests.status().message().data(), requests.status().message().size());
      // FieldReader names the field from the container; put the container's path in front.
      size_t field = message.find(": resources.requests");
      if (field != std::string::npos) message.insert(field + 2, Cat(at, "."));
      return absl::InvalidArgumentError(message);
    }
    if (v19_) {
      absl::StatusOr<std::optional<std::string>> name = reader.OptionalString("name");
      if (!name.ok()) return name.status();
      if (*name) {
        auto it = statuses.find(**name);
        if (it != statuses.end()) Max(&*requests, it->second);
      }
    }
    return requests;
  }

  static std::optional<std::string> First(std::initializer_list<std::optional<std::string>> in) {
    for (const std::optional<std::string>& value : in) {
      if (value) return value;
    }
    return std::nullopt;
  }

  static void Set(Quantities* into, const std::string& type, int64_t amount) {
    for (auto& [name, value] : *into) {
      if (name == type) {
        value = amount;
        return;
      }
    }
    into->emplace_back(type, amount);
  }
  // Each type of `other` into `into` by `combine(mine, theirs)`, a type `into` lacks as is.
  // False when `combine` says the result overflows.
  template <typename Combine>
  static bool Merge(Quantities* into, const Quantities& other, Combine combine) {
    for (const auto& entry : other) {
      const std::string& type = entry.first;
      auto it = std::find_if(into->begin(), into->end(),
                             [&type](const auto& e) { return e.first == type; });
      if (it == into->end()) {
        into->push_back(entry);
        continue;
      }
      std::optional<int64_t> combined = combine(it->second, entry.second);
      if (!combined) return false;
      it->second = *combined;
    }
    return true;
  }
  static void Max(Quantities* into, const Quantities& other) {
    Merge(into, other, [](int64_t a, int64_t b) { return std::optional<int64_t>(std::max(a, b)); });
  }
  // False when a sum passes int64.
  static bool Add(Quantities* into, const Quantities& other) {
    return Merge(into, other, [](int64_t a, int64_t b) -> std::optional<int64_t> {
      if (a > INT64_MAX - b) return std::nullopt;
      return a + b;
    });
  }

  // Pods grouped into applications. The shim takes an application's queue, user and task
  // groups from the pod that creates it: the oldest live pod (creation time in seconds).
  void BuildApplications() {
    std::map<std::string, std::vector<PodRecord*>> by_app;
    for (PodRecord& pod : pods_) by_app[pod.app_id].push_back(&pod);
    for (auto& [app_id, pods] : by_app) {
      std::stable_sort(pods.begin(), pods.end(), [](const PodRecord* a, const PodRecord* b) {
        int64_t as = a->created_nanos / 1'000'000'000, bs = b->created_nanos / 1'000'000'000;
        return std::tie(as, a->ns, a->name) < std::tie(bs, b->ns, b->name);
      });
      const PodRecord& first = *pods.front();
      ImportedApp app;
      app.partition = kDefaultPartition;
      app.id = app_id;
      app.described_as = Cat("application ", app_id);
      app.queue = first.queue;
      app.user = first.user;
      app.groups = first.groups;
      app.tags.emplace_back("namespace", first.ns);
      // Tags the kernel reads: 1.9 forces an application whose first pod already runs into a
      // queue (root.@recovery@ when placement finds none); 1.2 lets a pod opt out of
      // stateaware admission.
      if (v19_) {
        app.tags.emplace_back("application.create.force", first.node.empty() ? "false" : "true");
      } else if (first.disable_state_aware) {
        app.tags.emplace_back("application.stateaware.disable", "true");
      }
      app.submitted_nanos = first.created_nanos;
      for (const PodRecord* pod : pods) {
        // A pod that names nothing takes the application's; one that names other values
        // than the first pod is overruled.
        if ((pod->names_queue && pod->queue != first.queue) ||
            (pod->names_user && pod->user != first.user)) {
          warnings_->Add(
              "pods of one application name different queues or users: the oldest "
              "pod's count, as in the shim",
              pod->described_as);
        }
      }
      TaskGroups(first, &app);
      // The originator: 1.2's shim takes the first pod when it has no owner; later shims take
      // the oldest pod that is not a placeholder.
      const PodRecord* originator = nullptr;
      if (v19_) {
        for (const PodRecord* pod : pods) {
          if (!pod->placeholder) {
            originator = pod;
            break;
          }
        }
      } else if (!first.has_owner) {
        originator = &first;
      }
      for (PodRecord* pod : pods) {
        ImportedPod out;
        out.ask.partition = kDefaultPartition;
        out.ask.app = app_id;
        out.ask.id = pod->uid;
        out.ask.resources = std::move(pod->resources);
        out.ask.priority = pod->priority;
        out.ask.task_group = pod->task_group;
        out.ask.placeholder = pod->placeholder;
        out.ask.required_node = pod->required_node;
        out.ask.allow_preemption = pod->allow_preemption;
        out.ask.originator = pod == originator;
        out.node = pod->node;
        out.created_nanos = pod->created_nanos;
        out.pod_name = pod->name;
        out.described_as = pod->described_as;
        cluster_.pods.push_back(std::move(out));
      }
      cluster_.apps.push_back(std::move(app));
    }
  }

  // The task-groups annotation of the app's first pod: the placeholder total, and the gang
  // parameters. An invalid list makes the app no gang, as in the shim.
  void TaskGroups(const PodRecord& first, ImportedApp* app) {
    if (!first.scheduling_policy.empty()) {
      std::string_view rest = first.scheduling_policy;
      while (!rest.empty()) {
        size_t space = rest.find(' ');
        std::string_view entry = rest.substr(0, space);
        rest = space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
        size_t eq = entry.find('=');
        if (eq == std::string_view::npos || entry.find('=', eq + 1) != std::string_view::npos) {
          continue;
        }
        std::string_view key = entry.substr(0, eq), value = entry.substr(eq + 1);
        if (key == "placeholderTimeoutInSeconds") {
          int64_t seconds = 0;
          bool ok = !value.empty() && value.size() <= 12;
          for (char c : value) ok = ok && c >= '0' && c <= '9';
          if (ok) {
            for (char c : value) seconds = seconds * 10 + (c - '0');
            app->placeholder_timeout_millis = seconds * 1000;
          }
        } else if (key == "gangSchedulingStyle") {
          app->gang_style = value == "Hard" ? GangStyle::kHard : GangStyle::kSoft;
        }
      }
    }
    if (first.task_groups_json.empty()) return;
    Quantities total;
    bool valid = true;
    std::string text = Cat("{\"groups\":", first.task_groups_json, "}");
    absl::Status parsed = internal::StreamJsonText(
        text, "task-groups", {},
        [&](const JsonElementPath& path, JsonValue&& group) -> absl::Status {
          if (path.key != "groups" || !path.index || group.kind != JsonValue::Kind::kObject) {
            valid = false;
            return absl::OkStatus();
          }
          FieldReader reader(source_, group, first.described_as);
          // Go matches the keys case-insensitively in 1.9; the documented spelling is read.
          absl::StatusOr<std::optional<std::string>> name = reader.OptionalString("name");
          absl::StatusOr<std::optional<int64_t>> members = reader.OptionalInteger("minMember");
          if (!name.ok() || !members.ok() || !*name || (*name)->empty() || !*members ||
              **members <= 0 || **members > INT32_MAX || reader.Find("minResource") == nullptr) {
            valid = false;
            return absl::OkStatus();
          }
          ImportWarnings ignored;
          ImportWarnings* saved = warnings_;
          warnings_ = &ignored;
          absl::StatusOr<Quantities> minimum = ResourceList(reader, "minResource");
          warnings_ = saved;
          if (!minimum.ok()) {
            valid = false;
            return absl::OkStatus();
          }
          Quantities group_total;
          for (const auto& [type, amount] : *minimum) {
            if (amount != 0 && **members > INT64_MAX / amount) {
              valid = false;
              return absl::OkStatus();
            }
            group_total.emplace_back(type, amount * **members);
          }
          if (v19_) group_total.emplace_back("pods", **members);
          if (!Add(&total, group_total)) valid = false;
          return absl::OkStatus();
        });
    if (!parsed.ok() || !valid) {
      warnings_->Add(
          "task-groups annotation that is not a valid list: the application is no "
          "gang, as in the shim",
          first.described_as);
      return;
    }
    app->placeholder_ask = std::move(total);
  }

  const std::string& source_;
  const ImportOptions& options_;
  const bool v19_;
  ImportWarnings* warnings_;
  ImportedCluster cluster_;
  std::vector<PodRecord> pods_;
  std::set<std::string, std::less<>> node_names_;
  std::set<std::string, std::less<>> pod_names_;
  std::set<std::string, std::less<>> pod_uids_;
  bool saw_items_ = false;
  std::string list_kind_;
};

absl::StatusOr<ImportResult> Import(const internal::ImportInput& input,
                                    const ImportOptions& options) {
  const std::string& source = input.source_name;
  ImportWarnings warnings;
  // Nothing in a list of objects says which shim would read it: the profile decides.
  Semantics semantics = options.semantics.value_or(Semantics::kYunikorn12);
  ObjectsReader reader(source, options, semantics, &warnings);
  absl::Status status = internal::StreamImportInput(
      input, options, {}, [&](const JsonElementPath& path, JsonValue&& value) {
        return reader.OnElement(path, std::move(value));
      });
  if (!status.ok()) return status;
  absl::StatusOr<ImportedCluster> cluster = reader.Finish();
  if (!cluster.ok()) return cluster.status();
  cluster->source_semantics = semantics;
  return internal::BuildImportedScenario(std::move(*cluster), options, source, std::move(warnings));
}

}  // namespace

absl::StatusOr<ImportResult> ImportKubernetesObjects(const std::string& path,
                                                     const ImportOptions& options) {
  return Import({path, std::nullopt, path == "-" ? "<stdin>" : path}, options);
}

absl::StatusOr<ImportResult> ImportKubernetesObjectsText(std::string_view json,
                                                         const std::string& source_name,
                                                         const ImportOptions& options) {
  return Import({"", json, source_name}, options);
}

}  // namespace allocore::adapters
