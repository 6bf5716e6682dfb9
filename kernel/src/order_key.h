// kernel/src/order_key.h — sort keys for child queues and applications.
//
// YuniKorn compares child queues and applications by priority and by "fair share": the list
// of per-type usage shares, compared from the largest share down (compareShares, §1.5). With
// non-negative shares that comparison is a lexicographic comparison of the shares sorted in
// descending order and padded with zeros, so a share list becomes a fixed-size key and the
// whole order can live in a btree that is repaired by erase + insert when one key changes.
#ifndef ALLOCORE_KERNEL_SRC_ORDER_KEY_H_
#define ALLOCORE_KERNEL_SRC_ORDER_KEY_H_

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <tuple>

#include "allocore/resource.h"

namespace allocore::internal {

using ShareKey = std::array<double, kMaxResourceTypes>;

// shares(R, T) of §1.5, sorted descending, zero padded. Types of `usage` only.
inline ShareKey Shares(const Resource& usage, const std::optional<Resource>& guaranteed) {
  ShareKey key{};
  int n = 0;
  for (int k = 0; k < kMaxResourceTypes; ++k) {
    if (!usage.Has(k)) continue;
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

}  // namespace allocore::internal

#endif  // ALLOCORE_KERNEL_SRC_ORDER_KEY_H_
