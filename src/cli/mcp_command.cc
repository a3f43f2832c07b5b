// `engram mcp`: the MCP server on stdin/stdout (SEARCH.md §5), run by an
// agent host as a child process. With `--db DIR` it owns the store itself
// (server/mcp/stdio.h); with `--connect URL` it forwards to the server that
// owns it (server/mcp/bridge.h), since a store has one owner at a time.
#include <cstdlib>
#include <istream>
#include <ostream>
#include <string>

#include "cli/server_commands.h"
#include "cli/store_option.h"
#include "server/mcp/bridge.h"
#include "server/mcp/stdio.h"

namespace engram::cli {

void AddMcpCommand(CLI::App* app, McpCommandOptions* options, std::string* run) {
  CLI::App* cmd = app->add_subcommand(
      "mcp",
      "serve MCP on stdin/stdout: over a store (--db or --store), or through a running server "
      "(--connect)");
  CLI::App* store = AddStoreOptions(cmd, &options->db, "the store directory (created if missing)");
  store->require_option(0, 1);
  CLI::Option* connect = cmd->add_option(
      "--connect", options->connect,
      "forward to the server at this URL (http://HOST:PORT; /mcp is added), which owns the store");
  store->excludes(connect);
  cmd->add_option(
         "--embedder", options->embedder,
         "with --db or --store: the memories collection's embedder (model2vec:DIR, fasttext:FILE, "
         "openai:URL#MODEL): SearchMemory basic becomes hybrid")
      ->excludes(connect);
  cmd->add_option("--key-env", options->key_env,
                  "with --connect: the environment variable holding the API key")
      ->needs(connect);
  cmd->add_option("--timeout", options->timeout_seconds,
                  "with --connect: seconds to wait for each reply")
      ->needs(connect)
      ->capture_default_str()
      ->check(CLI::Range(1, 3600));
  // With --connect the server's own bounds apply.
  for (CLI::Option* bound :
       AddBoundsOptions(cmd, &options->mcp.request_timeout, &options->mcp.max_expansions,
                        &options->mcp.max_reply_bytes)) {
    bound->excludes(connect);
  }
  cmd->callback([run] { *run = "mcp"; });
}

int RunMcp(const McpCommandOptions& options, std::istream& in, std::ostream& out,
           std::ostream& err) {
  if (options.connect.empty()) {
    if (options.db.empty()) {
      err << "engram mcp: give --db DIR or --store URL (own the store) or --connect URL (reach "
             "the server that owns it)\n";
      return 2;
    }
    server::mcp::McpOptions mcp = options.mcp;
    mcp.embedder = options.embedder;
    return server::mcp::RunStdioServer(options.db, mcp, in, out, err);
  }
  server::mcp::BridgeOptions bridge;
  bridge.url = options.connect;
  bridge.timeout_seconds = options.timeout_seconds;
  if (!options.key_env.empty()) {
    const char* key = std::getenv(options.key_env.c_str());
    if (key == nullptr || key[0] == '\0') {
      err << "engram mcp: --key-env: the environment variable " << options.key_env
          << " is not set\n";
      return 2;
    }
    bridge.key = key;
  }
  return server::mcp::RunBridge(bridge, in, out, err);
}

}  // namespace engram::cli
