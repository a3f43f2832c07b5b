// The `engram` command line: subcommands, their output and exit codes
// (0 success, 1 the input was rejected, 2 usage error, 3 the store failed,
// 4 not found). Uses only the public API in include/engram/.
#ifndef ENGRAM_CLI_CLI_H_
#define ENGRAM_CLI_CLI_H_

#include <iosfwd>

namespace engram::cli {

// Runs `engram` with `argv`, reading stdin from `in` and writing to `out` /
// `err`. Returns the process exit code.
int Run(int argc, const char* const* argv, std::istream& in, std::ostream& out, std::ostream& err);

}  // namespace engram::cli

#endif  // ENGRAM_CLI_CLI_H_
