// engram's MCP server (SEARCH.md §5): JSON-RPC 2.0 with the tools
// SearchMemory, StoreMemory, ForgetMemory and Retrieve over a store opened by
// the caller. Transport-free: stdio and Streamable HTTP (/mcp) both feed
// messages through HandleMessage; HandleHttp adds the HTTP transport's checks.
#ifndef ENGRAM_SERVER_MCP_MCP_SERVER_H_
#define ENGRAM_SERVER_MCP_MCP_SERVER_H_

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engram/engine.h"
#include "server/common/principal.h"

namespace engram::server::mcp {

struct McpOptions {
  std::string collection = "memories";  // the `memory` preset collection, created on first use
  // An embedder spec (engram/embedder.h) the collection is created with, so
  // that SearchMemory `basic` is hybrid from the query alone; empty: none.
  // A collection that exists already must have this embedder
  // (CheckMemoryEmbedder).
  std::string embedder;
  // "now" for relative times in SearchMemory's `summary` view (tests inject one).
  std::function<std::chrono::system_clock::time_point()> clock = [] {
    return std::chrono::system_clock::now();
  };
  // Bounds on each message's work (RequestBounds): its tool calls stop once
  // `request_timeout` has passed since the message arrived (0: never; the
  // reply is then the JSON-RPC error -32001), the prefix-expansion cap, and
  // the byte budget of a tool's results (counted as the reply carries them:
  // twice, as structuredContent and escaped in the text content).
  std::chrono::milliseconds request_timeout{5000};
  std::size_t max_expansions = 1024;
  std::size_t max_reply_bytes = 16 << 20;

  // The bounds of a message arriving now.
  RequestBounds Bounds() const;
};

class McpServer {
 public:
  // `engine` must outlive the server. Thread-safe: messages may be handled
  // concurrently.
  McpServer(Engine* engine, McpOptions options);
  ~McpServer();

  // One JSON-RPC message (a request, notification, or batch) as text; the
  // reply as text, or empty when nothing is to be sent back.
  std::string HandleMessage(std::string_view text, const Principal& principal);

 private:
  friend struct HttpAccess;  // HandleHttp reads messages before dispatching them
  struct State;
  std::unique_ptr<State> state_;
};

// One HTTP exchange on the /mcp endpoint, independent of the HTTP library.
struct HttpExchange {
  std::string method;                                        // POST, GET, DELETE
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-cased
  std::string body;
};

struct HttpReply {
  int status = 200;
  std::string content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

// The Streamable HTTP transport: checks the method and MCP-Protocol-Version
// (and the 2026-07-28 mirror headers), then hands the body to `server`, its
// tool calls bounded by `bounds` (the HTTP request's, its deadline counted
// from arrival), or when null by the server's McpOptions from now. The
// caller has checked Host and Origin (server/http/browser_policy.h).
HttpReply HandleHttp(McpServer& server, const HttpExchange& exchange, const Principal& principal,
                     const RequestBounds* bounds = nullptr);

}  // namespace engram::server::mcp

#endif  // ENGRAM_SERVER_MCP_MCP_SERVER_H_
