// Acl::Parse, the one reader of submitacl and adminacl: who an ACL lets in, and what makes a
// string no ACL (the validator's refusals come from the same parse).
#include "acl.h"

#include <string_view>
#include <vector>

#include "gtest/gtest.h"

namespace allocore::internal {
namespace {

using Kind = Acl::Problem::Kind;

Acl::Problem ProblemOf(std::string_view text) {
  Acl::Problem problem;
  (void)Acl::Parse(text, &problem);
  return problem;
}

TEST(AclTest, UsersThenGroupsSeparatedByOneSpace) {
  const Acl acl = Acl::Parse("alice,bob devs");
  EXPECT_TRUE(acl.Allows("alice", {}));
  EXPECT_TRUE(acl.Allows("bob", {}));
  EXPECT_FALSE(acl.Allows("carol", {}));
  EXPECT_TRUE(acl.Allows("carol", {"ops", "devs"}));
  EXPECT_FALSE(acl.Allows("Alice", {}));  // exact and case-sensitive
  EXPECT_FALSE(acl.allows_all());
}

TEST(AclTest, GroupsOnlyAfterALeadingSpace) {
  const Acl acl = Acl::Parse(" devs");
  EXPECT_FALSE(acl.Allows("devs", {}));
  EXPECT_TRUE(acl.Allows("anyone", {"devs"}));
  EXPECT_EQ(ProblemOf(" devs").kind, Kind::kNone);
}

TEST(AclTest, StarAllowsEverybody) {
  EXPECT_TRUE(Acl::Parse("*").allows_all());
  EXPECT_TRUE(Acl::Parse(" * ").allows_all());  // trimmed
  EXPECT_TRUE(Acl::Parse("* ").allows_all());
  EXPECT_TRUE(Acl::Parse("alice *").allows_all());  // every group
  EXPECT_TRUE(Acl::Parse("alice *").Allows("nobody", {}));
}

TEST(AclTest, EmptyAllowsNobody) {
  const Acl acl = Acl::Parse("");
  EXPECT_FALSE(acl.Allows("alice", {"devs"}));
  EXPECT_EQ(ProblemOf("").kind, Kind::kNone);
}

TEST(AclTest, InvalidNamesAreDropped) {
  const Acl acl = Acl::Parse("9lives,alice 1group,devs");
  EXPECT_FALSE(acl.Allows("9lives", {}));
  EXPECT_TRUE(acl.Allows("alice", {}));
  EXPECT_FALSE(acl.Allows("x", {"1group"}));
  EXPECT_TRUE(acl.Allows("x", {"devs"}));
}

TEST(AclTest, MoreThanTwoFieldsIsNoAcl) {
  const Acl::Problem problem = ProblemOf("alice devs ops");
  EXPECT_EQ(problem.kind, Kind::kManyFields);
  EXPECT_EQ(problem.parts, 3u);
  EXPECT_EQ(ProblemOf("a\tb\nc").kind, Kind::kManyFields);  // any whitespace separates fields
}

TEST(AclTest, DoubledOrEdgeSpacesAreNoAcl) {
  EXPECT_EQ(ProblemOf("alice  devs").kind, Kind::kManyParts);
  EXPECT_EQ(ProblemOf("alice  devs").parts, 3u);
  EXPECT_EQ(ProblemOf(" alice devs").kind, Kind::kManyParts);
  EXPECT_EQ(ProblemOf("alice devs ").kind, Kind::kManyParts);
  EXPECT_EQ(ProblemOf("   ").kind, Kind::kManyParts);
  EXPECT_EQ(ProblemOf("   ").parts, 4u);
  // A star with spaces around it is still everybody, but the spaces are refused.
  EXPECT_EQ(ProblemOf(" * ").kind, Kind::kManyParts);
  EXPECT_EQ(ProblemOf("* ").kind, Kind::kNone);
}

}  // namespace
}  // namespace allocore::internal
