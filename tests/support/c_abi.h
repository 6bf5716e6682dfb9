// tests/support/c_abi.h — what the tests of the C ABI share: an error message the test owns,
// and a small queues.yaml as C callers pass it (text).
#ifndef ALLOCORE_TESTS_SUPPORT_C_ABI_H_
#define ALLOCORE_TESTS_SUPPORT_C_ABI_H_

#include <string>
#include <string_view>

#include "allocore/c.h"

namespace test_support {

// root.a and root.b under a root anyone may submit to, in one line of flow-style YAML.
inline constexpr std::string_view kTwoLeavesYaml =
    R"(partitions: [{name: default, queues: [{name: root, submitacl: "*", queues: [{name: a}, {name: b}]}]}])";

// An errptr message, freed with the test's scope.
class CError {
 public:
  CError() = default;
  CError(const CError&) = delete;
  CError& operator=(const CError&) = delete;
  ~CError() { allocore_free(text_); }
  char** ptr() { return &text_; }
  bool set() const { return text_ != nullptr; }
  int code() const { return allocore_error_code(text_); }
  std::string text() const { return text_ == nullptr ? "" : text_; }
  void Reset() {
    allocore_free(text_);
    text_ = nullptr;
  }

 private:
  char* text_ = nullptr;
};

}  // namespace test_support

#endif  // ALLOCORE_TESTS_SUPPORT_C_ABI_H_
