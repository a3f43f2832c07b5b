// The stdio transport of MCP: one JSON-RPC message per line on `in`, each
// reply on its own line on `out`, diagnostics on `log` (never on `out`,
// which carries only protocol messages).
#ifndef ENGRAM_SERVER_MCP_STDIO_H_
#define ENGRAM_SERVER_MCP_STDIO_H_

#include <cstddef>
#include <iosfwd>
#include <string>

#include "server/common/principal.h"
#include "server/mcp/mcp_server.h"

namespace engram::server::mcp {

// Serves until `in` reaches end of file; returns the number of messages read.
// Blank lines are skipped; a line that is not JSON gets a parse error reply.
std::size_t ServeStdio(McpServer& server, const Principal& principal, std::istream& in,
                       std::ostream& out, std::ostream& log);

// `engram mcp --db DIR`: opens the store in `db`, serves stdio as the local
// agent (admin, agent "local": whoever can start the process owns the store,
// SEARCH.md §5) until end of input, and closes the store. Returns the exit
// code: 0 at end of input, 3 when the store cannot be opened, 2 when the
// memories collection does not have `options.embedder` (CheckMemoryEmbedder).
int RunStdioServer(const std::string& db, const McpOptions& options, std::istream& in,
                   std::ostream& out, std::ostream& log);

}  // namespace engram::server::mcp

#endif  // ENGRAM_SERVER_MCP_STDIO_H_
