// Filter impact (SEARCH.md §3, seed 004's `search_filter_impact/v1`): over a
// set of candidates generated without the filter, how many the filter keeps
// and why the others were dropped. A dropped record's reason is found by
// walking the CHECKED IR, whose nodes keep the op as the caller wrote it.
#ifndef ENGRAM_SEARCH_FILTER_IMPACT_H_
#define ENGRAM_SEARCH_FILTER_IMPACT_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "base/json.h"
#include "filter/compiler.h"
#include "index/metadata_index.h"
#include "schema/value.h"

namespace engram::search {

inline constexpr std::string_view kFilterImpactSchema = "search_filter_impact/v1";
// Seed 004's MAX_CANDIDATE_K.
inline constexpr std::size_t kImpactMaxCandidateK = 1024;
inline constexpr std::size_t kMaxDropReasons = 5;

// max(top_k, min(1024, 3 × requested_candidate_k)) (seed 004 §2b).
std::size_t EffectiveCandidateK(std::size_t top_k, std::size_t requested_candidate_k);

// Why the record with `slots` fails `node` (a checked IR node):
//   - a leaf (constants included) reports its `origin` (`eq:scope`), or
//     "false" for a constant without one;
//   - a `not` the checker lowered from a leaf (`neq`, `$ne`, `$nin`, `is_not`,
//     `ne`: its origin is set) is that leaf: it reports its origin;
//   - a written `not` (no origin) fails only when its child passes: "not.true";
//   - `and` reports its first failing child's reason;
//   - `or` (every child failed) reports its first child's reason.
// Returns "" when the record passes `node` (no reason: not a drop).
std::string DropReason(const filter::Node& node, std::span<const Value> slots);

struct DropCount {
  std::string reason;
  std::size_t count = 0;
  bool operator==(const DropCount&) const = default;
};

// The `limit` most frequent reasons, count descending then reason ascending
// (bytewise).
std::vector<DropCount> TopDropReasons(const std::map<std::string, std::size_t>& counts,
                                      std::size_t limit = kMaxDropReasons);

// The validated filter as the impact payload echoes it: the CHECKED IR
// written back in the caller's dialect by the dialect translator
// (filter/translate: expr_v1 gives seed 004's own envelope
// {"schema":"search_filter_expr/v1","expr":...}; retrieve and vector_filter
// their JSON), or, for search_memory (which has no writer) and for anything a
// writer cannot express, the checked IR's canonical JSON (filter/ir/printer.h).
json::Value FilterEcho(const filter::CompiledFilter& filter, filter::Dialect dialect);

// The counts over `candidates` (record numbers, duplicates ignored): a
// candidate without a live metadata row fails the consistency check and is
// not counted at all; the rest are `candidate_count_pre`, and those failing
// the filter (decided by its optimised program, which means what the checked
// IR means) are dropped with DropReason.
struct ImpactCounts {
  std::size_t pre = 0;
  std::size_t post = 0;
  std::map<std::string, std::size_t> reasons;
};
ImpactCounts CountImpact(const index::MetadataIndex& metadata, const filter::CompiledFilter& filter,
                         std::span<const std::uint32_t> candidates);

// The whole `search_filter_impact/v1` object, members in seed 004's order:
// schema, requested_candidate_k, effective_candidate_k, candidate_count_pre,
// candidate_count_post, dropped_total, top_drop_reasons [{reason, count}],
// filter.
json::Value FilterImpactJson(std::size_t requested_candidate_k, std::size_t effective_candidate_k,
                             const ImpactCounts& counts, json::Value filter_echo);

}  // namespace engram::search

#endif  // ENGRAM_SEARCH_FILTER_IMPACT_H_
