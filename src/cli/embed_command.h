// `engram embed --embedder SPEC [TEXT ...]`: prints the vector an embedder
// gives each text (the arguments, else the lines of stdin), one JSON array a
// line: what a collection with that embedder would store. Exit codes as the
// engine commands: 1 a text or the spec rejected, 2 usage, 3 the embedder
// failed (I/O, an endpoint), 4 the model not found.
#ifndef ENGRAM_CLI_EMBED_COMMAND_H_
#define ENGRAM_CLI_EMBED_COMMAND_H_

#include <iosfwd>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace engram::cli {

struct EmbedCommandOptions {
  std::string embedder;
  std::vector<std::string> texts;
};

void AddEmbedCommand(CLI::App* app, EmbedCommandOptions* options, std::string* run);
int RunEmbed(const EmbedCommandOptions& options, std::istream& in, std::ostream& out,
             std::ostream& err);

}  // namespace engram::cli

#endif  // ENGRAM_CLI_EMBED_COMMAND_H_
