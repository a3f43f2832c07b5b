// What an MCP tool is to the server: a name, a description with its input
// and output schemas (for tools/list), and a call. One file per tool
// implements this; protocol.cc lists and dispatches them.
#ifndef ENGRAM_SERVER_MCP_TOOLS_TOOL_H_
#define ENGRAM_SERVER_MCP_TOOLS_TOOL_H_

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engram/engine.h"
#include "server/common/principal.h"
#include "server/mcp/mcp_server.h"
#include "server/mcp/memory_store.h"

namespace engram::server::mcp {

// Everything a call may touch. The principal's scope and the bounds go to
// every engine call; `bounds.max_reply_bytes` is the budget of the result.
struct ToolContext {
  MemoryStore* store;
  const Principal* principal;
  const McpOptions* options;
  RequestBounds bounds;
};

// The outcome of a call the tool could complete: `structured` (an object,
// matching the tool's outputSchema) or, when the arguments were unusable,
// `error`: "path: message" for the calling model to correct itself.
struct ToolResult {
  nlohmann::json structured;
  std::string error;

  static ToolResult Error(std::string message) { return {nullptr, std::move(message)}; }
};

class Tool {
 public:
  virtual ~Tool() = default;
  virtual const std::string& name() const = 0;
  // The tools/list entry: name, description, inputSchema, outputSchema.
  virtual const nlohmann::json& descriptor() const = 0;
  // Validates `arguments` (the call's `arguments` member, or null when
  // absent) and runs. A Status is an engine failure; errors.h maps it.
  virtual StatusOr<ToolResult> Call(const nlohmann::json& arguments,
                                    const ToolContext& context) const = 0;
};

std::unique_ptr<Tool> MakeSearchMemoryTool();
std::unique_ptr<Tool> MakeStoreMemoryTool();
std::unique_ptr<Tool> MakeForgetMemoryTool();
std::unique_ptr<Tool> MakeRetrieveTool();
std::unique_ptr<Tool> MakeListMemoriesTool();
std::unique_ptr<Tool> MakeMemoryStatsTool();
std::unique_ptr<Tool> MakeReviseMemoryTool();
std::unique_ptr<Tool> MakeMemoryHistoryTool();

}  // namespace engram::server::mcp

#endif  // ENGRAM_SERVER_MCP_TOOLS_TOOL_H_
