#include "base/time.h"

#include <chrono>

#include <fmt/compile.h>
#include <fmt/format.h>

namespace engram {
namespace {

constexpr std::int64_t kMicrosPerSecond = 1'000'000;
constexpr std::int64_t kMicrosPerDay = 86'400 * kMicrosPerSecond;

// Reads exactly `n` ASCII digits at `pos`.
bool Digits(std::string_view s, std::size_t pos, std::size_t n, int* out) {
  if (pos + n > s.size()) return false;
  int v = 0;
  for (std::size_t i = 0; i < n; ++i) {
    char c = s[pos + i];
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *out = v;
  return true;
}

std::int64_t DaysFromCivil(int y, int m, int d) {
  namespace c = std::chrono;
  return c::sys_days{c::year{y} / c::month{static_cast<unsigned>(m)} /
                     c::day{static_cast<unsigned>(d)}}
      .time_since_epoch()
      .count();
}

}  // namespace

std::optional<ParsedDatetime> ParseDatetime(std::string_view s, DatetimeForm form) {
  int y, mo, d;
  if (!Digits(s, 0, 4, &y) || s.size() < 10 || s[4] != '-' || !Digits(s, 5, 2, &mo) ||
      s[7] != '-' || !Digits(s, 8, 2, &d)) {
    return std::nullopt;
  }
  std::chrono::year_month_day ymd{std::chrono::year{y},
                                  std::chrono::month{static_cast<unsigned>(mo)},
                                  std::chrono::day{static_cast<unsigned>(d)}};
  if (!ymd.ok()) return std::nullopt;
  std::int64_t micros = DaysFromCivil(y, mo, d) * kMicrosPerDay;
  if (s.size() == 10) {
    if (form == DatetimeForm::kStrict) return std::nullopt;
    return ParsedDatetime{Datetime{micros}, true};
  }
  char sep = s[10];
  if (sep != 'T' && sep != 't' && sep != ' ') return std::nullopt;
  int h, mi, se;
  if (!Digits(s, 11, 2, &h) || s.size() < 19 || s[13] != ':' || !Digits(s, 14, 2, &mi) ||
      s[16] != ':' || !Digits(s, 17, 2, &se)) {
    return std::nullopt;
  }
  if (h > 23 || mi > 59 || se > 59) return std::nullopt;
  micros += (std::int64_t{h} * 3600 + std::int64_t{mi} * 60 + se) * kMicrosPerSecond;
  std::size_t pos = 19;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    std::size_t start = pos;
    std::int64_t frac = 0;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      if (pos - start < 6) frac = frac * 10 + (s[pos] - '0');
      ++pos;
    }
    if (pos == start) return std::nullopt;
    for (std::size_t n = pos - start; n < 6; ++n) frac *= 10;
    micros += frac;
  }
  if (pos == s.size()) {
    if (form == DatetimeForm::kStrict) return std::nullopt;
    return ParsedDatetime{Datetime{micros}, false};
  }
  if (s[pos] == 'Z' || s[pos] == 'z') {
    if (pos + 1 != s.size()) return std::nullopt;
    return ParsedDatetime{Datetime{micros}, false};
  }
  if (s[pos] != '+' && s[pos] != '-') return std::nullopt;
  int oh, om;
  if (s.size() != pos + 6 || !Digits(s, pos + 1, 2, &oh) || s[pos + 3] != ':' ||
      !Digits(s, pos + 4, 2, &om) || oh > 23 || om > 59) {
    return std::nullopt;
  }
  std::int64_t offset = (std::int64_t{oh} * 3600 + std::int64_t{om} * 60) * kMicrosPerSecond;
  micros += s[pos] == '+' ? -offset : offset;
  return ParsedDatetime{Datetime{micros}, false};
}

Datetime EndOfDay(Datetime day_start) {
  return Datetime{day_start.micros + kMicrosPerDay - 1};
}

std::string FormatDatetime(Datetime t) {
  std::int64_t days = t.micros / kMicrosPerDay;
  std::int64_t rem = t.micros % kMicrosPerDay;
  if (rem < 0) {
    rem += kMicrosPerDay;
    --days;
  }
  std::chrono::year_month_day ymd{std::chrono::sys_days{std::chrono::days{days}}};
  std::int64_t secs = rem / kMicrosPerSecond;
  std::int64_t frac = rem % kMicrosPerSecond;
  // Formats compiled ahead into a buffer on the stack: opening a store
  // formats a time per record (the version member it compares, version.cc).
  char buf[64];  // the widest: a 6-digit year and a sign, far past 9999
  char* end =
      fmt::format_to(buf, FMT_COMPILE("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}"),
                     static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
                     static_cast<unsigned>(ymd.day()), secs / 3600, secs / 60 % 60, secs % 60);
  if (frac != 0) end = fmt::format_to(end, FMT_COMPILE(".{:06}"), frac);
  *end++ = 'Z';
  return std::string(buf, end);
}

}  // namespace engram
