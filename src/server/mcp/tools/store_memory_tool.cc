// StoreMemory: writes one memory into the `memories` collection, continuing
// its session's chain (sequence_order, preceding_memory_id) so that
// SearchMemory's `graph` view can walk it.
#include <mutex>
#include <string>

#include "server/mcp/time_text.h"
#include "server/mcp/tools/arguments.h"
#include "server/mcp/tools/tool.h"
#include "server/mcp/uuid.h"

namespace engram::server::mcp {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxContentChars = 100000;
constexpr std::size_t kMaxFieldChars = 1000;

json InputSchema() {
  auto text = [](const char* description, const char* fallback) {
    json s{{"type", "string"}, {"maxLength", kMaxFieldChars}, {"description", description}};
    if (fallback != nullptr) s["default"] = fallback;
    return s;
  };
  return json{
      {"type", "object"},
      {"properties",
       {{"content",
         {{"type", "string"},
          {"minLength", 1},
          {"maxLength", kMaxContentChars},
          {"description", "What to remember: the full text, searched by SearchMemory."}}},
        {"session_id", text("The session this memory belongs to; memories of one session form "
                            "a chain (sequence_order, preceding_memory_id).",
                            "default")},
        {"tool", text("The tool or activity that produced the memory.", "unknown")},
        {"title", text("A short title.", "")},
        {"context", text("Where or why it happened (searched like the content).", "")},
        {"archetype_title", text("The kind of memory, e.g. \"Bug Fix\".", "general")},
        {"archetype_version", text("The version of that kind.", "unknown")},
        {"schema_version", text("The version of the memory format.", "1.0")}}},
      {"required", json::array({"content"})},
      {"additionalProperties", false}};
}

json OutputSchema() {
  return json{{"type", "object"},
              {"properties",
               {{"memory_id", {{"type", "string"}}},
                {"session_id", {{"type", "string"}}},
                {"sequence_order", {{"type", "integer"}, {"minimum", 1}}},
                {"preceding_memory_id", {{"type", json::array({"string", "null"})}}},
                {"timestamp", {{"type", "string"}}},
                {"agent_id", {{"type", "string"}}},
                {"duplicate_of",
                 {{"type", "string"},
                  {"description",
                   "Set when the collection deduplicates on write (engram collection create "
                   "--dedup) and this memory duplicates one of the agent's: that memory's "
                   "memory_id. This memory was not stored then."}}},
                {"dedup_action",
                 {{"type", "string"},
                  {"enum", json::array({"skipped", "refreshed"})},
                  {"description",
                   "With duplicate_of: what the collection's dedup did. skipped: nothing else; "
                   "refreshed: that memory's time was moved to this one's, so it counts as "
                   "recent again (--dedup exact:refresh)."}}},
                {"similarity", {{"type", "number"}}}}},
              {"required", json::array({"memory_id", "session_id", "sequence_order",
                                        "preceding_memory_id", "timestamp", "agent_id"})}};
}

struct Link {
  std::int64_t sequence_order = 0;  // 0: the session has no memory yet
  json preceding = nullptr;
};

// The session's last memory: the newest few by timestamp, then the highest
// sequence_order among them (memories written within one clock tick share a
// timestamp). Scoped, so each agent continues its own chain.
StatusOr<Link> LastInSession(const ToolContext& context, const std::string& session) {
  SearchRequest request;
  request.scope = context.principal->scope();
  request.k = 16;
  request.bounds.deadline = context.bounds.deadline;  // every hit is needed: no reply budget
  request.dialect = FilterDialect::kSearchMemory;
  request.filter =
      json::array({json{{"field", "session_id"}, {"operator", "is"}, {"value", session}}}).dump();
  StatusOr<SearchResponse> response =
      context.store->engine()->Search(context.store->collection(), request);
  if (!response.ok()) return response.status();
  if (response->rejected) return Status::Internal("session lookup: " + response->rejected->message);
  Link link;
  for (const SearchHit& hit : response->hits) {
    const json record = json::parse(hit.record, nullptr, false);
    if (!record.is_object()) continue;
    const auto order = record.find("sequence_order");
    if (order == record.end() || !order->is_number_integer()) continue;
    if (order->get<std::int64_t>() > link.sequence_order) {
      link.sequence_order = order->get<std::int64_t>();
      link.preceding = record.value("memory_id", hit.id);
    }
  }
  return link;
}

class StoreMemoryTool : public Tool {
 public:
  StoreMemoryTool()
      : name_("StoreMemory"),
        descriptor_{{"name", name_},
                    {"description",
                     "Store a memory for later recall with SearchMemory. Memories of one "
                     "session are chained in the order they are stored."},
                    {"inputSchema", InputSchema()},
                    {"outputSchema", OutputSchema()}} {}

  const std::string& name() const override { return name_; }
  const json& descriptor() const override { return descriptor_; }

  StatusOr<ToolResult> Call(const json& args, const ToolContext& context) const override {
    std::string content, session = "default", tool = "unknown", title, context_text;
    std::string archetype_title = "general", archetype_version = "unknown", schema_version = "1.0";
    std::string error =
        CheckArgumentObject(args, {"content", "session_id", "tool", "title", "context",
                                   "archetype_title", "archetype_version", "schema_version"});
    if (error.empty()) error = ReadString(args, "content", {true, 1, kMaxContentChars}, &content);
    const StringBounds field{false, 0, kMaxFieldChars};
    if (error.empty()) error = ReadString(args, "session_id", field, &session);
    if (error.empty()) error = ReadString(args, "tool", field, &tool);
    if (error.empty()) error = ReadString(args, "title", field, &title);
    if (error.empty()) error = ReadString(args, "context", field, &context_text);
    if (error.empty()) error = ReadString(args, "archetype_title", field, &archetype_title);
    if (error.empty()) error = ReadString(args, "archetype_version", field, &archetype_version);
    if (error.empty()) error = ReadString(args, "schema_version", field, &schema_version);
    if (!error.empty()) return ToolResult::Error(error);
    if (Status s = context.store->Ensure(); !s.ok()) return s;

    const Principal& principal = *context.principal;
    const std::string agent = principal.agent.empty() ? "local" : principal.agent;
    std::lock_guard<std::mutex> lock(context.store->SessionMutex(agent, session));
    StatusOr<Link> last = LastInSession(context, session);
    if (!last.ok()) return last.status();
    json record{{"memory_id", NewUuidV4()},
                {"content", content},
                {"session_id", session},
                {"tool", tool},
                {"agent_id", agent},
                {"title", title},
                {"context", context_text},
                {"sequence_order", last->sequence_order + 1},
                {"timestamp", FormatTimestamp(context.options->clock())},
                {"archetype_title", archetype_title},
                {"archetype_version", archetype_version},
                {"schema_version", schema_version}};
    if (!last->preceding.is_null()) record["preceding_memory_id"] = last->preceding;
    const std::string text = record.dump();
    const std::string_view texts[] = {text};
    StatusOr<WriteResult> written =
        context.store->engine()->Upsert(context.store->collection(), texts, {}, principal.scope());
    if (!written.ok()) return written.status();
    if (written->rejected) return ToolResult::Error(written->rejected->message);
    json result{
        {"memory_id", record["memory_id"]},           {"session_id", session},
        {"sequence_order", record["sequence_order"]}, {"preceding_memory_id", last->preceding},
        {"timestamp", record["timestamp"]},           {"agent_id", agent}};
    if (!written->deduplicated.empty()) {
      result["duplicate_of"] = written->deduplicated[0].duplicate_of;
      result["dedup_action"] = DedupActionName(written->deduplicated[0].action);
      if (written->deduplicated[0].similarity) {
        result["similarity"] = *written->deduplicated[0].similarity;
      }
    }
    return ToolResult{std::move(result), {}};
  }

 private:
  std::string name_;
  json descriptor_;
};

}  // namespace

std::unique_ptr<Tool> MakeStoreMemoryTool() {
  return std::make_unique<StoreMemoryTool>();
}

}  // namespace engram::server::mcp
