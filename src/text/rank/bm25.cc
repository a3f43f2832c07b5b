#include "text/rank/bm25.h"

#include <cmath>

namespace engram::text {

Bm25::Bm25(const IndexData& data)
    : data_(data), k1_(data.options.k1), b_(data.options.b), n_docs_(data.live.cardinality()) {
  for (std::size_t f = 0; f < data.num_fields(); ++f) {
    avglen_.push_back(
        n_docs_ == 0 ? 0.0 : static_cast<double>(data.total_len[f]) / static_cast<double>(n_docs_));
    weight_.push_back(data.options.fields[f].weight);
  }
}

double Bm25::Idf(std::size_t n) const {
  // Lucene BM25Similarity.idf: log(1 + (docCount - docFreq + 0.5) / (docFreq + 0.5)).
  const double big_n = static_cast<double>(n_docs_), small_n = static_cast<double>(n);
  return std::log(1.0 + (big_n - small_n + 0.5) / (small_n + 0.5));
}

double Bm25::Norm(std::size_t field, std::uint32_t len) const {
  // A field with no tokens anywhere has avglen 0; no tf can be non-zero there.
  if (avglen_[field] <= 0) return 1.0;
  return 1.0 - b_ + b_ * static_cast<double>(len) / avglen_[field];
}

double Bm25::Score(double idf, const std::uint32_t* tfs, std::uint32_t doc) const {
  double t = 0;
  for (std::size_t f = 0; f < weight_.size(); ++f) {
    if (tfs[f] == 0) continue;
    t += weight_[f] * static_cast<double>(tfs[f]) / Norm(f, data_.length(doc, f));
  }
  return idf * Saturate(t);
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

}  // namespace engram::text
