// The three vector metrics (SEARCH.md §1) and how each turns into the one
// ordering distance the indexes use internally: smaller is nearer.
#ifndef ENGRAM_VECTOR_METRIC_H_
#define ENGRAM_VECTOR_METRIC_H_

#include <optional>
#include <string_view>

namespace engram::vector {

// cosine: vectors are normalised when stored and queried; the internal
//   distance is 1 - dot(a, b), which is the reported distance too.
// dot:    the internal distance is -dot(a, b); the reported score is dot.
// l2:     the internal distance is the squared Euclidean distance; the
//   reported distance is its square root.
enum class Metric { kCosine, kDot, kL2 };

std::string_view MetricName(Metric metric);
// "cosine", "dot" or "l2"; nullopt for anything else.
std::optional<Metric> TryParseMetric(std::string_view name);

// The metric's own distance (SEARCH.md §2 `threshold`) for an internal
// distance: sqrt for l2, unchanged for cosine and dot.
float ReportedDistance(Metric metric, float internal);

}  // namespace engram::vector

#endif  // ENGRAM_VECTOR_METRIC_H_
