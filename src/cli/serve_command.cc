// `engram serve`: the flags of the HTTP API (server/http/serve.h).
#include <ostream>
#include <string>

#include "cli/server_commands.h"
#include "cli/store_option.h"

namespace engram::cli {

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
  cmd->add_option("--embedder", options->embedder,
                  "the MCP memories collection's embedder (model2vec:DIR, fasttext:FILE, "
                  "openai:URL#MODEL): SearchMemory basic becomes hybrid");
  cmd->add_option("--threads", options->threads, "connections served at once")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--max-in-flight", options->max_in_flight,
                  "engine requests at once; more get 503 with Retry-After")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
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
