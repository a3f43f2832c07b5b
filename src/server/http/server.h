// Putting the Api on a socket with cpp-httplib: binding, a fixed thread pool,
// read/write timeouts, the body-size bound, and a graceful stop that lets the
// requests in flight finish. The HTTP library stays behind this header.
#ifndef ENGRAM_SERVER_HTTP_SERVER_H_
#define ENGRAM_SERVER_HTTP_SERVER_H_

#include <cstddef>
#include <memory>
#include <string>

#include "engram/status.h"
#include "server/http/api.h"

namespace engram::server::http {

struct ServerOptions {
  std::size_t threads = 8;  // connections served at once
  int read_timeout_seconds = 30;
  int write_timeout_seconds = 30;
  std::size_t max_body_bytes = 8 << 20;  // larger bodies get 413
};

class Server {
 public:
  // `api` must outlive the server.
  Server(Api* api, ServerOptions options);
  ~Server();  // Stop()s
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds `host`:`port` (port 0: a free port) and returns the bound port.
  // IoError when the address cannot be bound.
  StatusOr<int> Bind(const std::string& host, int port);
  // Serves on a background thread; returns once the server accepts.
  void Start();
  // Stops accepting, lets the requests in flight finish, then returns.
  // Idempotent.
  void Stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace engram::server::http

#endif  // ENGRAM_SERVER_HTTP_SERVER_H_
