// Time as the MCP tools write and show it: RFC 3339 timestamps for stored
// memories, and "3 hours ago" relative times for SearchMemory's `summary`
// view (computed from McpOptions::clock, so tests can pin "now").
#ifndef ENGRAM_SERVER_MCP_TIME_TEXT_H_
#define ENGRAM_SERVER_MCP_TIME_TEXT_H_

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace engram::server::mcp {

using TimePoint = std::chrono::system_clock::time_point;

// "2025-03-01T09:30:00.123456Z" (UTC, microseconds).
std::string FormatTimestamp(TimePoint time);

// Reads RFC 3339 as engram stores datetimes: a date, optionally followed by
// `T` or a space, hh:mm[:ss[.fraction]] and `Z` or ±hh:mm (default UTC).
// nullopt when `text` is not such a time.
std::optional<TimePoint> ParseTimestamp(std::string_view text);

// "just now", "1 minute ago", "3 hours ago", "2 days ago", "5 months ago",
// "1 year ago"; a time after `now` reads "in 3 hours".
std::string RelativeTime(TimePoint time, TimePoint now);

}  // namespace engram::server::mcp

#endif  // ENGRAM_SERVER_MCP_TIME_TEXT_H_
