// Recency and importance in ranking (README.md "Ranking"): a decay on a
// datetime field (Elasticsearch's exp, gauss and linear decay functions,
// bounded below by a floor) and a boost by a numeric field, combined by one
// formula with the score that ordered the candidates (RankingBase); the
// candidates are re-sorted by it.
#ifndef ENGRAM_SEARCH_RANKING_H_
#define ENGRAM_SEARCH_RANKING_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/json.h"
#include "base/time.h"
#include "index/metadata_index.h"

namespace engram::search {

struct Hit;

enum class DecayFunction { kExp, kGauss, kLinear };

// Elasticsearch's `decay` parameter, fixed: the factor at distance
// offset + scale from the origin.
inline constexpr double kDecayAtScale = 0.5;

struct Decay {
  std::uint32_t slot = 0;  // a datetime field of the schema
  DecayFunction function = DecayFunction::kExp;
  double scale_micros = 1;   // > 0
  double offset_micros = 0;  // >= 0
  double floor = 0;          // in [0, 1]
  Datetime origin;           // "now" unless the request names an instant
};

struct Boost {
  std::uint32_t slot = 0;  // an int or float field of the schema
  double weight = 1;       // finite, >= 0
};

struct Ranking {
  std::optional<Decay> decay;
  std::optional<Boost> boost;
  bool on() const { return decay.has_value() || boost.has_value(); }
};

// How many candidates each retriever fetches for a ranked search when the
// request names no candidate_k: max(kRankingMinDepth, kRankingDepthFactor *
// k), at most kMaxCandidateK. A record below that depth in every retriever
// is not re-ranked, however recent or important.
inline constexpr std::size_t kRankingMinDepth = 100;
inline constexpr std::size_t kRankingDepthFactor = 4;

// Elasticsearch's decay functions ("Decay functions", function_score query),
// with decay = kDecayAtScale and d = max(0, |t - origin| - offset):
//   exp:    e^(ln(0.5) * d / scale)
//   gauss:  e^(-d^2 / (2 sigma^2)), sigma^2 = -scale^2 / (2 ln(0.5))
//   linear: max(0, (s - d) / s), s = scale / (1 - 0.5)
// so each is 1 within the offset and 0.5 at offset + scale. `distance` is
// |t - origin| in microseconds. The floor is not applied here.
double DecayValue(DecayFunction function, double distance, double scale, double offset);

// The factors of one hit: decay = max(floor, DecayValue(...)), 1 when the
// record has no value in the field (as Elasticsearch, a missing field does
// not decay); boost = max(0, 1 + weight * value), value 0 when absent.
double DecayFactor(const Decay& decay, const index::MetadataIndex& metadata, std::uint32_t doc);
double BoostFactor(const Boost& boost, const index::MetadataIndex& metadata, std::uint32_t doc);

// What the factors multiply: the score that ordered the candidates, on a
// scale where 0 is the least relevant, so that the factors keep its order
// when they are 1.
//   kRelevance:  Hit::relevance (text or vector alone, where it orders as
//                BM25 and the similarity do);
//   kFusedScore: Hit::score, the fused score (hybrid with rrf, weighted_rrf
//                or convex over min-max normalised scores: all >= 0);
//   kFusedRank:  1 / (rrf_k + position), the fused rank on RRF's scale
//                (convex over z-scores, which can be negative; temporal
//                hints treat it so too).
enum class RankingBase { kRelevance, kFusedScore, kFusedRank };
std::string_view RankingBaseName(RankingBase base);  // "relevance", "fused_score", "fused_rank"

// Sets each hit's base, decay, boost and final score,
//   final_score = base * decay * boost,
// and stably re-sorts `hits` (in their retrieval or fusion order) by it,
// best first; ties keep that order. With kRelevance the relevances must be
// set. Returns what explain shows: the formula, the base, the specs (with
// the origin), and how many candidates were ranked.
json::Value ApplyRanking(const Ranking& ranking, RankingBase base, std::size_t rrf_k,
                         const index::MetadataIndex& metadata, std::vector<Hit>* hits);

// Explain's per-hit list for the final hits: position, relevance, base,
// decay, boost, final score.
json::Value RankedHitsJson(const std::vector<Hit>& hits);

std::string_view DecayFunctionName(DecayFunction function);

}  // namespace engram::search

#endif  // ENGRAM_SEARCH_RANKING_H_
