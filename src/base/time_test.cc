#include "base/time.h"

#include <gtest/gtest.h>

namespace engram {
namespace {

std::int64_t Micros(std::string_view s, DatetimeForm form = DatetimeForm::kLenient) {
  auto p = ParseDatetime(s, form);
  EXPECT_TRUE(p.has_value()) << s;
  return p ? p->value.micros : 0;
}

TEST(Datetime, ParsesRfc3339) {
  EXPECT_EQ(Micros("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(Micros("1970-01-01T00:00:01.5Z"), 1'500'000);
  EXPECT_EQ(Micros("1970-01-01T01:00:00+01:00"), 0);
  EXPECT_EQ(Micros("1969-12-31T19:00:00-05:00"), 0);
  EXPECT_EQ(Micros("1970-01-01t00:00:00.000001z"), 1);
  EXPECT_EQ(Micros("1970-01-01 00:00:00.0000019Z"), 1);  // truncated to microseconds
  EXPECT_EQ(Micros("2025-07-01T00:00:00Z"), 1751328000LL * 1'000'000);
  EXPECT_EQ(Micros("1969-12-31T23:59:59.999999Z"), -1);
  EXPECT_EQ(Micros("0000-01-01T00:00:00Z"), -62167219200LL * 1'000'000);
  EXPECT_EQ(Micros("9999-12-31T23:59:59.999999Z"), 253402300799999999LL);
}

TEST(Datetime, LenientFormTakesDateAloneAndNoOffset) {
  auto p = ParseDatetime("2025-07-01", DatetimeForm::kLenient);
  ASSERT_TRUE(p);
  EXPECT_TRUE(p->date_only);
  EXPECT_EQ(p->value.micros, Micros("2025-07-01T00:00:00Z"));
  EXPECT_EQ(Micros("2025-07-01T10:00:00"), Micros("2025-07-01T10:00:00Z"));
  EXPECT_FALSE(ParseDatetime("2025-07-01", DatetimeForm::kStrict));
  EXPECT_FALSE(ParseDatetime("2025-07-01T10:00:00", DatetimeForm::kStrict));
  EXPECT_TRUE(ParseDatetime("2025-07-01T10:00:00Z", DatetimeForm::kStrict));
  EXPECT_TRUE(ParseDatetime("2025-07-01T10:00:00.25+02:00", DatetimeForm::kStrict));
}

TEST(Datetime, RejectsInvalid) {
  for (const char* s :
       {"2025-02-29", "2024-02-30", "2025-13-01", "2025-00-10", "2025-1-01", "25-01-01",
        "2025-01-01T24:00:00Z", "2025-01-01T23:60:00Z", "2025-01-01T23:59:60Z", "2025-01-01T10:00Z",
        "2025-01-01T10:00:00.Z", "2025-01-01T10:00:00+0100", "2025-01-01T10:00:00+24:00",
        "2025-01-01T10:00:00ZZ", "2025-01-01X10:00:00Z", "", "now", "2025-01-01T10:00:00 Z",
        " 2025-01-01"}) {
    EXPECT_FALSE(ParseDatetime(s, DatetimeForm::kLenient)) << s;
  }
  EXPECT_TRUE(ParseDatetime("2024-02-29", DatetimeForm::kLenient));
  EXPECT_TRUE(ParseDatetime("2000-02-29", DatetimeForm::kLenient));
  EXPECT_FALSE(ParseDatetime("1900-02-29", DatetimeForm::kLenient));
}

TEST(Datetime, EndOfDayAndFormat) {
  Datetime d = ParseDatetime("2025-07-01", DatetimeForm::kLenient)->value;
  EXPECT_EQ(FormatDatetime(EndOfDay(d)), "2025-07-01T23:59:59.999999Z");
  EXPECT_EQ(FormatDatetime(d), "2025-07-01T00:00:00Z");
  EXPECT_EQ(FormatDatetime(Datetime{-1}), "1969-12-31T23:59:59.999999Z");
  EXPECT_EQ(FormatDatetime(Datetime{1'500'000}), "1970-01-01T00:00:01.500000Z");
  for (std::int64_t m : {0LL, 1LL, -1LL, 1751328000123456LL, -62167219200000000LL}) {
    EXPECT_EQ(ParseDatetime(FormatDatetime(Datetime{m}), DatetimeForm::kStrict)->value.micros, m);
  }
}

}  // namespace
}  // namespace engram
