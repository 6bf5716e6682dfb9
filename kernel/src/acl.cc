#include "acl.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_split.h"
#include "name_rules.h"

namespace allocore::internal {
Acl Acl::Parse(std::string_view text) {
  Acl acl;
  absl::string_view trimmed =
      absl::StripAsciiWhitespace(absl::string_view(text.data(), text.size()));
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
