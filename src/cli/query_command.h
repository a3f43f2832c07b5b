// `engram query parse|compile`: parse a full-text query in a profile and
// print its AST as one JSON line, or compile it to an FTS5 MATCH string
// (QUERY_DSL.md §5).
#ifndef ENGRAM_CLI_QUERY_COMMAND_H_
#define ENGRAM_CLI_QUERY_COMMAND_H_

#include <iosfwd>
#include <string>

#include <CLI/CLI.hpp>

namespace engram::cli {

struct QueryCommandOptions {
  std::string profile = "default";
  std::string aliases;  // a JSON file; empty: none
  std::string anchor;   // YYYY-MM-DD; empty: today (UTC)
  std::string target = "fts5";
  std::string query;
};

// Registers `query parse` and `query compile` on `app`; `*run` is set to
// "query parse" or "query compile".
void AddQueryCommands(CLI::App* app, QueryCommandOptions* options, std::string* run);

// `parse`: the AST as one JSON line, exit 0. `compile`: the MATCH string as
// one raw line (an empty query prints an empty line), exit 0; a query the
// target cannot express prints {"ok":false,"error":{..,"kind":
// "query.unsupported",..}} and exits 1. A query over the length limit exits 1
// the same way ("query.too_long"); bad options exit 2.
int RunQueryParse(const QueryCommandOptions& options, std::ostream& out, std::ostream& err);
int RunQueryCompile(const QueryCommandOptions& options, std::ostream& out, std::ostream& err);

}  // namespace engram::cli

#endif  // ENGRAM_CLI_QUERY_COMMAND_H_
