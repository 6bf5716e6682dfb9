#include "acl.h"

#include <algorithm>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_split.h"
#include "name_rules.h"

namespace allocore::internal {
namespace {

Acl::Problem SyntaxProblem(absl::string_view text, absl::string_view trimmed) {
  Acl::Problem problem;
  if (!trimmed.empty() && trimmed != "*") {
    std::vector<absl::string_view> fields =
        absl::StrSplit(trimmed, absl::ByAnyChar(" \t\n\v\f\r"), absl::SkipEmpty());
    if (fields.size() > 2) return {.kind = Acl::Problem::Kind::kManyFields, .parts = fields.size()};
  }
  const auto parts = static_cast<size_t>(std::count(text.begin(), text.end(), ' ')) + 1;
  if (!text.empty() && parts > 2) {
    problem = {.kind = Acl::Problem::Kind::kManyParts, .parts = parts};
  }
  return problem;
}

}  // namespace

Acl Acl::Parse(std::string_view text, Problem* problem) {
  Acl acl;
  absl::string_view trimmed =
      absl::StripAsciiWhitespace(absl::string_view(text.data(), text.size()));
  if (problem != nullptr) *problem = SyntaxProblem({text.data(), text.size()}, trimmed);
  if (trimmed == "*") {
    acl.all_users_ = true;
    return acl;
  }
  if (text.empty()) return acl;
  std::vector<absl::string_view> parts =
      absl::StrSplit(absl::string_view(text.data(), text.size()), absl::MaxSplits(' ', 1));
  if (!parts.empty()) {
    if (parts[0] == "*") {
      acl.all_users_ = true;
    } else {
      for (absl::string_view user : absl::StrSplit(parts[0], ',')) {
        if (IsValidUserName({user.data(), user.size()})) acl.users_.emplace(user);
      }
    }
  }
  if (parts.size() > 1) {
    if (parts[1] == "*") {
      acl.all_groups_ = true;
    } else {
      for (absl::string_view group : absl::StrSplit(parts[1], ',')) {
        if (IsValidGroupName({group.data(), group.size()})) acl.groups_.emplace(group);
      }
    }
  }
  return acl;
}

bool Acl::Allows(std::string_view user, const std::vector<std::string_view>& groups) const {
  if (all_users_ || all_groups_) return true;
  // Most queues below the root name nobody: no name is hashed against an empty set.
  if (!users_.empty() && users_.contains(absl::string_view(user.data(), user.size()))) {
    return true;
  }
  if (groups_.empty()) return false;
  for (std::string_view group : groups) {
    if (groups_.contains(absl::string_view(group.data(), group.size()))) return true;
  }
  return false;
}

}  // namespace allocore::internal
