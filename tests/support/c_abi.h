// tests/support/c_abi.h — what the tests of the C ABI share: an error message the test owns,
// and a small queues.yaml as C callers pass it (text).
#ifndef ALLOCORE_TESTS_SUPPORT_C_ABI_H_
#define ALLOCORE_TESTS_SUPPORT_C_ABI_H_

#include <string>
#include <string_view>

#include "allocore/c.h"
#include "support/two_leaves_yaml.h"

namespace test_support {

// root.a and root.b under a root anyone may submit to (support/two_leaves_yaml.h).
inline constexpr std::string_view kTwoLeavesYaml = ALLOCORE_TEST_TWO_LEAVES_YAML;

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
