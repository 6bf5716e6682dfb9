// Repeat counts of Go's regexp syntax (RE2), which placement filters are written in, and what
// std::regex (ECMAScript) needs to read the same braces the same way.
#ifndef ALLOCORE_KERNEL_SRC_REGEXP_REPEAT_H_
#define ALLOCORE_KERNEL_SRC_REGEXP_REPEAT_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace allocore::internal {

inline constexpr size_t kInvalidRepeat = static_cast<size_t>(-1);

// At the '{' at `brace`: the length of a valid {n}, {n,} or {n,m} (counts <= 1000, n <= m);
// 0 when the brace does not start a repeat (Go reads a literal '{'); kInvalidRepeat for a
// well-formed repeat with bad counts (a compile error in Go).
size_t Re2RepeatLength(std::string_view pattern, size_t brace);

// `pattern` (valid in Go's syntax) with every brace Go reads as a literal escaped, so that
// std::regex neither refuses it nor parses a huge count out of it.
std::string EscapeLiteralBraces(std::string_view pattern);

}  // namespace allocore::internal

#endif  // ALLOCORE_KERNEL_SRC_REGEXP_REPEAT_H_
