#include "regexp_repeat.h"

#include <cstdint>

namespace allocore::internal {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

size_t Re2RepeatLength(std::string_view pattern, size_t brace) {
  size_t j = brace + 1;
  auto number = [&](int64_t* out) {
    size_t start = j;
    int64_t v = 0;
    while (j < pattern.size() && IsDigit(pattern[j])) {
      if (v <= 100000) v = v * 10 + (pattern[j] - '0');  // capped: only "> 1000" matters
      ++j;
    }
    *out = v;
    return j > start;
  };
  int64_t lo = 0;
  int64_t hi = -1;
  if (!number(&lo)) return 0;
  if (j < pattern.size() && pattern[j] == ',') {
    ++j;
    if (j < pattern.size() && IsDigit(pattern[j])) number(&hi);
  } else {
    hi = lo;
  }
  if (j >= pattern.size() || pattern[j] != '}') return 0;
  if (lo > 1000 || hi > 1000 || (hi >= 0 && hi < lo)) return kInvalidRepeat;
  return j + 1 - brace;
}

std::string EscapeLiteralBraces(std::string_view pattern) {
  std::string out;
  out.reserve(pattern.size() + 8);
  bool in_class = false;
  for (size_t i = 0; i < pattern.size(); ++i) {
    char c = pattern[i];
    if (c == '\\' && i + 1 < pattern.size()) {
      out += c;
      out += pattern[++i];
      continue;
    }
    if (in_class) {
      if (c == ']') in_class = false;
      out += c;
      continue;
    }
    if (c == '[') {
      in_class = true;
      out += c;
      // A ']' right after '[' or '[^' is a member, not the end.
      if (i + 1 < pattern.size() && pattern[i + 1] == '^') out += pattern[++i];
      if (i + 1 < pattern.size() && pattern[i + 1] == ']') out += pattern[++i];
      continue;
    }
    if (c == '{') {
      size_t length = Re2RepeatLength(pattern, i);
      if (length != 0 && length != kInvalidRepeat) {
        out.append(pattern.substr(i, length));
        i += length - 1;
        continue;
      }
    }
    if (c == '{' || c == '}') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace allocore::internal
