// kernel/src/names.h — string interning for entity names.
//
// Names cross the API as strings once; inside the kernel they are string_views into this
// table. Each name is stored in its own block, so a view stays valid while its name is in the
// table, whatever else is added or released. A name is released only by ReleaseUnmarked, when
// nothing the kernel holds refers to it any more (Kernel::ReleaseUnusedNames marks what is
// held); without that call every name stays for the kernel's lifetime.
#ifndef ALLOCORE_KERNEL_SRC_NAMES_H_
#define ALLOCORE_KERNEL_SRC_NAMES_H_

#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_set.h"
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

// Each name is one heap block of its characters and a NUL, owned by the table; the set holds views
// of them, so a rehash moves views, never characters. A new name costs one hash and one allocation.
class NameTable {
 public:
  NameTable() = default;
  NameTable(const NameTable&) = delete;
  NameTable& operator=(const NameTable&) = delete;
  ~NameTable() {
    for (absl::string_view name : names_) Free(name);
  }

  std::string_view Intern(std::string_view name) {
    // Abseil's own string_view type (Debian's build does not alias std::string_view) keys the
    // set.
    absl::string_view key(name.data(), name.size());
    auto it = names_.lazy_emplace(key, [&](const auto& construct) {
      // NUL-terminated as well: the C ABI hands names out as C strings (with their length).
      char* stored = new char[name.size() + 1];
      if (!name.empty()) std::memcpy(stored, name.data(), name.size());
      stored[name.size()] = '\0';
      construct(absl::string_view(stored, name.size()));
    });
    return std::string_view(it->data(), it->size());
  }
  size_t size() const { return names_.size(); }
  // Drops every name `marks` does not hold; views of dropped names dangle afterwards.
  // Returns how many were dropped.
  size_t ReleaseUnmarked(const NameMarks& marks) {
    size_t before = names_.size();
    absl::erase_if(names_, [&](absl::string_view name) {
      if (marks.Marked(std::string_view(name.data(), name.size()))) return false;
      Free(name);
      return true;
    });
    return before - names_.size();
  }

 private:
  static void Free(absl::string_view name) { delete[] name.data(); }

  absl::flat_hash_set<absl::string_view> names_;
};

}  // namespace allocore::internal

#endif  // ALLOCORE_KERNEL_SRC_NAMES_H_
