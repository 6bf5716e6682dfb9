#include "decision_digest.h"

#include <cstring>
#include <string_view>

#include "byte_codec.h"

namespace allocore::adapters::internal {
namespace {

// Folds a decision's encoding (docs/event-log-format.md) into a CRC register as it walks the
// decision's fields, with no buffer and no copy: `Crc` continues the register by one byte or by
// one little-endian 8-byte word. The recorder runs this for every decision the kernel makes, so
// the fold is written once and instantiated twice: with the crc32 instruction, and with the
// table where the CPU lacks it.
template <typename Crc>
[[gnu::always_inline]] inline uint32_t FoldVarint(uint32_t reg, uint64_t v) {
  for (; v >= 0x80; v >>= 7) reg = Crc::Byte(reg, static_cast<uint8_t>((v & 0x7f) | 0x80));
  return Crc::Byte(reg, static_cast<uint8_t>(v));
}

template <typename Crc>
[[gnu::always_inline]] inline uint32_t FoldText(uint32_t reg, std::string_view text) {
  reg = FoldVarint<Crc>(reg, text.size());
  const char* p = text.data();
  size_t left = text.size();
  for (; left >= 8; left -= 8, p += 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    reg = Crc::Word(reg, word);
  }
  for (; left > 0; --left, ++p) reg = Crc::Byte(reg, static_cast<uint8_t>(*p));
  return reg;
}

template <typename Crc>
[[gnu::always_inline]] inline uint32_t FoldDecision(uint32_t reg, const Decision& d) {
  auto zigzag = [](int64_t v) {
    return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  };
  reg = Crc::Byte(reg, static_cast<uint8_t>(d.type));
  reg = FoldText<Crc>(reg, d.partition);
  reg = FoldText<Crc>(reg, d.queue);
  reg = FoldText<Crc>(reg, d.app);
  reg = FoldText<Crc>(reg, d.ask);
  reg = FoldText<Crc>(reg, d.node);
  reg = FoldVarint<Crc>(reg, zigzag(d.priority));
  reg = FoldVarint<Crc>(reg, zigzag(d.seq));
  reg = Crc::Byte(reg, static_cast<uint8_t>(d.from));
  reg = Crc::Byte(reg, static_cast<uint8_t>(d.to));
  reg = Crc::Byte(reg, static_cast<uint8_t>(d.release_reason));
  reg = Crc::Byte(reg, d.placeholder ? 1 : 0);
  reg = FoldText<Crc>(reg, d.replaces);
  reg = FoldText<Crc>(reg, d.by_app);
  reg = FoldText<Crc>(reg, d.by_ask);
  return FoldVarint<Crc>(reg, zigzag(d.count));
}

struct TableCrc {
  static uint32_t Byte(uint32_t reg, uint8_t b) {
    return ::allocore::internal::byte_codec_detail::kCrc32cTable[(reg ^ b) & 0xffu] ^ (reg >> 8);
  }
  static uint32_t Word(uint32_t reg, uint64_t word) {
    for (int i = 0; i < 8; ++i) reg = Byte(reg, static_cast<uint8_t>(word >> (8 * i)));
    return reg;
  }
};

uint32_t FoldByTable(uint32_t reg, const Decision& d) { return FoldDecision<TableCrc>(reg, d); }

#ifdef ALLOCORE_HAVE_CRC32_INSTRUCTION
// The target attribute, not a pragma: clang ignores `#pragma GCC target`.
struct InstructionCrc {
  [[gnu::target("sse4.2")]] static uint32_t Byte(uint32_t reg, uint8_t b) {
    return __builtin_ia32_crc32qi(reg, b);
  }
  [[gnu::target("sse4.2")]] static uint32_t Word(uint32_t reg, uint64_t word) {
    return static_cast<uint32_t>(__builtin_ia32_crc32di(reg, word));
  }
};
[[gnu::target("sse4.2")]] uint32_t FoldByInstruction(uint32_t reg, const Decision& d) {
  return FoldDecision<InstructionCrc>(reg, d);
}
#endif

}  // namespace

void DecisionDigest::Add(const Decision& d) {
  const uint32_t reg = value_ ^ 0xffffffffu;
#ifdef ALLOCORE_HAVE_CRC32_INSTRUCTION
  if (::allocore::internal::byte_codec_detail::HaveCrc32Instruction()) {
    value_ = FoldByInstruction(reg, d) ^ 0xffffffffu;
    ++count_;
    return;
  }
#endif
  value_ = FoldByTable(reg, d) ^ 0xffffffffu;
  ++count_;
}

}  // namespace allocore::adapters::internal
