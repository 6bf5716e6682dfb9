#include "go_regexp.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "re2/re2.h"

namespace allocore::internal {
namespace {

// RE2 accepts \C (any single byte); Go refuses it as an invalid escape.
bool HasByteEscape(std::string_view pattern) {
  for (size_t i = 0; i + 1 < pattern.size(); ++i) {
    if (pattern[i] != '\\') continue;
    if (pattern[i + 1] == 'C') return true;
    ++i;  // the escaped character, whatever it is
  }
  return false;
}

// Compiled programs of a filter stay small; a pattern whose program needs more is refused
// rather than allowed to take memory from the scheduler.
constexpr int64_t kMaxProgramBytes = int64_t{1} << 20;

}  // namespace

absl::StatusOr<GoRegexp> GoRegexp::Compile(std::string_view pattern) {
  if (pattern.size() > kMaxPatternBytes) {
    return absl::InvalidArgumentError(absl::StrCat("regular expression of ", pattern.size(),
                                                   " bytes is longer than the limit of ",
                                                   kMaxPatternBytes));
  }
  if (HasByteEscape(pattern)) {
    return absl::InvalidArgumentError("invalid escape sequence: \\C");
  }
  RE2::Options options;  // UTF-8, case-sensitive, '.' not matching '\n': Go's defaults
  options.set_log_errors(false);
  options.set_max_mem(kMaxProgramBytes);
  auto re = std::make_shared<const RE2>(re2::StringPiece(pattern.data(), pattern.size()), options);
  if (!re->ok()) return absl::InvalidArgumentError(re->error());
  return GoRegexp(std::move(re));
}

const std::string& GoRegexp::source() const { return re_->pattern(); }

bool GoRegexp::MatchesAnywhere(std::string_view text) const {
  return RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), *re_);
}

}  // namespace allocore::internal
