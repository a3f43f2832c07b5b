// The pieces of a search's `explain` (SEARCH.md §2, README.md "explain"): the
// parsed query, the checked and optimised filter with the plan's
// cardinalities, each retriever's plan and counts, and a stopwatch for the
// per-stage timings. search.cc assembles them.
#ifndef ENGRAM_SEARCH_EXPLAIN_H_
#define ENGRAM_SEARCH_EXPLAIN_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
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

// {"checked": IR JSON, "checked_sexpr", "optimized": IR JSON,
//  "optimized_sexpr", "mode", "mode_reason", "live", "estimate", "allowed"
//  (null in post mode: no allowed-set is built), "selectivity"}.
json::Value FilterExplain(const filter::CompiledFilter& filter, FilterMode mode,
                          std::string_view mode_reason, std::size_t live, double estimate,
                          std::optional<std::size_t> allowed);

// {"fetch_k", "hits", "postings_scored", "candidates", "relaxed",
//  "max_bm25", "micros"}.
json::Value TextExplain(const TextRun& run, std::size_t fetch_k, double max_bm25);

// {"fetch_k", "hits", "metric", "plan", "reason", "live", "allowed",
//  "selectivity", "local_selectivity" (null when neither sampled nor walked), "ef",
//  "distances", "micros"}: VectorExplain's fields.
json::Value VectorExplainJson(const VectorRun& run, std::size_t fetch_k, vector::Metric metric);

}  // namespace engram::search

#endif  // ENGRAM_SEARCH_EXPLAIN_H_
