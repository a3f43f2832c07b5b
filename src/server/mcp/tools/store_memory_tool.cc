// StoreMemory: writes one memory into the `memories` collection, continuing
// its session's chain (sequence_order, preceding_memory_id) so that
// SearchMemory's `graph` view can walk it. ReviseMemory: stores a new version
// of one of the caller's memories that supersedes it (engine.h, Superseded):
// searches then find the new version only; MemoryHistory reads the old.
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
  return json{
      {"type", "object"},
      {"properties",
       {{"memory_id", {{"type", "string"}}},
        {"supersedes",
         {{"type", "string"},
          {"description", "ReviseMemory: the memory_id of the version this one replaced."}}},
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
      {"required", json::array({"memory_id", "session_id", "sequence_order", "preceding_memory_id",
                                "timestamp", "agent_id"})}};
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

// A memory's fields as the caller gives them (or a revision inherits them).
struct MemoryFields {
  std::string content, session = "default", tool = "unknown", title, context;
  std::string archetype_title = "general", archetype_version = "unknown", schema_version = "1.0";
};

// Writes `m` as a new memory of the caller at the end of its session's
// chain; `supersedes`, when not empty, is the memory_id of the caller's
// memory it replaces.
StatusOr<ToolResult> Store(const ToolContext& context, const MemoryFields& m,
                           const std::string& supersedes) {
  const Principal& principal = *context.principal;
  const std::string agent = principal.agent.empty() ? "local" : principal.agent;
  std::lock_guard<std::mutex> lock(context.store->SessionMutex(agent, m.session));
  if (!supersedes.empty()) {
    // Still current, checked under the session's lock (a revision is in its
    // memory's session): of two revisions of one memory at once, the second
    // finds it superseded, so one version stays current.
    GetRequest get;
    get.scope = principal.scope();
    get.agent = agent;
    StatusOr<GetResponse> found =
        context.store->engine()->Get(context.store->collection(), supersedes, get);
    if (!found.ok()) return found.status();
    if (!found->found) {
      return ToolResult::Error("memory_id: no current memory of yours with this id to revise");
    }
  }
  StatusOr<Link> last = LastInSession(context, m.session);
  if (!last.ok()) return last.status();
  json record{{"memory_id", NewUuidV4()},
              {"content", m.content},
              {"session_id", m.session},
              {"tool", m.tool},
              {"agent_id", agent},
              {"title", m.title},
              {"context", m.context},
              {"sequence_order", last->sequence_order + 1},
              {"timestamp", FormatTimestamp(context.options->clock())},
              {"archetype_title", m.archetype_title},
              {"archetype_version", m.archetype_version},
              {"schema_version", m.schema_version}};
  if (!last->preceding.is_null()) record["preceding_memory_id"] = last->preceding;
  if (!supersedes.empty()) record["supersedes"] = json::array({supersedes});
  const std::string text = record.dump();
  const std::string_view texts[] = {text};
  StatusOr<WriteResult> written =
      context.store->engine()->Upsert(context.store->collection(), texts, {}, principal.scope());
  if (!written.ok()) return written.status();
  if (written->rejected) {
    if (written->rejected->kind == "record.supersedes_unknown") {
      return ToolResult::Error("memory_id: no current memory of yours with this id to revise");
    }
    return ToolResult::Error(written->rejected->message);
  }
  json result{
      {"memory_id", record["memory_id"]},           {"session_id", m.session},
      {"sequence_order", record["sequence_order"]}, {"preceding_memory_id", last->preceding},
      {"timestamp", record["timestamp"]},           {"agent_id", agent}};
  if (!supersedes.empty()) result["supersedes"] = supersedes;
  if (!written->deduplicated.empty()) {
    result["duplicate_of"] = written->deduplicated[0].duplicate_of;
    result["dedup_action"] = DedupActionName(written->deduplicated[0].action);
    if (written->deduplicated[0].similarity) {
      result["similarity"] = *written->deduplicated[0].similarity;
    }
  }
  return ToolResult{std::move(result), {}};
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
    MemoryFields m;
    std::string error =
        CheckArgumentObject(args, {"content", "session_id", "tool", "title", "context",
                                   "archetype_title", "archetype_version", "schema_version"});
    if (error.empty()) error = ReadString(args, "content", {true, 1, kMaxContentChars}, &m.content);
    const StringBounds field{false, 0, kMaxFieldChars};
    if (error.empty()) error = ReadString(args, "session_id", field, &m.session);
    if (error.empty()) error = ReadString(args, "tool", field, &m.tool);
    if (error.empty()) error = ReadString(args, "title", field, &m.title);
    if (error.empty()) error = ReadString(args, "context", field, &m.context);
    if (error.empty()) error = ReadString(args, "archetype_title", field, &m.archetype_title);
    if (error.empty()) error = ReadString(args, "archetype_version", field, &m.archetype_version);
    if (error.empty()) error = ReadString(args, "schema_version", field, &m.schema_version);
    if (!error.empty()) return ToolResult::Error(error);
    if (Status s = context.store->Ensure(); !s.ok()) return s;
    return Store(context, m, "");
  }

 private:
  std::string name_;
  json descriptor_;
};

// ReviseMemory: a new version of one of the caller's current memories, with
// new content (and optionally title, context, tool), in the session of the
// old one; the old one stops being current.
class ReviseMemoryTool : public Tool {
 public:
  ReviseMemoryTool()
      : name_("ReviseMemory"),
        descriptor_{
            {"name", name_},
            {"description",
             "Revise one of your memories: store a corrected version that supersedes it. "
             "SearchMemory and ListMemories then show the new version only; MemoryHistory "
             "shows the versions before it."},
            {"inputSchema",
             {{"type", "object"},
              {"properties",
               {{"memory_id",
                 {{"type", "string"},
                  {"description", "The UUID of the memory to revise (its current version)."},
                  {"maxLength", 36}}},
                {"content",
                 {{"type", "string"},
                  {"minLength", 1},
                  {"maxLength", kMaxContentChars},
                  {"description", "The corrected text."}}},
                {"title", {{"type", "string"}, {"maxLength", kMaxFieldChars}}},
                {"context", {{"type", "string"}, {"maxLength", kMaxFieldChars}}},
                {"tool", {{"type", "string"}, {"maxLength", kMaxFieldChars}}}}},
              {"required", json::array({"memory_id", "content"})},
              {"additionalProperties", false}}},
            {"outputSchema", OutputSchema()}} {}

  const std::string& name() const override { return name_; }
  const json& descriptor() const override { return descriptor_; }

  StatusOr<ToolResult> Call(const json& args, const ToolContext& context) const override {
    std::string id;
    MemoryFields m;
    std::string error =
        CheckArgumentObject(args, {"memory_id", "content", "title", "context", "tool"});
    if (error.empty()) error = ReadString(args, "memory_id", {true, 0, 1000}, &id);
    if (error.empty() && !IsUuid(id)) {
      error = "memory_id: must be a UUID (8-4-4-4-12 hexadecimal digits)";
    }
    if (error.empty()) error = ReadString(args, "content", {true, 1, kMaxContentChars}, &m.content);
    if (!error.empty()) return ToolResult::Error(error);
    if (Status s = context.store->Ensure(); !s.ok()) return s;
    // The caller's own current memory: its fields are the revision's defaults.
    GetRequest get;
    get.scope = context.principal->scope();
    get.agent = context.principal->agent.empty() ? "local" : context.principal->agent;
    std::optional<RecordVersion> old;
    for (const std::string& spelling : UuidSpellings(id)) {
      StatusOr<GetResponse> found =
          context.store->engine()->Get(context.store->collection(), spelling, get);
      if (!found.ok()) return found.status();
      if ((old = found->found)) break;
    }
    if (!old)
      return ToolResult::Error("memory_id: no current memory of yours with this id to revise");
    const json previous = json::parse(old->record, nullptr, false);
    auto inherit = [&](const char* key, std::string* out) {
      if (previous.is_object() && previous.contains(key) && previous[key].is_string()) {
        *out = previous[key].get<std::string>();
      }
    };
    inherit("session_id", &m.session);
    inherit("tool", &m.tool);
    inherit("title", &m.title);
    inherit("context", &m.context);
    inherit("archetype_title", &m.archetype_title);
    inherit("archetype_version", &m.archetype_version);
    inherit("schema_version", &m.schema_version);
    const StringBounds field{false, 0, kMaxFieldChars};
    error = ReadString(args, "title", field, &m.title);
    if (error.empty()) error = ReadString(args, "context", field, &m.context);
    if (error.empty()) error = ReadString(args, "tool", field, &m.tool);
    if (!error.empty()) return ToolResult::Error(error);
    return Store(context, m, old->id);
  }

 private:
  std::string name_;
  json descriptor_;
};

}  // namespace

std::unique_ptr<Tool> MakeReviseMemoryTool() {
  return std::make_unique<ReviseMemoryTool>();
}

std::unique_ptr<Tool> MakeStoreMemoryTool() {
  return std::make_unique<StoreMemoryTool>();
}

}  // namespace engram::server::mcp
