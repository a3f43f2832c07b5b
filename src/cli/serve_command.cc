// `engram serve`: the flags of the HTTP API (server/http/serve.h).
#include <chrono>
#include <ostream>
#include <string>

#include "cli/server_commands.h"
#include "cli/store_option.h"

namespace engram::cli {
namespace {

// A flag in whole seconds for a std::chrono::seconds option.
void AddSeconds(CLI::App* cmd, const std::string& name, std::chrono::seconds* value,
                const std::string& help, int max) {
  cmd->add_option_function<int>(
         name, [value](int s) { *value = std::chrono::seconds(s); }, help)
      ->default_str(std::to_string(value->count()))
      ->check(CLI::Range(1, max));
}

}  // namespace

void AddServeCommand(CLI::App* app, server::http::ServeOptions* options, std::string* run) {
  CLI::App* cmd = app->add_subcommand("serve", "serve the HTTP API and /mcp over a store");
  AddDbOption(cmd, &options->db, "the store directory (created if missing)");
  cmd->add_option("--listen", options->listen, "HOST:PORT to listen on (port 0: any free port)")
      ->capture_default_str();
  cmd->add_option("--keys", options->keys,
                  "API keys file (JSON); without it: no auth, loopback addresses only");
  cmd->add_option("--allowed-hosts", options->allowed_hosts,
                  "Host header values accepted besides localhost, 127.0.0.1, [::1] and the "
                  "listen address: NAME or NAME:PORT, comma-separated; * accepts any Host")
      ->delimiter(',');
  cmd->add_option("--allowed-origins", options->allowed_origins,
                  "browser origins allowed to call (http[s]://HOST[:PORT], comma-separated); "
                  "default none: a request with any other Origin gets 403")
      ->delimiter(',');

  server::http::Limits& limits = options->limits;
  cmd->add_option("--max-body-bytes", limits.max_body_bytes,
                  "largest request body as received, chunked or not (413 beyond)")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1024}, std::size_t{1} << 30));
  cmd->add_option("--max-batch", limits.max_batch, "records per upsert, ids per delete")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--max-query-bytes", limits.max_query_bytes, "longest text query")
      ->capture_default_str()
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--max-filter-bytes", limits.max_filter_bytes, "longest filter text")
      ->capture_default_str()
      ->check(CLI::Range(1, 1 << 24));
  cmd->add_option("--max-k", limits.max_k, "largest k and top_k")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));

  server::http::ServerOptions& server = options->server;
  cmd->add_option("--io-threads", server.io_threads, "threads that accept, read and write")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  cmd->add_option("--workers", server.workers,
                  "threads that run engine requests (default: two per core, at least 4)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--max-in-flight", server.max_in_flight,
                  "engine requests accepted at once (queued or running); more get 503")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--max-connections", server.max_connections,
                  "open connections; one more is answered 503 and closed")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--max-body-memory", server.max_body_memory,
                  "bytes of request bodies held at once, all connections together (503 beyond)")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1} << 20, std::size_t{1} << 40));
  cmd->add_option("--max-header-bytes", server.wire.max_head_bytes,
                  "largest request line and header fields together (431 beyond)")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1024}, std::size_t{1} << 20));
  cmd->add_option("--max-headers", server.wire.max_headers, "most header fields (431 beyond)")
      ->capture_default_str()
      ->check(CLI::Range(8, 10000));
  cmd->add_option("--max-target-bytes", server.wire.max_target_bytes,
                  "longest request target, path and query (414 beyond)")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{256}, std::size_t{1} << 20));
  AddSeconds(cmd, "--idle-timeout", &server.idle_timeout,
             "seconds a connection may wait for a request's first byte", 3600);
  AddSeconds(cmd, "--request-timeout", &server.request_timeout,
             "seconds from a request's first byte to its last (head and body, in total)", 3600);
  AddSeconds(cmd, "--write-timeout", &server.write_timeout, "seconds to write a response", 3600);
  AddSeconds(cmd, "--shutdown-grace", &server.shutdown_grace,
             "seconds SIGTERM lets the requests in flight finish before closing them", 3600);
  cmd->callback([run] { *run = "serve"; });
}

int RunServe(const server::http::ServeOptions& options, std::ostream& /*out*/, std::ostream& err) {
  return server::http::Serve(options, err);
}

}  // namespace engram::cli
