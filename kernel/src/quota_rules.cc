#include "quota_rules.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <functional>

#include "resource_mask.h"

namespace allocore::internal {
namespace {

const Resource& OrEmpty(const Resource* r) {
  static constexpr Resource kEmpty{};
  return r == nullptr ? kEmpty : *r;
}

// The shares of `r` of `total` on the types of `wanted` that `r` holds a non-zero quantity of,
// largest first; returns how many.
size_t SharesLargestFirst(const Resource& r, const Resource* total, const Resource& wanted,
                          std::array<double, kMaxResourceTypes>* shares) {
  size_t n = 0;
  ForEachType(wanted.present & r.present, [&](int k) {
    if (r.Get(k) == 0) return;
    const int64_t whole = total != nullptr && total->Has(k) ? total->Get(k) : 0;
    (*shares)[n++] = whole == 0 ? static_cast<double>(r.Get(k))
                                : static_cast<double>(r.Get(k)) / static_cast<double>(whole);
  });
  std::sort(shares->begin(), shares->begin() + static_cast<std::ptrdiff_t>(n), std::greater<>());
  return n;
}

}  // namespace

bool CoversOnCommonTypes(const Resource* larger_or_null, const Resource& smaller) {
  const Resource& larger = OrEmpty(larger_or_null);
  const bool smaller_empty = smaller.present == 0;
  const bool larger_empty = larger.present == 0;
  bool all_positive = true;
  bool common = false;
  bool exceeded = false;
  ForEachType(larger.present, [&](int k) {
    if (smaller_empty && larger.Get(k) <= 0) all_positive = false;
    if (!smaller.Has(k)) return;
    common = true;
    if (smaller.Get(k) > larger.Get(k)) exceeded = true;
  });
  if (exceeded) return false;
  if (smaller_empty && !larger_empty) return all_positive;
  if (common) return true;
  return !larger_empty && !smaller_empty;
}

bool SameLimit(const Resource* a, const Resource* b) {
  if (a == nullptr || b == nullptr) return a == b;
  bool same = true;
  ForEachType(a->present | b->present, [&](int k) {
    if (a->Get(k) != b->Get(k)) same = false;
  });
  return same;
}

bool RaisedOrLowered(const Resource* larger, const Resource* smaller) {
  return StrictlyGreaterThan(OrEmpty(larger), OrEmpty(smaller));
}

Resource SubOnBaseTypes(const Resource& base, const Resource& delta) {
  Resource out;
  ForEachType(base.present, [&](int k) { out.Set(k, SaturatingSub(base.Get(k), delta.Get(k))); });
  return out;
}

Resource MinOnLeftTypes(const Resource& left, const Resource& right) {
  Resource out;
  ForEachType(left.present, [&](int k) {
    out.Set(k, right.Has(k) ? std::min(left.Get(k), right.Get(k)) : left.Get(k));
  });
  return out;
}

bool SharesAType(const Resource& a, const Resource& b) { return (a.present & b.present) != 0; }

uint64_t TypeMatchPercent(const Resource& r, const Resource& wanted) {
  const int own = __builtin_popcount(r.present);
  if (own == 0) return 0;
  const int matching = __builtin_popcount(r.present & wanted.present);
  return static_cast<uint64_t>(matching * 100 / own);
}

int CompareSharesOnTypes(const Resource& left, const Resource& right, const Resource* total,
                         const Resource& wanted) {
  std::array<double, kMaxResourceTypes> l{};
  std::array<double, kMaxResourceTypes> r{};
  const size_t ln = SharesLargestFirst(left, total, wanted, &l);
  const size_t rn = SharesLargestFirst(right, total, wanted, &r);
  size_t i = 0;
  for (; i < ln && i < rn; ++i) {
    if (l[i] > r[i]) return 1;
    if (l[i] < r[i]) return -1;
  }
  // What is left on one side decides by its sign (a share of 0 never appears).
  for (size_t j = i; j < ln; ++j) {
    if (l[j] > 0) return 1;
    if (l[j] < 0) return -1;
  }
  for (size_t j = i; j < rn; ++j) {
    if (r[j] > 0) return -1;
    if (r[j] < 0) return 1;
  }
  return 0;
}

}  // namespace allocore::internal
