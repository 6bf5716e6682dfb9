// kernel/src/go_regexp.h — the regular expressions of placement filters.
//
// YuniKorn compiles a filter entry with Go's regexp package, whose syntax is RE2's. RE2 itself
// reads the same syntax and matches in time linear in the name, without recursion, so a long
// user or group name can neither exhaust a small thread stack nor backtrack for seconds.
// Compile is the one place that decides whether a pattern is valid: the validator refuses what
// it refuses and the placement rules match with what it returns.
#ifndef ALLOCORE_KERNEL_SRC_GO_REGEXP_H_
#define ALLOCORE_KERNEL_SRC_GO_REGEXP_H_

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace re2 {
class RE2;
}

namespace allocore::internal {

class GoRegexp {
 public:
  // Patterns longer than this are refused (Go has no such limit, but no filter written by a
  // person comes near it, and it bounds the compile time and memory of a hostile config).
  static constexpr size_t kMaxPatternBytes = 4096;

  // InvalidArgument with RE2's reason when Go's regexp.Compile would refuse the pattern (or it
  // is longer than kMaxPatternBytes).
  static absl::StatusOr<GoRegexp> Compile(std::string_view pattern);

  // Go's MatchString: true when the pattern matches anywhere in `text`.
  bool MatchesAnywhere(std::string_view text) const;
  // The pattern as compiled (a snapshot keeps it and compiles it again).
  const std::string& source() const;

 private:
  explicit GoRegexp(std::shared_ptr<const re2::RE2> re) : re_(std::move(re)) {}
  std::shared_ptr<const re2::RE2> re_;  // shared: filters are copied with their rules
};

}  // namespace allocore::internal

#endif  // ALLOCORE_KERNEL_SRC_GO_REGEXP_H_
