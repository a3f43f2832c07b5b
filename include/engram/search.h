// A search (SEARCH.md): SearchRequest, its hits and SearchResponse, and a
// named retrieve configuration. Part of engine.h.
#ifndef ENGRAM_SEARCH_H_
#define ENGRAM_SEARCH_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engram/collection_spec.h"
#include "engram/diagnostic.h"
#include "engram/filter.h"
#include "engram/request.h"

namespace engram {

enum class SearchMode { kText, kVector, kHybrid };
enum class FilterMode { kAuto, kPre, kPost };

std::optional<SearchMode> SearchModeFromName(std::string_view name);  // text|vector|hybrid
std::optional<FilterMode> FilterModeFromName(std::string_view name);  // auto|pre|post

// With neither `query` nor `vector` a search is a listing: the k records
// passing the filter, newest `time_field` first (then by id; by id alone
// when the collection has no time field), with relevance 1 and no
// thresholds applied.
struct SearchRequest {
  std::optional<std::string> query;          // the text query (QUERY_DSL.md, default profile)
  std::optional<std::vector<float>> vector;  // the query vector
  std::optional<Scope> scope;                // the caller (SEARCH.md §6); nullopt: unscoped
  std::optional<SearchMode> mode;            // default: hybrid with both, else the one given
  std::optional<FilterDialect> dialect;
  std::string filter;  // the filter text in `dialect`; empty: none
  std::size_t k = 10;
  std::optional<std::size_t> candidate_k;  // default max(k, 60)
  FilterMode filter_mode = FilterMode::kAuto;
  std::optional<double> threshold;        // a distance cut-off in the metric's terms
  std::optional<double> score_threshold;  // a floor on relevance, in [0, 1]
  // Ranking (see DecaySpec): each, when set, replaces the collection's
  // default (an empty field switches it off). Not with a listing.
  std::optional<DecaySpec> decay;
  std::optional<BoostSpec> boost;
  std::optional<FusionSpec> fusion;  // hybrid; default: the collection's
  std::string anchor;                // YYYY-MM-DD for temporal hints; empty: today
  std::string as_of = {};            // the records current then (see Superseded); empty: now
  bool explain = false;
  bool impact = false;
  RequestBounds bounds;
};

struct SearchHit {
  std::string id;
  double score = 0;      // text: BM25; vector: similarity; hybrid: the fused score
  double relevance = 0;  // in [0, 1] (SEARCH.md §5)
  std::optional<double> bm25;
  std::optional<double> distance;
  std::string record;  // the stored record as a JSON object (without its vector)
  // A ranked search's factors (see DecaySpec): set when the search ranked
  // by decay or boost (each when it applied), with the final score.
  std::optional<double> decay = std::nullopt, boost = std::nullopt, final_score = std::nullopt;
};

struct SearchResponse {
  std::vector<SearchHit> hits;  // best first
  // The hits past RequestBounds::max_reply_bytes were left out: how many.
  bool truncated = false;
  std::size_t omitted = 0;
  std::optional<Diagnostic> rejected;  // bad input (filter, query, request); no hits then
  std::string filter_impact;           // JSON text (SEARCH.md §3) when asked and filtered
  std::string explain;                 // JSON text when asked
};

// A named retrieve configuration (seed 000's Retrieve node).
struct RetrieveSpec {
  std::string name;
  std::string collection;
  FilterDialect dialect = FilterDialect::kRetrieve;
  std::string filter;  // empty: none
  std::size_t top_k = 10;
  double threshold = 0.5;  // a distance cut-off; 0 disables it
  SearchMode mode = SearchMode::kHybrid;
};

}  // namespace engram

#endif  // ENGRAM_SEARCH_H_
