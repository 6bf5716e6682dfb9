// Where the yunikorn-1.2 and yunikorn-1.9 profiles read one configuration differently: what
// `allocore check` lists so that a team moving between YuniKorn releases knows which decisions
// to look at. Each finding names the rule (kernel/README.md, "Semantics profiles").
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "allocore/config.h"
#include "field_location.h"
#include "name_rules.h"
#include "queue_properties.h"

namespace allocore {
namespace {

class Differences {
 public:
  explicit Differences(std::vector<ConfigError>* out) : out_(out) {}

  void Partition(const PartitionConfig& partition) {
    partition_ = partition.name;
    quota_preemption_ = partition.quota_preemption_enabled.value_or(false);
    if (quota_preemption_) {
      Add(partition.location, "", "preemption.quotapreemptionenabled",
          "preemption.quotapreemptionenabled: yunikorn-1.9 takes allocations back from a "
          "configured queue left above its max once its quota.preemption.delay has passed; "
          "yunikorn-1.2 ignores the key (YUNIKORN-3133)");
    }
    if (!partition.preemption_enabled) {
      Add(partition.location, "", "preemption.enabled",
          "preemption.enabled is not set: general preemption is off under yunikorn-1.2 and on "
          "under yunikorn-1.9 (YUNIKORN-2107)");
    }
    bool has_root_default = false;
    for (const QueueConfig& root : partition.queues) {
      for (const QueueConfig& child : root.queues) {
        if (absl::AsciiStrToLower(child.name) == "default") has_root_default = true;
      }
    }
    if (has_root_default) {
      Add(partition.location, "", "placementrules",
          partition.placement_rules.empty()
              ? "no placement rules: an application naming a queue that does not exist (or none) "
                "is rejected under yunikorn-1.2 and placed in root.default under yunikorn-1.9"
              : "an application that no rule places is rejected under yunikorn-1.2 and placed in "
                "root.default under yunikorn-1.9 (YUNIKORN-1793)");
    }
    for (const QueueConfig& root : partition.queues) Queue(root, {}, "", /*root=*/true);
  }

 private:
  void Queue(const QueueConfig& queue, const PropertyMap& parent_properties,
             const std::string& parent_path, bool root) {
    const std::string path = parent_path.empty() ? queue.name : parent_path + "." + queue.name;
    const PropertyMap properties = internal::MergeProperties(parent_properties, queue.properties);
    const bool leaf = internal::ConfiguredAsLeaf(queue, root);
    const SourceLocation where =
        internal::FieldLocation(queue.field_locations, "name", queue.location);
    if (!internal::IsValidQueueName(queue.name) &&
        internal::IsValidQueueName(queue.name, internal::NameCharset::kWide)) {
      Add(where, path, "name",
          "the name is valid under yunikorn-1.9 only (':', '#', '/' and '@', YUNIKORN-2715)");
    }
    for (const auto& [key, value] : properties) {
      if (leaf && key == "application.sort.policy" && value == "stateaware") {
        Add(where, path, "properties",
            "application.sort.policy stateaware admits one Accepted application at a time under "
            "yunikorn-1.2 and reads as fifo under yunikorn-1.9 (YUNIKORN-2483)");
      }
      if (leaf && key == "application.unschedasks.backoff" && value != "0") {
        Add(where, path, "properties",
            "application.unschedasks.backoff " + value +
                ": yunikorn-1.9 skips an application for its backoff delay after that many "
                "unschedulable asks in one visit; yunikorn-1.2 ignores the property "
                "(YUNIKORN-3115)");
      }
      if (key == "quota.preemption.delay" && !quota_preemption_ && queue.properties.size() > 0 &&
          std::any_of(queue.properties.begin(), queue.properties.end(),
                      [](const auto& p) { return p.first == "quota.preemption.delay"; })) {
        Add(where, path, "properties",
            "quota.preemption.delay has no effect under either profile while the partition's "
            "preemption.quotapreemptionenabled is not true");
      }
      if (!leaf && !queue.child_template && key == "application.sort.policy") {
        Add(where, path, "properties",
            "leaves that placement creates below this queue inherit its application.sort.policy "
            "under yunikorn-1.2, and start as fifo under yunikorn-1.9 (no child template, "
            "YUNIKORN-809)");
      }
    }
    if (queue.queues.size() > 1) {
      for (const QueueConfig& child : queue.queues) {
        if (child.resources.guaranteed && !child.resources.guaranteed->empty()) continue;
        Add(where, path, "queues",
            absl::StrCat("child ", child.name,
                         " has no guarantee: yunikorn-1.2 orders it by its raw usage (it sorts "
                         "after the children with a guarantee once it uses anything), "
                         "yunikorn-1.9 by its largest share of the cluster or of its max "
                         "(YUNIKORN-2678)"));
        break;
      }
    }
    if (queue.resources.max && queue.resources.max->size() > 1) {
      Add(internal::FieldLocation(queue.field_locations, "resources.max", where), path,
          "resources.max",
          "once usage is above the max in one type (a lowered max, a lost node), yunikorn-1.2 "
          "blocks every ask of the queue and yunikorn-1.9 only the asks that request that type "
          "(YUNIKORN-2790)");
    }
    for (const QueueConfig& child : queue.queues) Queue(child, properties, path, false);
  }

  void Add(SourceLocation location, std::string_view queue, std::string_view field,
           std::string message) {
    ConfigError& e = out_->emplace_back();
    e.location = location;
    e.partition = partition_;
    e.queue_path = std::string(queue);
    e.field = std::string(field);
    e.message = std::move(message);
    e.warning = true;
  }

  std::vector<ConfigError>* out_;
  std::string partition_;
  bool quota_preemption_ = false;
};

}  // namespace

std::vector<ConfigError> ProfileDifferences(const SchedulerConfig& config) {
  std::vector<ConfigError> out;
  Differences differences(&out);
  for (const PartitionConfig& partition : config.partitions) differences.Partition(partition);
  return out;
}

}  // namespace allocore
