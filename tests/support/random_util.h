// Helpers shared by the random generators: draws and the small value
// domains (with the edge cases that matter) both generators pick from.
#ifndef ENGRAM_TESTS_SUPPORT_RANDOM_UTIL_H_
#define ENGRAM_TESTS_SUPPORT_RANDOM_UTIL_H_

#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace engram::testing::detail {

template <typename Rng, typename T>
const T& Pick(Rng& rng, const std::vector<T>& v) {
  return v[std::uniform_int_distribution<std::size_t>(0, v.size() - 1)(rng)];
}

template <typename Rng>
bool Chance(Rng& rng, double p) {
  return std::bernoulli_distribution(p)(rng);
}

template <typename Rng>
int Between(Rng& rng, int lo, int hi) {
  return std::uniform_int_distribution<int>(lo, hi)(rng);
}

inline const std::vector<std::int64_t> kInts = {-2,
                                                -1,
                                                0,
                                                1,
                                                2,
                                                3,
                                                7,
                                                9007199254740992LL,
                                                9007199254740993LL,
                                                std::numeric_limits<std::int64_t>::max(),
                                                std::numeric_limits<std::int64_t>::min()};
inline const std::vector<double> kFloats = {
    -2.5, -0.0, 0.0, 0.5, 1.0, 2.0, 2.5, 3.0, 9007199254740992.0, 1e300, -1e300};
// Byte-distinct strings, Unicode case pairs (É/é) and a full-folding trap
// (straße / STRASSE are not equal under simple folding).
inline const std::vector<std::string> kStrings = {"",
                                                  "a",
                                                  "b",
                                                  "ab",
                                                  "ba",
                                                  "abc",
                                                  "\xc3\x89",
                                                  "\xc3\xa9",
                                                  "x y",
                                                  "stra\xc3\x9f"
                                                  "e",
                                                  "STRASSE"};
inline const std::vector<std::string> kSetItems = {"a", "b", "c", "d"};
inline const std::vector<std::string> kDatetimes = {
    "2025-01-01T00:00:00Z", "2025-01-01T23:59:59.999999Z", "2025-01-02T00:00:00Z",
    "2024-12-31T12:00:00Z", "2025-06-15T08:30:00+02:00",   "1969-12-31T23:59:59Z"};
inline const std::vector<std::string> kDates = {"2025-01-01", "2025-01-02", "2024-12-31"};

}  // namespace engram::testing::detail

#endif  // ENGRAM_TESTS_SUPPORT_RANDOM_UTIL_H_
