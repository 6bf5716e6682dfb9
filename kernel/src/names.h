// kernel/src/names.h — string interning for entity names.
//
// Names cross the API as strings once; inside the kernel they are string_views into this
// table. Each name is stored in its own node, so a view stays valid while its name is in the
// table, whatever else is added or released. A name is released only by ReleaseUnmarked, when
// nothing the kernel holds refers to it any more (Kernel::ReleaseUnusedNames marks what is
// held); without that call every name stays for the kernel's lifetime.
#ifndef ALLOCORE_KERNEL_SRC_NAMES_H_
#define ALLOCORE_KERNEL_SRC_NAMES_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_set.h"
#include "absl/container/node_hash_set.h"
#include "absl/strings/string_view.h"

namespace allocore::internal {

// The names something still refers to, by the address of their stored characters.
class NameMarks {
 public:
  void Mark(std::string_view name) { in_use_.insert(name.data()); }
  bool Marked(std::string_view name) const { return in_use_.contains(name.data()); }

 private:
  absl::flat_hash_set<const char*> in_use_;
};

class NameTable {
 public:
  std::string_view Intern(std::string_view name) {
    // Abseil's own string_view type (Debian's build does not alias std::string_view) keys the
    // heterogeneous lookup.
    auto it = names_.find(absl::string_view(name.data(), name.size()));
    if (it == names_.end()) it = names_.emplace(name).first;
    return *it;
  }
  size_t size() const { return names_.size(); }
  // Drops every name `marks` does not hold; views of dropped names dangle afterwards.
  // Returns how many were dropped.
  size_t ReleaseUnmarked(const NameMarks& marks) {
    size_t before = names_.size();
    absl::erase_if(names_, [&](const std::string& name) { return !marks.Marked(name); });
    return before - names_.size();
  }

 private:
  absl::node_hash_set<std::string> names_;
};

}  // namespace allocore::internal

#endif  // ALLOCORE_KERNEL_SRC_NAMES_H_
