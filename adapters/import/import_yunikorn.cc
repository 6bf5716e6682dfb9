// YuniKorn's full state dump -> the cluster it describes (docs/import.md, "YuniKorn state
// dump"). The dump is streamed: each application and each partition's node list is read,
// turned into the import model and freed.
#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "allocore/adapters/cluster_import.h"
#include "import_model.h"
#include "json_stream.h"
#include "str_util.h"

namespace allocore::adapters {
namespace {

using internal::Cat;
using internal::FieldReader;
using internal::ImportedApp;
using internal::ImportedCluster;
using internal::ImportedNode;
using internal::ImportedPod;
using internal::ImportWarnings;
using internal::JsonElementPath;
using internal::JsonValue;

constexpr char kNamespaceTag[] = "kubernetes.io/meta/namespace";
constexpr char kPodNameTag[] = "kubernetes.io/meta/podName";
// The shim copies pod labels into tags; its placeholder pods carry the label placeholder=true.
constexpr char kPlaceholderLabelTag[] = "kubernetes.io/label/placeholder";
// The shim names placeholder pods tg-<task group, at most 20 bytes>-<app, at most 28>-<n>.
constexpr size_t kPlaceholderNameGroupBytes = 20;
constexpr size_t kPlaceholderNameAppBytes = 28;
// The shim tags another scheduler's pod with its kind: "default", or "static" (a mirror pod).
constexpr char kForeignTag[] = "foreign";

// How an object is named in the errors and warnings of BuildImportedScenario, which has no
// position of its own: with the line the object starts on.
std::string DescribedAt(std::string_view object, const JsonValue& value) {
  return Cat(object, " (line ", value.line, ")");
}

// Application states whose apps hold nothing a scheduler still acts on.
bool IsFinished(std::string_view state) {
  return state == "Completed" || state == "Failed" || state == "Rejected" || state == "Expired";
}

class DumpReader {
 public:
  DumpReader(const std::string& source, ImportWarnings* warnings)
      : source_(source), warnings_(warnings) {}

  absl::Status OnElement(const JsonElementPath& path, JsonValue&& value) {
    // v1.2 and v1.3 write the Go field names (PascalCase); from v1.4 the keys are camelCase.
    std::string_view key = path.key;
    Section section = SectionOf(key);
    if (section != Section::kUnknown) {
      bool pascal = !key.empty() && key[0] >= 'A' && key[0] <= 'Z';
      (pascal ? pascal_keys_ : camel_keys_) = true;
    }
    const bool list = path.index.has_value();
    if (!path.member.empty()) {  // an item of a list inside an element (JsonStreamShape)
      if (section == Section::kApplications) return ApplicationItem(path, value);
      if (section == Section::kNodes) return NodeItem(path, value);
      return absl::OkStatus();
    }
    switch (section) {
      case Section::kTimestamp:
        return Timestamp(value);
      case Section::kClusterInfo:
        return list ? ClusterInfo(value) : ExpectList(key, value);
      case Section::kApplications:
        return list ? Application(value, *path.index) : ExpectList(key, value);
      case Section::kNodes:
        return list ? NodeList(value, *path.index) : ExpectList(key, value);
      case Section::kPartitions:
        return list ? Partition(value, *path.index) : ExpectList(key, value);
      case Section::kIgnored:
        return absl::OkStatus();
      case Section::kUnknown:
        break;
    }
    if (!value.is_null() && !seen_unknown_.contains(key)) {
      seen_unknown_.emplace(key);
      warnings_->Add("a top-level section allocore does not read: ignored", Cat("\"", key, "\""));
    }
    return absl::OkStatus();
  }

  absl::StatusOr<ImportedCluster> Finish(const ImportOptions& options) {
    if (!saw_applications_ && !saw_nodes_) {
      return absl::InvalidArgumentError(
          Cat(source_,
              ": not a YuniKorn state dump: it has neither \"Applications\" nor "
              "\"Nodes\" (the state dump handler writes both)"));
    }
    // The format says the release better than the build information, which is the resource
    // manager's own (docs/import.md, "Which release wrote the dump").
    std::string_view schema;
    // Without applications, a 1.2 dump is told from a 1.3 one by its partitions, which 1.3
    // gives a totalNodes count.
    const bool looks_12 = saw_min_allocation_priority_ ||
                          (!saw_applications_ && saw_partitions_ && !saw_total_nodes_);
    if (pascal_keys_ && !camel_keys_ && looks_12) {
      schema = "1.2";
      cluster_.source_semantics = Semantics::kYunikorn12;
    } else if (camel_keys_ && !pascal_keys_ && saw_quota_preemption_flag_) {
      schema = "1.8-1.9";
      cluster_.source_semantics = Semantics::kYunikorn19;
    } else {
      std::string_view what = pascal_keys_ && camel_keys_ ? "mixes the 1.2 and 1.4+ key styles"
                              : pascal_keys_              ? "has the 1.2/1.3 key style without the "
                                                            "1.2-only minAllocationPriority (1.3)"
                                             : "has the 1.4+ key style without the 1.8+ "
                                               "quotaPreemptionEnabled (1.4-1.7)";
      if (!options.semantics) {
        return absl::InvalidArgumentError(Cat(
            source_, ": a state dump of a YuniKorn release allocore has no profile for: it ", what,
            "; allocore reads the dumps of 1.2 and 1.8-1.9 (pass --semantics to read "
            "it as one of them anyway)"));
      }
      warnings_->Add(Cat("a state dump whose format ", what, ": read as far as it matches"),
                     source_);
    }
    cluster_.source_version =
        Cat("yunikorn ", schema.empty() ? "(unknown release)" : schema, " state dump",
            build_version_.empty() ? "" : Cat(", resource manager build ", build_version_));
    return std::move(cluster_);
  }

 private:
  enum class Section : uint8_t {
    kTimestamp,
    kPartitions,
    kApplications,
    kNodes,
    kClusterInfo,
    kIgnored,
    kUnknown
  };

  static Section SectionOf(std::string_view key) {
    static constexpr std::pair<std::string_view, Section> kSections[] = {
        {"Timestamp", Section::kTimestamp},
        {"timestamp", Section::kTimestamp},
        {"Partitions", Section::kPartitions},
        {"partitions", Section::kPartitions},
        {"Applications", Section::kApplications},
        {"applications", Section::kApplications},
        {"Nodes", Section::kNodes},
        {"nodes", Section::kNodes},
        {"ClusterInfo", Section::kClusterInfo},
        {"clusterInfo", Section::kClusterInfo},
        // Histories, diagnostics and the queue tree (whose limits --config gives) are not read;
        // nor is 1.4+'s copy of the config, whose ACLs and rules --config holds as well.
        {"AppHistory", Section::kIgnored},
        {"appHistory", Section::kIgnored},
        {"ContainerHistory", Section::kIgnored},
        {"containerHistory", Section::kIgnored},
        {"Queues", Section::kIgnored},
        {"queues", Section::kIgnored},
        {"RMDiagnostics", Section::kIgnored},
        {"rmDiagnostics", Section::kIgnored},
        {"LogLevel", Section::kIgnored},
        {"logLevel", Section::kIgnored},
        {"config", Section::kIgnored},
        {"placementRules", Section::kIgnored},
        {"eventStreams", Section::kIgnored},
    };
    for (const auto& [name, section] : kSections) {
      if (name == key) return section;
    }
    return Section::kUnknown;
  }

  absl::Status ExpectList(std::string_view key, const JsonValue& value) {
    if (value.is_null()) return absl::OkStatus();
    return absl::InvalidArgumentError(Cat(source_, ":", value.line, ": \"", key,
                                          "\": expected a list, found ",
                                          internal::JsonKindName(value.kind)));
  }

  absl::Status Timestamp(const JsonValue& value) {
    std::optional<int64_t> nanos = internal::JsonInteger(value);
    if (!nanos || *nanos < 0) {
      return absl::InvalidArgumentError(
          Cat(source_, ":", value.line, ": \"Timestamp\": expected Unix nanoseconds, found ",
              value.kind == JsonValue::Kind::kNumber ? value.text
                                                     : internal::JsonKindName(value.kind)));
    }
    cluster_.now_nanos = *nanos;
    return absl::OkStatus();
  }

  // The resource manager's build information: shown, not trusted for the release.
  absl::Status ClusterInfo(const JsonValue& value) {
    FieldReader info(source_, value, "ClusterInfo");
    const JsonValue* builds = info.Find("rmBuildInformation");
    if (builds == nullptr || builds->kind != JsonValue::Kind::kArray) return absl::OkStatus();
    for (const JsonValue& build : builds->items) {
      FieldReader field(source_, build, "ClusterInfo.rmBuildInformation");
      absl::StatusOr<std::optional<std::string>> version = field.OptionalString("buildVersion");
      if (!version.ok()) return version.status();
      if (*version && !(*version)->empty() && build_version_.empty()) build_version_ = **version;
    }
    return absl::OkStatus();
  }

  absl::Status Partition(const JsonValue& value, int64_t index) {
    FieldReader partition(source_, value, Cat("Partitions[", index, "]"));
    absl::StatusOr<std::optional<std::string>> name = partition.OptionalString("name");
    if (!name.ok()) return name.status();
    if (partition.Find("quotaPreemptionEnabled") != nullptr) saw_quota_preemption_flag_ = true;
    saw_partitions_ = true;
    if (partition.Find("totalNodes") != nullptr) saw_total_nodes_ = true;
    return absl::OkStatus();
  }

  // The nodes of one partition's list come one by one, before the list's partitionName.
  absl::Status NodeItem(const JsonElementPath& path, const JsonValue& value) {
    TakeItemsOf(*path.index);
    if (path.member != "nodesInfo") return absl::OkStatus();
    return Node(value);
  }

  absl::Status NodeList(const JsonValue& value, int64_t index) {
    saw_nodes_ = true;
    TakeItemsOf(index);
    FieldReader list(source_, value, Cat("Nodes[", index, "]"));
    absl::StatusOr<std::string> partition = list.String("partitionName");
    if (!partition.ok()) return partition.status();
    const JsonValue* nodes = list.Find("nodesInfo");
    if (nodes != nullptr && nodes->kind != JsonValue::Kind::kArray) {
      return list.Error("nodesInfo",
                        Cat("expected a list, found ", internal::JsonKindName(nodes->kind)));
    }
    for (ImportedNode& node : item_nodes_) {
      node.partition = *partition;
      cluster_.nodes.push_back(std::move(node));
    }
    for (internal::ImportedForeign& foreign : item_foreign_) {
      foreign.allocation.partition = *partition;
      cluster_.foreign.push_back(std::move(foreign));
    }
    item_nodes_.clear();
    item_foreign_.clear();
    return absl::OkStatus();
  }

  // A node of a list whose partition is not read yet (NodeList fills it in).
  absl::Status Node(const JsonValue& value) {
    const std::string partition;
    FieldReader node(source_, value, "node");
    absl::StatusOr<std::string> id = node.String("nodeID");
    if (!id.ok()) return id.status();
    node.set_object(Cat("node ", *id));
    ImportedNode out;
    out.partition = partition;
    out.id = *id;
    out.described_as = DescribedAt(node.object(), value);
    absl::StatusOr<Quantities> capacity = Resources(node, "capacity");
    if (!capacity.ok()) return capacity.status();
    out.capacity = std::move(*capacity);
    absl::StatusOr<std::optional<bool>> schedulable = node.OptionalBool("schedulable");
    if (!schedulable.ok()) return schedulable.status();
    out.schedulable = schedulable->value_or(true);
    absl::StatusOr<Tags> attributes = node.StringMap("attributes");
    if (!attributes.ok()) return attributes.status();
    out.attributes = std::move(*attributes);
    // Another scheduler's pods: v1.2 sums them as `occupied`; 1.7+ lists them one by one and
    // `occupied` is then their sum (node.go adds each foreign pod to it), so only what the list
    // does not explain is left for an aggregate.
    absl::StatusOr<Quantities> occupied = Resources(node, "occupied");
    if (!occupied.ok()) return occupied.status();
    size_t listed_from = item_foreign_.size();
    if (absl::Status s = ForeignAllocations(node, partition, *id); !s.ok()) return s;
    for (size_t f = listed_from; f < item_foreign_.size(); ++f) {
      for (const auto& [type, amount] : item_foreign_[f].allocation.resources) {
        for (auto& [name, left] : *occupied) {
          if (name == type) left = left > amount ? left - amount : 0;
        }
      }
    }
    if (std::any_of(occupied->begin(), occupied->end(),
                    [](const auto& entry) { return entry.second != 0; })) {
      internal::ImportedForeign foreign;
      foreign.allocation.partition = partition;
      foreign.allocation.id = Cat("occupied/", *id);
      foreign.allocation.node = *id;
      foreign.allocation.resources = std::move(*occupied);
      foreign.described_as = DescribedAt(Cat(node.object(), " occupied"), value);
      item_foreign_.push_back(std::move(foreign));
    }
    item_nodes_.push_back(std::move(out));
    return absl::OkStatus();
  }

  // v1.9 lists other schedulers' pods on each node (`foreignAllocations`).
  absl::Status ForeignAllocations(const FieldReader& node, const std::string& partition,
                                  const std::string& node_id) {
    const JsonValue* list = node.Find("foreignAllocations");
    if (list == nullptr) return absl::OkStatus();
    if (list->kind != JsonValue::Kind::kArray) {
      return node.Error("foreignAllocations", "expected a list");
    }
    for (const JsonValue& item : list->items) {
      FieldReader pod(source_, item, Cat(node.object(), " foreign allocation"));
      absl::StatusOr<std::optional<std::string>> key = pod.OptionalString("allocationKey");
      if (!key.ok()) return key.status();
      if (!*key || (*key)->empty()) return pod.Error("allocationKey", "missing");
      absl::StatusOr<Quantities> resources = Resources(pod, "resource");
      if (!resources.ok()) return resources.status();
      absl::StatusOr<Tags> tags = pod.StringMap("allocationTags");
      if (!tags.ok()) return tags.status();
      internal::ImportedForeign foreign;
      foreign.allocation.partition = partition;
      foreign.allocation.id = **key;
      foreign.allocation.node = node_id;
      foreign.allocation.resources = std::move(*resources);
      for (const auto& [tag, kind] : *tags) {
        if (tag == kForeignTag && kind == "static") foreign.allocation.kind = ForeignKind::kStatic;
      }
      foreign.described_as =
          DescribedAt(Cat("foreign allocation ", **key, " on node ", node_id), item);
      item_foreign_.push_back(std::move(foreign));
    }
    return absl::OkStatus();
  }

  // An allocation or request of an application, before the application's own fields: read
  // into the compact form at once, completed when the application arrives.
  absl::Status ApplicationItem(const JsonElementPath& path, const JsonValue& value) {
    TakeItemsOf(*path.index);
    FieldReader item(source_, value, "");
    absl::StatusOr<std::optional<std::string>> app_id = item.OptionalString("applicationId");
    if (!app_id.ok()) return app_id.status();
    std::string app_object = *app_id && !(*app_id)->empty()
                                 ? Cat("application ", **app_id)
                                 : Cat("Applications[", *path.index, "]");
    if (path.member == "allocations") return Allocation(value, app_object, &item_pods_);
    if (path.member == "requests") return Request(value, app_object, &item_pods_);
    return absl::OkStatus();
  }

  // Items of the element `index` are about to come (or have come): those of another are stale.
  void TakeItemsOf(int64_t index) {
    if (items_of_ == index) return;
    items_of_ = index;
    item_pods_.clear();
    item_nodes_.clear();
    item_foreign_.clear();
    namespace_.clear();
  }

  absl::Status Application(const JsonValue& value, int64_t index) {
    saw_applications_ = true;
    TakeItemsOf(index);
    FieldReader app(source_, value, Cat("Applications[", index, "]"));
    absl::StatusOr<std::string> id = app.String("applicationID");
    if (!id.ok()) return id.status();
    app.set_object(Cat("application ", *id));
    // The release marker counts on skipped apps too: a dump of finished apps is still a 1.2 one.
    app_is_v12_ = app.Find("minAllocationPriority") != nullptr;
    if (app_is_v12_) saw_min_allocation_priority_ = true;
    absl::StatusOr<std::optional<std::string>> state = app.OptionalString("applicationState");
    if (!state.ok()) return state.status();
    if (*state && IsFinished(**state)) {
      warnings_->Add(Cat("application in state ", **state, ": skipped"), app.object());
      return absl::OkStatus();
    }
    // A reservation holds a node for an ask; the next schedule makes its own (docs/import.md).
    absl::StatusOr<std::optional<bool>> reserved = app.OptionalBool("hasReserved");
    if (!reserved.ok()) return reserved.status();
    if (reserved->value_or(false)) {
      warnings_->Add("a live reservation: not imported (the next schedule reserves anew)",
                     app.object());
    }
    ImportedApp out;
    out.id = *id;
    out.described_as = DescribedAt(app.object(), value);
    absl::StatusOr<std::string> partition = app.String("partition");
    if (!partition.ok()) return partition.status();
    out.partition = *partition;
    absl::StatusOr<std::optional<std::string>> queue = app.OptionalString("queueName");
    if (!queue.ok()) return queue.status();
    out.queue = queue->value_or("");
    absl::StatusOr<std::optional<int64_t>> submitted = app.OptionalInteger("submissionTime");
    if (!submitted.ok()) return submitted.status();
    out.submitted_nanos = submitted->value_or(0);
    if (absl::Status s = User(app, &out); !s.ok()) return s;
    absl::StatusOr<Tags> tags = app.StringMap("tags");
    if (!tags.ok()) return tags.status();
    out.tags = std::move(*tags);

    // Pods: the allocations run, the requests wait. v1.2 repeats share the ask's key, so a key
    // seen more than once gets an id per pod.
    std::vector<ImportedPod> pods = std::move(item_pods_);
    item_pods_.clear();
    // Lists the stream did not split (a reader without the shape) are read here.
    if (absl::Status s = Allocations(app, &pods); !s.ok()) return s;
    if (absl::Status s = Requests(app, &pods); !s.ok()) return s;
    for (ImportedPod& pod : pods) {
      pod.ask.partition = out.partition;
      pod.ask.app = out.id;
    }
    if (absl::Status s = PlaceholderData(app, &out, &pods); !s.ok()) return s;
    DistinctKeys(&pods);
    // The namespace tag, which YuniKorn's shim sets on every application and the placement
    // rules read, is not in the dump; the pods' tags carry it.
    bool has_namespace = std::any_of(out.tags.begin(), out.tags.end(),
                                     [](const auto& tag) { return tag.first == "namespace"; });
    if (!has_namespace && !namespace_.empty()) out.tags.emplace_back("namespace", namespace_);
    for (ImportedPod& pod : pods) cluster_.pods.push_back(std::move(pod));
    cluster_.apps.push_back(std::move(out));
    namespace_.clear();
    return absl::OkStatus();
  }

  absl::Status User(const FieldReader& app, ImportedApp* out) {
    // Every release writes the name as "user" and, from 1.3, the groups beside it as "groups"
    // (dao.ApplicationDAOInfo); 1.4+ leaves either out when empty.
    absl::StatusOr<std::optional<std::string>> user = app.OptionalString("user");
    if (!user.ok()) return user.status();
    out->user = user->value_or("");
    const JsonValue* groups = app.Find("groups");
    if (groups == nullptr) return absl::OkStatus();
    if (groups->kind != JsonValue::Kind::kArray) {
      return app.ErrorAt(*groups, "groups",
                         Cat("expected a list, found ", internal::JsonKindName(groups->kind)));
    }
    for (const JsonValue& group : groups->items) {
      if (group.kind != JsonValue::Kind::kString) {
        return app.ErrorAt(group, "groups",
                           Cat("expected strings, found ", internal::JsonKindName(group.kind)));
      }
      out->groups.push_back(group.text);
    }
    return absl::OkStatus();
  }

  // The ask fields both lists share: resource, priority, task group, placeholder, tags.
  absl::Status AskFields(const FieldReader& item, const std::string& resource_key,
                         ImportedPod* pod) {
    absl::StatusOr<Quantities> resources = Resources(item, resource_key);
    if (!resources.ok()) return resources.status();
    pod->ask.resources = std::move(*resources);
    absl::StatusOr<std::optional<int64_t>> priority = item.IntegerOrString("priority");
    if (!priority.ok()) return priority.status();
    if (*priority) {
      if (**priority < INT32_MIN || **priority > INT32_MAX) {
        return item.Error("priority", Cat(**priority, " is outside int32"));
      }
      pod->ask.priority = static_cast<int32_t>(**priority);
    }
    absl::StatusOr<std::optional<std::string>> group = item.OptionalString("taskGroupName");
    if (!group.ok()) return group.status();
    pod->ask.task_group = group->value_or("");
    absl::StatusOr<std::optional<bool>> placeholder = item.OptionalBool("placeholder");
    if (!placeholder.ok()) return placeholder.status();
    pod->ask.placeholder = placeholder->value_or(false);
    absl::StatusOr<std::optional<bool>> originator = item.OptionalBool("originator");
    if (!originator.ok()) return originator.status();
    pod->ask.originator = originator->value_or(false);
    absl::StatusOr<Tags> tags = item.StringMap("allocationTags");
    if (!tags.ok()) return tags.status();
    for (const auto& [key, value] : *tags) {
      // The least one, not the first: lists come in Go's map order.
      if (key == kNamespaceTag && (namespace_.empty() || value < namespace_)) namespace_ = value;
      if (key == kPodNameTag) pod->pod_name = value;
      if (key == kPlaceholderLabelTag && value == "true") pod->labeled_placeholder = true;
    }
    return absl::OkStatus();
  }

  absl::Status Allocations(const FieldReader& app, std::vector<ImportedPod>* pods) {
    const JsonValue* list = app.Find("allocations");
    if (list == nullptr) return absl::OkStatus();
    if (list->kind != JsonValue::Kind::kArray) return app.Error("allocations", "expected a list");
    for (const JsonValue& item : list->items) {
      if (absl::Status s = Allocation(item, app.object(), pods); !s.ok()) return s;
    }
    return absl::OkStatus();
  }

  absl::Status Allocation(const JsonValue& item, const std::string& app_object,
                          std::vector<ImportedPod>* pods) {
    FieldReader allocation(source_, item, Cat(app_object, " allocation"));
    absl::StatusOr<std::string> key = allocation.String("allocationKey");
    if (!key.ok()) return key.status();
    allocation.set_object(Cat(app_object, " allocation ", *key));
    ImportedPod pod;
    pod.ask.id = *key;
    pod.described_as = DescribedAt(allocation.object(), item);
    absl::StatusOr<std::string> node = allocation.String("nodeId");
    if (!node.ok()) return node.status();
    if (node->empty()) return allocation.Error("nodeId", "empty");
    pod.node = *node;
    if (absl::Status s = AskFields(allocation, "resource", &pod); !s.ok()) return s;
    absl::StatusOr<std::optional<int64_t>> requested = allocation.OptionalInteger("requestTime");
    if (!requested.ok()) return requested.status();
    absl::StatusOr<std::optional<int64_t>> allocated = allocation.OptionalInteger("allocationTime");
    if (!allocated.ok()) return allocated.status();
    absl::StatusOr<std::optional<bool>> replaced = allocation.OptionalBool("placeholderUsed");
    if (!replaced.ok()) return replaced.status();
    // A pod that took a placeholder's place reports the placeholder's creation as its
    // requestTime; its own is allocationTime (1.9: exactly; 1.2: the closest the dump has).
    pod.created_nanos = replaced->value_or(false) && allocated->has_value()
                            ? **allocated
                            : requested->value_or(allocated->value_or(0));
    pod.sort_nanos = allocated->value_or(pod.created_nanos);
    pods->push_back(std::move(pod));
    return absl::OkStatus();
  }

  absl::Status Requests(const FieldReader& app, std::vector<ImportedPod>* pods) {
    const JsonValue* list = app.Find("requests");
    if (list == nullptr) return absl::OkStatus();
    if (list->kind != JsonValue::Kind::kArray) return app.Error("requests", "expected a list");
    for (const JsonValue& item : list->items) {
      if (absl::Status s = Request(item, app.object(), pods); !s.ok()) return s;
    }
    return absl::OkStatus();
  }

  absl::Status Request(const JsonValue& item, const std::string& app_object,
                       std::vector<ImportedPod>* pods) {
    FieldReader request(source_, item, Cat(app_object, " request"));
    absl::StatusOr<std::string> key = request.String("allocationKey");
    if (!key.ok()) return key.status();
    request.set_object(Cat(app_object, " request ", *key));
    ImportedPod pod;
    pod.ask.id = *key;
    pod.described_as = DescribedAt(request.object(), item);
    if (absl::Status s = AskFields(request, "resource", &pod); !s.ok()) return s;
    absl::StatusOr<std::optional<int64_t>> pending = request.OptionalInteger("pendingCount");
    if (!pending.ok()) return pending.status();
    int64_t count = pending->value_or(1);
    if (count < 0 || count > ApiLimits::kMaxAskCount) {
      return request.Error("pendingCount", Cat(count, " is outside 0..", ApiLimits::kMaxAskCount));
    }
    if (count == 0) return absl::OkStatus();  // all allocated: the allocations list has them
    pod.ask.count = count;
    absl::StatusOr<std::optional<std::string>> required = request.OptionalString("requiredNodeId");
    if (!required.ok()) return required.status();
    pod.ask.required_node = required->value_or("");
    absl::StatusOr<std::optional<int64_t>> requested = request.OptionalInteger("requestTime");
    if (!requested.ok()) return requested.status();
    pod.created_nanos = requested->value_or(0);
    pod.sort_nanos = pod.created_nanos;
    pods->push_back(std::move(pod));
    return absl::OkStatus();
  }

  // The app's task groups give its placeholder total. A v1.2 dump never marks an allocation as
  // a placeholder nor names its group (its handler leaves both unset), so for v1.2 apps the
  // running placeholders are told by the shim's pod label or name (docs/import.md).
  absl::Status PlaceholderData(const FieldReader& app, ImportedApp* out,
                               std::vector<ImportedPod>* pods) {
    const JsonValue* list = app.Find("placeholderData");
    if (list == nullptr) return absl::OkStatus();
    if (list->kind != JsonValue::Kind::kArray) {
      return app.Error("placeholderData", "expected a list");
    }
    struct Group {
      std::string name;
      Quantities minimum;
    };
    std::vector<Group> groups;
    for (const JsonValue& item : list->items) {
      FieldReader data(source_, item, Cat(app.object(), " placeholderData"));
      absl::StatusOr<std::string> group = data.String("taskGroupName");
      if (!group.ok()) return group.status();
      absl::StatusOr<std::optional<int64_t>> count = data.OptionalInteger("count");
      if (!count.ok()) return count.status();
      absl::StatusOr<Quantities> minimum = Resources(data, "minResource");
      if (!minimum.ok()) return minimum.status();
      int64_t members = count->value_or(0);
      if (members < 0 || members > ApiLimits::kMaxAskCount) {
        return data.Error("count", Cat(members, " is outside 0..", ApiLimits::kMaxAskCount));
      }
      for (const auto& [type, amount] : *minimum) {
        if (amount != 0 && members > INT64_MAX / amount) {
          return data.Error("minResource", "count times minResource overflows int64");
        }
        if (!AddQuantity(&out->placeholder_ask, type, amount * members)) {
          return data.Error("minResource", "the placeholder total overflows int64");
        }
      }
      groups.push_back(Group{*group, std::move(*minimum)});
    }
    // The sum's types in one order whatever the order of the groups (a Go map's).
    std::sort(out->placeholder_ask.begin(), out->placeholder_ask.end());
    if (!app_is_v12_ || groups.empty()) return absl::OkStatus();
    std::string_view app_in_name = std::string_view(out->id).substr(0, kPlaceholderNameAppBytes);
    for (ImportedPod& pod : *pods) {
      if (pod.node.empty() || pod.ask.placeholder || !pod.ask.task_group.empty()) continue;
      // The whole prefix with the app: "tg-a-" alone is also the start of group "a-b"'s names.
      std::vector<const Group*> by_name;
      for (const Group& group : groups) {
        std::string prefix =
            Cat("tg-", std::string_view(group.name).substr(0, kPlaceholderNameGroupBytes), "-",
                app_in_name, "-");
        if (pod.pod_name.starts_with(prefix)) by_name.push_back(&group);
      }
      if (by_name.empty() && !pod.labeled_placeholder) continue;
      std::vector<const Group*> candidates = by_name;
      if (candidates.size() != 1) {  // the name is cut or missing: the group's pod size decides
        candidates.clear();
        for (const Group& group : groups) {
          bool named =
              by_name.empty() || std::find(by_name.begin(), by_name.end(), &group) != by_name.end();
          if (named && group.minimum == pod.ask.resources) candidates.push_back(&group);
        }
      }
      if (candidates.size() != 1) {
        warnings_->Add(
            "a pod that looks like a placeholder but matches no single task group: "
            "recovered as a real pod",
            pod.described_as);
        continue;
      }
      pod.ask.placeholder = true;
      pod.ask.task_group = candidates[0]->name;
      warnings_->Add(
          "placeholder told by the shim's pod name or label (a v1.2 dump does not "
          "mark placeholder allocations)",
          pod.described_as);
    }
    return absl::OkStatus();
  }

  // False when the sum passes int64.
  static bool AddQuantity(Quantities* into, const std::string& type, int64_t amount) {
    for (auto& [name, value] : *into) {
      if (name == type) {
        if (value > INT64_MAX - amount) return false;
        value += amount;
        return true;
      }
    }
    into->emplace_back(type, amount);
    return true;
  }

  // Each pod its own id: a key used by several entries keeps its name on the pending request
  // (or the first allocation) and the other pods get KEY#N in allocation order.
  void DistinctKeys(std::vector<ImportedPod>* pods) {
    std::map<std::string, std::vector<ImportedPod*>> by_key;
    for (ImportedPod& pod : *pods) by_key[pod.ask.id].push_back(&pod);
    for (auto& [key, group] : by_key) {
      if (group.size() < 2) continue;
      // A total order over what the scenario shows of a pod: repeats recovered with their
      // ask's creationTime tag share their times, and the list order is a Go map's.
      auto order = [](const ImportedPod* pod) {
        return std::tie(pod->sort_nanos, pod->created_nanos, pod->node, pod->ask.resources,
                        pod->ask.priority, pod->ask.task_group, pod->ask.placeholder,
                        pod->ask.originator);
      };
      std::sort(group.begin(), group.end(), [&order](const ImportedPod* a, const ImportedPod* b) {
        if (a->node.empty() != b->node.empty()) return a->node.empty();  // pending first
        return order(a) < order(b);
      });
      for (size_t i = 1; i < group.size(); ++i) {
        group[i]->ask.id = Cat(key, "#", i);
        warnings_->Add(
            "repeats of one ask key: each running pod recovered under an id of its "
            "own (KEY#N)",
            group[i]->described_as);
      }
    }
  }

  // The dump's resources: integers in the resource manager's units.
  static absl::StatusOr<Quantities> Resources(const FieldReader& item, std::string_view key) {
    return item.Amounts(
        key,
        [](const std::string& name,
           const JsonValue& value) -> absl::StatusOr<std::pair<std::string, int64_t>> {
          std::optional<int64_t> amount = internal::JsonInteger(value);
          if (!amount) {
            return absl::InvalidArgumentError(
                value.kind == JsonValue::Kind::kNumber
                    ? Cat(value.text, " is not a 64-bit integer")
                    : Cat("expected an integer, found ", internal::JsonKindName(value.kind)));
          }
          if (*amount < 0) return absl::InvalidArgumentError("negative");
          return std::pair<std::string, int64_t>(name, *amount);
        });
  }

  const std::string& source_;
  ImportWarnings* warnings_;
  ImportedCluster cluster_;
  std::string namespace_;  // of the application being read
  // Items of the element being read that came before it (JsonStreamShape's split lists).
  std::optional<int64_t> items_of_;
  std::vector<ImportedPod> item_pods_;
  std::vector<ImportedNode> item_nodes_;
  std::vector<internal::ImportedForeign> item_foreign_;
  bool app_is_v12_ = false;  // it has the field only v1.2 writes
  bool saw_applications_ = false;
  bool saw_nodes_ = false;
  bool pascal_keys_ = false;
  bool camel_keys_ = false;
  bool saw_min_allocation_priority_ = false;  // apps of 1.2 only
  bool saw_quota_preemption_flag_ = false;    // partitions of 1.8+
  bool saw_partitions_ = false;
  bool saw_total_nodes_ = false;  // partitions of 1.3+
  std::string build_version_;
  std::set<std::string, std::less<>> seen_unknown_;
};

// The dump's long lists come item by item: each application's allocations and requests, each
// partition's nodes. Each node's own copy of its allocations is never built (the
// applications list has them).
internal::JsonStreamShape DumpShape() {
  internal::JsonStreamShape shape;
  for (const char* applications : {"Applications", "applications"}) {
    shape.split.push_back({applications, "allocations"});
    shape.split.push_back({applications, "requests"});
  }
  for (const char* nodes : {"Nodes", "nodes"}) {
    shape.split.push_back({nodes, "nodesInfo"});
    shape.skip.push_back({nodes, {"nodesInfo", "[]", "allocations"}});
  }
  return shape;
}

absl::StatusOr<ImportResult> Import(const internal::ImportInput& input,
                                    const ImportOptions& options) {
  const std::string& source = input.source_name;
  ImportWarnings warnings;
  DumpReader reader(source, &warnings);
  absl::Status status = internal::StreamImportInput(
      input, options, DumpShape(), [&](const JsonElementPath& path, JsonValue&& value) {
        return reader.OnElement(path, std::move(value));
      });
  if (!status.ok()) return status;
  absl::StatusOr<ImportedCluster> cluster = reader.Finish(options);
  if (!cluster.ok()) return cluster.status();
  return internal::BuildImportedScenario(std::move(*cluster), options, source, std::move(warnings));
}

}  // namespace

absl::StatusOr<ImportResult> ImportYunikornStateDump(const std::string& path,
                                                     const ImportOptions& options) {
  return Import({path, std::nullopt, path == "-" ? "<stdin>" : path}, options);
}

absl::StatusOr<ImportResult> ImportYunikornStateDumpText(std::string_view json,
                                                         const std::string& source_name,
                                                         const ImportOptions& options) {
  return Import({"", json, source_name}, options);
}

}  // namespace allocore::adapters
