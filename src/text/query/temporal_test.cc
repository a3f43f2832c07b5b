// Calendar arithmetic and the temporal recognisers of QUERY_DSL.md §3 with
// fixed anchors: month ends, leap years, weekday wrap, longest match.
#include "text/query/temporal.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "text/tokenize/normalize.h"

namespace engram::text {
namespace {

Date D(const char* s) {
  std::optional<Date> d = ParseDate(s);
  EXPECT_TRUE(d.has_value()) << s;
  return d.value_or(Date{});
}

// The hints of `text` at `anchor` and the words left, as "w1 w2 | hints".
std::string Hints(const std::string& text, const char* anchor) {
  std::vector<Lexeme> lexemes = Lex(Normalize(text));
  std::vector<TemporalHint> hints = ExtractTemporalHints(&lexemes, D(anchor));
  std::string out;
  for (const Lexeme& l : lexemes) {
    out += (out.empty() ? "" : " ") +
           (l.kind == Lexeme::Kind::kPhrase ? "\"" + l.text + "\"" : l.text);
  }
  out += " |";
  for (const TemporalHint& h : hints) {
    out += h.kind == TemporalHint::Kind::kAround ? " around " + FormatDate(h.around)
                                                 : " ordinal " + std::to_string(h.ordinal);
  }
  return out;
}

TEST(Date, ParseAndFormat) {
  EXPECT_EQ(FormatDate(D("2026-04-19")), "2026-04-19");
  EXPECT_FALSE(ParseDate("2025-02-29"));
  EXPECT_TRUE(ParseDate("2024-02-29"));
  EXPECT_FALSE(ParseDate("1900-02-29"));
  EXPECT_TRUE(ParseDate("2000-02-29"));
  EXPECT_FALSE(ParseDate("2026-4-19"));
  EXPECT_FALSE(ParseDate("0000-01-01"));
  EXPECT_FALSE(ParseDate("2026-13-01"));
  EXPECT_FALSE(ParseDate("2026-04-19T00:00:00Z"));
}

TEST(Date, DaysAndWeekdays) {
  EXPECT_EQ(DaysFromCivil(D("1970-01-01")), 0);
  EXPECT_EQ(CivilFromDays(DaysFromCivil(D("2024-02-29"))), D("2024-02-29"));
  EXPECT_EQ(CivilFromDays(DaysFromCivil(D("0001-01-01"))), D("0001-01-01"));
  EXPECT_EQ(Weekday(D("2026-04-16")), 3);  // a Thursday
  EXPECT_EQ(Weekday(D("2026-04-19")), 6);  // a Sunday
  Date today = TodayUtc();
  EXPECT_GE(today.year, 2024);
}

TEST(Temporal, RelativeOffsets) {
  EXPECT_EQ(Hints("notes 3 days ago", "2026-04-19"), "notes | around 2026-04-16");
  EXPECT_EQ(Hints("a day ago", "2026-03-01"), " | around 2026-02-28");
  EXPECT_EQ(Hints("2 weeks ago", "2026-01-05"), " | around 2025-12-22");
  EXPECT_EQ(Hints("one month ago", "2026-03-31"), " | around 2026-02-28");  // clamped
  EXPECT_EQ(Hints("1 month ago", "2024-03-31"), " | around 2024-02-29");    // leap year
  EXPECT_EQ(Hints("twelve months ago", "2024-02-29"), " | around 2023-02-28");
  EXPECT_EQ(Hints("4 years ago", "2024-02-29"), " | around 2020-02-29");
  EXPECT_EQ(Hints("an hour ago", "2026-04-19"), "an hour ago |");  // hours are not a unit
  EXPECT_EQ(Hints("0 days ago", "2026-04-19"), " | around 2026-04-19");
  EXPECT_EQ(Hints("3 Days Ago?", "2026-04-19"), " | around 2026-04-16");
  EXPECT_EQ(Hints("999999 years ago", "2026-04-19"), "999999 years ago |");  // before year 1
}

TEST(Temporal, LastWeekdayIsStrictlyBeforeTheAnchor) {
  EXPECT_EQ(Hints("last thursday", "2026-04-19"), " | around 2026-04-16");
  EXPECT_EQ(Hints("last Sunday", "2026-04-19"), " | around 2026-04-12");  // same day: a week back
  EXPECT_EQ(Hints("last monday", "2026-04-19"), " | around 2026-04-13");
  EXPECT_EQ(Hints("last saturday", "2026-01-01"), " | around 2025-12-27");    // wraps the year
  EXPECT_EQ(Hints("the last Friday", "2026-04-19"), " | around 2026-04-17");  // longest match
}

TEST(Temporal, DaysAndOrdinals) {
  EXPECT_EQ(Hints("today", "2026-04-19"), " | around 2026-04-19");
  EXPECT_EQ(Hints("yesterday", "2024-03-01"), " | around 2024-02-29");
  EXPECT_EQ(Hints("the first meeting", "2026-04-19"), "meeting | ordinal 1");
  EXPECT_EQ(Hints("the earliest note", "2026-04-19"), "note | ordinal 1");
  EXPECT_EQ(Hints("the last meeting", "2026-04-19"), "meeting | ordinal -1");
  EXPECT_EQ(Hints("the latest news", "2026-04-19"), "news | ordinal -1");
  EXPECT_EQ(Hints("most recent yesterday", "2026-04-19"), " | ordinal -1 around 2026-04-18");
}

TEST(Temporal, PhrasesAreLeftAlone) {
  EXPECT_EQ(Hints("\"3 days ago\" today", "2026-04-19"), "\"3 days ago\" | around 2026-04-19");
  EXPECT_EQ(Hints("3 \"x\" days ago", "2026-04-19"), "3 \"x\" days ago |");
}

}  // namespace
}  // namespace engram::text
