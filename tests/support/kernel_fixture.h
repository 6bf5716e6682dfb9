// tests/support/kernel_fixture.h — the fixture kernel tests share: a kernel, its decisions, and
// calls that check the call's status and the kernel's consistency after it.
//
// Example:
//   class MyTest : public test_support::KernelFixture {};
//   TEST_F(MyTest, X) {
//     Start(test_support::RootWith(test_support::Leaves({"a"})));
//     Ok(kernel_->AddNode({.id = "n", .capacity = {{"memory", 10}}}, &out_));
//     Schedule();
//     EXPECT_EQ(Why("k"), "(not pending)");
//   }
#ifndef ALLOCORE_TESTS_SUPPORT_KERNEL_FIXTURE_H_
#define ALLOCORE_TESTS_SUPPORT_KERNEL_FIXTURE_H_

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "allocore/kernel.h"
#include "gtest/gtest.h"

namespace allocore::test_support {

class KernelFixture : public ::testing::Test {
 protected:
  void Start(SchedulerConfig config, KernelOptions options = {}) {
    auto created = Kernel::Create(std::move(config), options);
    ASSERT_TRUE(created.ok()) << created.status();
    kernel_ = std::move(*created);
  }
  // The call succeeded and left the kernel consistent.
  void Ok(const absl::Status& status) {
    ASSERT_TRUE(status.ok()) << status;
    ASSERT_TRUE(kernel_->CheckConsistency().ok()) << kernel_->CheckConsistency();
  }
  void Schedule() {
    auto made = kernel_->Schedule(0, "", &out_);
    ASSERT_TRUE(made.ok()) << made.status();
    ASSERT_TRUE(kernel_->CheckConsistency().ok()) << kernel_->CheckConsistency();
  }
  // What ExplainPending says of the ask, or "(not pending)".
  std::string Why(std::string_view ask) const {
    for (const PendingExplanation& e : kernel_->ExplainPending()) {
      if (e.ask == ask) return e.reason;
    }
    return "(not pending)";
  }

  std::unique_ptr<Kernel> kernel_;
  std::vector<Decision> out_;
};

}  // namespace allocore::test_support

#endif  // ALLOCORE_TESTS_SUPPORT_KERNEL_FIXTURE_H_
