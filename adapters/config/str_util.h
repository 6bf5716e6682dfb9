// adapters/config/str_util.h — internal: string concatenation that takes std::string_view.
//
// Debian's Abseil is built with its own absl::string_view, so absl::StrCat and friends refuse
// std::string_view arguments. These helpers accept strings, string views, C strings and
// integers (decimal) and nothing else.
#ifndef ALLOCORE_ADAPTERS_CONFIG_STR_UTIL_H_
#define ALLOCORE_ADAPTERS_CONFIG_STR_UTIL_H_

#include <charconv>
#include <string>
#include <string_view>
#include <type_traits>

namespace allocore::adapters::internal {

inline void AppendPiece(std::string* out, std::string_view piece) { out->append(piece); }

template <typename T>
requires(std::is_integral_v<T> && !std::is_same_v<T, bool> &&
         !std::is_same_v<T, char>) void AppendPiece(std::string* out, T value) {
  char buffer[24];
  auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  out->append(buffer, static_cast<size_t>(result.ptr - buffer));
}

template <typename... Pieces>
void Append(std::string* out, const Pieces&... pieces) {
  (AppendPiece(out, pieces), ...);
}

template <typename... Pieces>
std::string Cat(const Pieces&... pieces) {
  std::string out;
  Append(&out, pieces...);
  return out;
}

// The elements of `items` (anything AppendPiece takes) separated by `separator`.
template <typename Range>
std::string Join(const Range& items, std::string_view separator) {
  std::string out;
  bool first = true;
  for (const auto& item : items) {
    if (!first) out.append(separator);
    first = false;
    AppendPiece(&out, item);
  }
  return out;
}

}  // namespace allocore::adapters::internal

#endif  // ALLOCORE_ADAPTERS_CONFIG_STR_UTIL_H_
