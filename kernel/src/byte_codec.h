// kernel/src/byte_codec.h — the byte-level encoding of the kernel's snapshots: LEB128 varints,
// zigzagged signed integers, little-endian fixed-width words and doubles, and CRC-32C.
//
// ByteReader never reads past its input: the first problem (an input that ends inside a value,
// a number past 64 bits) is kept as its error, and every later read gives a default, so a
// decoder reads straight through and checks ok() once at the end.
#ifndef ALLOCORE_KERNEL_SRC_BYTE_CODEC_H_
#define ALLOCORE_KERNEL_SRC_BYTE_CODEC_H_

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>

namespace allocore::internal {

namespace byte_codec_detail {
constexpr std::array<uint32_t, 256> MakeCrc32cTable() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t crc = i;
    for (int bit = 0; bit < 8; ++bit) crc = (crc & 1u) != 0 ? (crc >> 1) ^ 0x82f63b78u : crc >> 1;
    table[i] = crc;
  }
  return table;
}
inline constexpr std::array<uint32_t, 256> kCrc32cTable = MakeCrc32cTable();
}  // namespace byte_codec_detail

namespace byte_codec_detail {
// Both forms continue a CRC register (not yet inverted at the end) over more bytes.
inline uint32_t Crc32cByTable(uint32_t crc, std::string_view bytes) {
  for (char ch : bytes) crc = kCrc32cTable[(crc ^ static_cast<uint8_t>(ch)) & 0xffu] ^ (crc >> 8);
  return crc;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define ALLOCORE_HAVE_CRC32_INSTRUCTION 1
// SSE 4.2's crc32 instruction computes exactly this CRC (the Castagnoli polynomial, reflected),
// 8 bytes a step: a recorder checksums every record as the kernel runs.
[[gnu::target("sse4.2")]] inline uint32_t Crc32cByInstruction(uint32_t crc32,
                                                              std::string_view bytes) {
  uint64_t crc = crc32;
  const char* p = bytes.data();
  size_t left = bytes.size();
  for (; left >= 8; left -= 8, p += 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    crc = __builtin_ia32_crc32di(crc, word);
  }
  auto narrow = static_cast<uint32_t>(crc);
  for (; left > 0; --left, ++p) narrow = __builtin_ia32_crc32qi(narrow, static_cast<uint8_t>(*p));
  return narrow;
}
// Whether this CPU has the instruction (a constant of the machine, decided once).
inline bool HaveCrc32Instruction() {
  static const bool have = [] {
    __builtin_cpu_init();  // may run among the static constructors, before libgcc's
    return __builtin_cpu_supports("sse4.2") != 0;
  }();
  return have;
}
#endif
}  // namespace byte_codec_detail

// The CRC-32C of `prefix` followed by `bytes`, given `crc` = Crc32c(prefix): a checksum computed
// in pieces, without the pieces in one buffer. Crc32cExtend(0, bytes) == Crc32c(bytes).
inline uint32_t Crc32cExtend(uint32_t crc, std::string_view bytes) {
  const uint32_t reg = crc ^ 0xffffffffu;
#ifdef ALLOCORE_HAVE_CRC32_INSTRUCTION
  if (byte_codec_detail::HaveCrc32Instruction()) {
    return byte_codec_detail::Crc32cByInstruction(reg, bytes) ^ 0xffffffffu;
  }
#endif
  return byte_codec_detail::Crc32cByTable(reg, bytes) ^ 0xffffffffu;
}

// CRC-32C (Castagnoli), as iSCSI and ext4 use it: Crc32c("123456789") == 0xe3069283. The
// snapshots' checksum and the event logs' frame checksum.
inline uint32_t Crc32c(std::string_view bytes) { return Crc32cExtend(0, bytes); }

class ByteWriter {
 public:
  explicit ByteWriter(std::string* out) : out_(out) {}

  void Unsigned(uint64_t v) {
    while (v >= 0x80) {
      out_->push_back(static_cast<char>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    out_->push_back(static_cast<char>(v));
  }
  void Signed(int64_t v) {
    Unsigned((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
  }
  void Fixed32(uint32_t v) {
    for (int i = 0; i < 4; ++i) out_->push_back(static_cast<char>((v >> (8 * i)) & 0xffu));
  }
  void Fixed64(uint64_t v) {
    for (int i = 0; i < 8; ++i) out_->push_back(static_cast<char>((v >> (8 * i)) & 0xffu));
  }
  void Double(double v) { Fixed64(std::bit_cast<uint64_t>(v)); }
  void Bytes(std::string_view bytes) { out_->append(bytes); }

 private:
  std::string* out_;
};

class ByteReader {
 public:
  explicit ByteReader(std::string_view in) : in_(in) {}

  uint64_t Unsigned() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (at_ >= in_.size()) {
        Fail("the input ends inside a number");
        return 0;
      }
      const auto byte = static_cast<uint8_t>(in_[at_++]);
      v |= static_cast<uint64_t>(byte & 0x7fu) << shift;
      if ((byte & 0x80u) == 0) {
        if (shift == 63 && byte > 1) Fail("a number past 64 bits");
        return v;
      }
    }
    Fail("a number of more than 10 bytes");
    return 0;
  }
  int64_t Signed() {
    const uint64_t raw = Unsigned();
    return static_cast<int64_t>((raw >> 1) ^ (~(raw & 1u) + 1u));
  }
  uint32_t Fixed32() {
    uint32_t v = 0;
    std::string_view bytes = Bytes(4);
    for (size_t i = 0; i < bytes.size(); ++i) {
      v |= static_cast<uint32_t>(static_cast<uint8_t>(bytes[i])) << (8 * i);
    }
    return v;
  }
  uint64_t Fixed64() {
    uint64_t v = 0;
    std::string_view bytes = Bytes(8);
    for (size_t i = 0; i < bytes.size(); ++i) {
      v |= static_cast<uint64_t>(static_cast<uint8_t>(bytes[i])) << (8 * i);
    }
    return v;
  }
  double Double() { return std::bit_cast<double>(Fixed64()); }
  // The next `n` bytes (empty, with the error set, when fewer are left).
  std::string_view Bytes(uint64_t n) {
    if (!ok()) return {};
    if (n > remaining()) {
      Fail("the input ends inside a value");
      return {};
    }
    std::string_view bytes = in_.substr(at_, static_cast<size_t>(n));
    at_ += static_cast<size_t>(n);
    return bytes;
  }

  size_t remaining() const { return in_.size() - at_; }
  size_t offset() const { return at_; }
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  size_t error_offset() const { return error_offset_; }
  void Fail(std::string message) {
    if (!error_.empty()) return;
    error_ = std::move(message);
    error_offset_ = at_;
    at_ = in_.size();  // nothing more is read
  }

 private:
  std::string_view in_;
  size_t at_ = 0;
  std::string error_;
  size_t error_offset_ = 0;
};

}  // namespace allocore::internal

#endif  // ALLOCORE_KERNEL_SRC_BYTE_CODEC_H_
