// ForgetMemory: deletes one memory by id, within the caller's scope (an id
// it cannot read counts as absent; one it can read but does not own is
// refused).
#include <string>

#include "server/mcp/tools/arguments.h"
#include "server/mcp/tools/tool.h"
#include "server/mcp/uuid.h"

namespace engram::server::mcp {
namespace {

using nlohmann::json;

class ForgetMemoryTool : public Tool {
 public:
  ForgetMemoryTool()
      : name_("ForgetMemory"),
        descriptor_{
            {"name", name_},
            {"description", "Forget (delete) one stored memory by its memory_id."},
            {"inputSchema",
             {{"type", "object"},
              {"properties",
               {{"memory_id",
                 {{"type", "string"},
                  {"description", "The memory's UUID, as StoreMemory or SearchMemory gave it."},
                  {"maxLength", 36}}}}},
              {"required", json::array({"memory_id"})},
              {"additionalProperties", false}}},
            {"outputSchema",
             {{"type", "object"},
              {"properties",
               {{"memory_id", {{"type", "string"}}},
                {"existed", {{"type", "boolean"}}},
                {"deleted", {{"type", "boolean"}}}}},
              {"required", json::array({"memory_id", "existed", "deleted"})}}}} {}

  const std::string& name() const override { return name_; }
  const json& descriptor() const override { return descriptor_; }

  StatusOr<ToolResult> Call(const json& args, const ToolContext& context) const override {
    std::string id;
    std::string error = CheckArgumentObject(args, {"memory_id"});
    if (error.empty()) error = ReadString(args, "memory_id", {true, 0, 1000}, &id);
    if (error.empty() && !IsUuid(id)) {
      error = "memory_id: must be a UUID (8-4-4-4-12 hexadecimal digits)";
    }
    if (!error.empty()) return ToolResult::Error(error);
    if (Status s = context.store->Ensure(); !s.ok()) return s;
    // UUIDs compare case-insensitively (uuid.h): the first spelling found goes.
    bool existed = false;
    for (const std::string& spelling : UuidSpellings(id)) {
      const std::string ids[] = {spelling};
      StatusOr<WriteResult> deleted = context.store->engine()->Delete(
          context.store->collection(), ids, context.principal->scope());
      if (!deleted.ok()) return deleted.status();
      if (deleted->rejected) return ToolResult::Error(deleted->rejected->message);
      existed = deleted->written > 0;
      if (existed) break;
    }
    return ToolResult{json{{"memory_id", id}, {"existed", existed}, {"deleted", existed}}, {}};
  }

 private:
  std::string name_;
  json descriptor_;
};

}  // namespace

std::unique_ptr<Tool> MakeForgetMemoryTool() {
  return std::make_unique<ForgetMemoryTool>();
}

}  // namespace engram::server::mcp
