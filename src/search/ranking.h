// Recency and importance in ranking (README.md "Ranking"): a decay on a
// datetime field (Elasticsearch's exp, gauss and linear decay functions,
// bounded below by a floor) and a boost by a numeric field, combined with a
// hit's relevance by one formula; the candidates are re-sorted by it.
#ifndef ENGRAM_SEARCH_RANKING_H_
#define ENGRAM_SEARCH_RANKING_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
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

// Sets each hit's decay, boost and final score,
//   final = relevance * decay * boost,
// and stably re-sorts `hits` by it, best first (ties keep their retrieval
// order). Relevances must be set. Returns what explain shows: the formula,
// the specs (with the origin), and how many candidates were ranked.
json::Value ApplyRanking(const Ranking& ranking, const index::MetadataIndex& metadata,
                         std::vector<Hit>* hits);

// Explain's per-hit list for the final hits: position, relevance, decay,
// boost, final score.
json::Value RankedHitsJson(const std::vector<Hit>& hits);

std::string_view DecayFunctionName(DecayFunction function);

}  // namespace engram::search

#endif  // ENGRAM_SEARCH_RANKING_H_
