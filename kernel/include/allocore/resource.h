// allocore/resource.h — fixed-width resource vectors with a presence mask.
//
// A Resource holds up to kMaxResourceTypes int64 quantities indexed by an interned resource
// type id (see ResourceTypes). The presence mask distinguishes "type not set" from "set to 0",
// which YuniKorn's rules depend on (a node that reports `gpu: 0` defines gpu; an unset type in
// a queue limit is unlimited).
//
// Invariants:
//   1. value[i] == 0 whenever bit i of `present` is clear.
//   2. Arithmetic saturates at the int64 bounds instead of wrapping (YuniKorn's rule). The
//      kernel itself keeps every aggregate exact by refusing the calls that would saturate
//      (share/doc/allocore/kernel/README.md, decision 22), using the *Exact forms below.
//
// All functions are pure and O(kMaxResourceTypes).

#ifndef ALLOCORE_RESOURCE_H_
#define ALLOCORE_RESOURCE_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "allocore/export.h"

namespace allocore {

inline constexpr int kMaxResourceTypes = 8;

using ResourceMask = uint32_t;

struct Resource {
  std::array<int64_t, kMaxResourceTypes> value{};
  ResourceMask present = 0;

  bool Has(int type) const { return (present >> type) & 1u; }
  int64_t Get(int type) const { return value[static_cast<size_t>(type)]; }
  void Set(int type, int64_t v) {
    value[static_cast<size_t>(type)] = v;
    present |= ResourceMask{1} << type;
  }
  bool operator==(const Resource&) const = default;
};

// Saturating int64 arithmetic (YuniKorn §1.3: overflow gives MaxInt64, or MinInt64 when the
// left operand was negative).
inline int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t out;
  if (__builtin_add_overflow(a, b, &out)) {
    return a < 0 ? INT64_MIN : INT64_MAX;
  }
  return out;
}
// Subtraction is addition of the negated right value; negating MinInt64 wraps to MinInt64,
// as in YuniKorn.
inline int64_t SaturatingSub(int64_t a, int64_t b) {
  return SaturatingAdd(a, b == INT64_MIN ? INT64_MIN : -b);
}
ALLOCORE_EXPORT int64_t SaturatingMul(int64_t a, int64_t b);

// Union of types; per-type saturating sum / difference. Zero results stay present.
ALLOCORE_EXPORT Resource Add(const Resource& a, const Resource& b);
ALLOCORE_EXPORT Resource Sub(const Resource& a, const Resource& b);
// Union subtraction, then negative entries clamped to 0.
ALLOCORE_EXPORT Resource SubClampNegative(const Resource& a, const Resource& b);
// True when every value of both lies in [-2^62, 2^62): sums and differences cannot overflow,
// so plain (vectorisable) arithmetic gives the saturating result.
// In place: a += b, a -= b, a -= b clamped at 0. Only the types a mask names are visited (absent
// types hold 0, invariant 1, so the others stay 0): most resources name two or three types.
inline void AddTo(Resource* a, const Resource& b) {
  a->present |= b.present;
  for (ResourceMask m = b.present; m != 0; m &= m - 1) {
    const auto k = static_cast<size_t>(__builtin_ctz(m));
    a->value[k] = SaturatingAdd(a->value[k], b.value[k]);
  }
}
inline void SubFrom(Resource* a, const Resource& b) {
  a->present |= b.present;
  for (ResourceMask m = b.present; m != 0; m &= m - 1) {
    const auto k = static_cast<size_t>(__builtin_ctz(m));
    a->value[k] = SaturatingSub(a->value[k], b.value[k]);
  }
}
inline void SubFromClampNegative(Resource* a, const Resource& b) {
  a->present |= b.present;
  for (ResourceMask m = a->present; m != 0; m &= m - 1) {
    const auto k = static_cast<size_t>(__builtin_ctz(m));
    const int64_t d = SaturatingSub(a->value[k], b.value[k]);
    a->value[k] = d < 0 ? 0 : d;
  }
}
ALLOCORE_EXPORT Resource Multiply(const Resource& r, int64_t factor);

// Exact forms, for the calls that must refuse rather than saturate: they return the first type
// whose result does not fit int64 (leaving *out untouched), or -1 after writing the result.
ALLOCORE_EXPORT int AddExact(const Resource& a, const Resource& b, Resource* out);
ALLOCORE_EXPORT int MultiplyExact(const Resource& r, int64_t factor, Resource* out);

// For every type of `smaller`: smaller[k] <= max(0, larger[k]); a type missing from `larger`
// counts as 0 (strict fit: a node without a type has none of it).
ALLOCORE_EXPORT bool FitIn(const Resource& larger, const Resource& smaller);
// As FitIn, but a type absent from `larger` is unlimited. Negative larger[k] counts as 0.
ALLOCORE_EXPORT bool FitInMaxUndef(const Resource& larger, const Resource& smaller);
// No negative entry and at least one positive entry.
ALLOCORE_EXPORT bool StrictlyGreaterThanZero(const Resource& r);
// Every entry is 0 (or nothing is present).
ALLOCORE_EXPORT bool IsZero(const Resource& r);
// Over the union of types (missing = 0): a >= b everywhere and a != b somewhere.
ALLOCORE_EXPORT bool StrictlyGreaterThan(const Resource& a, const Resource& b);
// Per-type minimum; a type set on one side only keeps its value ("permissive" minimum).
ALLOCORE_EXPORT Resource PermissiveMin(const Resource& a, const Resource& b);

// Interns resource type names into dense ids, in first-seen order. One registry per kernel.
class ALLOCORE_EXPORT ResourceTypes {
 public:
  // Returns the id of `name`, registering it if new. Fails when kMaxResourceTypes distinct
  // names are already registered.
  absl::StatusOr<int> Intern(std::string_view name);
  // Returns the id of `name`, or -1 when unknown.
  int Find(std::string_view name) const;
  const std::string& Name(int type) const { return names_[static_cast<size_t>(type)]; }
  int size() const { return static_cast<int>(names_.size()); }
  // Forgets the types registered after the first `size` (ids only grow, so a refused call
  // takes back what it registered by remembering size() before it).
  void TruncateTo(int size) {
    if (size >= 0 && size < this->size()) names_.resize(static_cast<size_t>(size));
  }

 private:
  std::vector<std::string> names_;
};

// A quantity as people read it and as YuniKorn's configuration accepts it back: vcore
// (milli-cores) in cores, with `m` when not whole ("2", "1500m"); memory (bytes) in its
// shortest exact form, binary or decimal suffix ("512Mi", "1536Ki", "1T", "10"); any other
// type as the number.
ALLOCORE_EXPORT std::string FormatQuantity(std::string_view type, int64_t value);

// "{memory: 1Gi, vcore: 2}" with the registry's names, in type id order, every quantity as
// FormatQuantity writes it. ToString drops zero entries ("{}" when nothing is left): for
// usage and shortfalls. LimitToString keeps them: a limit of 0 is a limit.
ALLOCORE_EXPORT std::string ToString(const Resource& r, const ResourceTypes& types);
ALLOCORE_EXPORT std::string LimitToString(const Resource& r, const ResourceTypes& types);

}  // namespace allocore

#endif  // ALLOCORE_RESOURCE_H_
