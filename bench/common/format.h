// Number formatting shared by the benchmarks' Markdown tables.
#ifndef ENGRAM_BENCH_COMMON_FORMAT_H_
#define ENGRAM_BENCH_COMMON_FORMAT_H_

#include <string>

namespace engram::bench {

// x rounded to an integer with thousands separators: 12345.6 -> "12,346".
std::string Thousands(double x);

}  // namespace engram::bench

#endif  // ENGRAM_BENCH_COMMON_FORMAT_H_
