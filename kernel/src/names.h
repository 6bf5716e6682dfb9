// kernel/src/names.h — string interning for entity names.
//
// Names cross the API as strings once; inside the kernel they are string_views into this
// table. Views stay valid for the table's lifetime (std::deque never moves its elements), so
// decisions can carry names of entities that were removed since.
#ifndef ALLOCORE_KERNEL_SRC_NAMES_H_
#define ALLOCORE_KERNEL_SRC_NAMES_H_

#include <deque>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_set.h"

namespace allocore::internal {

class NameTable {
 public:
  std::string_view Intern(std::string_view name) {
    auto it = set_.find(name);
    if (it != set_.end()) return *it;
    std::string_view stored = storage_.emplace_back(name);
    set_.insert(stored);
    return stored;
  }

 private:
  std::deque<std::string> storage_;
  absl::flat_hash_set<std::string_view> set_;
};

}  // namespace allocore::internal

#endif  // ALLOCORE_KERNEL_SRC_NAMES_H_
