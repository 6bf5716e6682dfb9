// Namespace tags: a resource manager passes a Kubernetes namespace's quota on to the dynamic
// leaf its applications land in, through application tags (YUNIKORN-199; 1.4+ YUNIKORN-1575,
// -1697). Managed (configured) queues and the recovery queue keep their limits. Tags that do
// not parse, or hold a zero or negative quantity, count as absent, as in YuniKorn (which only
// logs them). kernel/README, "Semantics profiles".
#include "message.h"
#include "partition.h"
#include "tag_resource.h"

namespace allocore::internal {
namespace {

constexpr std::string_view kQuotaTag = "namespace.resourcequota";
constexpr std::string_view kGuaranteedTag = "namespace.resourceguaranteed";
constexpr std::string_view kMaxAppsTag = "namespace.resourcemaxapps";

// The value of the tag (keys compare case-insensitively; of repeated keys the last counts).
std::optional<std::string_view> TagValue(const Tags& tags, std::string_view key) {
  std::optional<std::string_view> value;
  for (const auto& [k, v] : tags) {
    if (EqualsAsciiIgnoreCase(k, key)) value = v;
  }
  return value;
}

}  // namespace

std::optional<Resource> Partition::TagResource(const Tags& tags, std::string_view key) {
  std::optional<std::string_view> text = TagValue(tags, key);
  if (!text || text->empty()) return std::nullopt;
  std::optional<std::vector<std::pair<std::string, int64_t>>> parsed = ParseResourceTag(*text);
  if (!parsed) return std::nullopt;
  // A type the kernel cannot register (the type table is full) makes the tag unusable: the
  // types it did register stay (they are named by nothing but cost nothing).
  const int types_before = context_->types.size();
  absl::StatusOr<Resource> resource = ToResource(*parsed, key);
  if (!resource.ok()) {
    context_->types.TruncateTo(types_before);
    return std::nullopt;
  }
  if (!StrictlyGreaterThanZero(*resource)) {
    context_->types.TruncateTo(types_before);
    return std::nullopt;
  }
  return *resource;
}

void Partition::ApplyNamespaceTags(uint32_t queue, const Tags& tags, bool recovery_queue) {
  if (tags.empty() || !queues_[queue].dynamic || recovery_queue) return;
  Queue& q = queues_[queue];
  if (!context_->profile->namespace_tags_set_guarantee_and_apps) {
    // v1.2.0 Queue.AddApplication: the quota becomes the leaf's max.
    std::optional<Resource> quota = TagResource(tags, kQuotaTag);
    if (!quota) return;
    q.max = *quota;
  } else {
    std::optional<Resource> guaranteed = TagResource(tags, kGuaranteedTag);
    std::optional<Resource> quota = TagResource(tags, kQuotaTag);
    uint64_t max_apps = 0;
    if (std::optional<std::string_view> text = TagValue(tags, kMaxAppsTag)) {
      max_apps = ParseUint64Tag(*text).value_or(0);
    }
    if (!guaranteed && !quota && max_apps == 0) return;
    if (max_apps != 0) q.max_apps = max_apps;
    // SetResources(guaranteed, max): a side the tags leave out is cleared.
    if (guaranteed || quota) {
      q.max = quota;
      q.guaranteed = guaranteed;
    }
  }
  QueuePathChanged(queue);
}

}  // namespace allocore::internal
