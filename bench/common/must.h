// A benchmark stops at the first failed engine or store call: Must returns
// the value of an ok StatusOr, and throws std::runtime_error with `what`
// and the status otherwise (RunGuarded, cli.h, prints it and exits 1).
#ifndef ENGRAM_BENCH_COMMON_MUST_H_
#define ENGRAM_BENCH_COMMON_MUST_H_

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "engram/status.h"

namespace engram::bench {

template <typename T>
T Must(StatusOr<T> s, std::string_view what) {
  if (!s.ok()) throw std::runtime_error(std::string(what) + ": " + s.status().ToString());
  return std::move(s).value();
}

inline void Must(const Status& s, std::string_view what) {
  if (!s.ok()) throw std::runtime_error(std::string(what) + ": " + s.ToString());
}

}  // namespace engram::bench

#endif  // ENGRAM_BENCH_COMMON_MUST_H_
