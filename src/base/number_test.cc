#include "base/number.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

namespace engram {
namespace {

TEST(CompareIntDouble, ExactAroundTwoTo53) {
  const std::int64_t two53 = 9007199254740992LL;
  EXPECT_EQ(CompareIntDouble(two53, 9007199254740992.0), 0);
  EXPECT_GT(CompareIntDouble(two53 + 1, 9007199254740992.0), 0);  // a cast would say equal
  EXPECT_LT(CompareIntDouble(two53 - 1, 9007199254740992.0), 0);
  EXPECT_EQ(CompareIntDouble(0, -0.0), 0);
  EXPECT_LT(CompareIntDouble(2, 2.5), 0);
  EXPECT_GT(CompareIntDouble(3, 2.5), 0);
  EXPECT_GT(CompareIntDouble(-2, -2.5), 0);
  EXPECT_LT(CompareIntDouble(-3, -2.5), 0);
  EXPECT_LT(CompareIntDouble(INT64_MAX, 9223372036854775808.0), 0);
  EXPECT_EQ(CompareIntDouble(INT64_MIN, -9223372036854775808.0), 0);
  EXPECT_GT(CompareIntDouble(INT64_MIN, -1e300), 0);
  EXPECT_LT(CompareIntDouble(INT64_MAX, 1e300), 0);
  EXPECT_LT(CompareIntDouble(0, 5e-324), 0);
}

TEST(ExactInt, OnlyIntegralInRange) {
  EXPECT_EQ(ExactInt(3.0), 3);
  EXPECT_EQ(ExactInt(-0.0), 0);
  EXPECT_FALSE(ExactInt(3.5));
  EXPECT_FALSE(ExactInt(9223372036854775808.0));
  EXPECT_EQ(ExactInt(-9223372036854775808.0), INT64_MIN);
  EXPECT_FALSE(ExactInt(std::numeric_limits<double>::infinity()));
}

TEST(Format, Shortest) {
  EXPECT_EQ(FormatShortest(0.01), "0.01");
  EXPECT_EQ(FormatShortest(1.0), "1");
  EXPECT_EQ(FormatShortest(-0.0), "0");
  EXPECT_EQ(FormatShortest(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(FormatFloatLiteral(12.0), "12.0");
  EXPECT_EQ(FormatFloatLiteral(2.5), "2.5");
  EXPECT_EQ(FormatFloatLiteral(1e300), "1e+300");
}

}  // namespace
}  // namespace engram
