#include "base/number.h"

#include <cmath>

#include <fmt/format.h>

namespace engram {

namespace {
constexpr double kTwo63 = 9223372036854775808.0;  // 2^63, exactly representable
}  // namespace

int CompareIntDouble(std::int64_t i, double d) {
  if (d >= kTwo63) return -1;
  if (d < -kTwo63) return 1;
  // |d| < 2^63 here (or d == -2^63), so trunc(d) is an exact int64.
  double t = std::trunc(d);
  auto ti = static_cast<std::int64_t>(t);
  if (i < ti) return -1;
  if (i > ti) return 1;
  double frac = d - t;  // exact: both are doubles of the same binade or less
  if (frac > 0) return -1;
  if (frac < 0) return 1;
  return 0;
}

std::optional<std::int64_t> ExactInt(double d) {
  if (!std::isfinite(d) || d >= kTwo63 || d < -kTwo63 || std::trunc(d) != d) return std::nullopt;
  return static_cast<std::int64_t>(d);
}

std::string FormatShortest(double d) {
  if (d == 0) return "0";  // also -0.0: the value is zero
  return fmt::format("{}", d);
}

std::string FormatFloatLiteral(double d) {
  std::string s = fmt::format("{}", d);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

}  // namespace engram
