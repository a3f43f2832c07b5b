// `engram serve`: the HTTP API (and /mcp) over a store directory.
#ifndef ENGRAM_SERVER_HTTP_SERVE_H_
#define ENGRAM_SERVER_HTTP_SERVE_H_

#include <iosfwd>
#include <string>
#include <vector>

#include "server/http/request_decode.h"
#include "server/http/server.h"

namespace engram::server::http {

struct ServeOptions {
  std::string db;
  std::string listen = "127.0.0.1:7700";  // HOST:PORT; port 0 picks a free one
  std::string keys;      // an API keys file; empty: no authentication (loopback only)
  Limits limits;         // request bounds (body, batch, query, filter, k, deadline, reply)
  ServerOptions server;  // threads, connections, head bounds, deadlines, shutdown grace
  std::size_t max_in_flight_per_agent = 8;  // with --keys: one agent's share of max_in_flight
  std::string embedder;  // the MCP memories collection's embedder spec; empty: none
  // More Host values than the loopback names and the listen address
  // (BrowserPolicy::Make), and the origins browsers may call from.
  std::vector<std::string> allowed_hosts;
  std::vector<std::string> allowed_origins;
};

// Splits "HOST:PORT" ("[::1]:7700" for IPv6); false when malformed.
bool ParseListen(const std::string& listen, std::string* host, int* port);

// Opens the store, serves until SIGTERM or SIGINT, then stops accepting,
// lets the requests in flight finish within the shutdown grace period and
// closes the store (writing its index snapshots). Returns the process exit
// code (0 after a clean shutdown, 2 for bad options or keys, 3 when the
// store or the address fails); logs to `log`.
int Serve(const ServeOptions& options, std::ostream& log);

}  // namespace engram::server::http

#endif  // ENGRAM_SERVER_HTTP_SERVE_H_
