// Fusion: how the hybrid retriever merges the text (BM25) and vector lists.
//   rrf:          Reciprocal Rank Fusion (Cormack, Clarke & Büttcher, SIGIR
//                 2009), sum of 1 / (rrf_k + rank); reads only ranks.
//   weighted_rrf: the same with a weight per retriever (Elasticsearch's and
//                 Qdrant's weighted RRF).
//   convex:       alpha x N(vector similarity) + (1 - alpha) x N(BM25), N a
//                 min-max or z-score normalisation over each retriever's
//                 candidates (Bruch, Gai & Ingber, "An Analysis of Fusion
//                 Functions for Hybrid Retrieval", TOIS 2023, found it beats
//                 RRF once alpha is tuned).
#ifndef ENGRAM_SEARCH_FUSION_H_
#define ENGRAM_SEARCH_FUSION_H_

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "base/json.h"
#include "engram/status.h"
#include "search/search.h"
#include "vector/metric.h"

namespace engram::search {

std::string_view FusionMethodName(FusionMethod method);  // "rrf", "weighted_rrf", "convex"
std::optional<FusionMethod> FusionMethodFromName(std::string_view name);
std::string_view NormalizationName(Normalization n);  // "min_max", "z_score"
std::optional<Normalization> NormalizationFromName(std::string_view name);

// InvalidArgument naming the field ("fusion.alpha: must be within [0, 1],
// got 2"): rrf_k above 10^6, weights negative, not finite or both 0, alpha
// outside [0, 1].
Status CheckFusion(const Fusion& fusion);

// One retriever's normalisation over its candidates (convex fusion):
// N(s) = (s - shift) / scale, and the value a record that retriever did not
// return gets (min-max: 0, the bottom of the range; z-score: the lowest
// candidate's). With no candidates every record gets 0.
struct Normaliser {
  double shift = 0, scale = 1, missing = 0;
  std::size_t candidates = 0;
  double Apply(double s) const { return (s - shift) / scale; }
};

struct FusionContext {
  Fusion fusion;
  vector::Metric metric = vector::Metric::kCosine;
  Normaliser text, vector;  // convex only
};

// A hit's fused score split by retriever: rrf and weighted_rrf the reciprocal
// rank terms (0 for a list the record is not in), convex the weighted
// normalised scores.
struct Components {
  double text = 0, vector = 0;
};
Components FusionComponents(const Hit& hit, const FusionContext& context);

// Merges `text` (hits with text_rank and bm25 set, best first) and `vector`
// (hits with vector_rank and distance set) into one list with score = the
// fused score and every field of both sides kept. Order: score descending;
// ties by the better (smaller) of the hit's ranks, then by record number
// ascending, so the order is total and the same in every run. `context`
// receives what explain shows. `fusion` must pass CheckFusion.
std::vector<Hit> Fuse(const std::vector<Hit>& text, const std::vector<Hit>& vector,
                      const Fusion& fusion, vector::Metric metric, FusionContext* context);

// Reciprocal Rank Fusion with equal weights (Fuse with method rrf).
double RrfScore(const Hit& hit, std::size_t rrf_k);
std::vector<Hit> FuseRrf(const std::vector<Hit>& text, const std::vector<Hit>& vector,
                         std::size_t rrf_k);

// explain's "fusion": the method and its parameters, the formula, the
// normalisers (convex), and for each of `hits` (the final list, best first)
// {"rank", "doc", "text_rank", "bm25", "text", "vector_rank", "similarity",
// "vector", "score"}: its ranks and raw scores in each retriever (null where
// it was not retrieved by that one) and the two components of its score.
json::Value FusionExplain(const FusionContext& context, const std::vector<Hit>& hits);

}  // namespace engram::search

#endif  // ENGRAM_SEARCH_FUSION_H_
