// `engram serve`: the flags of the HTTP API (server/http/serve.h).
#include <chrono>
#include <cmath>
#include <ostream>
#include <sstream>
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

namespace {
std::string SecondsText(std::chrono::milliseconds ms) {
  std::ostringstream text;
  text << static_cast<double>(ms.count()) / 1000;
  return text.str();
}
}  // namespace

std::vector<CLI::Option*> AddBoundsOptions(CLI::App* cmd,
                                           std::chrono::milliseconds* request_timeout,
                                           std::size_t* max_expansions,
                                           std::size_t* max_reply_bytes) {
  CLI::Option* timeout =
      cmd->add_option_function<double>(
             "--request-timeout",
             [request_timeout](double seconds) {
               *request_timeout = std::chrono::milliseconds(std::llround(seconds * 1000));
             },
             "seconds a request may work before it is stopped (503 over HTTP, JSON-RPC error "
             "-32001 over MCP); 0: no deadline")
          ->default_str(SecondsText(*request_timeout))
          ->check(CLI::Range(0.0, 3600.0));
  CLI::Option* expansions =
      cmd->add_option("--max-expansions", *max_expansions,
                      "dictionary words a query's prefixes may expand to, all together (422 past "
                      "it)")
          ->capture_default_str()
          ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20));
  CLI::Option* reply =
      cmd->add_option("--max-reply-bytes", *max_reply_bytes,
                      "byte budget of a search reply's hits; the rest are left out and counted")
          ->capture_default_str()
          ->check(CLI::Range(std::size_t{4096}, std::size_t{1} << 31));
  return {timeout, expansions, reply};
}

void AddServeCommand(CLI::App* app, server::http::ServeOptions* options, std::string* run) {
  CLI::App* cmd = app->add_subcommand("serve", "serve the HTTP API and /mcp over a store");
  AddStoreOptions(cmd, &options->db, "the store directory (created if missing)");
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
  cmd->add_option("--embedder", options->embedder,
                  "the MCP memories collection's embedder (model2vec:DIR, fasttext:FILE, "
                  "openai:URL#MODEL): SearchMemory basic becomes hybrid");

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
  cmd->add_option("--max-in-flight-per-agent", options->max_in_flight_per_agent,
                  "with --keys: engine requests one agent may have at once; more get 503")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  AddBoundsOptions(cmd, &limits.request_timeout, &limits.max_expansions, &limits.max_reply_bytes);
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
  AddSeconds(cmd, "--receive-timeout", &server.receive_timeout,
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
