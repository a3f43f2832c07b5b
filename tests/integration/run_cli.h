// Runs the `engram` command line in-process for the CLI tests: arguments in,
// exit code and both output streams out.
#ifndef ENGRAM_TESTS_INTEGRATION_RUN_CLI_H_
#define ENGRAM_TESTS_INTEGRATION_RUN_CLI_H_

#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.h"

namespace engram::cli {

struct Result {
  int code;
  std::string out, err;
};

inline Result Engram(const std::vector<std::string>& args, const std::string& stdin_text = "") {
  std::vector<const char*> argv = {"engram"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  std::istringstream in(stdin_text);
  std::ostringstream out, err;
  int code = Run(static_cast<int>(argv.size()), argv.data(), in, out, err);
  return {code, out.str(), err.str()};
}

}  // namespace engram::cli

#endif  // ENGRAM_TESTS_INTEGRATION_RUN_CLI_H_
