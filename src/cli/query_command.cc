#include "cli/query_command.h"

#include <optional>
#include <ostream>
#include <string>

#include "cli/output.h"
#include "engram/query.h"

namespace engram::cli {
namespace {

// Builds the options and parses the query. Returns the exit code to stop
// with, or -1 with `*parsed` set.
int Prepare(const QueryCommandOptions& o, std::ostream& out, std::ostream& err,
            std::optional<ParsedQuery>* parsed) {
  QueryOptions options;
  std::optional<QueryProfile> profile = QueryProfileFromName(o.profile);
  if (!profile) {
    err << "engram: unknown profile '" << o.profile << "' (expected default or jeffs-brain)\n";
    return 2;
  }
  options.profile = *profile;
  if (!o.anchor.empty() && !IsValidQueryAnchor(o.anchor)) {
    err << "engram: --anchor: '" << o.anchor << "' is not a date YYYY-MM-DD\n";
    return 2;
  }
  options.anchor = o.anchor;
  if (!o.aliases.empty()) {
    StatusOr<QueryAliases> aliases = QueryAliases::Load(o.aliases);
    if (!aliases.ok()) {
      err << "engram: --aliases: " << aliases.status().message() << '\n';
      return 2;
    }
    options.aliases = *aliases;
  }
  Checked<ParsedQuery> q = ParsedQuery::Parse(o.query, options);
  if (!q.ok()) return WriteRejected(out, DiagnosticJson(q.diagnostic()));
  parsed->emplace(q.value());
  return -1;
}

}  // namespace

void AddQueryCommands(CLI::App* app, QueryCommandOptions* o, std::string* run) {
  CLI::App* query = app->add_subcommand("query", "Parse and compile full-text queries");
  query->require_subcommand(1);
  auto common = [o](CLI::App* cmd) {
    cmd->add_option("--profile", o->profile, "default | jeffs-brain")
        ->check(CLI::IsMember({"default", "jeffs-brain"}));
    cmd->add_option("--aliases", o->aliases,
                    "a JSON file: an object mapping a term to its list of alternatives");
    cmd->add_option("--anchor", o->anchor,
                    "the date temporal hints are relative to, YYYY-MM-DD (default: today, UTC)");
    cmd->add_option("--target", o->target, "the compile target: fts5")
        ->check(CLI::IsMember({"fts5"}));
    cmd->add_option("QUERY", o->query, "the query text; put -- before a query starting with -")
        ->required();
  };
  CLI::App* parse = query->add_subcommand("parse", "Print the query's AST as one JSON line");
  common(parse);
  parse->callback([run] { *run = "query parse"; });
  CLI::App* compile =
      query->add_subcommand("compile", "Print the query as an FTS5 MATCH string, one line");
  common(compile);
  compile->callback([run] { *run = "query compile"; });
}

int RunQueryParse(const QueryCommandOptions& o, std::ostream& out, std::ostream& err) {
  std::optional<ParsedQuery> q;
  if (int code = Prepare(o, out, err, &q); code >= 0) return code;
  out << q->AstJson() << '\n';
  return 0;
}

int RunQueryCompile(const QueryCommandOptions& o, std::ostream& out, std::ostream& err) {
  std::optional<ParsedQuery> q;
  if (int code = Prepare(o, out, err, &q); code >= 0) return code;
  Checked<std::string> match = q->CompileFts5();
  if (!match.ok()) return WriteRejected(out, DiagnosticJson(match.diagnostic()));
  out << match.value() << '\n';
  return 0;
}

}  // namespace engram::cli
