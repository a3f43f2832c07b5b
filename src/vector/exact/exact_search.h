// The exact k nearest neighbours among an allowed-set: the recall oracle for
// the HNSW graph, and the plan the planner picks for selective filters
// (SEARCH.md §2). Visits only the allowed records, so its cost is
// proportional to the allowed-set's size, not the collection's.
#ifndef ENGRAM_VECTOR_EXACT_EXACT_SEARCH_H_
#define ENGRAM_VECTOR_EXACT_EXACT_SEARCH_H_

#include <cstddef>
#include <vector>

#include "base/deadline.h"
#include "base/roaring.h"
#include "vector/doc_filter.h"
#include "vector/neighbor.h"
#include "vector/vector_store.h"

namespace engram::vector {

// The best k live records of `store` among `allowed` (nullptr: all live
// records) that `by_doc` passes (nullptr: all), nearest first in Neighbor
// order. `query` is prepared (VectorStore::PrepareQuery). Records in
// `allowed` that are not live are skipped. When `deadline` passes the scan
// stops with the best of what it read (the caller reports the deadline).
// `measured` (optional) gets the number of distances computed.
std::vector<Neighbor> ExactSearch(const VectorStore& store, const float* query, std::size_t k,
                                  const roaring::Roaring* allowed = nullptr,
                                  const Deadline* deadline = nullptr,
                                  const DocFilter* by_doc = nullptr,
                                  std::size_t* measured = nullptr);

// The same scan over the store's 8-bit copy (VectorStore::codes(), which
// must be enabled): a quarter of the bytes per record. The best `rerank`
// times k by the codes' distances are measured again with the floats, and
// the best k of those returned with their float distances: exact unless a
// record of the true k ranks past rerank * k by its codes.
std::vector<Neighbor> CodedSearch(const VectorStore& store, const float* query, std::size_t k,
                                  std::size_t rerank, const roaring::Roaring* allowed = nullptr,
                                  const Deadline* deadline = nullptr,
                                  const DocFilter* by_doc = nullptr,
                                  std::size_t* measured = nullptr);

}  // namespace engram::vector

#endif  // ENGRAM_VECTOR_EXACT_EXACT_SEARCH_H_
