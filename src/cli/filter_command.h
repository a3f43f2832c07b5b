// `engram filter check|eval|translate`: compile a filter in any dialect
// against a schema, print its canonical IR or the located error, evaluate it
// over a JSONL file of records, or translate it for another store.
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
  std::string target;   // translate only
  std::string filter = "-";
  std::string ir_format = "json";  // json | sexpr
  bool unoptimized = false;
};

// Registers `filter check`, `filter eval` and `filter translate` on `app`;
// `*run` is set to the subcommand to execute ("check", "eval", "translate").
void AddFilterCommands(CLI::App* app, FilterOptions* options, std::string* run);

int RunFilterCheck(const FilterOptions& options, std::istream& in, std::ostream& out,
                   std::ostream& err);
int RunFilterEval(const FilterOptions& options, std::istream& in, std::ostream& out,
                  std::ostream& err);

int RunFilterTranslate(const FilterOptions& options, std::istream& in, std::ostream& out,
                       std::ostream& err);

}  // namespace engram::cli

#endif  // ENGRAM_CLI_FILTER_COMMAND_H_
