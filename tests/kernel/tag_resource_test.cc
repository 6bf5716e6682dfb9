// The JSON resource of namespace tags, read as YuniKorn's Go decoding reads it: what decodes
// without an error is accepted, everything else is refused (and the tag then counts as absent).
#include "tag_resource.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace allocore::internal {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Pair;

TEST(TagResourceTest, ReadsTheResourceMessage) {
  EXPECT_THAT(
      ParseResourceTag(R"({"resources":{"memory":{"value":1024},"vcore":{"value":2000}}})").value(),
      ElementsAre(Pair("memory", 1024), Pair("vcore", 2000)));
  // White space, case-insensitive field names, unknown fields of any kind skipped.
  EXPECT_THAT(
      ParseResourceTag(" { \"Resources\" : { \"gpu\" : { \"VALUE\" : 2 , \"unit\":[1,{}]} },"
                       " \"extra\": {\"a\": [true, false, null, \"x\\u00e9\", -1.5e3]} } ")
          .value(),
      ElementsAre(Pair("gpu", 2)));
  // Negative and zero quantities parse (the caller refuses them: not strictly positive).
  EXPECT_THAT(ParseResourceTag(R"({"resources":{"memory":{"value":-5},"x":{}}})").value(),
              ElementsAre(Pair("memory", -5), Pair("x", 0)));
  // null: no resource; a null map; a null value leaves 0.
  EXPECT_THAT(ParseResourceTag("null").value(), IsEmpty());
  EXPECT_THAT(ParseResourceTag(R"({"resources":null})").value(), IsEmpty());
  EXPECT_THAT(ParseResourceTag(R"({"resources":{"m":{"value":null}}})").value(),
              ElementsAre(Pair("m", 0)));
  // The last of repeated keys wins; a second map adds to the first, null clears it.
  EXPECT_THAT(ParseResourceTag(R"({"resources":{"m":{"value":1},"m":{"value":2}}})").value(),
              ElementsAre(Pair("m", 2)));
  EXPECT_THAT(
      ParseResourceTag(R"({"resources":{"a":{"value":1}},"resources":{"b":{"value":2}}})").value(),
      ElementsAre(Pair("a", 1), Pair("b", 2)));
  EXPECT_THAT(ParseResourceTag(R"({"resources":{"a":{"value":1}},"resources":null})").value(),
              IsEmpty());
  // Escapes in names, a surrogate pair among them.
  EXPECT_THAT(
      ParseResourceTag(R"({"resources":{"nvidia.com\/gpu\ud83d\ude00":{"value":1}}})").value(),
      ElementsAre(Pair("nvidia.com/gpu\xF0\x9F\x98\x80", 1)));
  EXPECT_THAT(ParseResourceTag(R"({"resources":{"m":{"value":9223372036854775807}}})").value(),
              ElementsAre(Pair("m", INT64_MAX)));
  EXPECT_THAT(ParseResourceTag(R"({"resources":{"m":{"value":-9223372036854775808}}})").value(),
              ElementsAre(Pair("m", INT64_MIN)));
}

TEST(TagResourceTest, RefusesWhatGoDecodingRefuses) {
  for (const char* text : {
           "",                                                      // no value
           "{",                                                     // truncated
           R"({"resources":{"m":{"value":1.5}}})",                  // a fraction into int64
           R"({"resources":{"m":{"value":1e3}}})",                  // an exponent into int64
           R"({"resources":{"m":{"value":9223372036854775808}}})",  // past int64
           R"({"resources":{"m":{"value":"5"}}})",                  // a string into int64
           R"({"resources":{"m":null}})",                           // a nil entry (YuniKorn panics)
           R"({"resources":5})",                                    // a number into a map
           R"({"resources":[]})",                                   // an array into a map
           "[1]",                                                   // not an object
           "\"text\"",                                              // a string
           R"({"resources":{}} x)",                                 // trailing data
           R"({"resources":{"m":{"value":01}}})",                   // a leading zero
           R"({"resources":{"m":{"value":-}}})",                    // a sign alone
           "{\"resources\":{\"a\tb\":{}}}",                         // a raw control character
           R"({"resources":{"m":{"value":1,}}})",                   // a trailing comma
           R"({'resources':{}})",                                   // single quotes
       }) {
    EXPECT_FALSE(ParseResourceTag(text).has_value()) << text;
  }
  // Nesting in skipped fields is bounded.
  EXPECT_FALSE(ParseResourceTag("{\"x\":" + std::string(100, '[') + std::string(100, ']') + "}")
                   .has_value());
  EXPECT_TRUE(
      ParseResourceTag("{\"x\":" + std::string(10, '[') + std::string(10, ']') + "}").has_value());
}

TEST(TagResourceTest, MaxAppsIsAnUnsignedDecimal) {
  EXPECT_EQ(ParseUint64Tag("5"), 5u);
  EXPECT_EQ(ParseUint64Tag("007"), 7u);
  EXPECT_EQ(ParseUint64Tag("18446744073709551615"), UINT64_MAX);
  for (const char* text : {"", "-1", "+1", " 1", "1 ", "1.0", "18446744073709551616", "0x10"}) {
    EXPECT_FALSE(ParseUint64Tag(text).has_value()) << text;
  }
}

}  // namespace
}  // namespace allocore::internal
