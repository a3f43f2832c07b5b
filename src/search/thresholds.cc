#include "search/thresholds.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "text/rank/bm25.h"
#include "text/rank/plan.h"

namespace engram::search {

double VectorSimilarity(vector::Metric metric, double distance) {
  switch (metric) {
    case vector::Metric::kCosine:
      return 1.0 - distance;
    case vector::Metric::kDot:
      return -distance;
    case vector::Metric::kL2:
      return 1.0 / (1.0 + distance);
  }
  return 0;
}

double VectorRelevance(vector::Metric metric, double distance) {
  switch (metric) {
    case vector::Metric::kCosine:
      return std::clamp(1.0 - distance, 0.0, 1.0);
    case vector::Metric::kDot:
      // The logistic function of the inner product; exp cannot overflow into
      // a NaN here (a huge argument gives inf and the result 0).
      return 1.0 / (1.0 + std::exp(distance));
    case vector::Metric::kL2:
      return 1.0 / (1.0 + std::max(0.0, distance));
  }
  return 0;
}

namespace {

// A unit's bound over the postings of the records in `within` only: per
// word and field, the largest tf and the shortest length among them, folded
// as the plan folds the collection-wide figures; for a one-term unit also
// the largest tf~ among them (TermPostings::max_t), as the plan does. So it
// is never above the collection-wide bound, and depends on no other record's
// frequencies or lengths (only idf and the average lengths are
// collection-wide).
double BoundWithin(const text::IndexData& data, const text::Bm25& bm25, const text::PlanUnit& u,
                   const roaring::Roaring& within) {
  const std::size_t nf = data.num_fields();
  text::UnitBound bound(u.any, nf);
  float max_t = 0;
  for (const std::uint32_t w : u.words) {
    const text::TermPostings& p = data.postings[w];
    std::vector<std::uint32_t> word_tf(nf, 0), word_len(nf, UINT32_MAX);
    p.ForEach([&](std::uint32_t d, std::size_t b, std::size_t i) {
      if (!within.contains(d)) return;
      const std::uint32_t* t = p.block(b).tfs.data() + i * nf;
      max_t = std::max(max_t, data.BoundTf(d, t));
      for (std::size_t f = 0; f < nf; ++f) {
        if (t[f] == 0) continue;
        word_tf[f] = std::max(word_tf[f], t[f]);
        word_len[f] = std::min(word_len[f], data.length(d, f));
      }
    });
    bound.Add(word_tf, word_len);
  }
  double within_bound = bound.Score(bm25, u.idf);
  if (u.words.size() == 1 && !u.any) {
    within_bound = std::min(within_bound, bm25.BlockBound(u.idf, max_t));
  }
  return within_bound;
}

}  // namespace

double MaxAttainableBm25(const text::TextIndex& index, const text::DefaultQuery& query,
                         const roaring::Roaring* within, std::size_t max_expansions) {
  if (!query.root) return 0;
  const text::Bm25 bm25(index.data());
  const text::Plan plan = text::CompilePlan(index.data(), bm25, *query.root, max_expansions);
  double sum = 0;
  for (const text::PlanUnit& u : plan.units) {
    if (!u.scoring) continue;
    sum += within != nullptr ? BoundWithin(index.data(), bm25, u, *within) : u.bound;
  }
  return sum;
}

double TextRelevance(double bm25, double max_bm25) {
  if (!(max_bm25 > 0)) return 0;
  return std::clamp(bm25 / max_bm25, 0.0, 1.0);
}

CutCounts ApplyThresholds(std::optional<double> threshold, std::optional<double> score_threshold,
                          std::vector<Hit>* hits) {
  CutCounts cut;
  std::vector<Hit> kept;
  kept.reserve(hits->size());
  for (Hit& h : *hits) {
    if (threshold && (!h.distance || *h.distance > *threshold)) {
      ++cut.by_threshold;
      continue;
    }
    if (score_threshold && h.relevance < *score_threshold) {
      ++cut.by_score_threshold;
      continue;
    }
    kept.push_back(std::move(h));
  }
  *hits = std::move(kept);
  return cut;
}

}  // namespace engram::search
