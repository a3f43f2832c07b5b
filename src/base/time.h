// Datetimes: instants as int64 microseconds since the Unix epoch (UTC), read
// from RFC 3339 text and printed canonically (FILTERS.md §1.2).
#ifndef ENGRAM_BASE_TIME_H_
#define ENGRAM_BASE_TIME_H_

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace engram {

struct Datetime {
  std::int64_t micros = 0;
  auto operator<=>(const Datetime&) const = default;  // NOLINT(modernize-use-nullptr)
};

enum class DatetimeForm {
  // RFC 3339 `date-time` exactly: date, time and offset all required.
  kStrict,
  // Also a date alone (that day's 00:00:00Z) and a date-time without offset
  // (UTC). engram's default wherever a dialect does not say otherwise.
  kLenient,
};

struct ParsedDatetime {
  Datetime value;
  bool date_only = false;  // the text was `YYYY-MM-DD` alone
};

// Parses `s` (years 0000-9999, `T`/`t` or a space between date and time,
// fractions of any length truncated to microseconds, `Z`/`z` or `±HH:MM`).
// Returns nullopt when the text is not a valid instant in `form` (including
// impossible dates such as 2025-02-29, and leap seconds).
std::optional<ParsedDatetime> ParseDatetime(std::string_view s, DatetimeForm form);

// The last microsecond of the UTC day that `day_start` begins
// (23:59:59.999999Z); used where a date-only upper bound covers its whole day.
Datetime EndOfDay(Datetime day_start);

// `YYYY-MM-DDTHH:MM:SSZ`, with `.ffffff` when the instant has microseconds.
std::string FormatDatetime(Datetime t);

}  // namespace engram

#endif  // ENGRAM_BASE_TIME_H_
