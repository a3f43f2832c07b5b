// How SearchMemory shows a stored memory at each `detail` level (SEARCH.md
// §5): compact, summary (+ a content preview and a relative time), graph
// (+ the chain fields) and full (every stored field). Each level adds to
// the one before it.
#ifndef ENGRAM_SERVER_MCP_MEMORY_VIEW_H_
#define ENGRAM_SERVER_MCP_MEMORY_VIEW_H_

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "server/mcp/time_text.h"

namespace engram::server::mcp {

enum class Detail { kCompact, kSummary, kGraph, kFull };
std::optional<Detail> DetailFromName(std::string_view name);

inline constexpr std::size_t kPreviewChars = 150;

// `record` is a stored memory (a JSON object); `score` its relevance.
nlohmann::json RenderMemory(const nlohmann::json& record, double score, Detail detail,
                            TimePoint now);

// The first `max_chars` characters of `text`, ending in "..." when cut
// (the result never exceeds `max_chars`).
std::string Preview(std::string_view text, std::size_t max_chars);

// The outputSchema of SearchMemory's results (one object per memory).
nlohmann::json MemoryViewSchema();

}  // namespace engram::server::mcp

#endif  // ENGRAM_SERVER_MCP_MEMORY_VIEW_H_
