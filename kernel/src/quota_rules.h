// kernel/src/quota_rules.h — the resource comparisons quota-change preemption (yunikorn-1.9,
// kernel/README "Quota-change preemption") is decided by, as YuniKorn 1.9 defines them.
//
// They differ from the comparisons the walk uses in how a type missing on one side counts, and
// that difference decides whether a queue is "over its max", which allocations are victims and
// in which order. A null `const Resource*` is YuniKorn's nil resource (no max, no guarantee);
// a Resource with nothing present is its empty one.
#ifndef ALLOCORE_KERNEL_SRC_QUOTA_RULES_H_
#define ALLOCORE_KERNEL_SRC_QUOTA_RULES_H_

#include <cstdint>

#include "allocore/resource.h"

namespace allocore::internal {

// YuniKorn's StrictlyGreaterThanOrEqualsOnlyExisting: `larger` takes `smaller` on the types
// both define. Without a common type: true when both define something; when `smaller` defines
// nothing, true when every type of `larger` is above 0. "Usage within max" is this on
// (max, allocated); a null max is within nothing.
bool CoversOnCommonTypes(const Resource* larger, const Resource& smaller);

// YuniKorn's Equals: both null, or the same quantity on every type either defines (a missing
// type reads 0); null never equals a resource.
bool SameLimit(const Resource* a, const Resource* b);

// Go's StrictlyGreaterThan with a null side read as empty (missing types read 0).
bool RaisedOrLowered(const Resource* larger, const Resource* smaller);

// base - delta on the types of `base` only.
Resource SubOnBaseTypes(const Resource& base, const Resource& delta);

// Per type of `left`: the smaller of left and right where right defines it, else left.
Resource MinOnLeftTypes(const Resource& left, const Resource& right);

// Some type of `a` is a type of `b`.
bool SharesAType(const Resource& a, const Resource& b);

// How many of `wanted`'s types `r` has, times 100, divided by how many types `r` has
// (YuniKorn's TypeMatching; 0 when `r` has none).
uint64_t TypeMatchPercent(const Resource& r, const Resource& wanted);

// YuniKorn's CompUsageRatioSpecificTypes: -1, 0 or 1 as `left`'s shares of `total` (the raw
// quantity where `total` lacks the type or holds 0; types at 0 have no share) on `wanted`'s
// types, largest first, compare with `right`'s.
int CompareSharesOnTypes(const Resource& left, const Resource& right, const Resource* total,
                         const Resource& wanted);

}  // namespace allocore::internal

#endif  // ALLOCORE_KERNEL_SRC_QUOTA_RULES_H_
