#include "text/rank/bm25.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace engram::text {

Bm25::Bm25(const IndexData& data)
    : data_(data), k1_(data.options.k1), b_(data.options.b), n_docs_(data.live.cardinality()) {
  for (std::size_t f = 0; f < data.num_fields(); ++f) {
    avglen_.push_back(
        n_docs_ == 0 ? 0.0 : static_cast<double>(data.total_len[f]) / static_cast<double>(n_docs_));
    weight_.push_back(data.options.fields[f].weight);
    // B_f(d) = norm_a + norm_c * len; a field with no tokens anywhere has
    // avglen 0 and no tf can be non-zero there: B 1.
    const bool some = avglen_[f] > 0;
    norm_a_.push_back(some ? 1.0 - b_ : 1.0);
    norm_c_.push_back(some ? b_ / avglen_[f] : 0.0);
    const double base = f < data.bound_avglen.size() ? data.bound_avglen[f] : 0;
    if (base > 0) {
      growth_ = std::max(growth_, avglen_[f] / base);
    } else if (avglen_[f] > 0) {
      growth_ = std::numeric_limits<double>::infinity();
    }
  }
}

double Bm25::Idf(std::size_t n) const {
  // Lucene BM25Similarity.idf: log(1 + (docCount - docFreq + 0.5) / (docFreq + 0.5)).
  const double big_n = static_cast<double>(n_docs_), small_n = static_cast<double>(n);
  return std::log(1.0 + (big_n - small_n + 0.5) / (small_n + 0.5));
}

double Bm25::Bound(double idf, const std::vector<std::uint32_t>& max_tf,
                   const std::vector<std::uint32_t>& min_len) const {
  double t = 0;
  for (std::size_t f = 0; f < weight_.size(); ++f) {
    if (max_tf[f] == 0) continue;
    t += weight_[f] * static_cast<double>(max_tf[f]) / Norm(f, min_len[f]);
  }
  return idf * Saturate(t);
}

double Bm25::BlockBound(double idf, float max_t) const {
  if (max_t <= 0) return 0;
  const double t = static_cast<double>(max_t) * growth_;
  return std::isinf(t) ? idf * (k1_ + 1) : idf * Saturate(t);
}

}  // namespace engram::text
