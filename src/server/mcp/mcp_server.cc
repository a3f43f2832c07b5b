#include "server/mcp/mcp_server.h"

#include "server/mcp/protocol.h"
#include "server/mcp/server_state.h"

namespace engram::server::mcp {

RequestBounds McpOptions::Bounds() const {
  RequestBounds bounds;
  if (request_timeout.count() > 0) {
    bounds.deadline = std::chrono::steady_clock::now() + request_timeout;
  }
  bounds.max_expansions = max_expansions;
  bounds.max_reply_bytes = max_reply_bytes;
  return bounds;
}

McpServer::McpServer(Engine* engine, McpOptions options)
    : state_(new State{Protocol(engine, std::move(options))}) {}

McpServer::~McpServer() = default;

std::string McpServer::HandleMessage(std::string_view text, const Principal& principal) {
  return state_->protocol.HandleText(text, principal);
}

}  // namespace engram::server::mcp
