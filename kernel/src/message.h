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

}  // namespace allocore::internal

#endif  // ALLOCORE_KERNEL_SRC_MESSAGE_H_
