// The search pipeline over one collection's in-memory indexes (SEARCH.md
// §2-§3): the filter becomes an allowed-set, the text and vector retrievers
// find the best candidates among it, hybrid fuses them (RRF, weighted RRF
// or a convex combination of normalised scores), thresholds cut the fused
// list, and filter impact and explain
// report what happened. It knows nothing of storage; engine/ hands it a view
// of the indexes it keeps.
#ifndef ENGRAM_SEARCH_SEARCH_H_
#define ENGRAM_SEARCH_SEARCH_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/deadline.h"
#include "base/json.h"
#include "engram/diagnostic.h"
#include "engram/status.h"
#include "filter/compiler.h"
#include "index/metadata_index.h"
#include "search/ranking.h"
#include "text/index/text_index.h"
#include "text/query/ast.h"
#include "vector/vector_index.h"

namespace engram::search {

// What a collection has, as the engine keeps it. Pointers are null for what
// the collection lacks (text, vectors); the indexes agree on record numbers.
struct CollectionView {
  const index::MetadataIndex* metadata = nullptr;  // always set; its live set is the collection
  const text::TextIndex* text = nullptr;
  const vector::VectorIndex* vectors = nullptr;
  // Informational: Search uses vectors->store().metric(), the stored truth.
  vector::Metric metric = vector::Metric::kCosine;
  std::optional<std::uint32_t> time_slot;  // the schema slot of the time field, if named
  // The slots of the graph fields (CollectionSpec::graph_fields), whose
  // values key the vector index's value graphs (value_cover.h).
  std::span<const std::uint32_t> graph_slots;
};

enum class Mode { kText, kVector, kHybrid };

// How hybrid search merges the text and vector lists (fusion.h has the
// formulas).
enum class FusionMethod { kRrf, kWeightedRrf, kConvex };
enum class Normalization { kMinMax, kZScore };
struct Fusion {
  FusionMethod method = FusionMethod::kRrf;
  std::size_t rrf_k = 60;                     // rrf, weighted_rrf (Cormack et al. 2009)
  double text_weight = 1, vector_weight = 1;  // weighted_rrf
  double alpha = 0.5;  // convex: the vector side's weight; the text side has 1 - alpha
  Normalization normalization = Normalization::kMinMax;  // convex
};
enum class FilterMode { kAuto, kPre, kPost };

inline constexpr std::size_t kMaxK = 10000;
inline constexpr std::size_t kMaxCandidateK = 10000;

struct Request {
  std::optional<text::DefaultQuery> query;  // parsed (default profile), when text is asked
  std::vector<float> vector;                // empty unless a vector is asked
  Mode mode = Mode::kHybrid;
  const filter::CompiledFilter* filter = nullptr;  // null: no filter
  // The records the caller may read (SEARCH.md §6; null: every record), kept
  // apart from `filter`: retrieval runs inside it in every filter mode,
  // filter impact's candidates come from it and count only `filter`'s
  // drops, and explain's counts, cardinalities and max_bm25 are computed
  // within it, so that nothing reported depends on other records but
  // through BM25's term statistics (scores). Explain then leaves out the
  // figures of work over the whole index (postings scored, the vector plan,
  // estimates).
  const filter::CompiledFilter* scope = nullptr;
  filter::Dialect dialect = filter::Dialect::kVectorFilter;  // the filter's, for impact's echo
  std::size_t k = 10;                                        // 1..kMaxK
  std::optional<std::size_t> candidate_k;                    // default max(k, 60)
  FilterMode filter_mode = FilterMode::kAuto;
  std::optional<double> threshold;        // a distance in the metric's terms, after top-k
  std::optional<double> score_threshold;  // a floor on Hit::relevance, in [0, 1]
  // Recency and importance (ranking.h); off unless set. With it, the
  // candidates (after fusion) are re-sorted by the final score before the
  // cut to k; the candidate depth is then candidate_k, default
  // max(kRankingMinDepth, kRankingDepthFactor * k).
  Ranking ranking;
  Fusion fusion;  // hybrid with both retrievers
  // Vector retrieval knobs for tests and benchmarks: the graph's ef (0: the
  // planner's choice) and a forced plan (unset: the planner chooses).
  std::size_t ef = 0;
  std::optional<vector::VectorPlan> vector_plan;
  bool explain = false;
  bool impact = false;
  // Bounds on the work (README.md "Bounds"): the cap on the dictionary words
  // the query's prefixes expand to, all together, and the deadline every
  // long loop polls (null: none).
  std::size_t max_expansions = text::kDefaultMaxExpansions;
  const Deadline* deadline = nullptr;
};

struct Hit {
  std::uint32_t doc = 0;
  // text: BM25; vector: similarity (cosine 1 - d, dot the inner product, l2
  // 1 / (1 + d)); hybrid: the fused score.
  double score = 0;
  double relevance = 0;        // in [0, 1] as SEARCH.md §5 defines it
  std::optional<double> bm25;  // when the record matched the text query
  // ReportedDistance (cosine 1 - cos, l2 Euclidean, dot -dot), when a query
  // vector was given and the record has a vector.
  std::optional<double> distance;
  std::optional<std::size_t> text_rank, vector_rank;  // 1-based ranks in each retriever
  // The temporal factor (1 + w, README.md "Temporal hints") that reordered
  // this hit, when the query had an `around` hint and the collection a time
  // field.
  std::optional<double> boost;
  // Ranking (ranking.h), when the request asked for it: the score the
  // factors multiply (RankingBase), the decay and boost factors applied, and
  // final_score = base * decay * boost.
  std::optional<double> base, decay, field_boost, final_score;
};

struct Result {
  // A query the collection's index refuses to run: its prefixes expand to
  // more than `max_expansions` words (kind query.too_many_expansions). No
  // hits then.
  std::optional<Diagnostic> rejected;
  std::vector<Hit> hits;      // best first
  json::Value filter_impact;  // null unless asked and a filter was given (SEARCH.md §3)
  json::Value explain;        // null unless asked
};

// The best k records for `request` among those passing its filter, best
// first (README.md gives every formula). Modes: text needs a query, vector a
// vector; hybrid runs the retrievers it has inputs for (one input: that
// retriever alone, explain's "fallback" says so). InvalidArgument, the
// message starting with the request field ("vector: expected 128 numbers,
// got 3"), for requests the collection cannot answer: an input the collection
// has no index for, a vector of the wrong dimension or not finite, k or
// candidate_k out of range, `threshold` with the dot metric or without a
// query vector, `score_threshold` outside [0, 1], fusion parameters out of
// range ("fusion.alpha: ..."). DeadlineExceeded once `deadline` has passed
// (checked on entry, and after each stage, whose loops stop early when it
// passes). The filter must be compiled against the metadata index's schema.
// Thread-safe against other Searches; the caller keeps writers out.
StatusOr<Result> Search(const CollectionView& collection, const Request& request);

}  // namespace engram::search

#endif  // ENGRAM_SEARCH_SEARCH_H_
