#include "allocore/config.h"

#include "absl/strings/str_cat.h"

namespace allocore {

std::string ConfigError::ToString(const std::string& source_name) const {
  std::string out;
  if (!source_name.empty()) {
    absl::StrAppend(&out, source_name, ":");
    if (location.line > 0) absl::StrAppend(&out, location.line, ":", location.column, ":");
    out += " ";
  }
  if (warning) out += "warning: ";
  if (!partition.empty()) absl::StrAppend(&out, "partition ", partition);
  if (!queue_path.empty()) {
    absl::StrAppend(&out, partition.empty() ? "" : ", ", "queue ", queue_path);
  }
  if (!partition.empty() || !queue_path.empty()) out += ": ";
  out += message;
  return out;
}

SchedulerConfig DefaultSchedulerConfig() {
  SchedulerConfig config;
  PartitionConfig& partition = config.partitions.emplace_back();
  partition.name = "default";
  PlacementRuleConfig& rule = partition.placement_rules.emplace_back();
  rule.name = "tag";
  rule.value = "namespace";
  rule.create = true;
  QueueConfig& root = partition.queues.emplace_back();
  root.name = "root";
  root.submit_acl = "*";
  return config;
}

}  // namespace allocore
