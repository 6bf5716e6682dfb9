// Quota-change preemption (yunikorn-1.9; YuniKorn 1.8's YUNIKORN-3133 and 1.9's phase 2,
// YUNIKORN-3203): a configured queue left above a lowered max gets a start time, and once the
// clock passes it the check that runs at every whole second takes allocations of the queue
// back until its usage is under the max, never taking what keeps a queue of its path within
// its guarantee. The rules are objects/queue.go (setPreemptionTime, IncAllocatedResource,
// tryAcquirePreemption, GetPreemptableResource) and objects/quota_preemptor.go of v1.9.0;
// where YuniKorn is random allocore's choices are kernel/README "Quota-change preemption".
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <tuple>

#include "message.h"
#include "partition.h"
#include "quota_rules.h"

namespace allocore::internal {
namespace {

constexpr int64_t kQuotaCheckEveryMs = 1'000;
constexpr int64_t kHourMs = 3'600'000;

// The first multiple of kQuotaCheckEveryMs strictly after `t` (saturating at the clock's end),
// and the first at or after `t`. A start time shifted before 0 gives 0: every caller takes the
// later of it and a check after the clock.
int64_t CheckAfter(int64_t t) {
  if (t < 0) return 0;
  return SaturatingAdd(t / kQuotaCheckEveryMs * kQuotaCheckEveryMs, kQuotaCheckEveryMs);
}
int64_t CheckAtOrAfter(int64_t t) { return CheckAfter(SaturatingSub(t, 1)); }

// A quantity's magnitude (-MinInt64 saturates).
int64_t Magnitude(int64_t v) { return v >= 0 ? v : SaturatingSub(0, v); }

}  // namespace

const Resource* Partition::QuotaMax(uint32_t queue) const {
  // The root's max is the cluster (YuniKorn sets it on every node change, nil when no quantity
  // is above zero).
  if (queue == root_)
    return StrictlyGreaterThanZero(cluster_capacity_) ? &cluster_capacity_ : nullptr;
  const Queue& q = queues_[queue];
  return q.max ? &*q.max : nullptr;
}

bool Partition::UsageWithinQuota(uint32_t queue) const {
  return CoversOnCommonTypes(QuotaMax(queue), queues_[queue].allocated);
}

void Partition::SetQuotaStart(uint32_t queue, std::optional<int64_t> start) {
  std::optional<int64_t>& current = queue_side_[queue].quota_start;
  if (current) quota_starts_.erase({*current, queue});
  if (start) quota_starts_.insert({*start, queue});
  current = start;
}

void Partition::QuotaConfigChanged(uint32_t queue, const std::optional<Resource>& old_max,
                                   int64_t old_delay) {
  const int64_t delay = queue_side_[queue].quota_delay_ms;
  if (delay == 0) return;
  const Resource* max = QuotaMax(queue);
  const std::optional<int64_t> start = queue_side_[queue].quota_start;
  if (max == nullptr || IsZero(*max) || UsageWithinQuota(queue)) {
    SetQuotaStart(queue, std::nullopt);
    return;
  }
  const Resource* before = old_max ? &*old_max : nullptr;
  const int64_t shift = SaturatingSub(delay, old_delay);
  const bool unchanged = SameLimit(before, max);
  const bool lowered = !unchanged && RaisedOrLowered(before, max);
  const bool raised = !unchanged && !lowered && RaisedOrLowered(max, before);
  if (!unchanged && !lowered && !raised) return;  // one type up, another down
  if (start) {
    // A start already set keeps its place; only a changed delay moves it (into the past too).
    if (old_delay != delay) SetQuotaStart(queue, SaturatingAdd(*start, shift));
    return;
  }
  // An unchanged max starts the clock only when the delay was just set; a raised one never.
  if (lowered || (unchanged && old_delay == 0)) {
    SetQuotaStart(queue, SaturatingAdd(context_->now, delay));
  }
}

void Partition::QuotaUsageRaised(uint32_t leaf) {
  if (!quota_preemption_enabled_) return;
  for (uint32_t q = leaf; q != kNoSlot; q = queues_[q].parent) {
    const QueueSide& side = queue_side_[q];
    if (side.quota_start || queues_[q].dynamic || side.quota_delay_ms == 0) continue;
    const Resource* max = QuotaMax(q);
    if (max == nullptr || IsZero(*max) || UsageWithinQuota(q)) continue;
    SetQuotaStart(q, SaturatingAdd(context_->now, side.quota_delay_ms));
  }
}

std::optional<int64_t> Partition::NextQuotaCheck(int64_t after) const {
  if (!quota_preemption_enabled_ || quota_starts_.empty()) return std::nullopt;
  std::optional<int64_t> next;
  for (const auto& [start_at, q] : quota_starts_) {
    // A queue back within its max has its start cleared by the next check; one above it runs
    // at the first check at or after its start.
    const int64_t at = UsageWithinQuota(q) ? CheckAfter(after)
                                           : std::max(CheckAfter(after), CheckAtOrAfter(start_at));
    if (!next || at < *next) next = at;
  }
  return next;
}

void Partition::QuotaCheck(std::vector<Decision>* out) {
  if (!quota_preemption_enabled_ || quota_starts_.empty() || root_ == kNoSlot) return;
  // Top down from the root, children in configuration order; a queue that runs is enforced as
  // a whole, so its subtree is not visited in this check.
  std::vector<uint32_t> stack{root_};
  while (!stack.empty()) {
    const uint32_t q = stack.back();
    stack.pop_back();
    const Queue& queue = queues_[q];
    if (!queue.dynamic) {
      const std::optional<int64_t> start = queue_side_[q].quota_start;
      if (UsageWithinQuota(q)) {
        SetQuotaStart(q, std::nullopt);
      } else if (start && context_->now >= *start) {
        SetQuotaStart(q, std::nullopt);
        RunQuotaPreemption(q, out);
        continue;
      }
    }
    if (queue.leaf) continue;
    std::vector<uint32_t> children = ChildrenInConfigOrder(q);
    for (auto it = children.rbegin(); it != children.rend(); ++it) stack.push_back(*it);
  }
}

std::vector<uint32_t> Partition::ChildrenInConfigOrder(uint32_t parent) const {
  std::vector<uint32_t> children;
  for (uint32_t c : queues_[parent].children) {
    if (queues_[c].alive) children.push_back(c);
  }
  std::stable_sort(children.begin(), children.end(), [&](uint32_t a, uint32_t b) {
    return queues_[a].sibling_order < queues_[b].sibling_order;
  });
  return children;
}

Resource Partition::QuotaPathPreemptable(uint32_t queue) const {
  // Per queue of the path: what it holds above its guarantee (negative: below it), or all it
  // holds without one; the permissive minimum over the path.
  Resource out;
  for (uint32_t q = queue; q != kNoSlot; q = queues_[q].parent) {
    const Queue& level = queues_[q];
    const Resource own =
        level.guaranteed ? SubOnBaseTypes(*level.guaranteed, level.allocated) : level.allocated;
    out = q == queue ? own : PermissiveMin(own, out);
  }
  return out;
}

std::optional<Resource> Partition::QuotaPreemptable(uint32_t queue) const {
  const Resource* max = QuotaMax(queue);
  const Resource& used = queues_[queue].allocated;
  if (max == nullptr || max->present == 0 || used.present == 0) return std::nullopt;
  // The amount above the max, bounded per type by the largest amount a queue of the path that
  // has a guarantee for the type is above it.
  Resource over;
  const Resource headroom = SubOnBaseTypes(*max, used);
  const Resource path = QuotaPathPreemptable(queue);
  Resource path_over;
  for (int k = 0; k < kMaxResourceTypes; ++k) {
    if (headroom.Has(k) && headroom.Get(k) < 0) over.Set(k, Magnitude(headroom.Get(k)));
    if (path.Has(k) && path.Get(k) < 0) path_over.Set(k, Magnitude(path.Get(k)));
  }
  Resource preemptable = MinOnLeftTypes(over, path_over);
  if (preemptable.present == 0) return std::nullopt;
  return preemptable;
}

void Partition::ShareQuotaAmongChildren(uint32_t parent, const Resource& amount,
                                        std::vector<QuotaTarget>* targets) const {
  // Each child above its guarantee (or with usage and no guarantee) weighs what it holds above
  // it per type (with a guarantee: |guarantee - usage| on the guarantee's types, as YuniKorn
  // counts it), and takes that part of the amount, rounded down.
  std::vector<std::pair<uint32_t, Resource>> weights;
  Resource total;
  for (uint32_t c : ChildrenInConfigOrder(parent)) {
    const Queue& child = queues_[c];
    const Resource* guaranteed = child.guaranteed ? &*child.guaranteed : nullptr;
    if (child.allocated.present == 0 || CoversOnCommonTypes(guaranteed, child.allocated)) {
      continue;
    }
    const Resource used = guaranteed != nullptr && guaranteed->present != 0
                              ? SubOnBaseTypes(*guaranteed, child.allocated)
                              : child.allocated;
    Resource weight;
    for (int k = 0; k < kMaxResourceTypes; ++k) {
      if (used.Has(k)) weight.Set(k, Magnitude(used.Get(k)));
    }
    AddTo(&total, weight);
    weights.emplace_back(c, weight);
  }
  for (const auto& [c, weight] : weights) {
    Resource share;
    for (int k = 0; k < kMaxResourceTypes; ++k) {
      if (!weight.Has(k) || !amount.Has(k)) continue;
      const double part = weight.Get(k) == 0  ? 0.0
                          : total.Get(k) == 0 ? static_cast<double>(weight.Get(k))
                                              : static_cast<double>(weight.Get(k)) /
                                                    static_cast<double>(total.Get(k));
      const double value = std::floor(part * static_cast<double>(amount.Get(k)));
      // Within int64 (a share is at most the whole amount, but doubles round).
      constexpr double kLimit = 9.2e18;
      share.Set(k, value >= kLimit    ? std::numeric_limits<int64_t>::max()
                   : value <= -kLimit ? std::numeric_limits<int64_t>::min()
                                      : static_cast<int64_t>(value));
    }
    if (queues_[c].leaf) {
      targets->push_back({c, share});
    } else {
      ShareQuotaAmongChildren(c, share, targets);
    }
  }
}

std::vector<uint32_t> Partition::QuotaVictims(uint32_t leaf, const Resource& preemptable) const {
  std::vector<uint32_t> candidates;
  if (IsZero(preemptable)) return candidates;
  for (const auto& [submission, app] : queues_[leaf].apps) {
    for (const auto& [first_seq, ask] : app_side_[app].asks) {
      for (uint32_t slot : asks_[ask].allocations) {
        const Allocation& a = allocations_[slot];
        if (a.required_node || !SharesAType(preemptable, a.resource)) continue;
        candidates.push_back(slot);
      }
    }
  }
  // Opted-out allocations first, then originators, then by the share of the queue's types;
  // lower priority, a younger hour of creation, a smaller share of the leaf's max on the
  // preemptable types first; YuniKorn is random among equals: the newer allocation first.
  const Resource* total = QuotaMax(leaf);
  auto score = [&](const Allocation& a) {
    uint64_t s = 0;
    if (a.originator) s |= uint64_t{1} << 33;
    if (!a.allow_preemption) s |= uint64_t{1} << 34;
    return s + TypeMatchPercent(a.resource, preemptable);
  };
  auto hour = [](const Allocation& a) {
    return a.ask_create_time >= 0 ? a.ask_create_time / kHourMs
                                  : -((-a.ask_create_time + kHourMs - 1) / kHourMs);
  };
  std::vector<std::tuple<uint64_t, int32_t, int64_t, uint32_t>> keyed;
  keyed.reserve(candidates.size());
  for (uint32_t slot : candidates) {
    const Allocation& a = allocations_[slot];
    keyed.emplace_back(score(a), a.priority, hour(a), slot);
  }
  std::sort(keyed.begin(), keyed.end(), [&](const auto& l, const auto& r) {
    if (std::get<0>(l) != std::get<0>(r)) return std::get<0>(l) > std::get<0>(r);
    if (std::get<1>(l) != std::get<1>(r)) return std::get<1>(l) < std::get<1>(r);
    if (std::get<2>(l) != std::get<2>(r)) return std::get<2>(l) > std::get<2>(r);
    const Allocation& la = allocations_[std::get<3>(l)];
    const Allocation& ra = allocations_[std::get<3>(r)];
    const int shares = CompareSharesOnTypes(la.resource, ra.resource, total, preemptable);
    if (shares != 0) return shares < 0;
    return la.age > ra.age;
  });
  // Best effort: each in order that keeps the running total within the amount.
  std::vector<uint32_t> victims;
  Resource taken;
  for (const auto& entry : keyed) {
    const uint32_t slot = std::get<3>(entry);
    const Resource& r = allocations_[slot].resource;
    if (!FitInMaxUndef(preemptable, r)) continue;
    Resource with = Add(taken, r);
    if (!CoversOnCommonTypes(&preemptable, with)) continue;
    taken = with;
    victims.push_back(slot);
  }
  return victims;
}

void Partition::RunQuotaPreemption(uint32_t queue, std::vector<Decision>* out) {
  const std::optional<Resource> preemptable = QuotaPreemptable(queue);
  std::vector<QuotaTarget> targets;
  if (queues_[queue].leaf) {
    targets.push_back({queue, preemptable.value_or(Resource{})});
  } else if (preemptable) {
    // (YuniKorn dereferences a nil amount here and stops; with nothing to take, allocore
    // takes nothing.)
    ShareQuotaAmongChildren(queue, *preemptable, &targets);
  }
  std::vector<std::pair<uint32_t, int64_t>> victims;  // (allocation, age)
  for (const QuotaTarget& target : targets) {
    for (uint32_t slot : QuotaVictims(target.leaf, target.preemptable)) {
      victims.emplace_back(slot, allocations_[slot].age);
    }
  }
  Decision record;
  record.type = DecisionType::kQuotaPreemption;
  record.partition = name_;
  record.queue = queue_side_[queue].path;
  record.count = static_cast<int64_t>(victims.size());
  const Resource* max = QuotaMax(queue);
  auto run = std::make_shared<const QuotaPreemptionDetail>(
      QuotaPreemptionDetail{.queue = queue_side_[queue].path,
                            .max = max != nullptr ? std::optional<Resource>(*max) : std::nullopt,
                            .preemptable = preemptable.value_or(Resource{})});
  record.quota = run;
  out->push_back(std::move(record));
  for (auto [slot, age] : victims) {
    // A release's follow-ups cannot take another victim today; the age check says so for sure.
    if (!allocations_[slot].live || allocations_[slot].age != age) continue;
    const uint32_t app = allocations_[slot].app;
    const uint32_t ask = allocations_[slot].ask;
    const bool placeholder = allocations_[slot].placeholder;
    ReleaseAllocationSlot(slot, ReleaseReason::kQuota, out);
    out->back().quota = run;
    // As a general preemption's victim: the ask stays known until remove_ask (kernel/README,
    // asks as pods), unless it was removed while this allocation lived.
    if (ask_hot_[ask].removed && asks_[ask].allocations.empty()) RemoveAskSlot(ask);
    if (placeholder) {
      PlaceholderGone(app, out);
    } else {
      CheckCompletion(app, out, /*ask_removal=*/false);
    }
  }
}

std::string Partition::QuotaPreemptionNote(uint32_t queue) const {
  if (!quota_preemption_enabled_) return "";
  const std::optional<int64_t> start = queue_side_[queue].quota_start;
  if (!start || UsageWithinQuota(queue)) return "";
  const int64_t at = std::max(CheckAfter(context_->now), CheckAtOrAfter(*start));
  return Cat("; ", queue_side_[queue].path, " is above its max: quota-change preemption at t=", at,
             "ms");
}

}  // namespace allocore::internal
