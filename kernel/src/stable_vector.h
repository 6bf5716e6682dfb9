// kernel/src/stable_vector.h — a growing sequence whose elements never move.
//
// What std::deque gives (references stay valid across emplace_back, nothing is ever copied
// whole), with chunks of a fixed element count instead of libstdc++'s 512 bytes: a deque of a
// 160-byte record allocates a chunk (and sometimes its map) every third element.
#ifndef ALLOCORE_KERNEL_SRC_STABLE_VECTOR_H_
#define ALLOCORE_KERNEL_SRC_STABLE_VECTOR_H_

#include <cstddef>
#include <type_traits>
#include <utility>
#include <vector>

namespace allocore::internal {

template <typename T, size_t kChunk = 64>
class StableVector {
 public:
  StableVector() = default;
  StableVector(const StableVector& other) { *this = other; }
  StableVector(StableVector&&) noexcept = default;
  StableVector& operator=(StableVector&&) noexcept = default;
  StableVector& operator=(const StableVector& other) {
    if (this == &other) return *this;
    clear();
    for (const T& e : other) emplace_back(e);
    return *this;
  }
  ~StableVector() = default;

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](size_t i) { return chunks_[i / kChunk][i % kChunk]; }
  const T& operator[](size_t i) const { return chunks_[i / kChunk][i % kChunk]; }
  T& back() { return (*this)[size_ - 1]; }
  const T& back() const { return (*this)[size_ - 1]; }

  template <typename... Args>
  T& emplace_back(Args&&... args) {
    const size_t chunk = size_ / kChunk;
    if (chunk == chunks_.size()) {
      // Reserved to its full count, a chunk never reallocates: its elements stay where they are.
      chunks_.emplace_back().reserve(kChunk);
    }
    ++size_;
    return chunks_[chunk].emplace_back(std::forward<Args>(args)...);
  }
  void push_back(const T& value) { emplace_back(value); }
  void clear() {
    chunks_.clear();
    size_ = 0;
  }

  template <bool kConst>
  class Iterator {
   public:
    using Owner = std::conditional_t<kConst, const StableVector, StableVector>;
    using value_type = T;
    using reference = std::conditional_t<kConst, const T&, T&>;
    using difference_type = std::ptrdiff_t;
    Iterator(Owner* owner, size_t i) : owner_(owner), i_(i) {}
    reference operator*() const { return (*owner_)[i_]; }
    Iterator& operator++() {
      ++i_;
      return *this;
    }
    friend bool operator==(const Iterator& a, const Iterator& b) { return a.i_ == b.i_; }

   private:
    Owner* owner_;
    size_t i_;
  };
  Iterator<false> begin() { return {this, 0}; }
  Iterator<false> end() { return {this, size_}; }
  Iterator<true> begin() const { return {this, 0}; }
  Iterator<true> end() const { return {this, size_}; }

 private:
  std::vector<std::vector<T>> chunks_;
  size_t size_ = 0;
};

}  // namespace allocore::internal

#endif  // ALLOCORE_KERNEL_SRC_STABLE_VECTOR_H_
