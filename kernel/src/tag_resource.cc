#include "tag_resource.h"

#include <map>

namespace allocore::internal {
namespace {

constexpr int kMaxDepth = 64;

void AppendUtf8(uint32_t code, std::string* out) {
  if (code < 0x80) {
    out->push_back(static_cast<char>(code));
  } else if (code < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (code >> 6)));
    out->push_back(static_cast<char>(0x80 | (code & 0x3F)));
  } else if (code < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (code >> 12)));
    out->push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (code & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (code >> 18)));
    out->push_back(static_cast<char>(0x80 | ((code >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (code & 0x3F)));
  }
}

// A JSON reader over the whole text; every method leaves the position after what it read and
// returns false (or nullopt) on a syntax error.
class Reader {
 public:
  explicit Reader(std::string_view text) : text_(text) {}

  void SkipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }
  bool AtEnd() {
    SkipSpace();
    return pos_ == text_.size();
  }
  char Peek() {
    SkipSpace();
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }
  bool Eat(char c) {
    if (Peek() != c) return false;
    ++pos_;
    return true;
  }
  bool Word(std::string_view word) {
    SkipSpace();
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  std::optional<std::string> String() {
    if (!Eat('"')) return std::nullopt;
    std::string out;
    while (pos_ < text_.size()) {
      const char c = text_[pos_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) return std::nullopt;
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (pos_ >= text_.size()) return std::nullopt;
      const char e = text_[pos_++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out.push_back(e);
          break;
        case 'b':
          out.push_back('\b');
          break;
        case 'f':
          out.push_back('\f');
          break;
        case 'n':
          out.push_back('\n');
          break;
        case 'r':
          out.push_back('\r');
          break;
        case 't':
          out.push_back('\t');
          break;
        case 'u': {
          std::optional<uint32_t> code = Hex4();
          if (!code) return std::nullopt;
          // A high surrogate followed by a low one is one code point; a lone half is U+FFFD.
          if (*code >= 0xD800 && *code < 0xDC00 && text_.substr(pos_, 2) == "\\u") {
            const size_t save = pos_;
            pos_ += 2;
            std::optional<uint32_t> low = Hex4();
            if (low && *low >= 0xDC00 && *low < 0xE000) {
              AppendUtf8(0x10000 + ((*code - 0xD800) << 10) + (*low - 0xDC00), &out);
              break;
            }
            pos_ = save;
          }
          AppendUtf8(*code >= 0xD800 && *code < 0xE000 ? 0xFFFD : *code, &out);
          break;
        }
        default:
          return std::nullopt;
      }
    }
    return std::nullopt;
  }

  // A number literal; `integer` tells whether it has neither fraction nor exponent, `value`
  // holds it when it is an integer within int64.
  bool Number(bool* integer, std::optional<int64_t>* value) {
    SkipSpace();
    const size_t start = pos_;
    if (pos_ < text_.size() && text_[pos_] == '-') ++pos_;
    if (pos_ >= text_.size() || text_[pos_] < '0' || text_[pos_] > '9') return false;
    if (text_[pos_] == '0') {
      ++pos_;
    } else {
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
    }
    *integer = true;
    if (pos_ < text_.size() && text_[pos_] == '.') {
      *integer = false;
      ++pos_;
      if (pos_ >= text_.size() || text_[pos_] < '0' || text_[pos_] > '9') return false;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      *integer = false;
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      if (pos_ >= text_.size() || text_[pos_] < '0' || text_[pos_] > '9') return false;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
    }
    value->reset();
    if (!*integer) return true;
    std::string_view digits = text_.substr(start, pos_ - start);
    const bool negative = digits.front() == '-';
    if (negative) digits.remove_prefix(1);
    int64_t v = 0;
    for (char d : digits) {
      const int64_t digit = d - '0';
      if (negative ? (__builtin_mul_overflow(v, 10, &v) || __builtin_sub_overflow(v, digit, &v))
                   : (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, digit, &v))) {
        return true;  // a valid literal outside int64: no value
      }
    }
    *value = v;
    return true;
  }

  // Any JSON value, discarded.
  bool SkipValue(int depth) {
    if (depth > kMaxDepth) return false;
    switch (Peek()) {
      case '{': {
        ++pos_;
        if (Eat('}')) return true;
        do {
          if (!String() || !Eat(':') || !SkipValue(depth + 1)) return false;
        } while (Eat(','));
        return Eat('}');
      }
      case '[': {
        ++pos_;
        if (Eat(']')) return true;
        do {
          if (!SkipValue(depth + 1)) return false;
        } while (Eat(','));
        return Eat(']');
      }
      case '"':
        return String().has_value();
      case 't':
        return Word("true");
      case 'f':
        return Word("false");
      case 'n':
        return Word("null");
      default: {
        bool integer = false;
        std::optional<int64_t> value;
        return Number(&integer, &value);
      }
    }
  }

 private:
  std::optional<uint32_t> Hex4() {
    if (pos_ + 4 > text_.size()) return std::nullopt;
    uint32_t code = 0;
    for (int i = 0; i < 4; ++i) {
      const char h = text_[pos_++];
      code <<= 4;
      if (h >= '0' && h <= '9') {
        code |= static_cast<uint32_t>(h - '0');
      } else if (h >= 'a' && h <= 'f') {
        code |= static_cast<uint32_t>(h - 'a' + 10);
      } else if (h >= 'A' && h <= 'F') {
        code |= static_cast<uint32_t>(h - 'A' + 10);
      } else {
        return std::nullopt;
      }
    }
    return code;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

// The Quantity message: {"value": N}; nullopt on an error.
std::optional<int64_t> Quantity(Reader& in) {
  int64_t value = 0;
  if (!in.Eat('{')) return std::nullopt;
  if (in.Eat('}')) return value;
  do {
    std::optional<std::string> key = in.String();
    if (!key || !in.Eat(':')) return std::nullopt;
    if (!EqualsAsciiIgnoreCase(*key, "value")) {
      if (!in.SkipValue(2)) return std::nullopt;
      continue;
    }
    if (in.Word("null")) continue;
    bool integer = false;
    std::optional<int64_t> number;
    if (!in.Number(&integer, &number) || !integer || !number) return std::nullopt;
    value = *number;
  } while (in.Eat(','));
  if (!in.Eat('}')) return std::nullopt;
  return value;
}

}  // namespace

bool EqualsAsciiIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i];
    char y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

std::optional<std::vector<std::pair<std::string, int64_t>>> ParseResourceTag(
    std::string_view text) {
  Reader in(text);
  std::map<std::string, int64_t> resources;
  if (in.Word("null")) {
    if (!in.AtEnd()) return std::nullopt;
    return std::vector<std::pair<std::string, int64_t>>();
  }
  if (!in.Eat('{')) return std::nullopt;
  if (!in.Eat('}')) {
    do {
      std::optional<std::string> key = in.String();
      if (!key || !in.Eat(':')) return std::nullopt;
      if (!EqualsAsciiIgnoreCase(*key, "resources")) {
        if (!in.SkipValue(1)) return std::nullopt;
        continue;
      }
      if (in.Word("null")) {
        resources.clear();  // a nil map
        continue;
      }
      // A map decodes into the map already there: a second "resources" adds to the first.
      if (!in.Eat('{')) return std::nullopt;
      if (in.Eat('}')) continue;
      do {
        std::optional<std::string> type = in.String();
        if (!type || !in.Eat(':')) return std::nullopt;
        std::optional<int64_t> quantity = Quantity(in);
        if (!quantity) return std::nullopt;  // also a nil entry (`null`)
        resources[*type] = *quantity;
      } while (in.Eat(','));
      if (!in.Eat('}')) return std::nullopt;
    } while (in.Eat(','));
    if (!in.Eat('}')) return std::nullopt;
  }
  if (!in.AtEnd()) return std::nullopt;
  return std::vector<std::pair<std::string, int64_t>>(resources.begin(), resources.end());
}

std::optional<uint64_t> ParseUint64Tag(std::string_view text) {
  if (text.empty()) return std::nullopt;
  uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    if (__builtin_mul_overflow(value, 10, &value) ||
        __builtin_add_overflow(value, static_cast<uint64_t>(c - '0'), &value)) {
      return std::nullopt;
    }
  }
  return value;
}

}  // namespace allocore::internal
