// What a benchmark notes beside its timings: CPU seconds (on shared cores a
// phase's wall time says little alone), the load average, and the size of a
// store directory on disk.
#ifndef ENGRAM_BENCH_COMMON_MEASURE_H_
#define ENGRAM_BENCH_COMMON_MEASURE_H_

#include <chrono>
#include <cstdint>
#include <string>

namespace engram::bench {

// Wall seconds since `t` (steady clock).
inline double SecondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// CPU seconds (user + system, all threads) this process has used.
double CpuSeconds();
// "/proc/loadavg"'s three averages, space-separated.
std::string LoadAvg();
// The bytes of the regular files under `dir`.
std::uint64_t DirBytes(const std::string& dir);

}  // namespace engram::bench

#endif  // ENGRAM_BENCH_COMMON_MEASURE_H_
