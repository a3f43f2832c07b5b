#include "cli/cli.h"

#include <iostream>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/embed_command.h"
#include "cli/engine_commands.h"
#include "cli/filter_command.h"
#include "cli/query_command.h"
#include "cli/server_commands.h"

namespace engram::cli {

int Run(int argc, const char* const* argv, std::istream& in, std::ostream& out, std::ostream& err) {
  CLI::App app{"engram: typed filters, full-text and vector retrieval for AI agents' memory",
               "engram"};
  app.require_subcommand(1);
  FilterOptions filter_options;
  std::string run;
  AddFilterCommands(&app, &filter_options, &run);
  QueryCommandOptions query_options;
  AddQueryCommands(&app, &query_options, &run);
  EngineOptions engine_options;
  AddEngineCommands(&app, &engine_options, &run);
  server::http::ServeOptions serve_options;
  AddServeCommand(&app, &serve_options, &run);
  McpCommandOptions mcp_options;
  AddMcpCommand(&app, &mcp_options, &run);
  EmbedCommandOptions embed_options;
  AddEmbedCommand(&app, &embed_options, &run);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e, out, err);
    return code == 0 ? 0 : 2;
  }
  if (run == "check") return RunFilterCheck(filter_options, in, out, err);
  if (run == "eval") return RunFilterEval(filter_options, in, out, err);
  if (run == "translate") return RunFilterTranslate(filter_options, in, out, err);
  if (run == "query parse") return RunQueryParse(query_options, out, err);
  if (run == "query compile") return RunQueryCompile(query_options, out, err);
  if (run == "collection create") return RunCollectionCreate(engine_options, out, err);
  if (run == "collection list") return RunCollectionList(engine_options, out, err);
  if (run == "collection reembed") return RunCollectionReembed(engine_options, out, err);
  if (run == "ingest") return RunIngest(engine_options, out, err);
  if (run == "search") return RunSearch(engine_options, in, out, err);
  if (run == "delete") return RunDelete(engine_options, in, out, err);
  if (run == "list") return RunList(engine_options, out, err);
  if (run == "count") return RunCount(engine_options, out, err);
  if (run == "facets") return RunFacets(engine_options, out, err);
  if (run == "serve") return RunServe(serve_options, out, err);
  if (run == "mcp") return RunMcp(mcp_options, in, out, err);
  if (run == "embed") return RunEmbed(embed_options, in, out, err);
  err << "engram: nothing to do\n";
  return 2;
}

}  // namespace engram::cli
