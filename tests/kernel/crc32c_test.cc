// allocore/crc32c.h: the checksum as docs/event-log-format.md defines it (bit by bit, here),
// whole, in pieces and over a decision's encoding.
#include "allocore/crc32c.h"

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "allocore/kernel_types.h"
#include "gtest/gtest.h"

namespace allocore {
namespace {

uint32_t BitwiseExtend(uint32_t crc, std::string_view bytes) {
  uint32_t reg = crc ^ 0xffffffffu;
  for (char ch : bytes) {
    reg ^= static_cast<uint8_t>(ch);
    for (int bit = 0; bit < 8; ++bit) reg = (reg & 1u) != 0 ? (reg >> 1) ^ 0x82f63b78u : reg >> 1;
  }
  return reg ^ 0xffffffffu;
}

// Every length up to 40 (whole 8-byte words and the bytes after them), every byte value.
std::string Bytes(size_t n, uint32_t seed) {
  std::string bytes;
  for (size_t i = 0; i < n; ++i) bytes.push_back(static_cast<char>((seed + i * 97) & 0xffu));
  return bytes;
}

TEST(Crc32cTest, StandardCheckValue) {
  EXPECT_EQ(Crc32c("123456789"), 0xe3069283u);
  EXPECT_EQ(Crc32c(""), 0u);
}

TEST(Crc32cTest, WholeAndInPiecesAsDefined) {
  for (size_t n = 0; n <= 40; ++n) {
    const std::string bytes = Bytes(n, static_cast<uint32_t>(n * 31));
    ASSERT_EQ(Crc32c(bytes), BitwiseExtend(0, bytes)) << n;
    for (size_t cut = 0; cut <= n; ++cut) {
      const std::string_view view(bytes);
      ASSERT_EQ(Crc32cExtend(Crc32c(view.substr(0, cut)), view.substr(cut)), Crc32c(bytes))
          << n << " cut at " << cut;
    }
  }
}

// The decision's encoding written out (docs/event-log-format.md, "Decision digests").
void Varint(std::string* out, uint64_t v) {
  for (; v >= 0x80; v >>= 7) out->push_back(static_cast<char>((v & 0x7f) | 0x80));
  out->push_back(static_cast<char>(v));
}
void Signed(std::string* out, int64_t v) {
  Varint(out, (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
}
void Text(std::string* out, std::string_view text) {
  Varint(out, text.size());
  out->append(text);
}
std::string Encoding(const Decision& d) {
  std::string out;
  out.push_back(static_cast<char>(d.type));
  for (std::string_view text : {d.partition, d.queue, d.app, d.ask, d.node}) Text(&out, text);
  Signed(&out, d.priority);
  Signed(&out, d.seq);
  out.push_back(static_cast<char>(d.from));
  out.push_back(static_cast<char>(d.to));
  out.push_back(static_cast<char>(d.release_reason));
  out.push_back(d.placeholder ? 1 : 0);
  for (std::string_view text : {d.replaces, d.by_app, d.by_ask}) Text(&out, text);
  Signed(&out, d.count);
  return out;
}

TEST(Crc32cTest, ADecisionIsFoldedAsItsEncoding) {
  // Names across the 8-byte words; numbers of one byte, several bytes and the extremes.
  const std::string long_name = Bytes(200, 7);
  const std::string names[] = {"", "a", "root.a", "exactly8", "a-name-of-17-byte", long_name};
  const int64_t numbers[] = {0,
                             -1,
                             63,
                             -64,
                             64,
                             1'000'000,
                             std::numeric_limits<int64_t>::min(),
                             std::numeric_limits<int64_t>::max()};
  uint32_t running = 0;
  std::string stream;
  for (int i = 0; i < 48; ++i) {
    Decision d;
    d.type = static_cast<DecisionType>(i % 5);
    d.partition = names[i % 6];
    d.queue = names[(i + 1) % 6];
    d.app = names[(i + 2) % 6];
    d.ask = names[(i + 3) % 6];
    d.node = names[(i + 4) % 6];
    d.priority = static_cast<int32_t>(numbers[i % 6]);
    d.seq = numbers[(i + 3) % 8];
    d.from = static_cast<AppState>(i % 3);
    d.to = static_cast<AppState>((i + 1) % 3);
    d.release_reason = static_cast<ReleaseReason>(i % 4);
    d.placeholder = i % 2 == 1;
    d.replaces = names[(i + 5) % 6];
    d.by_app = names[i % 6];
    d.by_ask = names[(i + 2) % 6];
    d.count = numbers[i % 8];
    d.reason = "a rejection's text is not in the digest";
    const std::string encoding = Encoding(d);
    ASSERT_EQ(Crc32cExtendDecision(running, d), BitwiseExtend(running, encoding)) << i;
    running = Crc32cExtendDecision(running, d);
    stream += encoding;
  }
  EXPECT_EQ(running, Crc32c(stream));
}

}  // namespace
}  // namespace allocore
