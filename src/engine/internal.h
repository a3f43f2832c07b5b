// What the engine's implementation files share and front-ends never see:
// the mapping of public enums and fusions to the internal ones, the query
// anchor, and the first k records of a set in an order (listings).
#ifndef ENGRAM_ENGINE_INTERNAL_H_
#define ENGRAM_ENGINE_INTERNAL_H_

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "base/deadline.h"
#include "base/roaring.h"
#include "engram/diagnostic.h"
#include "engram/engine.h"
#include "engram/filter.h"
#include "filter/dialects/dialect.h"
#include "search/search.h"
#include "text/query/query.h"

namespace engram {

filter::Dialect ToInternal(FilterDialect dialect);

// The search pipeline's fusion for `spec`; InvalidArgument as ParseFusion
// words it ("fusion: alpha: ...").
StatusOr<search::Fusion> ToInternal(const FusionSpec& spec);
// The fusion a search of the collection `spec` uses unless it names one:
// spec.fusion, else DefaultEmbedderFusion() with an embedder, else RRF k = 60.
search::Fusion DefaultFusion(const CollectionSpec& spec);

// Sets options->anchor from `anchor` (YYYY-MM-DD; empty leaves it unset, so
// today). A Diagnostic "query.invalid_anchor" at `path` when it is not a date.
std::optional<Diagnostic> SetQueryAnchor(std::string_view anchor, std::string_view path,
                                         text::QueryOptions* options);

// The first `k` records of `docs` that `keep` accepts, in the strict total
// order `before`, sorted: one pass with a heap of k whose top is the last
// kept. Stops early when `deadline` passes (the caller checks it).
template <typename Before, typename Keep>
std::vector<std::uint32_t> FirstK(const roaring::Roaring& docs, std::size_t k, Before before,
                                  Keep keep, const Deadline& deadline) {
  std::vector<std::uint32_t> out;
  out.reserve(std::min<std::uint64_t>(k, docs.cardinality()));
  DeadlinePoll poll(&deadline);
  for (const std::uint32_t doc : docs) {
    if (poll.Passed()) break;
    if (!keep(doc)) continue;
    if (out.size() < k) {
      out.push_back(doc);
      std::push_heap(out.begin(), out.end(), before);
    } else if (before(doc, out.front())) {
      std::pop_heap(out.begin(), out.end(), before);
      out.back() = doc;
      std::push_heap(out.begin(), out.end(), before);
    }
  }
  std::sort_heap(out.begin(), out.end(), before);
  return out;
}

}  // namespace engram

#endif  // ENGRAM_ENGINE_INTERNAL_H_
