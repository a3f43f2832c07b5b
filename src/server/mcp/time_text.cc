#include "server/mcp/time_text.h"

#include <cstdint>
#include <cstdio>

namespace engram::server::mcp {
namespace {

using std::chrono::days;
using std::chrono::microseconds;

bool Digits(std::string_view text, std::size_t at, std::size_t n, int* out) {
  if (at + n > text.size()) return false;
  int value = 0;
  for (std::size_t i = at; i < at + n; ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
    value = value * 10 + (text[i] - '0');
  }
  *out = value;
  return true;
}

std::string Plural(std::int64_t n, const char* unit) {
  return std::to_string(n) + " " + unit + (n == 1 ? "" : "s");
}

}  // namespace

std::string FormatTimestamp(TimePoint time) {
  const auto us = std::chrono::time_point_cast<microseconds>(time);
  const auto day = std::chrono::floor<days>(us);
  const std::chrono::year_month_day ymd{day};
  const std::chrono::hh_mm_ss<microseconds> hms{us - day};
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%04d-%02u-%02uT%02d:%02d:%02d.%06lldZ",
                static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
                static_cast<unsigned>(ymd.day()), static_cast<int>(hms.hours().count()),
                static_cast<int>(hms.minutes().count()), static_cast<int>(hms.seconds().count()),
                static_cast<long long>(hms.subseconds().count()));
  return buffer;
}

std::optional<TimePoint> ParseTimestamp(std::string_view text) {
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!Digits(text, 0, 4, &year) || text.size() < 10 || text[4] != '-' || text[7] != '-' ||
      !Digits(text, 5, 2, &month) || !Digits(text, 8, 2, &day)) {
    return std::nullopt;
  }
  const std::chrono::year_month_day ymd{std::chrono::year(year), std::chrono::month(month),
                                        std::chrono::day(day)};
  if (!ymd.ok()) return std::nullopt;
  std::int64_t micros = 0;
  std::int64_t offset_seconds = 0;
  std::size_t at = 10;
  if (at < text.size()) {
    if (text[at] != 'T' && text[at] != 't' && text[at] != ' ') return std::nullopt;
    if (!Digits(text, at + 1, 2, &hour) || at + 3 >= text.size() || text[at + 3] != ':' ||
        !Digits(text, at + 4, 2, &minute) || hour > 23 || minute > 59) {
      return std::nullopt;
    }
    at += 6;
    if (at < text.size() && text[at] == ':') {
      if (!Digits(text, at + 1, 2, &second) || second > 60) return std::nullopt;
      at += 3;
      if (at < text.size() && text[at] == '.') {
        ++at;
        std::int64_t scale = 100000;
        const std::size_t start = at;
        while (at < text.size() && text[at] >= '0' && text[at] <= '9') {
          micros += (text[at] - '0') * scale;
          scale /= 10;
          ++at;
        }
        if (at == start) return std::nullopt;
      }
    }
    if (at < text.size()) {
      if (text[at] == 'Z' || text[at] == 'z') {
        ++at;
      } else if (text[at] == '+' || text[at] == '-') {
        int oh = 0, om = 0;
        if (!Digits(text, at + 1, 2, &oh) || at + 3 >= text.size() || text[at + 3] != ':' ||
            !Digits(text, at + 4, 2, &om) || oh > 23 || om > 59) {
          return std::nullopt;
        }
        offset_seconds = (text[at] == '+' ? 1 : -1) * (oh * 3600 + om * 60);
        at += 6;
      }
    }
    if (at != text.size()) return std::nullopt;
  }
  const std::chrono::sys_days date{ymd};
  return TimePoint(std::chrono::duration_cast<TimePoint::duration>(
      date.time_since_epoch() + std::chrono::seconds(hour * 3600 + minute * 60 + second) +
      microseconds(micros) - std::chrono::seconds(offset_seconds)));
}

std::string RelativeTime(TimePoint time, TimePoint now) {
  const std::int64_t delta = std::chrono::duration_cast<std::chrono::seconds>(now - time).count();
  const bool future = delta < 0;
  const std::int64_t s = future ? -delta : delta;
  if (s < 45) return "just now";
  std::string amount;
  if (s < 3600) {
    amount = Plural((s + 30) / 60, "minute");
  } else if (s < 86400) {
    amount = Plural((s + 1800) / 3600, "hour");
  } else if (s < 30 * 86400) {
    amount = Plural((s + 43200) / 86400, "day");
  } else if (s < 365 * 86400) {
    amount = Plural(s / (30 * 86400), "month");
  } else {
    amount = Plural(s / (365 * 86400), "year");
  }
  return future ? "in " + amount : amount + " ago";
}

}  // namespace engram::server::mcp
