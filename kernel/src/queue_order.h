// kernel/src/queue_order.h — the order of child queues in their parent (§5.1) and of
// applications in their leaf (§5.2): the keys, how they are derived, and what
// the btrees of the partition's order caches hold.
//
// YuniKorn compares child queues and applications by priority and by "fair share": the list
// of per-type usage shares, compared from the largest share down (compareShares, §1.5). With
// non-negative shares that comparison is a lexicographic comparison of the shares sorted in
// descending order and padded with zeros, so a share list becomes a fixed-size key and the
// whole order can live in a btree that is repaired by erase + insert when one key changes.
#ifndef ALLOCORE_KERNEL_SRC_QUEUE_ORDER_H_
#define ALLOCORE_KERNEL_SRC_QUEUE_ORDER_H_

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <tuple>

#include "absl/container/btree_set.h"
#include "allocore/resource.h"
#include "queue_properties.h"

namespace allocore::internal {

using ShareKey = std::array<double, kMaxResourceTypes>;

// shares(R, T) of §1.5, sorted descending, zero padded. Types of `usage` only.
inline ShareKey Shares(const Resource& usage, const std::optional<Resource>& guaranteed) {
  ShareKey key{};
  int n = 0;
  for (ResourceMask m = usage.present; m != 0; m &= m - 1) {
    const int k = __builtin_ctz(m);
    int64_t v = usage.Get(k);
    double share = 0.0;
    if (v != 0) {
      int64_t denominator = guaranteed && guaranteed->Has(k) ? guaranteed->Get(k) : 0;
      share = denominator == 0 ? static_cast<double>(v)
                               : static_cast<double>(v) / static_cast<double>(denominator);
    }
    // Insertion into the descending prefix (at most kMaxResourceTypes entries).
    int i = n++;
    while (i > 0 && key[static_cast<size_t>(i - 1)] < share) {
      key[static_cast<size_t>(i)] = key[static_cast<size_t>(i - 1)];
      --i;
    }
    key[static_cast<size_t>(i)] = share;
  }
  return key;
}

// Position of a child queue in its parent, or an application in its leaf.
// (first, shares, second, pending) is the comparison key, `tiebreak` the deterministic
// fallback (configuration / submission order) and `slot` identifies the entity. `pending`
// (child queues only) is minus the total pending over all types: a child whose pending
// dominates another's has a strictly larger total, so "more pending first" — YuniKorn's last
// comparison — always holds, and incomparable pending is ordered by total, then tiebreak.
__extension__ typedef __int128 PendingRank;

struct OrderKey {
  int64_t first = 0;
  ShareKey shares{};
  int64_t second = 0;
  PendingRank pending = 0;
  int64_t tiebreak = 0;
  uint32_t slot = 0;

  friend bool operator<(const OrderKey& a, const OrderKey& b) {
    return std::tie(a.first, a.shares, a.second, a.pending, a.tiebreak, a.slot) <
           std::tie(b.first, b.shares, b.second, b.pending, b.tiebreak, b.slot);
  }
  friend bool operator==(const OrderKey& a, const OrderKey& b) = default;
};

// §5.1: a child queue's key in its parent. Its fair share (the profile's rule,
// semantics_profile.h); its effective priority first when the parent sorts by priority, else
// after the shares; more pending first; configuration order last.
inline OrderKey ChildQueueKey(const ShareKey& shares, const Resource& pending, int32_t priority,
                              bool parent_sorts_by_priority, int64_t sibling_order, uint32_t slot) {
  OrderKey key;
  key.shares = shares;
  if (parent_sorts_by_priority) {
    key.first = -int64_t{priority};
  } else {
    key.second = -int64_t{priority};
  }
  PendingRank total = 0;  // absent types hold 0 (invariant 1 of allocore/resource.h)
  for (ResourceMask m = pending.present; m != 0; m &= m - 1) {
    total += pending.value[static_cast<size_t>(__builtin_ctz(m))];
  }
  key.pending = -total;
  key.tiebreak = sibling_order;
  key.slot = slot;
  return key;
}

// §5.2: an application's key in its leaf. fair: share of its real allocation (`allocated` less
// its placeholders) against the leaf's guarantee, priority first or after the shares as the leaf
// says; fifo and stateaware: priority when the leaf sorts by it, then submission time (0 when the
// profile orders by submission alone), then submission order.
inline OrderKey ApplicationKey(AppSortPolicy policy, bool leaf_sorts_by_priority,
                               const Resource& allocated, const Resource& allocated_placeholder,
                               const std::optional<Resource>& leaf_guaranteed, int32_t priority,
                               int64_t submission_time, int64_t submission_seq, uint32_t slot) {
  OrderKey key;
  if (policy == AppSortPolicy::kFair) {
    key.shares = Shares(Sub(allocated, allocated_placeholder), leaf_guaranteed);
    if (leaf_sorts_by_priority) {
      key.first = -int64_t{priority};
    } else {
      key.second = -int64_t{priority};
    }
  } else {
    if (leaf_sorts_by_priority) key.first = -int64_t{priority};
    key.second = submission_time;
  }
  key.tiebreak = submission_seq;
  key.slot = slot;
  return key;
}

// What an order's btree holds for one member: the leading part of its OrderKey, and the slot
// that finds the whole key (Partition::app_keys_, queue_keys_). 32 bytes instead of 112,
// so a btree node holds 7 members rather than 2 and the tree is a third as deep. Most
// comparisons end on `first` or `top_share`; when both members are `whole` (their other shares,
// `second` and `pending` are zero: every application of a FIFO leaf, and every application
// with nothing allocated yet) the entry is the whole key. Only the rest read the full keys.
struct OrderEntry {
  int64_t first = 0;
  double top_share = 0;
  int64_t tiebreak = 0;
  uint32_t slot = 0;
  bool whole = false;
  bool app = false;  // slot names an application (leaf order), else a child queue
  friend bool operator==(const OrderEntry& a, const OrderEntry& b) = default;
};
static_assert(sizeof(OrderEntry) <= 32);

inline OrderEntry EntryOf(const OrderKey& key, bool app) {
  bool rest_zero = key.second == 0 && key.pending == 0;
  for (size_t i = 1; i < key.shares.size() && rest_zero; ++i) rest_zero = key.shares[i] == 0;
  return {.first = key.first,
          .top_share = key.shares[0],
          .tiebreak = key.tiebreak,
          .slot = key.slot,
          .whole = rest_zero,
          .app = app};
}

class Partition;

// Orders entries exactly as operator< orders their full keys; the partition finds those.
class OrderEntryLess {
 public:
  OrderEntryLess() = default;
  explicit OrderEntryLess(const Partition* partition) : partition_(partition) {}
  bool operator()(const OrderEntry& a, const OrderEntry& b) const {
    if (a.first != b.first) return a.first < b.first;
    if (a.top_share != b.top_share) return a.top_share < b.top_share;
    if (a.whole && b.whole) [[likely]] {
      if (a.tiebreak != b.tiebreak) return a.tiebreak < b.tiebreak;
      return a.slot < b.slot;
    }
    return FullLess(a, b);
  }

 private:
  bool FullLess(const OrderEntry& a, const OrderEntry& b) const;  // partition_caches.cc
  const Partition* partition_ = nullptr;
};

// A parent's children or a leaf's applications with pending > 0, in scheduling order.
using Order = absl::btree_set<OrderEntry, OrderEntryLess>;

}  // namespace allocore::internal

#endif  // ALLOCORE_KERNEL_SRC_QUEUE_ORDER_H_
