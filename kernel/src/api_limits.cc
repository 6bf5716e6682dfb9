#include "api_limits.h"

#include <cstdint>
#include <string>

#include "message.h"

namespace allocore::internal {
namespace {

absl::Status OverLimit(std::string_view call, std::string_view what, uint64_t value, uint64_t limit,
                       std::string_view limit_name) {
  return absl::InvalidArgumentError(Cat(call, ": ", what, " of ", value, " is over the limit of ",
                                        limit, " (ApiLimits::", limit_name, ")"));
}

absl::Status CheckLength(std::string_view call, std::string_view field, std::string_view value,
                         size_t limit, std::string_view limit_name) {
  if (value.size() <= limit) return absl::OkStatus();
  return OverLimit(call, Cat(field, " length in bytes"), value.size(), limit, limit_name);
}

}  // namespace

absl::Status CheckQuantities(std::string_view call, std::string_view field,
                             const Quantities& quantities) {
  if (quantities.size() > ApiLimits::kMaxQuantityEntries) {
    return OverLimit(call, Cat(field, " entries"), quantities.size(),
                     ApiLimits::kMaxQuantityEntries, "kMaxQuantityEntries");
  }
  for (const auto& [name, value] : quantities) {
    // The label is built only for a refusal: this runs for every quantity of every call.
    if (name.size() <= ApiLimits::kMaxNameBytes) continue;
    return CheckLength(call, Cat(field, " resource name"), name, ApiLimits::kMaxNameBytes,
                       "kMaxNameBytes");
  }
  return absl::OkStatus();
}

absl::Status CheckNameLengths(std::string_view call, NamedFields fields) {
  // Every call checks its names: the lengths first, and a Status only for a refusal.
  bool all_fit = true;
  for (const auto& [field, value] : fields) all_fit &= value.size() <= ApiLimits::kMaxNameBytes;
  if (all_fit) return absl::OkStatus();
  for (const auto& [field, value] : fields) {
    absl::Status status =
        CheckLength(call, field, value, ApiLimits::kMaxNameBytes, "kMaxNameBytes");
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

absl::Status CheckNodeSpec(const NodeSpec& node) {
  absl::Status status =
      CheckNameLengths("add_node", {{"partition", node.partition}, {"node id", node.id}});
  if (status.ok()) status = CheckQuantities("add_node", "capacity", node.capacity);
  if (status.ok()) status = CheckQuantities("add_node", "occupied", node.occupied);
  return status;
}

absl::Status CheckNodeUpdate(const NodeUpdate& update) {
  absl::Status status =
      CheckNameLengths("update_node", {{"partition", update.partition}, {"node id", update.id}});
  if (status.ok() && update.capacity) {
    status = CheckQuantities("update_node", "capacity", *update.capacity);
  }
  if (status.ok() && update.occupied) {
    status = CheckQuantities("update_node", "occupied", *update.occupied);
  }
  return status;
}

absl::Status CheckAppSpec(const AppSpec& app) {
  constexpr std::string_view kCall = "add_app";
  absl::Status status = CheckNameLengths(
      kCall, {{"partition", app.partition}, {"application id", app.id}, {"user", app.user}});
  if (!status.ok()) return status;
  status =
      CheckLength(kCall, "queue", app.queue, ApiLimits::kMaxQueuePathBytes, "kMaxQueuePathBytes");
  if (!status.ok()) return status;
  if (app.groups.size() > ApiLimits::kMaxGroupsPerApplication) {
    return OverLimit(kCall, "number of groups", app.groups.size(),
                     ApiLimits::kMaxGroupsPerApplication, "kMaxGroupsPerApplication");
  }
  for (const std::string& group : app.groups) {
    status = CheckNameLengths(kCall, {{"group", group}});
    if (!status.ok()) return status;
  }
  if (app.tags.size() > ApiLimits::kMaxTagsPerApplication) {
    return OverLimit(kCall, "number of tags", app.tags.size(), ApiLimits::kMaxTagsPerApplication,
                     "kMaxTagsPerApplication");
  }
  for (const auto& [key, value] : app.tags) {
    status = CheckLength(kCall, "tag key", key, ApiLimits::kMaxTagBytes, "kMaxTagBytes");
    if (status.ok()) {
      status = CheckLength(kCall, "tag value", value, ApiLimits::kMaxTagBytes, "kMaxTagBytes");
    }
    if (!status.ok()) return status;
  }
  return CheckQuantities(kCall, "placeholder_ask", app.placeholder_ask);
}

absl::Status CheckAskFields(std::string_view call, std::string_view id, std::string_view task_group,
                            std::string_view required_node, int64_t count) {
  absl::Status status = CheckNameLengths(
      call, {{"ask id", id}, {"task_group", task_group}, {"required_node", required_node}});
  if (!status.ok()) return status;
  if (count > ApiLimits::kMaxAskCount) {
    return OverLimit(call, "count", static_cast<uint64_t>(count), ApiLimits::kMaxAskCount,
                     "kMaxAskCount");
  }
  return absl::OkStatus();
}

absl::Status CheckAskSpec(const AskSpec& ask, std::string_view call) {
  absl::Status status =
      CheckNameLengths(call, {{"partition", ask.partition}, {"application id", ask.app}});
  if (status.ok()) {
    status = CheckAskFields(call, ask.id, ask.task_group, ask.required_node, ask.count);
  }
  if (!status.ok()) return status;
  return CheckQuantities(call, "resources", ask.resources);
}

}  // namespace allocore::internal
