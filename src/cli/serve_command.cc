// `engram serve`: the flags of the HTTP API (server/http/serve.h).
#include <cmath>
#include <ostream>
#include <sstream>
#include <string>

#include "cli/server_commands.h"
#include "cli/store_option.h"

namespace engram::cli {

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
  AddDbOption(cmd, &options->db, "the store directory (created if missing)");
  cmd->add_option("--listen", options->listen, "HOST:PORT to listen on (port 0: any free port)")
      ->capture_default_str();
  cmd->add_option("--keys", options->keys,
                  "API keys file (JSON); without it: no auth, loopback addresses only");
  server::http::Limits& limits = options->limits;
  cmd->add_option("--max-body-bytes", limits.max_body_bytes, "largest request body (413 beyond)")
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
  cmd->add_option("--threads", options->threads, "connections served at once")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--max-in-flight", options->max_in_flight,
                  "engine requests at once; more get 503 with Retry-After")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--max-in-flight-per-agent", options->max_in_flight_per_agent,
                  "with --keys: engine requests one agent may have at once; more get 503")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  AddBoundsOptions(cmd, &limits.request_timeout, &limits.max_expansions, &limits.max_reply_bytes);
  cmd->add_option("--read-timeout", options->read_timeout_seconds, "seconds to read a request")
      ->capture_default_str()
      ->check(CLI::Range(1, 3600));
  cmd->add_option("--write-timeout", options->write_timeout_seconds, "seconds to write a response")
      ->capture_default_str()
      ->check(CLI::Range(1, 3600));
  cmd->callback([run] { *run = "serve"; });
}

int RunServe(const server::http::ServeOptions& options, std::ostream& /*out*/, std::ostream& err) {
  return server::http::Serve(options, err);
}

}  // namespace engram::cli
