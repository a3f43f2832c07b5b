#include "server/mcp/mcp_server.h"

#include "server/mcp/protocol.h"
#include "server/mcp/server_state.h"

namespace engram::server::mcp {

McpServer::McpServer(Engine* engine, McpOptions options)
    : state_(new State{Protocol(engine, std::move(options))}) {}

McpServer::~McpServer() = default;

std::string McpServer::HandleMessage(std::string_view text, const Principal& principal) {
  return state_->protocol.HandleText(text, principal);
}

}  // namespace engram::server::mcp
