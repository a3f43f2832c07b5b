// The command line of a benchmark binary: a walk over `--flag value` pairs
// that reports a missing value or an unknown flag as an exception, and a main
// wrapper that turns any exception into a message and exit status 1.
#ifndef ENGRAM_BENCH_COMMON_CLI_H_
#define ENGRAM_BENCH_COMMON_CLI_H_

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace engram::bench {

// Usage:
//   for (ArgReader args(argc, argv); args.Next();) {
//     if (args.Is("--data")) o.data = args.Value();
//     else args.Unknown("see the usage in foo.cc");
//   }
class ArgReader {
 public:
  ArgReader(int argc, char** argv) : argc_(argc), argv_(argv) {}

  // Moves to the next flag; false when none is left.
  bool Next();
  // The current flag ("--data").
  const std::string& flag() const { return flag_; }
  bool Is(std::string_view name) const { return flag_ == name; }
  // Consumes and returns the value after the current flag; throws
  // std::runtime_error when there is none.
  std::string Value();
  // Value() split at commas, empty items dropped ("a,,b" -> {"a", "b"}).
  std::vector<std::string> List();
  // Throws std::runtime_error naming the current flag, with `hint` appended.
  [[noreturn]] void Unknown(std::string_view hint) const;

 private:
  int argc_;
  char** argv_;
  int i_ = 0;
  std::string flag_;
};

// Splits `s` at commas, dropping empty items.
std::vector<std::string> SplitCommas(const std::string& s);

// Runs `body`; on an exception prints "<tool>: <what>" to stderr and returns
// 1, otherwise returns 0. For main().
int RunGuarded(std::string_view tool, const std::function<void()>& body);

}  // namespace engram::bench

#endif  // ENGRAM_BENCH_COMMON_CLI_H_
