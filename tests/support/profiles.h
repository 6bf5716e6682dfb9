// tests/support/profiles.h — the two semantics profiles as a test parameter.
//
// Example:
//   class MyTest : public ::testing::TestWithParam<Semantics> {};
//   INSTANTIATE_TEST_SUITE_P(Profiles, MyTest, test_support::EachProfile(),
//                            test_support::ProfileName);
#ifndef ALLOCORE_TESTS_SUPPORT_PROFILES_H_
#define ALLOCORE_TESTS_SUPPORT_PROFILES_H_

#include <string>

#include "allocore/semantics.h"
#include "gtest/gtest.h"

namespace allocore::test_support {

// Both profiles, named V12 and V19 in test names.
inline auto EachProfile() {
  return ::testing::Values(Semantics::kYunikorn12, Semantics::kYunikorn19);
}
inline std::string ProfileName(const ::testing::TestParamInfo<Semantics>& info) {
  return info.param == Semantics::kYunikorn12 ? "V12" : "V19";
}

}  // namespace allocore::test_support

#endif  // ALLOCORE_TESTS_SUPPORT_PROFILES_H_
