// Machine-readable benchmark results (`--json-out FILE`): one JSON object per
// table row, one per line (JSON Lines), so that a script can check an aim
// without parsing Markdown. The benchmarks name each row's fields (issue 21).
#ifndef ENGRAM_BENCH_COMMON_JSON_OUT_H_
#define ENGRAM_BENCH_COMMON_JSON_OUT_H_

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

namespace engram::bench {

class JsonOut {
 public:
  // Truncates `path` at once (a run that fails leaves no stale rows);
  // "" writes nothing. Throws std::runtime_error when it cannot be opened.
  explicit JsonOut(const std::string& path = "");
  bool enabled() const { return out_.is_open(); }
  // Appends `row` as one line and flushes it (rows survive a later failure).
  void Write(const nlohmann::ordered_json& row);

 private:
  std::string path_;
  std::ofstream out_;
};

}  // namespace engram::bench

#endif  // ENGRAM_BENCH_COMMON_JSON_OUT_H_
