// `engram mcp --connect URL`: a stdio MCP server that forwards every message
// to a running engram server's /mcp (the Streamable HTTP transport) and
// writes the replies back, so that MCP clients which start a command
// (desktop hosts, the Inspector) reach the store that the server owns
// instead of opening it a second time. Both protocol eras pass through
// unchanged: the bridge only adds what the HTTP transport asks of a client
// (MCP-Protocol-Version after a handshake, the 2026-07-28 Mcp-Method and
// Mcp-Name mirrors of the body, a session id when a server assigns one, the
// bearer key). Messages are forwarded one at a time, in order.
#ifndef ENGRAM_SERVER_MCP_BRIDGE_H_
#define ENGRAM_SERVER_MCP_BRIDGE_H_

#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engram/status.h"

namespace engram::server::mcp {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

// One POST to /mcp and what came back.
struct BridgeRequest {
  HeaderList headers;
  std::string body;
};
struct BridgeReply {
  int status = 0;
  HeaderList headers;  // names lower-cased
  std::string body;
};
// Sends one request; a non-OK Status when no HTTP reply came (refused,
// timed out, broken connection).
using BridgePost = std::function<StatusOr<BridgeReply>(const BridgeRequest&)>;

// The bridge's protocol state for one stdio session; HTTP happens in `post`.
class BridgeSession {
 public:
  // `key` is sent as a bearer token when non-empty; `target` names the
  // server in error messages.
  BridgeSession(BridgePost post, std::string key, std::string target);

  // Forwards one message read from stdin. Returns the lines to write to
  // stdout (the server's reply, none for notifications, or a JSON-RPC error
  // addressed to the request when the server could not be reached or did
  // not answer with JSON-RPC), and appends diagnostics to `log`.
  std::vector<std::string> Forward(std::string_view message, std::string* log);

 private:
  BridgeRequest Outgoing(std::string_view message) const;
  void Learn(std::string_view message, const BridgeReply& reply);

  BridgePost post_;
  std::string key_;
  std::string target_;
  std::string protocol_version_;  // negotiated by initialize, for later requests
  std::string session_id_;        // Mcp-Session-Id, when a server assigned one
};

struct BridgeOptions {
  std::string url;  // http(s)://HOST[:PORT][/PATH]; /mcp is added unless PATH ends in it
  std::string key;  // the bearer key, or empty
  int timeout_seconds = 60;
};

// Splits `url` into "scheme://host:port" and the /mcp path; nullopt with
// `error` set when it is not an http(s) URL.
std::optional<std::pair<std::string, std::string>> SplitBridgeUrl(std::string_view url,
                                                                  std::string* error);

// Runs the bridge until `in` ends. Returns the exit code: 0 at end of input,
// 2 for a bad URL.
int RunBridge(const BridgeOptions& options, std::istream& in, std::ostream& out, std::ostream& log);

}  // namespace engram::server::mcp

#endif  // ENGRAM_SERVER_MCP_BRIDGE_H_
