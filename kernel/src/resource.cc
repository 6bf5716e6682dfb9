#include "allocore/resource.h"

#include <limits>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "resource_mask.h"

namespace allocore {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

using internal::ForEachType;

}  // namespace

int64_t SaturatingMul(int64_t a, int64_t b) {
  int64_t out;
  if (__builtin_mul_overflow(a, b, &out)) return ((a < 0) != (b < 0)) ? kMin : kMax;
  return out;
}

// Absent types hold 0 (invariant 1): only the types present in either operand can be non-zero.
Resource Add(const Resource& a, const Resource& b) {
  Resource out = a;
  AddTo(&out, b);
  return out;
}

Resource Sub(const Resource& a, const Resource& b) {
  Resource out;
  out.present = a.present | b.present;
  for (ResourceMask m = out.present; m != 0; m &= m - 1) {
    const auto k = static_cast<size_t>(__builtin_ctz(m));
    out.value[k] = SaturatingSub(a.value[k], b.value[k]);
  }
  return out;
}

Resource SubClampNegative(const Resource& a, const Resource& b) {
  Resource out = a;
  SubFromClampNegative(&out, b);
  return out;
}

Resource Multiply(const Resource& r, int64_t factor) {
  Resource out;
  if (factor == 0) return out;
  ForEachType(r.present, [&](int k) { out.Set(k, SaturatingMul(r.Get(k), factor)); });
  return out;
}

int AddExact(const Resource& a, const Resource& b, Resource* out) {
  Resource sum;
  sum.present = a.present | b.present;
  for (int k = 0; k < kMaxResourceTypes; ++k) {
    auto i = static_cast<size_t>(k);
    if (__builtin_add_overflow(a.value[i], b.value[i], &sum.value[i])) return k;
  }
  *out = sum;
  return -1;
}

int MultiplyExact(const Resource& r, int64_t factor, Resource* out) {
  Resource product;
  if (factor != 0) {
    int overflow = -1;
    ForEachType(r.present, [&](int k) {
      int64_t v;
      if (__builtin_mul_overflow(r.Get(k), factor, &v)) {
        if (overflow < 0) overflow = k;
        return;
      }
      product.Set(k, v);
    });
    if (overflow >= 0) return overflow;
  }
  *out = product;
  return -1;
}

bool FitIn(const Resource& larger, const Resource& smaller) {
  bool fits = true;
  ForEachType(smaller.present, [&](int k) {
    int64_t cap = larger.Get(k) > 0 ? larger.Get(k) : 0;
    if (smaller.Get(k) > cap) fits = false;
  });
  return fits;
}

bool FitInMaxUndef(const Resource& larger, const Resource& smaller) {
  bool fits = true;
  ForEachType(smaller.present & larger.present, [&](int k) {
    int64_t cap = larger.Get(k) > 0 ? larger.Get(k) : 0;
    if (smaller.Get(k) > cap) fits = false;
  });
  return fits;
}

bool StrictlyGreaterThanZero(const Resource& r) {
  bool positive = false;
  bool negative = false;
  ForEachType(r.present, [&](int k) {
    if (r.Get(k) > 0) positive = true;
    if (r.Get(k) < 0) negative = true;
  });
  return positive && !negative;
}

bool IsZero(const Resource& r) {
  bool zero = true;
  ForEachType(r.present, [&](int k) {
    if (r.Get(k) != 0) zero = false;
  });
  return zero;
}

bool StrictlyGreaterThan(const Resource& a, const Resource& b) {
  bool differs = false;
  bool smaller_somewhere = false;
  ForEachType(a.present | b.present, [&](int k) {
    if (a.Get(k) < b.Get(k)) smaller_somewhere = true;
    if (a.Get(k) != b.Get(k)) differs = true;
  });
  return differs && !smaller_somewhere;
}

Resource PermissiveMin(const Resource& a, const Resource& b) {
  Resource out;
  ForEachType(a.present | b.present, [&](int k) {
    if (!a.Has(k)) {
      out.Set(k, b.Get(k));
    } else if (!b.Has(k)) {
      out.Set(k, a.Get(k));
    } else {
      out.Set(k, a.Get(k) < b.Get(k) ? a.Get(k) : b.Get(k));
    }
  });
  return out;
}

absl::StatusOr<int> ResourceTypes::Intern(std::string_view name) {
  int found = Find(name);
  if (found >= 0) return found;
  if (names_.size() >= static_cast<size_t>(kMaxResourceTypes)) {
    return absl::ResourceExhaustedError(absl::StrCat("resource type '", std::string(name),
                                                     "' is one too many: at most ",
                                                     kMaxResourceTypes, " distinct types"));
  }
  names_.emplace_back(name);
  return static_cast<int>(names_.size()) - 1;
}

int ResourceTypes::Find(std::string_view name) const {
  // Runs for every quantity of every call: the length and the first byte rule out the other
  // names before the bytes are compared.
  for (size_t i = 0; i < names_.size(); ++i) {
    const std::string& known = names_[i];
    if (known.size() == name.size() && (name.empty() || known[0] == name[0]) && known == name) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

std::string FormatQuantity(std::string_view type, int64_t value) {
  if (type == "vcore") {
    return value % 1000 == 0 ? absl::StrCat(value / 1000) : absl::StrCat(value, "m");
  }
  if (type == "memory" && value != 0) {
    // The shortest exact form: a binary suffix as memory is usually sized ("512Mi"), a
    // decimal one for the round decimal sizes ("1T", not "976562500Ki"), else the number.
    static constexpr std::pair<int64_t, std::string_view> kSuffixes[] = {
        {int64_t{1} << 60, "Ei"},
        {int64_t{1} << 50, "Pi"},
        {int64_t{1} << 40, "Ti"},
        {int64_t{1} << 30, "Gi"},
        {int64_t{1} << 20, "Mi"},
        {int64_t{1} << 10, "Ki"},
        {1'000'000'000'000'000'000, "E"},
        {1'000'000'000'000'000, "P"},
        {1'000'000'000'000, "T"},
        {1'000'000'000, "G"},
        {1'000'000, "M"},
        {1'000, "k"}};
    std::string best = absl::StrCat(value);
    for (const auto& [unit, suffix] : kSuffixes) {
      if (value % unit != 0) continue;
      std::string form =
          absl::StrCat(value / unit, absl::string_view(suffix.data(), suffix.size()));
      if (form.size() < best.size()) best = std::move(form);
    }
    return best;
  }
  return absl::StrCat(value);
}

namespace {

std::string Render(const Resource& r, const ResourceTypes& types, bool keep_zero) {
  std::string out = "{";
  bool first = true;
  ForEachType(r.present, [&](int k) {
    if (!keep_zero && r.Get(k) == 0) return;
    const std::string name = k < types.size() ? types.Name(k) : absl::StrCat("#", k);
    absl::StrAppend(&out, first ? "" : ", ", name, ": ", FormatQuantity(name, r.Get(k)));
    first = false;
  });
  out += "}";
  return out;
}

}  // namespace

std::string ToString(const Resource& r, const ResourceTypes& types) {
  return Render(r, types, /*keep_zero=*/false);
}

std::string LimitToString(const Resource& r, const ResourceTypes& types) {
  return Render(r, types, /*keep_zero=*/true);
}

}  // namespace allocore
