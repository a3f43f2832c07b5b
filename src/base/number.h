// Exact arithmetic facts about int64 and double that the filter semantics
// rest on (FILTERS.md §1.2: int and float compare by mathematical value,
// never by casting int64 to double), and shortest round-trip printing.
#ifndef ENGRAM_BASE_NUMBER_H_
#define ENGRAM_BASE_NUMBER_H_

#include <cstdint>
#include <optional>
#include <string>

namespace engram {

// Three-way comparison of the exact values of `i` and finite `d`: negative
// when i < d, zero when equal, positive when i > d. -0.0 equals 0.
int CompareIntDouble(std::int64_t i, double d);

// `d` as an int64 when it is integral and in range (so that converting back
// gives exactly `d`), else nullopt.
std::optional<std::int64_t> ExactInt(double d);

// Shortest decimal text that reads back as `d` ("0.01", "1", "1e+21").
std::string FormatShortest(double d);

// As FormatShortest, but always reads back as a JSON float ("1.0", "1e+21").
std::string FormatFloatLiteral(double d);

}  // namespace engram

#endif  // ENGRAM_BASE_NUMBER_H_
