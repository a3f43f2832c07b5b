// Temporal hints in ranking (SEARCH.md §2, QUERY_DSL.md §3): a query's
// `around` hints boost records whose time field is near the date, and an
// `ordinal` hint orders by time. Only collections that name a time field use
// them; hints are never a boolean condition (nothing is dropped).
#ifndef ENGRAM_SEARCH_TEMPORAL_H_
#define ENGRAM_SEARCH_TEMPORAL_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "base/json.h"
#include "base/time.h"
#include "index/metadata_index.h"
#include "search/search.h"
#include "text/query/temporal.h"

namespace engram::search {

// Half-life of the `around` boost, in days.
inline constexpr double kAroundHalfLifeDays = 7.0;

// The closeness w in (0, 1] of instant `t` to day `day` (UTC): 1 anywhere on
// that day, else 2^(-days / 7) where days is the (fractional) distance from t
// to the nearer end of the day. An exponential decay with a 7-day half-life:
// a record a week off keeps half the boost, a month off about 5 %.
double AroundCloseness(Datetime t, const text::Date& day);

// Reorders `hits` (best first, as retrieval and fusion left them) by the
// hints; a no-op without hints. Every hit gets a rank score: its fused score
// when `fused` (hybrid with rrf or weighted_rrf), else 1 / (rrf_k +
// position), position 1-based (the single retriever's or the convex fusion's
// rank, on RRF's scale so one formula serves every mode).
//   - around (one or more): the rank score is multiplied by 1 + w, w the
//     largest AroundCloseness over the hints (0 without a time value); hits
//     are stably re-sorted by the boosted score and Hit::boost records 1 + w.
//     A record on the day at most doubles its score: with rrf_k = 60 it
//     overtakes an unboosted rank-1 hit from about rank 62 up.
//   - ordinal (the last one given wins): then a stable sort by time, earliest
//     first for 1 and latest first for -1; records without a time value last.
// The time value is the row's slot `time_slot` when it holds a datetime.
// Returns what explain shows: {"time_field", "hints", "boosted", "ordinal"}.
json::Value ApplyTemporalHints(const std::vector<text::TemporalHint>& hints,
                               const index::MetadataIndex& metadata, std::uint32_t time_slot,
                               bool fused, std::size_t rrf_k, std::vector<Hit>* hits);

}  // namespace engram::search

#endif  // ENGRAM_SEARCH_TEMPORAL_H_
