// Putting the Api on a socket: an event-driven HTTP/1.1 server (Boost.Beast
// on Asio). A thread accepts; a few I/O threads, each with its own event
// loop, own the connections (a new one goes to the thread owning fewest); an
// engine request runs on the I/O thread that read it when that thread owns
// no other connection (no hand-off), and otherwise on a bounded pool of
// worker threads. Every
// connection is bounded before any work (head bytes and fields, target
// length, body bytes, an idle deadline, a whole-request deadline, a write
// deadline; docs/security.md), open connections are capped, and Stop()
// drains within a grace period. The HTTP library stays behind this header.
#ifndef ENGRAM_SERVER_HTTP_SERVER_H_
#define ENGRAM_SERVER_HTTP_SERVER_H_

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "engram/status.h"
#include "server/http/api.h"
#include "server/http/wire.h"

namespace engram::server::http {

// Two worker threads per core, at least 4: engine requests are mostly CPU
// work, but writes also wait for the disk.
std::size_t DefaultWorkers();

struct ServerOptions {
  // Threads that read and write the connections, each owning its share; one
  // owning a single connection also runs that connection's engine requests
  // (the rest go to the workers). Accepting has a thread of its own.
  std::size_t io_threads = 2;
  std::size_t workers = DefaultWorkers();  // threads that run engine requests
  // Engine requests accepted and not yet answered (queued for a worker or
  // running); more get 503 with Retry-After, before their body is read.
  std::size_t max_in_flight = 32;
  // Open connections; one more is answered 503 and closed at once.
  std::size_t max_connections = 1024;
  // Memory for request bodies being read or handled, all connections
  // together: each holds its Content-Length (chunked: the body limit) from
  // its head to its reply; a body that does not fit gets 503 before it is
  // read.
  std::size_t max_body_memory = 256 << 20;
  // The request head's bounds. A body is bounded by the Api's
  // `limits().max_body_bytes` as received, chunked or not (413 beyond).
  WireLimits wire;
  // How long a connection may wait for a request's first byte (the first
  // request's included), from the first byte to the last of a request (head
  // and body: a deadline, not a per-read timeout), and to write a response.
  std::chrono::seconds idle_timeout{30};
  std::chrono::seconds receive_timeout{30};
  std::chrono::seconds write_timeout{30};
  // How long Stop() lets the requests in flight finish before it closes
  // their connections.
  std::chrono::seconds shutdown_grace{10};
};

class Server {
 public:
  // `api` must outlive the server.
  Server(Api* api, ServerOptions options);
  ~Server();  // Stop()s
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds `host` (an address, or a name resolved once) and `port` (0: a free
  // port) with the system's largest listen backlog; returns the bound port.
  // IoError when the address cannot be bound.
  StatusOr<int> Bind(const std::string& host, int port);
  // Starts the I/O threads and the workers; returns once the server accepts.
  void Start();

  struct StopReport {
    std::size_t cut = 0;  // connections still busy at the end of the grace period
  };
  // Stops accepting; closes idle connections and those still sending a
  // request; lets the requests accepted finish and their replies be written
  // (with Connection: close) for up to `shutdown_grace`, then closes what is
  // left; waits for the engine calls running to return (requests queued but
  // not started are dropped after the grace). Idempotent.
  StopReport Stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace engram::server::http

#endif  // ENGRAM_SERVER_HTTP_SERVER_H_
