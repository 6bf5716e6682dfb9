#include "decision_digest.h"

#include <string_view>

#include "byte_codec.h"

namespace allocore::adapters::internal {
namespace {

void PutVarint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}
void PutSigned(std::string& out, int64_t v) {
  PutVarint(out, (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
}
void PutText(std::string& out, std::string_view text) {
  PutVarint(out, text.size());
  out.append(text);
}

}  // namespace

void DecisionDigest::Add(const Decision& d) {
  std::string& b = buffer_;
  b.clear();
  for (int i = 0; i < 4; ++i) b.push_back(static_cast<char>((value_ >> (8 * i)) & 0xff));
  b.push_back(static_cast<char>(d.type));
  PutText(b, d.partition);
  PutText(b, d.queue);
  PutText(b, d.app);
  PutText(b, d.ask);
  PutText(b, d.node);
  PutSigned(b, d.priority);
  PutSigned(b, d.seq);
  b.push_back(static_cast<char>(d.from));
  b.push_back(static_cast<char>(d.to));
  PutText(b, d.reason);
  b.push_back(static_cast<char>(d.release_reason));
  b.push_back(static_cast<char>(d.placeholder ? 1 : 0));
  PutText(b, d.replaces);
  PutText(b, d.by_app);
  PutText(b, d.by_ask);
  PutSigned(b, d.count);
  value_ = ::allocore::internal::Crc32c(b);
  ++count_;
}

}  // namespace allocore::adapters::internal
