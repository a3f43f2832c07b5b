// Reciprocal Rank Fusion (Cormack, Clarke & Büttcher, "Reciprocal Rank Fusion
// outperforms Condorcet and individual rank learning methods", SIGIR 2009):
// the hybrid retriever's way of merging the text and vector lists, which
// needs no calibration between BM25 and distances because it reads only
// ranks.
#ifndef ENGRAM_SEARCH_FUSION_H_
#define ENGRAM_SEARCH_FUSION_H_

#include <cstddef>
#include <vector>

#include "search/search.h"

namespace engram::search {

// One record's fused score: sum over the lists it appears in of
// 1 / (rrf_k + rank), rank 1-based (the paper's k = 60 is the default).
// Text's term is added first, so equal rank pairs give bit-equal sums.
double RrfScore(const Hit& hit, std::size_t rrf_k);

// Merges `text` (hits with text_rank set, best first) and `vector` (hits with
// vector_rank set) into one list with score = RrfScore and every field of both
// sides kept (bm25 from text, distance from vector). Order: score descending;
// ties by the better (smaller) of the hit's ranks, then by record number
// ascending, so the order is total and the same in every run.
std::vector<Hit> FuseRrf(const std::vector<Hit>& text, const std::vector<Hit>& vector,
                         std::size_t rrf_k);

}  // namespace engram::search

#endif  // ENGRAM_SEARCH_FUSION_H_
