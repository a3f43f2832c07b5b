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

// The Streamable HTTP transport: checks Origin and MCP-Protocol-Version,
// then hands the body to `server`.
HttpReply HandleHttp(McpServer& server, const HttpExchange& exchange, const Principal& principal);

}  // namespace engram::server::mcp

#endif  // ENGRAM_SERVER_MCP_MCP_SERVER_H_
