// Temporal hints of the `default` profile (QUERY_DSL.md §3): English phrases
// such as `3 days ago`, `last Thursday`, `yesterday`, `the first ...`,
// recognised in a query's words relative to an anchor date, removed from the
// query, and kept as hints for ranking (never as a boolean condition).
#ifndef ENGRAM_TEXT_QUERY_TEMPORAL_H_
#define ENGRAM_TEXT_QUERY_TEMPORAL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "text/query/lexer.h"

namespace engram::text {

// A day of the proleptic Gregorian calendar, years 1-9999.
struct Date {
  int year = 1970;
  int month = 1;  // 1-12
  int day = 1;    // 1-31
  bool operator==(const Date&) const = default;
};

// `YYYY-MM-DD` exactly, a real day (2025-02-29 is not).
std::optional<Date> ParseDate(std::string_view s);
std::string FormatDate(const Date& d);  // YYYY-MM-DD
// Days since 1970-01-01 and back (H. Hinnant's days_from_civil algorithm,
// http://howardhinnant.github.io/date_algorithms.html).
std::int64_t DaysFromCivil(const Date& d);
Date CivilFromDays(std::int64_t days);
int DaysInMonth(int year, int month);
// 0 = Monday ... 6 = Sunday.
int Weekday(const Date& d);
// Today in UTC, from the system clock.
Date TodayUtc();

struct TemporalHint {
  enum class Kind { kAround, kOrdinal };
  Kind kind = Kind::kAround;
  Date around;      // kAround
  int ordinal = 0;  // kOrdinal: 1 (first, earliest) or -1 (last, latest, most recent)
  bool operator==(const TemporalHint&) const = default;
};

// Finds the temporal phrases among consecutive words of `lexemes` (phrases
// are left alone: quoted text is the user's exact words), removes their
// lexemes, and returns the hints in text order. At each word the longest
// phrase wins (`the last Friday` is a weekday, not `the last`). Words are
// compared stripped and lower-cased. Recognised, relative to `anchor`:
//   N day(s)|week(s)|month(s)|year(s) ago   N: digits, or a|an|one..twelve;
//                                           months and years clamp to the
//                                           month's last day
//   [the] last monday..sunday               strictly before the anchor
//   today | yesterday
//   the first | the earliest                ordinal 1
//   the last | the latest | most recent     ordinal -1
// A phrase whose date would fall outside years 1-9999 is not recognised.
std::vector<TemporalHint> ExtractTemporalHints(std::vector<Lexeme>* lexemes, const Date& anchor);

}  // namespace engram::text

#endif  // ENGRAM_TEXT_QUERY_TEMPORAL_H_
