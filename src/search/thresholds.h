// Scores, relevances and the two cut-offs of SEARCH.md §2 and §5: `threshold`
// (a distance in the metric's own terms, applied after top-k) and
// `score_threshold` (a floor on the relevance in [0, 1]). The maps from a
// retriever's raw number to a relevance are fixed formulas of that hit alone
// (never normalised by the other hits), so a relevance means the same in
// every query.
#ifndef ENGRAM_SEARCH_THRESHOLDS_H_
#define ENGRAM_SEARCH_THRESHOLDS_H_

#include <cstddef>
#include <optional>
#include <vector>

#include "base/roaring.h"
#include "search/search.h"
#include "text/index/text_index.h"
#include "text/query/ast.h"
#include "vector/metric.h"

namespace engram::search {

// The vector retriever's Hit::score for a reported distance d (metric.h):
//   cosine: 1 - d, the cosine similarity, in [-1, 1];
//   dot:    -d, the inner product (ReportedDistance keeps -dot);
//   l2:     1 / (1 + d), in (0, 1].
double VectorSimilarity(vector::Metric metric, double distance);

// A vector hit's relevance in [0, 1]:
//   cosine: max(0, cosine similarity) (SEARCH.md §5: the cosine similarity;
//           opposite directions are not relevant at all);
//   dot:    the logistic 1 / (1 + e^(-dot)) (0.5 for orthogonal vectors);
//   l2:     1 / (1 + Euclidean distance) (1 for the query itself).
double VectorRelevance(vector::Metric metric, double distance);

// The highest BM25 any document of `index` can score for `query` now: the sum,
// over the query's distinct scoring units (text/rank/plan.h), of each unit's
// bound from its terms' per-field largest tf and shortest field length
// (Bm25::Bound, the bound MaxScore prunes with). A document's BM25 is the sum
// of the units it contains, each at most its bound, so no document exceeds
// it; it depends on the query and the index, never on the other hits.
// 0 for an empty query or one with no scoring unit (`NOT x`). Prefixes
// expand as in TextIndex::Search (at most `max_expansions` words).
// With `within` (a caller's readable records), the largest tf and shortest
// length are taken over the postings of those records only, so that the
// bound does not depend on other records but through the idf (BM25's term
// statistics); a unit none of them contains adds nothing.
double MaxAttainableBm25(const text::TextIndex& index, const text::DefaultQuery& query,
                         const roaring::Roaring* within = nullptr,
                         std::size_t max_expansions = text::kDefaultMaxExpansions);

// A text hit's relevance: bm25 / max_bm25, clamped to [0, 1]; 0 when max_bm25
// is 0 (only score-0 matches exist).
double TextRelevance(double bm25, double max_bm25);

struct CutCounts {
  std::size_t by_threshold = 0;        // dropped for distance > threshold (or no distance)
  std::size_t by_score_threshold = 0;  // dropped for relevance < score_threshold
};

// Drops, keeping order, the hits whose distance exceeds `threshold` (a hit
// without a distance, i.e. a record without a vector, cannot be shown to be
// within it and is dropped too), then those whose relevance is below
// `score_threshold` (inclusive floor). Either may be absent: off.
CutCounts ApplyThresholds(std::optional<double> threshold, std::optional<double> score_threshold,
                          std::vector<Hit>* hits);

}  // namespace engram::search

#endif  // ENGRAM_SEARCH_THRESHOLDS_H_
