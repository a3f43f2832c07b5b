// The commands that run engram as a service: `serve` (the HTTP API and /mcp)
// and `mcp` (the MCP server on stdio).
#ifndef ENGRAM_CLI_SERVER_COMMANDS_H_
#define ENGRAM_CLI_SERVER_COMMANDS_H_

#include <iosfwd>
#include <string>

#include <CLI/CLI.hpp>

#include "server/http/serve.h"

namespace engram::cli {

struct McpCommandOptions {
  std::string db;       // own this store, or
  std::string connect;  // forward to the server at this URL
  std::string key_env;  // the variable holding the server's API key
  int timeout_seconds = 60;
  std::string embedder;  // with --db: the memories collection's embedder
};

void AddServeCommand(CLI::App* app, server::http::ServeOptions* options, std::string* run);
int RunServe(const server::http::ServeOptions& options, std::ostream& out, std::ostream& err);

void AddMcpCommand(CLI::App* app, McpCommandOptions* options, std::string* run);
int RunMcp(const McpCommandOptions& options, std::istream& in, std::ostream& out,
           std::ostream& err);

}  // namespace engram::cli

#endif  // ENGRAM_CLI_SERVER_COMMANDS_H_
