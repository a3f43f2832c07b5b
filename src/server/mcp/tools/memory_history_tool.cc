// MemoryHistory: one of the caller's readable memories (its current version,
// or the version current at `as_of`) with the versions it superseded
// (ReviseMemory), newest first, each with when it was written and when it
// stopped being current (engine.h GetRequest, at most 100 versions).
#include <string>

#include "server/mcp/memory_view.h"
#include "server/mcp/tools/arguments.h"
#include "server/mcp/tools/tool.h"
#include "server/mcp/uuid.h"

namespace engram::server::mcp {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxAsOfChars = 64;

json VersionSchema() {
  json s = MemoryViewSchema();
  s["properties"]["written_at"] = {{"type", "string"},
                                   {"description", "When this version was stored."}};
  s["properties"]["superseded_at"] = {
      {"type", "string"}, {"description", "When it was revised; absent while current."}};
  return s;
}

class MemoryHistoryTool : public Tool {
 public:
  MemoryHistoryTool()
      : name_("MemoryHistory"),
        descriptor_{
            {"name", name_},
            {"description",
             "Read a memory with the earlier versions it replaced (ReviseMemory), newest first. "
             "With as_of, the version that was current at that time."},
            {"inputSchema",
             {{"type", "object"},
              {"properties",
               {{"memory_id",
                 {{"type", "string"},
                  {"description",
                   "The memory's UUID (its current version's, or with as_of the version "
                   "current then)."},
                  {"maxLength", 36}}},
                {"as_of",
                 {{"type", "string"},
                  {"description", "An RFC 3339 time (or a date): read the memory as it was then."},
                  {"maxLength", kMaxAsOfChars}}},
                {"detail",
                 {{"type", "string"},
                  {"enum", json::array({"compact", "summary", "graph", "full"})},
                  {"default", "full"}}}}},
              {"required", json::array({"memory_id"})},
              {"additionalProperties", false}}},
            {"outputSchema",
             {{"type", "object"},
              {"properties",
               {{"memory", VersionSchema()},
                {"history", {{"type", "array"}, {"items", VersionSchema()}}},
                {"history_truncated", {{"type", "boolean"}}}}},
              {"required", json::array({"memory", "history", "history_truncated"})}}}} {}

  const std::string& name() const override { return name_; }
  const json& descriptor() const override { return descriptor_; }

  StatusOr<ToolResult> Call(const json& args, const ToolContext& context) const override {
    std::string id, detail = "full";
    GetRequest get;
    get.include_history = true;
    std::string error = CheckArgumentObject(args, {"memory_id", "as_of", "detail"});
    if (error.empty()) error = ReadString(args, "memory_id", {true, 0, 1000}, &id);
    if (error.empty() && !IsUuid(id)) {
      error = "memory_id: must be a UUID (8-4-4-4-12 hexadecimal digits)";
    }
    if (error.empty()) error = ReadString(args, "as_of", {false, 0, kMaxAsOfChars}, &get.as_of);
    if (error.empty()) {
      error = ReadEnum(args, "detail", {"compact", "summary", "graph", "full"}, &detail);
    }
    if (!error.empty()) return ToolResult::Error(error);
    if (Status s = context.store->Ensure(); !s.ok()) return s;
    get.scope = context.principal->scope();
    std::optional<GetResponse> got;
    for (const std::string& spelling : UuidSpellings(id)) {
      StatusOr<GetResponse> r =
          context.store->engine()->Get(context.store->collection(), spelling, get);
      if (!r.ok()) return r.status();
      if (r->rejected) return ToolResult::Error(r->rejected->message);
      got = std::move(r).value();
      if (got->found) break;
    }
    if (!got || !got->found) {
      return ToolResult::Error("memory_id: no memory with this id that you can read" +
                               (get.as_of.empty() ? std::string() : " as of " + get.as_of));
    }
    const Detail level = *DetailFromName(detail);
    auto render = [&](const RecordVersion& v) {
      const json record = json::parse(v.record, nullptr, false);
      json out = RenderMemory(record.is_object() ? record : json::object(), 1.0, level,
                              context.options->clock());
      if (!v.written_at.empty()) out["written_at"] = v.written_at;
      if (!v.superseded_at.empty()) out["superseded_at"] = v.superseded_at;
      return out;
    };
    json history = json::array();
    for (const RecordVersion& v : got->history) history.push_back(render(v));
    return ToolResult{json{{"memory", render(*got->found)},
                           {"history", std::move(history)},
                           {"history_truncated", got->history_truncated}},
                      {}};
  }

 private:
  std::string name_;
  json descriptor_;
};

}  // namespace

std::unique_ptr<Tool> MakeMemoryHistoryTool() {
  return std::make_unique<MemoryHistoryTool>();
}

}  // namespace engram::server::mcp
