// WaitHistogram: a log-linear histogram. Values below 2^kLinearBits have a bucket each; above,
// every power of two is cut into 2^(kLinearBits-1) equal buckets, so a bucket's width is at
// most 1/128 of its values.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "allocore/adapters/report.h"

namespace allocore::adapters {
namespace {

constexpr int kLinearBits = 8;
constexpr int64_t kLinear = int64_t{1} << kLinearBits;  // 256 exact buckets
constexpr int64_t kHalf = kLinear / 2;                  // buckets per power of two above

size_t BucketOf(int64_t v) {
  if (v < kLinear) return static_cast<size_t>(v);
  const int shift = static_cast<int>(std::bit_width(static_cast<uint64_t>(v))) - kLinearBits;
  // v >> shift lies in [128, 256): its low 7 bits pick the bucket within the power of two.
  return static_cast<size_t>(kLinear + (shift - 1) * kHalf + ((v >> shift) - kHalf));
}

int64_t LowestOf(size_t bucket) {
  const auto b = static_cast<int64_t>(bucket);
  if (b < kLinear) return b;
  const int64_t shift = (b - kLinear) / kHalf + 1;
  const int64_t mantissa = kHalf + (b - kLinear) % kHalf;
  return mantissa << shift;
}

}  // namespace

void WaitHistogram::Add(int64_t millis) {
  millis = std::max<int64_t>(millis, 0);
  const size_t bucket = BucketOf(millis);
  if (bucket >= buckets_.size()) buckets_.resize(bucket + 1, 0);
  ++buckets_[bucket];
  min_ = count_ == 0 ? millis : std::min(min_, millis);
  max_ = count_ == 0 ? millis : std::max(max_, millis);
  ++count_;
}

void WaitHistogram::Merge(const WaitHistogram& other) {
  if (other.count_ == 0) return;
  if (other.buckets_.size() > buckets_.size()) buckets_.resize(other.buckets_.size(), 0);
  for (size_t i = 0; i < other.buckets_.size(); ++i) buckets_[i] += other.buckets_[i];
  min_ = count_ == 0 ? other.min_ : std::min(min_, other.min_);
  max_ = count_ == 0 ? other.max_ : std::max(max_, other.max_);
  count_ += other.count_;
}

int64_t WaitHistogram::Percentile(double percent) const {
  if (count_ == 0) return 0;
  percent = std::clamp(percent, 0.0, 100.0);
  // Nearest rank: the ceil(p/100 * n)-th smallest sample (the first when p is 0).
  auto rank = static_cast<int64_t>(std::ceil(percent / 100.0 * static_cast<double>(count_)));
  rank = std::clamp<int64_t>(rank, 1, count_);
  int64_t seen = 0;
  for (size_t b = 0; b < buckets_.size(); ++b) {
    seen += buckets_[b];
    if (seen >= rank) return std::clamp(LowestOf(b), min_, max_);
  }
  return max_;
}

std::vector<std::pair<int64_t, double>> WaitHistogram::Cdf() const {
  std::vector<std::pair<int64_t, double>> points;
  int64_t seen = 0;
  for (size_t b = 0; b < buckets_.size(); ++b) {
    if (buckets_[b] == 0) continue;
    seen += buckets_[b];
    points.emplace_back(std::clamp(LowestOf(b), min_, max_),
                        static_cast<double>(seen) / static_cast<double>(count_));
  }
  return points;
}

}  // namespace allocore::adapters
