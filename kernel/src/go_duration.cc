#include "go_duration.h"

#include <limits>

namespace allocore::internal {
namespace {

__extension__ typedef unsigned __int128 Wide;

constexpr uint64_t kNanosPerUnit[] = {
    1, 1'000, 1'000'000, 1'000'000'000, 60'000'000'000ULL, 3'600'000'000'000ULL};

// The unit at the front of `text`: its index in kNanosPerUnit and its length, or -1.
int UnitAt(std::string_view text, size_t* length) {
  struct Unit {
    std::string_view name;
    int index;
  };
  // Longest names first, so that "ms" is not read as "m".
  static constexpr Unit kUnits[] = {{"ns", 0}, {"us", 1}, {"\xC2\xB5s", 1}, {"\xCE\xBCs", 1},
                                    {"ms", 2}, {"s", 3},  {"m", 4},         {"h", 5}};
  size_t end = 0;
  while (end < text.size() && text[end] != '.' && (text[end] < '0' || text[end] > '9')) ++end;
  std::string_view name = text.substr(0, end);
  for (const Unit& unit : kUnits) {
    if (name == unit.name) {
      *length = end;
      return unit.index;
    }
  }
  return -1;
}

}  // namespace

std::optional<int64_t> ParseGoDuration(std::string_view text) {
  bool negative = false;
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  if (text == "0") return 0;
  if (text.empty()) return std::nullopt;
  constexpr uint64_t kLimit = uint64_t{1} << 63;  // |int64 min|
  uint64_t total = 0;
  while (!text.empty()) {
    uint64_t whole = 0;
    size_t i = 0;
    bool whole_digits = false;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
      if (whole > kLimit / 10) return std::nullopt;
      whole = whole * 10 + static_cast<uint64_t>(text[i] - '0');
      if (whole > kLimit) return std::nullopt;
      whole_digits = true;
    }
    // The fraction keeps at most 18 digits: beyond that Go's result does not change either.
    uint64_t fraction = 0;
    uint64_t scale = 1;
    bool fraction_digits = false;
    if (i < text.size() && text[i] == '.') {
      for (++i; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
        if (scale < 1'000'000'000'000'000'000ULL) {
          fraction = fraction * 10 + static_cast<uint64_t>(text[i] - '0');
          scale *= 10;
        }
        fraction_digits = true;
      }
    }
    if (!whole_digits && !fraction_digits) return std::nullopt;
    text.remove_prefix(i);
    size_t unit_length = 0;
    int unit = UnitAt(text, &unit_length);
    if (unit < 0) return std::nullopt;
    text.remove_prefix(unit_length);
    const uint64_t per_unit = kNanosPerUnit[unit];
    if (whole > kLimit / per_unit) return std::nullopt;
    uint64_t nanos = whole * per_unit;
    // fraction / scale of a unit, without overflow: per_unit <= 3.6e12 and fraction < 1e18.
    nanos += static_cast<uint64_t>(static_cast<Wide>(fraction) * per_unit / scale);
    if (nanos > kLimit || total > kLimit - nanos) return std::nullopt;
    total += nanos;
  }
  if (!negative && total == kLimit) return std::nullopt;
  return negative ? static_cast<int64_t>(0 - total) : static_cast<int64_t>(total);
}

}  // namespace allocore::internal
