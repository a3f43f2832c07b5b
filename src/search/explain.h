// The pieces of a search's `explain` (SEARCH.md §2, README.md "explain"): the
// parsed query, the checked and optimised filter with the plan's
// cardinalities, each retriever's plan and counts, and a stopwatch for the
// per-stage timings. search.cc assembles them.
#ifndef ENGRAM_SEARCH_EXPLAIN_H_
#define ENGRAM_SEARCH_EXPLAIN_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/json.h"
#include "filter/compiler.h"
#include "search/retrievers.h"
#include "search/search.h"
#include "text/query/ast.h"
#include "vector/metric.h"

namespace engram::search {

// Microseconds since construction or the last Lap.
class Stopwatch {
 public:
  Stopwatch() : start_(std::chrono::steady_clock::now()) {}
  std::int64_t Lap() {
    const auto now = std::chrono::steady_clock::now();
    const auto us = std::chrono::duration_cast<std::chrono::microseconds>(now - start_).count();
    start_ = now;
    return us;
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

std::string_view ModeName(Mode mode);              // "text", "vector", "hybrid"
std::string_view FilterModeName(FilterMode mode);  // "auto", "pre", "post"

// text::QueryJson (raw, mode, AST, hints) plus "compact": text::Explain.
json::Value QueryExplain(const text::DefaultQuery& query);

// A scoped search's {"filter": the scope's IR as an s-expression,
// "readable": how many records it may read, "note"}.
json::Value ScopeExplain(const filter::CompiledFilter& scope, std::size_t readable);

// {"checked": IR JSON, "checked_sexpr", "optimized": IR JSON,
//  "optimized_sexpr", "mode", "mode_reason", "live" (the readable records
//  when scoped), "estimate" (null when scoped: the estimator's statistics
//  cover the whole collection), "allowed" (null in post mode: no
//  allowed-set is built), "selectivity" (allowed / live)}.
json::Value FilterExplain(const filter::CompiledFilter& filter, FilterMode mode,
                          std::string_view mode_reason, std::size_t live,
                          std::optional<double> estimate, std::optional<std::size_t> allowed);

// {"fetch_k", "hits", "postings_scored", "candidates", "relaxed",
//  "max_bm25", "micros"}; without `work` (scoped) postings_scored and
// candidates are null: pruning makes them depend on the whole index.
json::Value TextExplain(const TextRun& run, std::size_t fetch_k, double max_bm25, bool work);

// {"fetch_k", "hits", "metric", "quantized", "plan", "reason", "live", "allowed",
//  "selectivity", "local_selectivity" (null when neither sampled nor walked), "ef",
//  "distances", "micros"}: VectorExplain's fields. With `scoped_live` (the
// caller's readable records with vectors) "live" is that and selectivity
// is relative to it, and the plan and its work (plan, reason,
// local_selectivity, ef, distances) are null: the planner weighs the whole
// graph.
json::Value VectorExplainJson(const VectorRun& run, std::size_t fetch_k, vector::Metric metric,
                              std::optional<std::size_t> scoped_live);

}  // namespace engram::search

#endif  // ENGRAM_SEARCH_EXPLAIN_H_
