#include "allocore/adapters/json.h"

#include <cstdint>
#include <cstdio>

namespace allocore::adapters {
namespace {

// Length of the valid UTF-8 sequence starting at s[i], or 0 when invalid.
size_t Utf8SequenceLength(std::string_view s, size_t i) {
  auto byte = [&](size_t k) { return static_cast<uint8_t>(s[k]); };
  uint8_t lead = byte(i);
  size_t len = lead < 0x80           ? 1
               : (lead >> 5) == 0x6  ? 2
               : (lead >> 4) == 0xE  ? 3
               : (lead >> 3) == 0x1E ? 4
                                     : 0;
  if (len == 0 || i + len > s.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  }
  if (len == 2 && lead < 0xC2) return 0;                          // overlong
  if (len == 3 && lead == 0xE0 && byte(i + 1) < 0xA0) return 0;   // overlong
  if (len == 3 && lead == 0xED && byte(i + 1) >= 0xA0) return 0;  // surrogate
  if (len == 4 && lead == 0xF0 && byte(i + 1) < 0x90) return 0;   // overlong
  if (len == 4 && (lead > 0xF4 || (lead == 0xF4 && byte(i + 1) >= 0x90))) return 0;
  return len;
}

}  // namespace

void AppendJsonString(std::string* out, std::string_view s) {
  out->push_back('"');
  for (size_t i = 0; i < s.size();) {
    char c = s[i];
    switch (c) {
      case '"':
        *out += "\\\"";
        ++i;
        continue;
      case '\\':
        *out += "\\\\";
        ++i;
        continue;
      case '\n':
        *out += "\\n";
        ++i;
        continue;
      case '\r':
        *out += "\\r";
        ++i;
        continue;
      case '\t':
        *out += "\\t";
        ++i;
        continue;
      default:
        break;
    }
    auto u = static_cast<uint8_t>(c);
    if (u < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", u);
      *out += buf;
      ++i;
      continue;
    }
    size_t len = Utf8SequenceLength(s, i);
    if (len == 0) {
      // U+FFFD as UTF-8, as a valid U+FFFD in the input is written: writing a text read back
      // from this output gives the same bytes (an escape here would not round-trip).
      *out += "\xEF\xBF\xBD";
      ++i;
      continue;
    }
    out->append(s.substr(i, len));
    i += len;
  }
  out->push_back('"');
}

}  // namespace allocore::adapters
