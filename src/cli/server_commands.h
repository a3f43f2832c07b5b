// The commands that run engram as a service: `serve` (the HTTP API and /mcp)
// and `mcp` (the MCP server on stdio).
#ifndef ENGRAM_CLI_SERVER_COMMANDS_H_
#define ENGRAM_CLI_SERVER_COMMANDS_H_

#include <chrono>
#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "server/http/serve.h"
#include "server/mcp/mcp_server.h"

namespace engram::cli {

struct McpCommandOptions {
  std::string db;       // own this store, or
  std::string connect;  // forward to the server at this URL
  std::string key_env;  // the variable holding the server's API key
  int timeout_seconds = 60;
  server::mcp::McpOptions mcp;  // with --db: the bounds (--request-timeout, ...)
  std::string embedder;         // with --db: the memories collection's embedder
};

// The flags of the bounds on each request's work, shared by serve and mcp:
// --request-timeout SECONDS (0: none), --max-expansions, --max-reply-bytes.
// Returns the three options.
std::vector<CLI::Option*> AddBoundsOptions(CLI::App* cmd,
                                           std::chrono::milliseconds* request_timeout,
                                           std::size_t* max_expansions,
                                           std::size_t* max_reply_bytes);

void AddServeCommand(CLI::App* app, server::http::ServeOptions* options, std::string* run);
int RunServe(const server::http::ServeOptions& options, std::ostream& out, std::ostream& err);

void AddMcpCommand(CLI::App* app, McpCommandOptions* options, std::string* run);
int RunMcp(const McpCommandOptions& options, std::istream& in, std::ostream& out,
           std::ostream& err);

}  // namespace engram::cli

#endif  // ENGRAM_CLI_SERVER_COMMANDS_H_
