// The versions of the rules YuniKorn changed between releases, and the profile of each release.
#include "semantics_profile.h"

#include <algorithm>

namespace allocore {

std::string_view SemanticsName(Semantics semantics) {
  return semantics == Semantics::kYunikorn19 ? "yunikorn-1.9" : "yunikorn-1.2";
}

std::optional<Semantics> ParseSemantics(std::string_view name) {
  if (name == "yunikorn-1.2") return Semantics::kYunikorn12;
  if (name == "yunikorn-1.9") return Semantics::kYunikorn19;
  return std::nullopt;
}

std::string_view SemanticsNames() { return "yunikorn-1.2, yunikorn-1.9"; }

}  // namespace allocore

namespace allocore::internal {
namespace {

constexpr Profile kYunikorn12Profile{
    .semantics = Semantics::kYunikorn12,
    .child_share = &ChildSharesByEveryType,
    .child_share_reads_fair_max = false,
    .level_max_allows = &LevelMaxAllowsWhole,
    .started_state = AppState::kStarting,
    .stateaware_is_fifo = false,
    .dynamic_leaf_inherits_sort_policy = true,
    .implicit_provided_rule = false,
    .placement_fallback = PlacementFallback::kReject,
    .placement_skips_draining = false,
    .ask_creation_time_counts = false,
    .preemption_enabled_by_default = false,
    .name_charset = NameCharset::kV12,
    .state_dump_file_path_is_error = false,
    .recovery_updates_known_asks = false,
    .recovered_placeholder_joins_task_group = false,
    .resize_in_place = false,
    .foreign_changes_keep_node_order = false,
    .namespace_tags_set_guarantee_and_apps = false,
    .asks_are_pods = false,
    .reservations_time_out = false,
    .quota_preemption = false,
    .root_max_prunes_zeros = false,
};

constexpr Profile kYunikorn19Profile{
    .semantics = Semantics::kYunikorn19,
    .child_share = &ChildShareDominant,
    .child_share_reads_fair_max = true,
    .level_max_allows = &LevelMaxAllowsRequestedTypes,
    .started_state = AppState::kRunning,
    .stateaware_is_fifo = true,
    .dynamic_leaf_inherits_sort_policy = false,
    .implicit_provided_rule = true,
    .placement_fallback = PlacementFallback::kRootDefault,
    .placement_skips_draining = true,
    .ask_creation_time_counts = true,
    .preemption_enabled_by_default = true,
    .name_charset = NameCharset::kWide,
    .state_dump_file_path_is_error = true,
    .recovery_updates_known_asks = true,
    .recovered_placeholder_joins_task_group = true,
    .resize_in_place = true,
    .foreign_changes_keep_node_order = true,
    .namespace_tags_set_guarantee_and_apps = true,
    .asks_are_pods = true,
    .reservations_time_out = true,
    .quota_preemption = true,
    .root_max_prunes_zeros = true,
};

// The share of one type against a denominator resource (YuniKorn 1.6+): found only when the
// denominator defines the type; a denominator of zero or less makes any usage a full share.
bool ShareAgainst(int type, int64_t used, const std::optional<Resource>& denominator,
                  double* share) {
  if (!denominator || !denominator->Has(type)) return false;
  int64_t d = denominator->Get(type);
  if (d <= 0) {
    *share = used <= 0 ? 0.0 : 1.0;
  } else {
    *share = static_cast<double>(used) / static_cast<double>(d);
  }
  return true;
}

}  // namespace

const Profile& ProfileFor(Semantics semantics) {
  return semantics == Semantics::kYunikorn19 ? kYunikorn19Profile : kYunikorn12Profile;
}

ShareKey ChildSharesByEveryType(const Resource& allocated,
                                const std::optional<Resource>& guaranteed,
                                const std::optional<Resource>& /*fair_max*/) {
  return Shares(allocated, guaranteed);
}

ShareKey ChildShareDominant(const Resource& allocated, const std::optional<Resource>& guaranteed,
                            const std::optional<Resource>& fair_max) {
  double dominant = 0;
  for (int k = 0; k < kMaxResourceTypes; ++k) {
    if (!allocated.Has(k)) continue;
    int64_t used = allocated.Get(k);
    if (used < 0) continue;
    double share = 0;
    if (ShareAgainst(k, used, guaranteed, &share) || ShareAgainst(k, used, fair_max, &share)) {
      dominant = std::max(dominant, share);
    }
  }
  ShareKey key{};
  key[0] = dominant;
  return key;
}

bool LevelMaxAllowsWhole(const Resource& max, const Resource& allocated, const Resource& delta,
                         bool /*root*/) {
  // FitInMaxUndef(max, Add(allocated, delta)) without building the sum: the types both name.
  for (ResourceMask m = max.present & (allocated.present | delta.present); m != 0; m &= m - 1) {
    const int k = __builtin_ctz(m);
    const int64_t cap = max.Get(k) > 0 ? max.Get(k) : 0;
    if (SaturatingAdd(allocated.Get(k), delta.Get(k)) > cap) return false;
  }
  return true;
}

bool LevelMaxAllowsRequestedTypes(const Resource& max, const Resource& allocated,
                                  const Resource& delta, bool root) {
  for (int k = 0; k < kMaxResourceTypes; ++k) {
    if (!delta.Has(k)) continue;
    if (!max.Has(k) && !root) continue;
    int64_t limit = max.Has(k) ? std::max<int64_t>(0, max.Get(k)) : 0;
    if (SaturatingAdd(delta.Get(k), allocated.Get(k)) > limit) return false;
  }
  return true;
}

}  // namespace allocore::internal
