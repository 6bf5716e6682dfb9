// User and group limits (YuniKorn 1.4+ enforcement, semantics Appendix A.2).
//
// A limit names users and/or groups (or the wildcard "*") of a queue and caps the running
// applications and/or the allocated resources they hold in that queue's subtree. Enforcement
// never loses work: an Accepted application over a running-app limit waits, and an ask over a
// resource limit is skipped until usage goes down.
#include <algorithm>

#include "message.h"
#include "partition.h"

namespace allocore::internal {

absl::Status Partition::ApplyLimits(const QueueConfig& config, uint32_t queue,
                                    const std::vector<LimitConfig>* partition_limits) {
  const std::vector<LimitConfig>* limits = &config.limits;
  // Partition-level limits apply to the root when the root has none of its own.
  if (limits->empty() && partition_limits != nullptr) limits = partition_limits;
  std::unique_ptr<QueueLimits> previous = std::move(queue_side_[queue].limits);
  if (limits->empty()) return absl::OkStatus();
  auto built = std::make_unique<QueueLimits>();
  for (const LimitConfig& lc : *limits) {
    Limit limit;
    limit.max_apps = lc.max_applications;
    if (lc.max_resources) {
      auto r = ToLimit(lc.max_resources);
      if (!r.ok()) return r.status();
      limit.max_resources = *r;
    }
    for (const std::string& user : lc.users) {
      if (user == "*") {
        built->any_user = limit;
      } else {
        built->users.try_emplace(user, limit);
      }
    }
    for (const std::string& group : lc.groups) {
      if (group == "*") {
        built->any_group = limit;
      } else if (built->groups.try_emplace(group, limit).second) {
        built->group_order.push_back(group);
      }
    }
  }
  // Usage survives a reload: it describes running applications, not configuration.
  if (previous) {
    built->user_usage = std::move(previous->user_usage);
    built->group_usage = std::move(previous->group_usage);
  }
  queue_side_[queue].limits = std::move(built);
  has_limits_ = true;
  return absl::OkStatus();
}

std::string_view Partition::ChooseLimitGroup(uint32_t app) const {
  const App& a = apps_[app];
  const AppSide& a_side = app_side_[app];
  for (uint32_t q = a.queue; q != kNoSlot; q = queues_[q].parent) {
    const QueueLimits* limits = queue_side_[q].limits.get();
    if (limits == nullptr) continue;
    for (const std::string& group : limits->group_order) {
      for (std::string_view g : a_side.groups) {
        if (g == group) return g;
      }
    }
    if (limits->any_group && !a_side.groups.empty()) return a_side.groups.front();
  }
  return {};
}

namespace {

const Limit* UserLimit(const QueueLimits& limits, std::string_view user) {
  auto it = limits.users.find(absl::string_view(user.data(), user.size()));
  if (it != limits.users.end()) return &it->second;
  return limits.any_user ? &*limits.any_user : nullptr;
}

const Limit* GroupLimit(const QueueLimits& limits, std::string_view group) {
  if (group.empty()) return nullptr;
  auto it = limits.groups.find(absl::string_view(group.data(), group.size()));
  if (it != limits.groups.end()) return &it->second;
  return limits.any_group ? &*limits.any_group : nullptr;
}

int64_t RunningOf(const absl::flat_hash_map<std::string_view, LimitUsage>& usage,
                  std::string_view who) {
  auto it = usage.find(who);
  return it == usage.end() ? 0 : it->second.running_apps;
}

Resource AllocatedOf(const absl::flat_hash_map<std::string_view, LimitUsage>& usage,
                     std::string_view who) {
  auto it = usage.find(who);
  return it == usage.end() ? Resource{} : it->second.allocated;
}

}  // namespace

bool Partition::LimitsAllowNewApp(uint32_t app, std::string* why) const {
  const App& a = apps_[app];
  const AppSide& a_side = app_side_[app];
  if (!has_limits_ || a_side.counted_in_limits) return true;
  for (uint32_t q = a.queue; q != kNoSlot; q = queues_[q].parent) {
    const QueueLimits* limits = queue_side_[q].limits.get();
    if (limits == nullptr) continue;
    const Limit* user = UserLimit(*limits, a_side.user);
    if (user != nullptr && user->max_apps != 0 &&
        static_cast<uint64_t>(RunningOf(limits->user_usage, a_side.user)) + 1 > user->max_apps) {
      if (why != nullptr) {
        *why = Cat("user ", a_side.user, " reached maxapplications ", user->max_apps, " of queue ",
                   queue_side_[q].path);
      }
      return false;
    }
    const Limit* group = GroupLimit(*limits, a_side.limit_group);
    if (group != nullptr && group->max_apps != 0 &&
        static_cast<uint64_t>(RunningOf(limits->group_usage, a_side.limit_group)) + 1 >
            group->max_apps) {
      if (why != nullptr) {
        *why = Cat("group ", a_side.limit_group, " reached maxapplications ", group->max_apps,
                   " of queue ", queue_side_[q].path);
      }
      return false;
    }
  }
  return true;
}

std::optional<Resource> Partition::LimitHeadroom(uint32_t app) const {
  if (!has_limits_) return std::nullopt;
  const App& a = apps_[app];
  const AppSide& a_side = app_side_[app];
  std::optional<Resource> headroom;
  auto narrow = [&](const Limit* limit, const Resource& used) {
    if (limit == nullptr || !limit->max_resources) return;
    Resource remaining;
    for (int k = 0; k < kMaxResourceTypes; ++k) {
      if (limit->max_resources->Has(k)) {
        remaining.Set(k, SaturatingSub(limit->max_resources->Get(k), used.Get(k)));
      }
    }
    headroom = headroom ? PermissiveMin(*headroom, remaining) : remaining;
  };
  for (uint32_t q = a.queue; q != kNoSlot; q = queues_[q].parent) {
    const QueueLimits* limits = queue_side_[q].limits.get();
    if (limits == nullptr) continue;
    narrow(UserLimit(*limits, a_side.user), AllocatedOf(limits->user_usage, a_side.user));
    narrow(GroupLimit(*limits, a_side.limit_group),
           AllocatedOf(limits->group_usage, a_side.limit_group));
  }
  return headroom;
}

void Partition::TrackLimitUsage(uint32_t app, const Resource& amount, bool release,
                                int64_t running_delta) {
  if (!has_limits_) return;
  App& a = apps_[app];
  AppSide& a_side = app_side_[app];
  for (uint32_t q = a.queue; q != kNoSlot; q = queues_[q].parent) {
    QueueLimits* limits = queue_side_[q].limits.get();
    if (limits == nullptr) continue;
    auto update = [&](absl::flat_hash_map<std::string_view, LimitUsage>& usage,
                      std::string_view who) {
      LimitUsage& u = usage[who];
      u.allocated = release ? SubClampNegative(u.allocated, amount) : Add(u.allocated, amount);
      u.running_apps = std::max<int64_t>(0, u.running_apps + running_delta);
    };
    update(limits->user_usage, a_side.user);
    if (!a_side.limit_group.empty()) update(limits->group_usage, a_side.limit_group);
  }
}

}  // namespace allocore::internal
