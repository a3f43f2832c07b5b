#include "server/mcp/stdio.h"

#include <istream>
#include <memory>
#include <ostream>
#include <string>

#include "engram/engine.h"
#include "server/mcp/memory_store.h"

namespace engram::server::mcp {

std::size_t ServeStdio(McpServer& server, const Principal& principal, std::istream& in,
                       std::ostream& out, std::ostream& log) {
  std::size_t messages = 0;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();  // CRLF-framed clients
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    ++messages;
    const std::string reply = server.HandleMessage(line, principal);
    if (reply.empty()) continue;
    out << reply << '\n';
    out.flush();  // the client waits for each reply
    if (!out) {
      log << "engram mcp: cannot write to stdout; stopping\n";
      break;
    }
  }
  return messages;
}

int RunStdioServer(const std::string& db, const McpOptions& mcp_options, std::istream& in,
                   std::ostream& out, std::ostream& log) {
  Engine::Options options;
  options.holder = "engram mcp";
  StatusOr<std::unique_ptr<Engine>> engine = Engine::Open(db, options);
  if (!engine.ok()) {
    log << "engram mcp: " << engine.status().message() << '\n';
    return 3;
  }
  if (Status s = CheckMemoryEmbedder(**engine, mcp_options.collection, mcp_options.embedder);
      !s.ok()) {
    log << "engram mcp: --embedder: " << s.message() << '\n';
    return 2;
  }
  McpServer server(engine->get(), mcp_options);
  Principal principal;
  principal.agent = "local";
  principal.admin = true;
  log << "engram mcp: serving " << Engine::ShownStore(db) << " on stdio\n";
  const std::size_t messages = ServeStdio(server, principal, in, out, log);
  log << "engram mcp: end of input after " << messages << " message(s); closing the store\n";
  return 0;
}

}  // namespace engram::server::mcp
