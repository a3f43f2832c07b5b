#include "server/mcp/errors.h"

#include "server/mcp/jsonrpc.h"

namespace engram::server::mcp {

using nlohmann::json;

bool IsToolError(StatusCode code) {
  switch (code) {
    case StatusCode::kInvalidArgument:
    case StatusCode::kNotFound:
    case StatusCode::kAlreadyExists:
    case StatusCode::kFailedPrecondition:
    case StatusCode::kPermissionDenied:
    case StatusCode::kResourceExhausted:
      return true;  // the model can change its call (MCP: "tool execution errors")
    case StatusCode::kOk:
    case StatusCode::kDeadlineExceeded:  // nothing to correct: the server ran out of time
    case StatusCode::kAborted:           // nor here: other writers won; the call may be repeated
    case StatusCode::kIoError:
    case StatusCode::kCorruption:
    case StatusCode::kUnimplemented:
    case StatusCode::kInternal:
      return false;
  }
  return false;
}

int RpcCodeFor(StatusCode code) {
  switch (code) {
    case StatusCode::kInvalidArgument:
      return kInvalidParams;
    case StatusCode::kUnimplemented:
      return kMethodNotFound;
    case StatusCode::kDeadlineExceeded:
      return kRequestTimeout;
    default:
      return kInternalError;
  }
}

json ToolErrorResult(const std::string& message) {
  return json{{"content", json::array({json{{"type", "text"}, {"text", message}}})},
              {"isError", true}};
}

json ToolFailureReply(const json& id, const Status& status) {
  if (IsToolError(status.code())) return RpcResult(id, ToolErrorResult(status.ToString()));
  const char* what =
      status.code() == StatusCode::kDeadlineExceeded ? "Request timed out: " : "Internal error: ";
  return RpcError(id, RpcCodeFor(status.code()), what + status.ToString(),
                  json{{"status", std::string(StatusCodeName(status.code()))}});
}

}  // namespace engram::server::mcp
