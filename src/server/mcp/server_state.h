// McpServer's private state, shared by mcp_server.cc and the HTTP transport
// (which reads each message to check its headers before dispatching it).
#ifndef ENGRAM_SERVER_MCP_SERVER_STATE_H_
#define ENGRAM_SERVER_MCP_SERVER_STATE_H_

#include "server/mcp/mcp_server.h"
#include "server/mcp/protocol.h"

namespace engram::server::mcp {

struct McpServer::State {
  Protocol protocol;
};

struct HttpAccess {
  static const Protocol& protocol(const McpServer& server) { return server.state_->protocol; }
};

}  // namespace engram::server::mcp

#endif  // ENGRAM_SERVER_MCP_SERVER_STATE_H_
