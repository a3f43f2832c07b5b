// The two evaluators of a compiled plan (text/rank/plan.h) over an index:
// MaxScore dynamic pruning (Turtle & Flood, "Query evaluation: strategies and
// optimizations", IP&M 31(6), 1995; in the document-at-a-time form of
// Strohman, Turtle & Croft, SIGIR 2005) and the exhaustive oracle. Both
// return the best k among `allowed` (null: all live documents), score
// descending, ties by doc ascending. TextIndex::Search and SearchExhaustive
// (search.cc) add the bare-word relaxation on top.
#ifndef ENGRAM_TEXT_RANK_SEARCH_H_
#define ENGRAM_TEXT_RANK_SEARCH_H_

#include <cstddef>
#include <vector>

#include "text/index/text_index.h"
#include "text/rank/bm25.h"
#include "text/rank/plan.h"

namespace engram::text {

// The matching documents that contain a scoring unit, pruned: scoring units
// are ordered by score bound; the longest prefix of them whose bounds sum to
// no more than the current k-th score is "non-essential" (a document with
// only those cannot enter the top k), so candidates come from the essential
// units' postings only, and a candidate's remaining units are scored only
// while its partial score plus their bounds can still beat the threshold.
// The bounds are block-max bounds: documents go by in windows within which
// each one-term unit's postings lie in one block, bounded by that block's
// figures (TermPostings::block_max_t), the split is made per window, and a
// window whose bounds cannot beat the threshold is skipped unread. An OR of
// terms, or an AND of terms whose lists are within 4x of each other, scores
// a window term at a time into an array over its documents (as Lucene's
// BooleanScorer does), then checks each document once; other plans go
// document at a time.
// An OR of three or more terms whose lists hold at most `full_sum_postings` postings
// together (TextSearchOptions) is summed whole instead, the same way.
// When `deadline` passes, the walk stops with the best hits found so far and
// sets stats->stopped.
std::vector<TextHit> MaxScoreTopK(const IndexData& data, const Plan& plan, const Bm25& bm25,
                                  std::size_t k, const roaring::Roaring* allowed,
                                  TextSearchStats* stats, const Deadline* deadline = nullptr,
                                  std::size_t full_sum_postings = kDefaultFullSumPostings);

// MaxScoreTopK for a plan of one term (`unit`, single word) whose postings
// the allowed-set does not drive: the blocks in order, each skipped when
// its bound cannot beat the threshold, else its postings scored straight
// from its arrays. MaxScoreTopK calls it for such plans.
std::vector<TextHit> OneTermTopK(const IndexData& data, const PlanUnit& unit, const Bm25& bm25,
                                 std::size_t k, const roaring::Roaring* allowed,
                                 TextSearchStats* stats, const Deadline* deadline);

// The first k matching documents (ascending) that contain no scoring unit:
// they score 0 (`NOT urban`, the `NOT b` side of `a OR NOT b`). Stops like
// MaxScoreTopK when `deadline` passes.
std::vector<TextHit> ZeroScoreDocs(const IndexData& data, const Plan& plan, std::size_t k,
                                   const roaring::Roaring* allowed, TextSearchStats* stats,
                                   const Deadline* deadline = nullptr);

// The oracle: every unit's documents gathered from the full postings (phrases
// by a naive position scan), every allowed live document tested against the
// tree and scored, then sorted. `stats` counts every score computed.
std::vector<TextHit> ExhaustiveTopK(const IndexData& data, const Plan& plan, const Bm25& bm25,
                                    std::size_t k, const roaring::Roaring* allowed,
                                    TextSearchStats* stats);

}  // namespace engram::text

#endif  // ENGRAM_TEXT_RANK_SEARCH_H_
