// A search request checked, and what it runs: which retrievers, how the
// filter is applied (and why), the metric (search.cc runs the plan).
#ifndef ENGRAM_SEARCH_PLAN_H_
#define ENGRAM_SEARCH_PLAN_H_

#include <string>
#include <string_view>

#include "engram/status.h"
#include "search/search.h"

namespace engram::search {

// Which retrievers run and how the filter is applied.
struct Plan {
  bool text = false;
  bool vector = false;
  std::string fallback;  // hybrid with one input: which retriever runs alone
  vector::Metric metric = vector::Metric::kCosine;
  FilterMode filter_mode = FilterMode::kPre;
  std::string_view filter_mode_reason;
};

// Checks `r` against the collection (k and candidate_k within their
// bounds, the mode's query or vector, one the collection can search, the
// thresholds, decay and boost fields, fusion) and fills *plan;
// InvalidArgument naming the field otherwise.
Status PlanSearch(const CollectionView& c, const Request& r, Plan* plan);

}  // namespace engram::search

#endif  // ENGRAM_SEARCH_PLAN_H_
