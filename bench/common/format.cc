#include "common/format.h"

#include <cmath>

namespace engram::bench {

std::string Thousands(double x) {
  const long long n = std::llround(x);
  std::string s = std::to_string(n);
  const int first_digit = n < 0 ? 1 : 0;
  for (int i = static_cast<int>(s.size()) - 3; i > first_digit; i -= 3) {
    s.insert(static_cast<std::size_t>(i), ",");
  }
  return s;
}

}  // namespace engram::bench
