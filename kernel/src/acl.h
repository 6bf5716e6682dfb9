// kernel/src/acl.h — submit/admin access control lists (§8.5).
//
// Syntax: "<users> <groups>", each a comma-separated list, split on single spaces into at
// most two parts. "*" (trimmed) allows everybody; a user or group list that is exactly "*"
// allows everybody; an empty string allows nobody. Entries that are not valid user / group
// names are dropped. Matching is exact and case-sensitive.
#ifndef ALLOCORE_KERNEL_SRC_ACL_H_
#define ALLOCORE_KERNEL_SRC_ACL_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_set.h"

namespace allocore::internal {

class Acl {
 public:
  Acl() = default;
  // Lenient: the validator has already refused strings this cannot represent.
  static Acl Parse(std::string_view text);

  bool Allows(std::string_view user, const std::vector<std::string_view>& groups) const;
  bool allows_all() const { return all_users_ || all_groups_; }

  // What a snapshot keeps of it (snapshot_fields.h).
  template <typename A, typename Self>
  static void SnapshotFields(A& a, Self& self) {
    a(self.all_users_, self.all_groups_, self.users_, self.groups_);
  }

 private:
  bool all_users_ = false;
  bool all_groups_ = false;
  absl::flat_hash_set<std::string> users_;
  absl::flat_hash_set<std::string> groups_;
};

}  // namespace allocore::internal

#endif  // ALLOCORE_KERNEL_SRC_ACL_H_
