// allocore/crc32c.h: the kernel's CRC-32C (byte_codec.h, which the snapshots use inline) for the
// code around the kernel, and the decision digests' fold.
#include "allocore/crc32c.h"

#include <cstring>
#include <string_view>

#include "allocore/kernel_types.h"
#include "byte_codec.h"

namespace allocore {
namespace {

// Folds a decision's encoding into a CRC register as it walks the decision's fields, with no
// buffer and no copy: `Crc` continues the register by one byte or by one little-endian 8-byte
// word. The fold is written once and instantiated twice: with the crc32 instruction, and with
// the table where the CPU lacks it (with the instruction, 287 instructions a decision against
// 1,170 for building its bytes and checksumming them: bench/RESULTS.md, "The decision digests").
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
    return internal::byte_codec_detail::kCrc32cTable[(reg ^ b) & 0xffu] ^ (reg >> 8);
  }
  static uint32_t Word(uint32_t reg, uint64_t word) {
    for (int i = 0; i < 8; ++i) reg = Byte(reg, static_cast<uint8_t>(word >> (8 * i)));
    return reg;
  }
};

// Each whole computation, initial and final inversion included, is one function, so that the
// exported functions' fast path is a test and a tail call: the frames' checksums are many and
// short (a record each), where a call that saves registers costs as much as the checksum.
[[gnu::noinline]] uint32_t ExtendByTable(uint32_t crc, std::string_view bytes) {
  return internal::byte_codec_detail::Crc32cByTable(crc ^ 0xffffffffu, bytes) ^ 0xffffffffu;
}
[[gnu::noinline]] uint32_t ExtendDecisionByTable(uint32_t crc, const Decision& d) {
  return FoldDecision<TableCrc>(crc ^ 0xffffffffu, d) ^ 0xffffffffu;
}

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
[[gnu::target("sse4.2"), gnu::noinline]] uint32_t ExtendByInstruction(uint32_t crc,
                                                                      std::string_view bytes) {
  return internal::byte_codec_detail::Crc32cByInstruction(crc ^ 0xffffffffu, bytes) ^ 0xffffffffu;
}
[[gnu::target("sse4.2"), gnu::noinline]] uint32_t ExtendDecisionByInstruction(uint32_t crc,
                                                                              const Decision& d) {
  return FoldDecision<InstructionCrc>(crc ^ 0xffffffffu, d) ^ 0xffffffffu;
}

// Whether the crc32 instruction may be used: the CPU model word that an early constructor of
// the compiler's runtime fills in, read without the once-only guard of byte_codec.h's
// HaveCrc32Instruction (whose saved registers cost more than a short frame's checksum). A call
// before that constructor reads zero and takes the table, which gives the same checksum.
bool UseInstruction() { return __builtin_cpu_supports("sse4.2") != 0; }
#endif

}  // namespace

uint32_t Crc32cExtend(uint32_t crc, std::string_view bytes) {
#ifdef ALLOCORE_HAVE_CRC32_INSTRUCTION
  if (UseInstruction()) return ExtendByInstruction(crc, bytes);
#endif
  return ExtendByTable(crc, bytes);
}

uint32_t Crc32cExtendDecision(uint32_t crc, const Decision& decision) {
#ifdef ALLOCORE_HAVE_CRC32_INSTRUCTION
  if (UseInstruction()) return ExtendDecisionByInstruction(crc, decision);
#endif
  return ExtendDecisionByTable(crc, decision);
}

}  // namespace allocore
