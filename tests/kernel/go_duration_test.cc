// ParseGoDuration against what Go's time.ParseDuration returns for the same text.
#include "go_duration.h"

#include <cstdint>
#include <optional>

#include "gtest/gtest.h"

namespace allocore::internal {
namespace {

TEST(GoDurationTest, ReadsWhatGoReads) {
  EXPECT_EQ(ParseGoDuration("30s"), 30'000'000'000);
  EXPECT_EQ(ParseGoDuration("1m30s"), 90'000'000'000);
  EXPECT_EQ(ParseGoDuration("1.5h"), 5'400'000'000'000);
  EXPECT_EQ(ParseGoDuration("500ms"), 500'000'000);
  EXPECT_EQ(ParseGoDuration("1h2m3.5s"), 3'723'500'000'000);
  EXPECT_EQ(ParseGoDuration("2us"), 2'000);
  EXPECT_EQ(ParseGoDuration("2\xC2\xB5s"), 2'000);  // micro sign
  EXPECT_EQ(ParseGoDuration("2\xCE\xBCs"), 2'000);  // Greek mu
  EXPECT_EQ(ParseGoDuration("7ns"), 7);
  EXPECT_EQ(ParseGoDuration(".5s"), 500'000'000);
  EXPECT_EQ(ParseGoDuration("5.s"), 5'000'000'000);
  EXPECT_EQ(ParseGoDuration("0"), 0);
  EXPECT_EQ(ParseGoDuration("+0"), 0);
  EXPECT_EQ(ParseGoDuration("-1s"), -1'000'000'000);
  EXPECT_EQ(ParseGoDuration("1.0000000000000000000001s"), 1'000'000'000);
  EXPECT_EQ(ParseGoDuration("9223372036854775807ns"), INT64_MAX);
  EXPECT_EQ(ParseGoDuration("-9223372036854775808ns"), INT64_MIN);
}

TEST(GoDurationTest, RefusesWhatGoRefuses) {
  for (const char* text : {"", "30", "1d", "s", ".s", "-", "1s2", "1 s", "1S", "1ms ", "+",
                           "9223372036854775808ns", "2562048h", "99999999999999999999s"}) {
    EXPECT_EQ(ParseGoDuration(text), std::nullopt) << text;
  }
}

}  // namespace
}  // namespace allocore::internal
