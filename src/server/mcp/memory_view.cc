#include "server/mcp/memory_view.h"

#include "server/mcp/tools/arguments.h"

namespace engram::server::mcp {
namespace {

using nlohmann::json;

std::string StringField(const json& record, const char* key) {
  const auto it = record.find(key);
  return it != record.end() && it->is_string() ? it->get<std::string>() : std::string();
}

json FieldOrNull(const json& record, const char* key) {
  const auto it = record.find(key);
  return it == record.end() ? json(nullptr) : *it;
}

}  // namespace

std::optional<Detail> DetailFromName(std::string_view name) {
  if (name == "compact") return Detail::kCompact;
  if (name == "summary") return Detail::kSummary;
  if (name == "graph") return Detail::kGraph;
  if (name == "full") return Detail::kFull;
  return std::nullopt;
}

std::string Preview(std::string_view text, std::size_t max_chars) {
  if (CountChars(text) <= max_chars) return std::string(text);
  const std::size_t keep = max_chars >= 3 ? max_chars - 3 : 0;
  std::size_t chars = 0;
  std::size_t end = 0;
  while (end < text.size()) {
    if ((static_cast<unsigned char>(text[end]) & 0xC0) != 0x80) {
      if (chars == keep) break;
      ++chars;
    }
    ++end;
  }
  return std::string(text.substr(0, end)) + "...";
}

json RenderMemory(const json& record, double score, Detail detail, TimePoint now) {
  json out = json::object();
  if (detail == Detail::kFull) {
    out = record;
    out.erase("id");  // the same as memory_id in the `memory` preset
  }
  std::string id = StringField(record, "memory_id");
  if (id.empty()) id = StringField(record, "id");
  out["memory_id"] = id;
  for (const char* key : {"title", "tool", "context", "session_id"}) {
    out[key] = StringField(record, key);
  }
  out["score"] = score;
  if (detail == Detail::kCompact) return out;
  out["content_preview"] = Preview(StringField(record, "content"), kPreviewChars);
  const std::optional<TimePoint> when = ParseTimestamp(StringField(record, "timestamp"));
  out["relative_time"] = when ? RelativeTime(*when, now) : std::string("unknown");
  if (detail == Detail::kSummary) return out;
  out["preceding_memory_id"] = FieldOrNull(record, "preceding_memory_id");
  out["sequence_order"] = FieldOrNull(record, "sequence_order");
  out["timestamp"] = FieldOrNull(record, "timestamp");
  out["agent_id"] = FieldOrNull(record, "agent_id");
  out["archetype_title"] = FieldOrNull(record, "archetype_title");
  return out;
}

json MemoryViewSchema() {
  const json string{{"type", "string"}};
  const json nullable_string{{"type", json::array({"string", "null"})}};
  return json{
      {"type", "object"},
      {"properties",
       {{"memory_id", string},
        {"title", string},
        {"tool", string},
        {"context", string},
        {"session_id", string},
        {"score", {{"type", "number"}, {"minimum", 0}, {"maximum", 1}}},
        {"content_preview", {{"type", "string"}, {"maxLength", kPreviewChars}}},
        {"relative_time", string},
        {"preceding_memory_id", nullable_string},
        {"sequence_order", {{"type", json::array({"integer", "null"})}}},
        {"timestamp", nullable_string},
        {"agent_id", nullable_string},
        {"archetype_title", nullable_string}}},
      {"required", json::array({"memory_id", "title", "tool", "context", "session_id", "score"})}};
}

}  // namespace engram::server::mcp
