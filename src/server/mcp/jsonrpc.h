// JSON-RPC 2.0 framing for the MCP server: reading one message into a
// request, notification or response, and building replies. Batches are
// refused: MCP removed them in 2025-06-18, and one message per request keeps
// every request's work bounded. It knows nothing about MCP methods;
// protocol.h dispatches what this produces.
#ifndef ENGRAM_SERVER_MCP_JSONRPC_H_
#define ENGRAM_SERVER_MCP_JSONRPC_H_

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace engram::server::mcp {

// The error codes of JSON-RPC 2.0 (§5.1) and those MCP reserves.
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;
// MCP 2026-07-28: the MCP-Protocol-Version / Mcp-Method / Mcp-Name headers
// disagree with the body; a required client capability is missing; the
// `_meta` protocol version is not one this server speaks.
inline constexpr int kHeaderMismatch = -32020;
inline constexpr int kMissingClientCapability = -32021;
inline constexpr int kUnsupportedProtocolVersion = -32022;
// The request's deadline passed before its work was done (`--request-timeout`);
// the code the MCP SDKs use for a timed-out request (ErrorCode.RequestTimeout).
inline constexpr int kRequestTimeout = -32001;

// One entry of a message: a request (has an id), a notification (no id), a
// response sent to us (ignored), or an entry too malformed to be any of them
// (`error` holds the reply, addressed to the id when one could be read).
struct RpcEntry {
  enum class Kind { kRequest, kNotification, kResponse, kInvalid };
  Kind kind = Kind::kInvalid;
  nlohmann::json id;  // string or number for a request; null otherwise
  std::string method;
  nlohmann::json params;  // an object (absent params read as {})
  nlohmann::json error;   // kInvalid: the error reply to send
};

// A parsed message. `error` (a complete reply, id null) is set when the text
// is not JSON (-32700) or is a batch, empty or not (-32600); otherwise
// `entry` holds the message.
struct RpcMessage {
  RpcEntry entry;
  std::optional<nlohmann::json> error;
};

// Reads `text` with ParseJsonInput (bounded, strict). Never throws.
RpcMessage ParseRpcMessage(std::string_view text);
// Classifies one already-parsed element of a message.
RpcEntry ParseRpcEntry(const nlohmann::json& value);

nlohmann::json RpcResult(const nlohmann::json& id, nlohmann::json result);
nlohmann::json RpcError(const nlohmann::json& id, int code, std::string message,
                        std::optional<nlohmann::json> data = std::nullopt);

// JSON text for the wire: never throws (invalid UTF-8 is replaced).
std::string DumpJson(const nlohmann::json& value);

}  // namespace engram::server::mcp

#endif  // ENGRAM_SERVER_MCP_JSONRPC_H_
