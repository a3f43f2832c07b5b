#include "text/query/temporal.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>

#include "text/tokenize/tokenizer.h"

namespace engram::text {
namespace {

bool IsLeap(int y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

bool InRange(const Date& d) {
  return d.year >= 1 && d.year <= 9999;
}

// `d` moved back by `months` months, the day clamped to the target month's
// last day (2026-03-31 minus one month is 2026-02-28).
std::optional<Date> MonthsBefore(const Date& d, std::int64_t months) {
  std::int64_t index = std::int64_t{d.year} * 12 + (d.month - 1) - months;
  if (index < 12 || index > std::int64_t{9999} * 12 + 11) return std::nullopt;
  Date out;
  out.year = static_cast<int>(index / 12);
  out.month = static_cast<int>(index % 12) + 1;
  out.day = std::min(d.day, DaysInMonth(out.year, out.month));
  return out;
}

std::optional<Date> DaysBefore(const Date& d, std::int64_t days) {
  Date out = CivilFromDays(DaysFromCivil(d) - days);
  if (!InRange(out)) return std::nullopt;
  return out;
}

// `a`, `an`, `one` ... `twelve`, or up to six digits.
std::optional<std::int64_t> Count(const std::string& w) {
  static constexpr std::array<const char*, 13> kWords = {"zero", "one",    "two",   "three", "four",
                                                         "five", "six",    "seven", "eight", "nine",
                                                         "ten",  "eleven", "twelve"};
  if (w == "a" || w == "an") return 1;
  for (std::size_t i = 1; i < kWords.size(); ++i) {
    if (w == kWords[i]) return static_cast<std::int64_t>(i);
  }
  if (w.empty() || w.size() > 6) return std::nullopt;
  std::int64_t n = 0;
  for (char c : w) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + (c - '0');
  }
  return n;
}

// 0 = Monday ... 6 = Sunday, or -1.
int WeekdayIndex(const std::string& w) {
  static constexpr std::array<const char*, 7> kDays = {
      "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"};
  for (std::size_t i = 0; i < kDays.size(); ++i) {
    if (w == kDays[i]) return static_cast<int>(i);
  }
  return -1;
}

struct Match {
  std::size_t words = 0;  // 0: no match
  TemporalHint hint;
};

TemporalHint Around(const Date& d) {
  return TemporalHint{TemporalHint::Kind::kAround, d, 0};
}
TemporalHint Ordinal(int n) {
  return TemporalHint{TemporalHint::Kind::kOrdinal, Date{}, n};
}

// The longest temporal phrase starting at w[0] (the words available from
// here, stripped and lower-cased).
Match Longest(const std::vector<std::string>& w, const Date& anchor) {
  Match best;
  auto offer = [&best](std::size_t words, TemporalHint hint) {
    if (words > best.words) best = Match{words, hint};
  };
  const std::size_t n = w.size();
  // N unit(s) ago
  if (n >= 3 && w[2] == "ago") {
    if (std::optional<std::int64_t> count = Count(w[0])) {
      const std::string& unit = w[1];
      std::optional<Date> d;
      if (unit == "day" || unit == "days") d = DaysBefore(anchor, *count);
      if (unit == "week" || unit == "weeks") d = DaysBefore(anchor, *count * 7);
      if (unit == "month" || unit == "months") d = MonthsBefore(anchor, *count);
      if (unit == "year" || unit == "years") d = MonthsBefore(anchor, *count * 12);
      if (d) offer(3, Around(*d));
    }
  }
  // [the] last <weekday>: the most recent such day strictly before the anchor.
  const std::size_t skip = (n >= 1 && w[0] == "the") ? 1 : 0;
  if (n >= skip + 2 && w[skip] == "last") {
    int target = WeekdayIndex(w[skip + 1]);
    if (target >= 0) {
      int back = (Weekday(anchor) - target + 7) % 7;
      if (back == 0) back = 7;
      if (std::optional<Date> d = DaysBefore(anchor, back)) offer(skip + 2, Around(*d));
    }
  }
  if (n >= 1 && w[0] == "today") offer(1, Around(anchor));
  if (n >= 1 && w[0] == "yesterday") {
    if (std::optional<Date> d = DaysBefore(anchor, 1)) offer(1, Around(*d));
  }
  if (n >= 2 && w[0] == "the") {
    if (w[1] == "first" || w[1] == "earliest") offer(2, Ordinal(1));
    if (w[1] == "last" || w[1] == "latest") offer(2, Ordinal(-1));
  }
  if (n >= 2 && w[0] == "most" && w[1] == "recent") offer(2, Ordinal(-1));
  return best;
}

}  // namespace

std::optional<Date> ParseDate(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return std::nullopt;
  int parts[3] = {0, 0, 0};
  const std::size_t starts[3] = {0, 5, 8}, lengths[3] = {4, 2, 2};
  for (int p = 0; p < 3; ++p) {
    for (std::size_t i = starts[p]; i < starts[p] + lengths[p]; ++i) {
      if (s[i] < '0' || s[i] > '9') return std::nullopt;
      parts[p] = parts[p] * 10 + (s[i] - '0');
    }
  }
  Date d{parts[0], parts[1], parts[2]};
  if (!InRange(d) || d.month < 1 || d.month > 12) return std::nullopt;
  if (d.day < 1 || d.day > DaysInMonth(d.year, d.month)) return std::nullopt;
  return d;
}

std::string FormatDate(const Date& d) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02d", d.year, d.month, d.day);
  return buf;
}

std::int64_t DaysFromCivil(const Date& d) {
  const std::int64_t y = d.month <= 2 ? d.year - 1 : d.year;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const std::int64_t yoe = y - era * 400;
  const std::int64_t mp = (d.month + 9) % 12;
  const std::int64_t doy = (153 * mp + 2) / 5 + d.day - 1;
  const std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

Date CivilFromDays(std::int64_t z) {
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const std::int64_t doe = z - era * 146097;
  const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const std::int64_t mp = (5 * doy + 2) / 153;
  const std::int64_t day = doy - (153 * mp + 2) / 5 + 1;
  const std::int64_t month = mp < 10 ? mp + 3 : mp - 9;
  const std::int64_t year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  // Years far outside int's range cannot come from the callers here (counts
  // have at most six digits); clamp so that InRange() rejects them.
  const std::int64_t clamped = std::max<std::int64_t>(-1, std::min<std::int64_t>(year, 100000));
  return Date{static_cast<int>(clamped), static_cast<int>(month), static_cast<int>(day)};
}

int DaysInMonth(int year, int month) {
  static constexpr int kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month == 2 && IsLeap(year)) return 29;
  return kDays[month - 1];
}

int Weekday(const Date& d) {
  // 1970-01-01 was a Thursday (index 3).
  std::int64_t w = (DaysFromCivil(d) + 3) % 7;
  if (w < 0) w += 7;
  return static_cast<int>(w);
}

Date TodayUtc() {
  auto now = std::chrono::system_clock::now();
  auto days = std::chrono::floor<std::chrono::days>(now).time_since_epoch().count();
  return CivilFromDays(static_cast<std::int64_t>(days));
}

std::vector<TemporalHint> ExtractTemporalHints(std::vector<Lexeme>* lexemes, const Date& anchor) {
  std::vector<TemporalHint> hints;
  std::vector<Lexeme> kept;
  const std::vector<Lexeme>& in = *lexemes;
  std::size_t i = 0;
  while (i < in.size()) {
    if (in[i].kind != Lexeme::Kind::kWord) {
      kept.push_back(in[i++]);
      continue;
    }
    // The run of words from i; a phrase ends it. Phrases are at most three
    // words long, so three are enough.
    std::vector<std::string> words;
    for (std::size_t j = i; j < in.size() && j < i + 3 && in[j].kind == Lexeme::Kind::kWord; ++j) {
      words.push_back(ToLower(StripWord(in[j].text, ControlChars::kRemove)));
    }
    Match m = Longest(words, anchor);
    if (m.words == 0) {
      kept.push_back(in[i++]);
      continue;
    }
    hints.push_back(m.hint);
    i += m.words;
  }
  *lexemes = std::move(kept);
  return hints;
}

}  // namespace engram::text
