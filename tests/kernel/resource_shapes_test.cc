// The ask shape table: one copy per distinct resource, counted references, ids reused.
#include "resource_shapes.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace allocore::internal {
namespace {

Resource Of(int64_t memory, int64_t vcore) {
  Resource r;
  r.Set(0, memory);
  r.Set(1, vcore);
  return r;
}

TEST(ResourceShapesTest, EqualResourcesShareOneShape) {
  ResourceShapes shapes;
  uint32_t a = shapes.Acquire(Of(10, 1));
  uint32_t b = shapes.Acquire(Of(10, 1));
  uint32_t c = shapes.Acquire(Of(20, 1));
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_EQ(shapes.live(), 2u);
  EXPECT_EQ(shapes.Get(a), Of(10, 1));
  EXPECT_EQ(shapes.Get(c), Of(20, 1));
  std::string why;
  EXPECT_TRUE(shapes.CheckFromScratch({a, b, c}, &why)) << why;
}

TEST(ResourceShapesTest, PresenceIsPartOfTheShape) {
  ResourceShapes shapes;
  Resource zero_vcore = Of(10, 0);
  Resource no_vcore;
  no_vcore.Set(0, 10);
  EXPECT_NE(shapes.Acquire(zero_vcore), shapes.Acquire(no_vcore));
}

TEST(ResourceShapesTest, LastReleaseDropsTheShapeAndItsIdIsReused) {
  ResourceShapes shapes;
  uint32_t a = shapes.Acquire(Of(10, 1));
  shapes.Acquire(Of(10, 1));
  shapes.Release(a);
  EXPECT_EQ(shapes.live(), 1u);
  shapes.Release(a);
  EXPECT_EQ(shapes.live(), 0u);
  std::string why;
  EXPECT_TRUE(shapes.CheckFromScratch({}, &why)) << why;
  uint32_t b = shapes.Acquire(Of(30, 3));
  EXPECT_EQ(b, a);
  EXPECT_EQ(shapes.Get(b), Of(30, 3));
  shapes.Release(ResourceShapes::kNone);  // nothing held: nothing changes
  EXPECT_EQ(shapes.live(), 1u);
}

TEST(ResourceShapesTest, CheckFromScratchFindsMiscountedReferences) {
  ResourceShapes shapes;
  uint32_t a = shapes.Acquire(Of(10, 1));
  shapes.Acquire(Of(10, 1));
  std::string why;
  EXPECT_FALSE(shapes.CheckFromScratch({a}, &why));
  EXPECT_NE(why.find("references"), std::string::npos) << why;
  EXPECT_FALSE(shapes.CheckFromScratch({a, a, 7}, &why));
  EXPECT_NE(why.find("out of range"), std::string::npos) << why;
}

}  // namespace
}  // namespace allocore::internal
