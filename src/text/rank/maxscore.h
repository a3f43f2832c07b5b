// The pruned search of search.h (MaxScoreTopK) as a class, for the files
// that implement it: maxscore.cc (windows, document at a time) and
// maxscore_sum.cc (windows summed term at a time). Internal to text/rank.
#ifndef ENGRAM_TEXT_RANK_MAXSCORE_H_
#define ENGRAM_TEXT_RANK_MAXSCORE_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/deadline.h"
#include "base/roaring.h"
#include "text/index/index_data.h"
#include "text/rank/bm25.h"
#include "text/rank/cursor.h"
#include "text/rank/plan.h"
#include "text/rank/top_k.h"

namespace engram::text {

// One search. The documents go by in windows [start, end] that end where
// the first block of a one-term unit ends, so that within a window each
// such unit's postings lie in one block, whose figure bounds the unit there
// (bound_, 0 when the block starts past the window); other units keep their
// list-wide bound. The units are ordered by these window bounds and split
// into non-essential (order_[0..essential_), whose bounds sum to no more
// than the threshold) and essential ones; a window where every unit is
// non-essential is skipped whole.
class MaxScore {
 public:
  MaxScore(const IndexData& data, const Plan& plan, const Bm25& bm25, std::size_t k,
           const roaring::Roaring* allowed, TextSearchStats* stats, const Deadline* deadline,
           std::size_t full_sum_postings);
  std::vector<TextHit> Run();

 private:
  // SumWindow sums a window in chunks of this many documents (acc_'s size).
  static constexpr std::uint32_t kBulkSpan = 2048;
  // An AND is summed when its longest list is at most this many times its
  // shortest.
  static constexpr std::size_t kBalanced = 4;
  // FullSum takes ORs of at least this many terms. With two lists, once k
  // hits are kept the pruning skips most of the longer one (on the Debian
  // queries, all of two terms, summing them whole was 4-7 % slower at p50).
  static constexpr std::size_t kFullSumUnits = 3;

  bool Stop();
  // Whether the documents go by in block-max windows; else in one window
  // with each unit's list-wide bound: where the allowed-set drives, the walk
  // visits only allowed documents, a window holds one or two of them, and
  // opening it (a seek and a sort of the units) costs more than it prunes.
  bool windows() const { return ok_docs_.empty(); }
  // Moves d forward to the first document >= d that holds every required
  // unit and is allowed (when the allowed-set drives); false when there is
  // none. The documents skipped cannot match.
  bool Align(std::uint32_t& d);
  // Computes the window that starts at `start` (*end), its bounds, order
  // and split; false when it can hold no hit.
  bool Open(std::uint32_t start, std::uint32_t* end);
  double BlockBound(std::size_t u, std::size_t block);
  // Document at a time: candidates from the essential cursors. False when
  // the walk is over (no more matches, or the deadline).
  bool WalkWindow(std::uint32_t start, std::uint32_t end);
  // Term at a time (an OR of terms whose essential units are all single()):
  // their postings in the window summed into acc_, then each document seen
  // completed with the non-essential units. False at the deadline.
  bool SumWindow(std::uint32_t start, std::uint32_t end);
  // An OR of kFullSumUnits or more terms (bulk_, not conjunction_) with at
  // most full_sum_postings postings:
  // every posting added into acc_ a chunk of kBulkSpan documents at a time,
  // the units in plan order (so each sum is the oracle's, term by term), and
  // each document seen pushed. No bounds, no seeks. Stops at the deadline.
  void FullSum();
  // Adds the essential units' postings in [from, to] (at most kBulkSpan
  // documents) to acc_ and seen_.
  void Accumulate(std::uint32_t from, std::uint32_t to, std::size_t essential);
  // Takes each document seen from acc_ (clearing it), completes it with the
  // non-essential units and keeps it when it can enter. False at the
  // deadline.
  bool Harvest(std::uint32_t from, std::size_t essential);
  // Whether unit u (summed in this window) is at d, scanning its range
  // forward (the documents asked only grow); if so its contribution goes to
  // contrib_ and u to present_.
  bool Contribute(std::size_t u, std::uint32_t d);
  // Scores the non-essential units present at d, largest bound first, while
  // d can still beat theta (partial: the score so far); false when it
  // cannot. Adds the units scored to present_.
  bool Complete(std::uint32_t d, std::size_t essential, double theta, double partial,
                double remaining);
  // Pushes d with the contributions of present_ summed in unit order,
  // exactly as the oracle sums them.
  void Keep(std::uint32_t d);
  double ScoreAt(std::size_t u, std::uint32_t d) {
    if (stats_) ++stats_->postings_scored;
    return bm25_.Score(plan_.units[u].idf, cursors_[u].tfs(), d);
  }

  const IndexData& data_;
  const Plan& plan_;
  const Bm25& bm25_;
  const roaring::Roaring* allowed_;
  TextSearchStats* stats_;
  DeadlinePoll poll_;
  TopK top_;
  std::vector<UnitCursor> cursors_;
  std::vector<std::size_t> order_;  // the scoring units, by window bound ascending
  std::size_t m_ = 0;               // order_.size()
  std::size_t essential_ = 0;
  std::vector<double> bound_, prefix_;  // prefix_[i]: the bounds of order_[0..i]
  std::vector<std::size_t> required_;   // single-unit leaves of a top-level AND
  bool always_ = false;                 // every candidate matches (Matches need not be asked)
  bool bulk_ = false;                   // windows may be summed term at a time
  bool conjunction_ = false;            // bulk_ over an AND of terms: a match holds every unit
  bool full_sum_ = false;               // FullSum answers
  std::vector<std::uint32_t> ok_docs_;  // the allowed-set, when it drives
  std::size_t ok_at_ = 0;
  std::vector<UnitCursor::Block> blocks_;  // a single() unit's block in the window
  std::vector<char> has_block_;
  std::vector<std::size_t> cached_;  // the block whose bound cached_bound_ holds
  std::vector<double> cached_bound_, contrib_;
  std::vector<std::size_t> present_;
  // SumWindow: a chunk's partial scores (an OR's), which documents have
  // one, how many units each has (an AND's); and where each summed unit's
  // postings in the window are: block->docs [scan, to) are those summed so
  // far and not yet passed by Contribute.
  std::vector<double> acc_;
  std::vector<std::uint64_t> seen_;
  std::vector<std::uint32_t> count_;
  struct Range {
    const PostingBlock* block = nullptr;
    std::size_t scan = 0, to = 0;
  };
  std::vector<Range> window_;
};

}  // namespace engram::text

#endif  // ENGRAM_TEXT_RANK_MAXSCORE_H_
