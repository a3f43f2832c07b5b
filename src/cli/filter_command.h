// `engram filter check|eval`: compile a filter in any dialect against a
// schema, print its canonical IR or the located error, and evaluate it over
// a JSONL file of records.
#ifndef ENGRAM_CLI_FILTER_COMMAND_H_
#define ENGRAM_CLI_FILTER_COMMAND_H_

#include <iosfwd>
#include <string>

#include <CLI/CLI.hpp>

namespace engram::cli {

struct FilterOptions {
  std::string dialect;
  std::string schema;
  std::string records;  // eval only
  std::string filter = "-";
  std::string ir_format = "json";  // json | sexpr
  bool unoptimized = false;
};

// Registers `filter check` and `filter eval` on `app`; `*run` is set to the
// subcommand to execute ("check" or "eval") when one is chosen.
void AddFilterCommands(CLI::App* app, FilterOptions* options, std::string* run);

int RunFilterCheck(const FilterOptions& options, std::istream& in, std::ostream& out,
                   std::ostream& err);
int RunFilterEval(const FilterOptions& options, std::istream& in, std::ostream& out,
                  std::ostream& err);

}  // namespace engram::cli

#endif  // ENGRAM_CLI_FILTER_COMMAND_H_
