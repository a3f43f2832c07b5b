// The metric names of SEARCH.md §1 and the internal-to-reported distance map.
#include "vector/metric.h"

#include <cmath>

namespace engram::vector {

std::string_view MetricName(Metric metric) {
  switch (metric) {
    case Metric::kCosine:
      return "cosine";
    case Metric::kDot:
      return "dot";
    case Metric::kL2:
      return "l2";
  }
  return "unknown";
}

std::optional<Metric> TryParseMetric(std::string_view name) {
  if (name == "cosine") return Metric::kCosine;
  if (name == "dot") return Metric::kDot;
  if (name == "l2") return Metric::kL2;
  return std::nullopt;
}

float ReportedDistance(Metric metric, float internal) {
  // Rounding can leave a squared distance a hair below zero for (near)
  // identical vectors; the reported distance is then 0, not NaN.
  if (metric == Metric::kL2) return internal > 0 ? std::sqrt(internal) : 0.0f;
  return internal;
}

}  // namespace engram::vector
