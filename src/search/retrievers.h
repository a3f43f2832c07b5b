// The two retrievers of the search pipeline: each returns its best n records
// among an allowed-set (nullptr: every live record) as Hits ranked 1..n, and
// what it did, for explain. Hybrid runs both and fuses (fusion.h).
#ifndef ENGRAM_SEARCH_RETRIEVERS_H_
#define ENGRAM_SEARCH_RETRIEVERS_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "base/roaring.h"
#include "engram/status.h"
#include "filter/compiler.h"
#include "index/metadata_index.h"
#include "search/search.h"
#include "text/index/text_index.h"
#include "text/query/ast.h"
#include "vector/vector_index.h"

namespace engram::search {

struct TextRun {
  std::vector<Hit> hits;  // score = bm25 = BM25F; text_rank set
  text::TextSearchStats stats;
  std::int64_t micros = 0;
};

// TextIndex::Search: BM25F with MaxScore among `allowed`; bare-word queries
// relaxed as the index does (strict matches first).
TextRun RetrieveText(const text::TextIndex& index, const text::DefaultQuery& query, std::size_t n,
                     const roaring::Roaring* allowed, const text::TextSearchOptions& options = {});

struct VectorRun {
  std::vector<Hit> hits;  // distance = ReportedDistance; score = VectorSimilarity; vector_rank set
  vector::VectorExplain explain;
  std::int64_t micros = 0;
};

// VectorIndex::Search with the planner (or `options.plan`) among `allowed`.
// InvalidArgument, with "vector: " before the index's message, for a query
// the store rejects (non-finite, zero under cosine).
StatusOr<VectorRun> RetrieveVector(const vector::VectorIndex& index, vector::Metric metric,
                                   std::span<const float> query,
                                   const vector::VectorSearchOptions& options,
                                   const roaring::Roaring* allowed);

// Post-filtering: keeps, in order, the hits whose record has a live metadata
// row that passes `filter`, and renumbers their text_rank (text = true) or
// vector_rank from 1.
void KeepPassing(const index::MetadataIndex& metadata, const filter::CompiledFilter& filter,
                 bool text, std::vector<Hit>* hits);

// The BM25F of each of `docs` that matches `query` (relaxed like Search for
// bare words): one TextIndex::Search restricted to them. Records that do not
// match are absent.
std::unordered_map<std::uint32_t, double> ScoreText(const text::TextIndex& index,
                                                    const text::DefaultQuery& query,
                                                    std::span<const std::uint32_t> docs,
                                                    const text::TextSearchOptions& options = {});

}  // namespace engram::search

#endif  // ENGRAM_SEARCH_RETRIEVERS_H_
