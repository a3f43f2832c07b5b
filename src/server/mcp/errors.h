// THE mapping from engram's Status to what an MCP client sees, in one place:
// a failure the calling model can act on (bad input, a missing or forbidden
// record) becomes a tool result with `isError: true`; a failure of the
// server itself (I/O, corruption, a bug) becomes a JSON-RPC error.
#ifndef ENGRAM_SERVER_MCP_ERRORS_H_
#define ENGRAM_SERVER_MCP_ERRORS_H_

#include <string>

#include <nlohmann/json.hpp>

#include "engram/status.h"

namespace engram::server::mcp {

// True when a failed call's status goes back as a tool error result.
bool IsToolError(StatusCode code);

// The JSON-RPC error code for a status that is not a tool error.
int RpcCodeFor(StatusCode code);

// A `tools/call` result with `isError: true` and `message` as its text.
nlohmann::json ToolErrorResult(const std::string& message);

// The reply to a `tools/call` request whose tool failed with `status`.
nlohmann::json ToolFailureReply(const nlohmann::json& id, const Status& status);

}  // namespace engram::server::mcp

#endif  // ENGRAM_SERVER_MCP_ERRORS_H_
