// `engram mcp --db DIR`: the MCP server on stdin/stdout (SEARCH.md §5), run
// by an agent host as a child process (server/mcp/stdio.h does the work).
#include <istream>
#include <ostream>
#include <string>

#include "cli/server_commands.h"
#include "server/mcp/stdio.h"

namespace engram::cli {

void AddMcpCommand(CLI::App* app, McpCommandOptions* options, std::string* run) {
  CLI::App* cmd = app->add_subcommand("mcp", "serve MCP on stdin/stdout over a store");
  cmd->add_option("--db", options->db, "the store directory")->required();
  AddBoundsOptions(cmd, &options->mcp.request_timeout, &options->mcp.max_expansions,
                   &options->mcp.max_reply_bytes);
  cmd->callback([run] { *run = "mcp"; });
}

int RunMcp(const McpCommandOptions& options, std::istream& in, std::ostream& out,
           std::ostream& err) {
  return server::mcp::RunStdioServer(options.db, options.mcp, in, out, err);
}

}  // namespace engram::cli
