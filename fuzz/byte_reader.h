// fuzz/byte_reader.h — turns fuzzer bytes into values, in the spirit of FuzzedDataProvider.
//
// clang's FuzzedDataProvider.h is not on gcc's include path, and the fuzz targets must build
// with gcc too (replay mains), so the targets decode their input with this reader instead.
//
// Guarantees:
//   1. Total: every read succeeds; once the input is exhausted every byte reads as 0, so a
//      truncated input decodes to a shorter, still well-formed sequence.
//   2. Small: a value in a range of N values consumes ceil(log256(N)) bytes, so the fuzzer's
//      byte mutations map onto small, meaningful changes.
//
// Example:
//   ByteReader in(data, size);
//   int64_t count = in.Range(1, 4);
//   const std::string& id = in.Pick(kNodeIds);
#ifndef ALLOCORE_FUZZ_BYTE_READER_H_
#define ALLOCORE_FUZZ_BYTE_READER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace allocore::fuzz {

class ByteReader {
 public:
  ByteReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  bool empty() const { return pos_ >= size_; }
  size_t remaining() const { return empty() ? 0 : size_ - pos_; }

  uint8_t Byte() { return empty() ? 0 : data_[pos_++]; }
  bool Bool() { return (Byte() & 1) != 0; }

  // A value in [lo, hi] (REQUIRES: lo <= hi), reading only as many bytes as the span needs.
  int64_t Range(int64_t lo, int64_t hi) {
    const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
    uint64_t v = 0;
    for (int shift = 0; shift < 64 && (span >> shift) != 0; shift += 8) {
      v |= uint64_t{Byte()} << shift;
    }
    if (span != UINT64_MAX) v %= span + 1;
    return static_cast<int64_t>(static_cast<uint64_t>(lo) + v);
  }

  // True with probability about percent/100 (one byte).
  bool Chance(int percent) { return Byte() % 100 < percent; }

  // An element of a non-empty container with size() and operator[].
  template <typename Container>
  const auto& Pick(const Container& items) {
    return items[static_cast<size_t>(Range(0, static_cast<int64_t>(items.size()) - 1))];
  }

  // Up to `max_len` raw bytes, length first.
  std::string String(size_t max_len) {
    auto n = static_cast<size_t>(Range(0, static_cast<int64_t>(max_len)));
    if (n > remaining()) n = remaining();
    std::string out(reinterpret_cast<const char*>(data_ + pos_), n);
    pos_ += n;
    return out;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

}  // namespace allocore::fuzz

#endif  // ALLOCORE_FUZZ_BYTE_READER_H_
