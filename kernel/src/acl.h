// kernel/src/acl.h — submit/admin access control lists (§8.5).
//
// Syntax: "<users> <groups>", each a comma-separated list, split on single spaces into at
// most two parts. "*" (trimmed) allows everybody; a user or group list that is exactly "*"
// allows everybody; an empty string allows nobody. Entries that are not valid user / group
// names are dropped. Matching is exact and case-sensitive.
#ifndef ALLOCORE_KERNEL_SRC_ACL_H_
#define ALLOCORE_KERNEL_SRC_ACL_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_set.h"

namespace allocore::internal {

class Acl {
 public:
  // What makes a string no ACL. YuniKorn refuses such a config; the validator reports it.
  struct Problem {
    enum class Kind : uint8_t {
      kNone,
      kManyFields,  // more than two whitespace-separated fields
      kManyParts,   // more than two parts split on single spaces (doubled or edge spaces)
    };
    Kind kind = Kind::kNone;
    size_t parts = 0;  // how many fields or parts
  };

  Acl() = default;
  // The one reader of an ACL's text, for the validator (`problem`) and the kernel alike. With a
  // problem the result is what the lenient reading makes of it; the kernel never sees one (the
  // validator refuses the config).
  static Acl Parse(std::string_view text, Problem* problem = nullptr);

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
