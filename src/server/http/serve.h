// `engram serve`: the HTTP API (and /mcp) over a store directory.
#ifndef ENGRAM_SERVER_HTTP_SERVE_H_
#define ENGRAM_SERVER_HTTP_SERVE_H_

#include <cstddef>
#include <iosfwd>
#include <string>

#include "server/http/request_decode.h"

namespace engram::server::http {

struct ServeOptions {
  std::string db;
  std::string listen = "127.0.0.1:7700";  // HOST:PORT; port 0 picks a free one
  std::string keys;  // an API keys file; empty: no authentication (loopback only)
  Limits limits;     // request bounds (body, batch, query, filter, k)
  // A connection holds a thread while it is open (keep-alive included), so
  // there are more threads than engine requests allowed at once: a burst
  // past `max_in_flight` gets a quick 503 instead of queueing unseen.
  std::size_t threads = 64;        // connections served at once
  std::size_t max_in_flight = 32;  // engine requests at once; more get 503
  std::string embedder;            // the MCP memories collection's embedder spec; empty: none
  int read_timeout_seconds = 30;
  int write_timeout_seconds = 30;
};

// Splits "HOST:PORT" ("[::1]:7700" for IPv6); false when malformed.
bool ParseListen(const std::string& listen, std::string* host, int* port);

// Opens the store, serves until SIGTERM or SIGINT, finishes the requests in
// flight and closes the store. Returns the process exit code (0 after a
// clean shutdown, 2 for bad options or keys, 3 when the store or the address
// fails); logs to `log`.
int Serve(const ServeOptions& options, std::ostream& log);

}  // namespace engram::server::http

#endif  // ENGRAM_SERVER_HTTP_SERVE_H_
