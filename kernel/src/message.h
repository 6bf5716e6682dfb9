// kernel/src/message.h — message building for kernel errors and decisions.
//
// Debian's Abseil is built with its own absl::string_view (not std::string_view), so
// absl::StrCat does not take the std::string_view names the kernel passes around.
#ifndef ALLOCORE_KERNEL_SRC_MESSAGE_H_
#define ALLOCORE_KERNEL_SRC_MESSAGE_H_

#include <string>
#include <string_view>
#include <type_traits>

#include "absl/strings/string_view.h"

namespace allocore::internal {

inline void AppendPiece(std::string* out, std::string_view s) { out->append(s); }
inline void AppendPiece(std::string* out, const char* s) { out->append(s); }
inline void AppendPiece(std::string* out, absl::string_view s) { out->append(s.data(), s.size()); }
inline void AppendPiece(std::string* out, const std::string& s) { out->append(s); }
template <typename T>
requires std::is_integral_v<T>
void AppendPiece(std::string* out, T value) { out->append(std::to_string(value)); }

template <typename... Args>
std::string Cat(const Args&... args) {
  std::string out;
  (AppendPiece(&out, args), ...);
  return out;
}

// 'name' for messages, shortened when very long (a config may hold names of megabytes).
inline std::string Quote(std::string_view s) {
  constexpr size_t kMaxQuotedLength = 80;
  if (s.size() <= kMaxQuotedLength) return Cat("'", s, "'");
  size_t cut = kMaxQuotedLength;
  // Do not cut inside a UTF-8 sequence.
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return Cat("'", s.substr(0, cut), "...' (", s.size(), " bytes)");
}

// "1m30s", "250ms": the logical clock's milliseconds as a Go duration would print them.
inline std::string FormatMillis(int64_t ms) {
  if (ms < 1'000) return Cat(ms, "ms");
  std::string out;
  if (ms >= 3'600'000) out += Cat(ms / 3'600'000, "h");
  if (ms >= 60'000) out += Cat(ms / 60'000 % 60, "m");
  const int64_t millis = ms % 60'000;
  out += millis % 1'000 == 0
             ? Cat(millis / 1'000, "s")
             : Cat(millis / 1'000, ".", std::string(3 - std::to_string(millis % 1'000).size(), '0'),
                   millis % 1'000, "s");
  return out;
}

}  // namespace allocore::internal

#endif  // ALLOCORE_KERNEL_SRC_MESSAGE_H_
