#include "allocore/resource.h"

#include <limits>

#include "gtest/gtest.h"

namespace allocore {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

Resource Make(std::initializer_list<std::pair<int, int64_t>> entries) {
  Resource r;
  for (auto [type, value] : entries) r.Set(type, value);
  return r;
}

TEST(ResourceTest, AddSaturatesAtBothBounds) {
  EXPECT_EQ(SaturatingAdd(kMax, 1), kMax);
  EXPECT_EQ(SaturatingAdd(kMin, -1), kMin);
  EXPECT_EQ(SaturatingAdd(-5, 3), -2);
  Resource sum = Add(Make({{0, kMax - 1}}), Make({{0, 10}, {1, 3}}));
  EXPECT_EQ(sum.Get(0), kMax);
  EXPECT_EQ(sum.Get(1), 3);
  EXPECT_TRUE(sum.Has(1));
}

TEST(ResourceTest, SubNegatesLikeYuniKornIncludingMinInt64) {
  // -MinInt64 wraps to MinInt64 in Go, so x - MinInt64 == x + MinInt64.
  EXPECT_EQ(SaturatingSub(0, kMin), kMin);
  EXPECT_EQ(SaturatingSub(-1, kMax), kMin);
  Resource diff = Sub(Make({{0, 5}}), Make({{0, 5}, {2, 1}}));
  EXPECT_TRUE(diff.Has(0));
  EXPECT_EQ(diff.Get(0), 0);
  EXPECT_EQ(diff.Get(2), -1);
}

TEST(ResourceTest, SubClampNegativeKeepsUnionWithZeroes) {
  Resource r = SubClampNegative(Make({{0, 5}}), Make({{0, 7}, {1, 2}}));
  EXPECT_EQ(r.Get(0), 0);
  EXPECT_EQ(r.Get(1), 0);
  EXPECT_TRUE(r.Has(1));
}

TEST(ResourceTest, MultiplySaturatesAndZeroGivesEmpty) {
  EXPECT_EQ(Multiply(Make({{0, kMax / 2 + 1}}), 2).Get(0), kMax);
  EXPECT_EQ(Multiply(Make({{0, kMin}}), -1).Get(0), kMax);
  EXPECT_EQ(Multiply(Make({{0, 3}}), 0).present, 0u);
}

TEST(ResourceTest, ExactFormsNameTheOverflowingTypeAndWriteNothing) {
  Resource out = Make({{5, 7}});
  EXPECT_EQ(AddExact(Make({{0, 1}, {1, kMax - 1}}), Make({{1, 2}}), &out), 1);
  EXPECT_EQ(MultiplyExact(Make({{0, 1}, {2, kMax / 2 + 1}}), 2, &out), 2);
  EXPECT_EQ(out, Make({{5, 7}}));
  EXPECT_EQ(AddExact(Make({{0, 1}, {1, kMax - 1}}), Make({{1, 1}, {3, 0}}), &out), -1);
  EXPECT_EQ(out, Make({{0, 1}, {1, kMax}, {3, 0}}));
  EXPECT_EQ(MultiplyExact(Make({{0, 3}, {2, kMax / 2}}), 2, &out), -1);
  EXPECT_EQ(out, Make({{0, 6}, {2, kMax / 2 * 2}}));
  EXPECT_EQ(MultiplyExact(Make({{0, 3}}), 0, &out), -1);
  EXPECT_EQ(out, Resource{});
}

TEST(ResourceTest, FitInTreatsMissingLargerTypeAsZero) {
  EXPECT_FALSE(FitIn(Make({{0, 10}}), Make({{0, 5}, {1, 1}})));
  EXPECT_TRUE(FitIn(Make({{0, 10}}), Make({{0, 10}, {1, 0}})));
  EXPECT_FALSE(FitIn(Make({{0, -5}}), Make({{0, 1}})));
  EXPECT_TRUE(FitIn(Make({{0, 10}, {3, 1}}), Make({})));
}

TEST(ResourceTest, FitInMaxUndefTreatsMissingLargerTypeAsUnlimited) {
  EXPECT_TRUE(FitInMaxUndef(Make({{0, 10}}), Make({{0, 5}, {1, 1000}})));
  EXPECT_FALSE(FitInMaxUndef(Make({{0, 10}}), Make({{0, 11}})));
  EXPECT_FALSE(FitInMaxUndef(Make({{0, -1}}), Make({{0, 1}})));
  EXPECT_TRUE(FitInMaxUndef(Resource{}, Make({{0, kMax}})));
}

TEST(ResourceTest, StrictlyGreaterThanZeroNeedsPositiveAndNoNegative) {
  EXPECT_FALSE(StrictlyGreaterThanZero(Resource{}));
  EXPECT_FALSE(StrictlyGreaterThanZero(Make({{0, 0}})));
  EXPECT_FALSE(StrictlyGreaterThanZero(Make({{0, 5}, {1, -1}})));
  EXPECT_TRUE(StrictlyGreaterThanZero(Make({{0, 5}, {1, 0}})));
}

TEST(ResourceTest, StrictlyGreaterThanIsDominanceOverTheUnion) {
  EXPECT_TRUE(StrictlyGreaterThan(Make({{0, 5}, {1, 1}}), Make({{0, 5}})));
  EXPECT_FALSE(StrictlyGreaterThan(Make({{0, 5}}), Make({{0, 5}})));
  EXPECT_FALSE(StrictlyGreaterThan(Make({{0, 6}}), Make({{0, 5}, {1, 1}})));
}

TEST(ResourceTest, PermissiveMinKeepsOneSidedTypes) {
  Resource m = PermissiveMin(Make({{0, 5}, {1, 9}}), Make({{1, 3}, {2, 7}}));
  EXPECT_EQ(m.Get(0), 5);
  EXPECT_EQ(m.Get(1), 3);
  EXPECT_EQ(m.Get(2), 7);
}

TEST(ResourceTypesTest, InternsInFirstSeenOrderAndRefusesTooMany) {
  ResourceTypes types;
  EXPECT_EQ(types.Intern("memory").value(), 0);
  EXPECT_EQ(types.Intern("vcore").value(), 1);
  EXPECT_EQ(types.Intern("memory").value(), 0);
  for (int i = 2; i < kMaxResourceTypes; ++i)
    ASSERT_TRUE(types.Intern("t" + std::to_string(i)).ok());
  EXPECT_FALSE(types.Intern("one-too-many").ok());
  EXPECT_EQ(types.size(), kMaxResourceTypes);
}

// A refused call takes back the types it registered by truncating to the size it saw first.
TEST(ResourceTypesTest, TruncateToForgetsOnlyTheLaterTypes) {
  ResourceTypes types;
  ASSERT_TRUE(types.Intern("memory").ok());
  ASSERT_TRUE(types.Intern("vcore").ok());
  const int before = types.size();
  ASSERT_TRUE(types.Intern("gpu").ok());
  types.TruncateTo(before);
  EXPECT_EQ(types.size(), 2);
  EXPECT_EQ(types.Find("gpu"), -1);
  EXPECT_EQ(types.Find("vcore"), 1);
  types.TruncateTo(5);  // beyond the size: nothing changes
  EXPECT_EQ(types.size(), 2);
  EXPECT_EQ(types.Intern("gpu").value(), 2);  // the id is given out again
}

TEST(ResourceTest, QuantitiesAreWrittenAsTheConfigurationReadsThem) {
  EXPECT_EQ(FormatQuantity("vcore", 2000), "2");
  EXPECT_EQ(FormatQuantity("vcore", 1500), "1500m");
  EXPECT_EQ(FormatQuantity("vcore", 0), "0");
  EXPECT_EQ(FormatQuantity("vcore", -250), "-250m");
  EXPECT_EQ(FormatQuantity("memory", int64_t{1} << 30), "1Gi");
  EXPECT_EQ(FormatQuantity("memory", 1536 * 1024), "1536Ki");
  EXPECT_EQ(FormatQuantity("memory", 3 * (int64_t{1} << 20)), "3Mi");
  EXPECT_EQ(FormatQuantity("memory", 1000), "1k");
  EXPECT_EQ(FormatQuantity("memory", 1'000'000'000'000), "1T");  // not 976562500Ki
  EXPECT_EQ(FormatQuantity("memory", 1001), "1001");
  EXPECT_EQ(FormatQuantity("memory", 0), "0");
  EXPECT_EQ(FormatQuantity("gpu", 2048), "2048");
}

TEST(ResourceTest, ToStringDropsZeroEntriesLimitToStringKeepsThem) {
  ResourceTypes types;
  int vcore = *types.Intern("vcore");
  int memory = *types.Intern("memory");
  int gpu = *types.Intern("gpu");
  Resource r;
  r.Set(vcore, 0);
  r.Set(memory, int64_t{512} << 20);
  r.Set(gpu, 1);
  EXPECT_EQ(ToString(r, types), "{memory: 512Mi, gpu: 1}");
  EXPECT_EQ(LimitToString(r, types), "{vcore: 0, memory: 512Mi, gpu: 1}");
  EXPECT_EQ(ToString(Resource{}, types), "{}");
}

}  // namespace
}  // namespace allocore
