// The quantity is read as an integer mantissa times 10^e times 2^b, all exact in 128 bits; the
// caller's unit then divides, rounding up as the Kubernetes quantity does.
#include "k8s_quantity.h"

#include <cstdint>
#include <limits>
#include <string>

#include "str_util.h"

namespace allocore::adapters::internal {
namespace {

// __extension__: -Wpedantic refuses the GCC and Clang 128-bit type otherwise.
__extension__ typedef unsigned __int128 Wide;

constexpr Wide kWideLimit = Wide{1} << 126;  // products stay below it
constexpr int kMaxSignificantDigits = 36;    // 10^36 < 2^120
constexpr int kMaxExponent = 1000;           // |e| of an exponent suffix

absl::Status Bad(std::string_view text, std::string_view why) {
  return absl::InvalidArgumentError(Cat("quantity \"", text, "\": ", why));
}

// The suffix's power of ten or of two; false when it is not one Kubernetes knows.
bool SuffixScale(std::string_view suffix, int* exp10, int* exp2) {
  *exp10 = 0;
  *exp2 = 0;
  static constexpr std::pair<std::string_view, int> kBinary[] = {
      {"Ki", 10}, {"Mi", 20}, {"Gi", 30}, {"Ti", 40}, {"Pi", 50}, {"Ei", 60}};
  static constexpr std::pair<std::string_view, int> kDecimal[] = {
      {"", 0},  {"n", -9}, {"u", -6}, {"m", -3}, {"k", 3},
      {"M", 6}, {"G", 9},  {"T", 12}, {"P", 15}, {"E", 18}};
  for (const auto& [name, power] : kBinary) {
    if (suffix == name) {
      *exp2 = power;
      return true;
    }
  }
  for (const auto& [name, power] : kDecimal) {
    if (suffix == name) {
      *exp10 = power;
      return true;
    }
  }
  return false;
}

}  // namespace

absl::StatusOr<QuantityValue> ParseKubernetesQuantity(std::string_view text, bool milli) {
  if (text.empty()) return Bad(text, "empty");
  size_t i = 0;
  bool negative = false;
  if (text[i] == '+' || text[i] == '-') negative = text[i++] == '-';
  Wide mantissa = 0;
  int significant = 0;
  int exp10 = 0;
  int digits = 0;
  bool seen_point = false;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (c == '.' && !seen_point) {
      seen_point = true;
      continue;
    }
    if (c < '0' || c > '9') break;
    ++digits;
    if (seen_point) --exp10;
    if (mantissa == 0 && c == '0') continue;
    if (++significant > kMaxSignificantDigits) {
      return Bad(text, Cat("more than ", kMaxSignificantDigits, " significant digits"));
    }
    mantissa = mantissa * 10 + static_cast<Wide>(c - '0');
  }
  if (digits == 0) return Bad(text, "not a number");
  std::string_view suffix = text.substr(i);
  int suffix10 = 0;
  int suffix2 = 0;
  // An SI suffix first: "Ei" is exa-binary, not an exponent.
  bool is_exponent = !SuffixScale(suffix, &suffix10, &suffix2);
  if (is_exponent) {
    if (suffix.size() < 2 || (suffix[0] != 'e' && suffix[0] != 'E')) {
      return Bad(text, Cat("unknown suffix \"", suffix,
                           "\" (known: Ki Mi Gi Ti Pi Ei, n u m k M G T P E, e<exponent>)"));
    }
    size_t j = 1;
    bool exp_negative = false;
    if (suffix[j] == '+' || suffix[j] == '-') exp_negative = suffix[j++] == '-';
    if (j == suffix.size()) return Bad(text, "an exponent without digits");
    int value = 0;
    for (; j < suffix.size(); ++j) {
      char c = suffix[j];
      if (c < '0' || c > '9') return Bad(text, Cat("unknown suffix \"", suffix, "\""));
      value = value * 10 + (c - '0');
      if (value > kMaxExponent) return Bad(text, "exponent out of range");
    }
    suffix10 = exp_negative ? -value : value;
  }
  if (mantissa == 0) return QuantityValue{};
  if (negative) return Bad(text, "negative");
  exp10 += suffix10 + (milli ? 3 : 0);

  constexpr Wide kMax = static_cast<Wide>(std::numeric_limits<int64_t>::max());
  auto too_large = [&] {
    return Bad(text,
               Cat("more than ", std::numeric_limits<int64_t>::max(), milli ? " thousandths" : ""));
  };
  Wide value = mantissa;
  for (int b = 0; b < suffix2; ++b) {
    value <<= 1;
    if (value >= kWideLimit) return too_large();
  }
  QuantityValue result;
  if (exp10 >= 0) {
    for (int e = 0; e < exp10; ++e) {
      value *= 10;
      if (value > kMax) return too_large();
    }
  } else {
    Wide divisor = 1;
    bool tiny = false;
    for (int e = 0; e < -exp10; ++e) {
      // Once the divisor passes the numerator the quotient is 0 (value < kWideLimit, so the
      // second test also keeps divisor * 10 inside 128 bits).
      if (divisor > value || divisor > kWideLimit / 10) {
        tiny = true;
        break;
      }
      divisor *= 10;
    }
    if (tiny) {
      value = 1;  // a positive amount below one unit rounds up to one
      result.rounded = true;
    } else {
      Wide quotient = value / divisor;
      if (quotient * divisor != value) {
        ++quotient;
        result.rounded = true;
      }
      value = quotient;
    }
  }
  if (value > kMax) return too_large();
  result.value = static_cast<int64_t>(value);
  return result;
}

}  // namespace allocore::adapters::internal
