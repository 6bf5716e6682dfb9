// The allocation path allocates no heap memory once the kernel is warm: a count, not a time.
//
// This binary replaces the global operator new so that it can count the allocations made
// inside Schedule(). The workload churns: every round allocates one repeat of a large ask and
// releases it again, across queues with several applications and a few hundred nodes whose
// order moves with every allocation. After a warm-up (vectors and trees at their working
// size), Schedule() must not allocate at all.
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "allocore/kernel.h"
#include "gtest/gtest.h"
#include "support/configs.h"

namespace {

bool g_counting = false;
int64_t g_allocations = 0;

// Not inlined: a debugger can break here to see where an allocation comes from.
__attribute__((noinline)) void CountAllocation() { ++g_allocations; }

void* Allocate(std::size_t size) {
  if (g_counting) CountAllocation();
  void* p = std::malloc(size == 0 ? 1 : size);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

// Every form is replaced, so that each allocation and its release meet the same allocator
// (ASan checks the pairs).
void* AllocateAligned(std::size_t size, std::align_val_t align) {
  if (g_counting) CountAllocation();
  const auto alignment = static_cast<std::size_t>(align);
  void* p = std::aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

}  // namespace

void* operator new(std::size_t size) { return Allocate(size); }
void* operator new[](std::size_t size) { return Allocate(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  try {
    return Allocate(size);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  try {
    return Allocate(size);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}
void* operator new(std::size_t size, std::align_val_t align) {
  return AllocateAligned(size, align);
}
void* operator new[](std::size_t size, std::align_val_t align) {
  return AllocateAligned(size, align);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

namespace allocore {
namespace {

SchedulerConfig ChurnConfig(const std::string& node_policy) {
  SchedulerConfig config = test_support::RootWith(test_support::Leaves({"a", "b", "c"}));
  config.partitions[0].node_sort_policy.type = node_policy;
  for (QueueConfig& leaf : test_support::Root(config).queues) {
    leaf.resources.guaranteed = QuantityMap{{"memory", 1000}, {"vcore", 100}};
  }
  return config;
}

class AllocationPathTest : public ::testing::TestWithParam<const char*> {};

TEST_P(AllocationPathTest, ScheduleAllocatesNoHeapMemoryOnceWarm) {
  auto created = Kernel::Create(ChurnConfig(GetParam()));
  ASSERT_TRUE(created.ok()) << created.status();
  Kernel& kernel = **created;
  std::vector<Decision> out;
  out.reserve(1024);
  for (int n = 0; n < 300; ++n) {
    // Mixed shapes, so that the node order moves and some nodes cannot take every ask.
    Quantities capacity{{"memory", 64 + 16 * (n % 5)}, {"vcore", 16 + (n % 3)}};
    if (n % 10 == 0) capacity.push_back({"gpu", 4});
    ASSERT_TRUE(
        kernel.AddNode({.id = "node-" + std::to_string(n), .capacity = capacity}, &out).ok());
  }
  const char* queues[] = {"root.a", "root.b", "root.c"};
  std::vector<std::string> apps;
  for (int a = 0; a < 12; ++a) {
    apps.push_back("app-" + std::to_string(a));
    ASSERT_TRUE(
        kernel.AddApplication({.id = apps.back(), .queue = queues[a % 3], .user = "u"}, &out).ok());
    Quantities resources{{"memory", 1 + a % 4}, {"vcore", 1}};
    if (a % 4 == 3) resources.push_back({"gpu", 1});
    ASSERT_TRUE(kernel
                    .AddAsk({.app = apps.back(),
                             .id = "ask",
                             .resources = resources,
                             .priority = a % 3,
                             .count = 1'000'000},
                            &out)
                    .ok());
  }
  // Keeps a standing load of allocations on the nodes, then churns one in, one out.
  auto schedule_one = [&]() -> const Decision* {
    out.clear();
    absl::StatusOr<int64_t> made = kernel.Schedule(1, "", &out);
    if (!made.ok() || *made != 1) return nullptr;
    for (const Decision& d : out) {
      if (d.type == DecisionType::kAllocation) return &d;
    }
    return nullptr;
  };
  for (int i = 0; i < 2000; ++i) ASSERT_NE(schedule_one(), nullptr);
  auto round = [&](bool count) {
    if (count) g_counting = true;
    const Decision* d = schedule_one();
    g_counting = false;
    ASSERT_NE(d, nullptr);
    std::string app(d->app);
    std::string ask(d->ask);
    std::string node(d->node);
    out.clear();
    absl::Status released = kernel.ReleaseAllocation("default", app, ask, node, &out);
    ASSERT_TRUE(released.ok()) << released;
  };
  for (int i = 0; i < 3000; ++i) round(false);  // warm-up: every container at working size
  g_allocations = 0;
  for (int i = 0; i < 3000; ++i) round(true);
  EXPECT_EQ(g_allocations, 0) << "heap allocations inside Schedule() over 3,000 allocations";
  ASSERT_TRUE(kernel.CheckConsistency().ok()) << kernel.CheckConsistency();
}

INSTANTIATE_TEST_SUITE_P(NodePolicies, AllocationPathTest, ::testing::Values("fair", "binpacking"));

}  // namespace
}  // namespace allocore
