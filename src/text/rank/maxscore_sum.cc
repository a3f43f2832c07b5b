// MaxScore's windows summed term at a time (maxscore.h): the essential
// units' postings added into an array over a chunk of documents, then each
// document seen completed and kept, as Lucene's BooleanScorer does for
// disjunctions.
#include <algorithm>
#include <bit>

#include "text/rank/maxscore.h"

namespace engram::text {

bool MaxScore::SumWindow(std::uint32_t start, std::uint32_t end) {
  const std::size_t essential = essential_;  // fixed: acc_ holds these units' sums
  for (std::size_t i = essential; i < m_; ++i) {
    const std::size_t u = order_[i];
    UnitCursor& c = cursors_[u];
    c.Seek(start);
    // The unit's postings in the window are in its current block (Open
    // ended the window there), from at().
    window_[u] = c.doc() > end ? Range{} : Range{c.current_block(), c.at(), c.at()};
    c.Seek(end == kNoDoc - 1 ? kNoDoc : end + 1);
  }
  // In chunks of kBulkSpan documents, each from the next posting on.
  for (std::uint32_t from = start; from <= end;) {
    std::uint32_t first = kNoDoc;
    for (std::size_t i = essential; i < m_; ++i) {
      const Range& r = window_[order_[i]];
      if (r.block != nullptr && r.to < r.block->size())
        first = std::min(first, r.block->docs[r.to]);
    }
    if (first > end) break;
    from = std::max(from, first);
    const std::uint32_t to = end - from < kBulkSpan ? end : from + kBulkSpan - 1;
    Accumulate(from, to, essential);
    if (!Harvest(from, essential)) return false;
    if (to == end) break;
    from = to + 1;
  }
  return true;
}

void MaxScore::Accumulate(std::uint32_t from, std::uint32_t to, std::size_t essential) {
  const std::size_t nf = data_.num_fields();
  for (std::size_t i = essential; i < m_; ++i) {
    const std::size_t u = order_[i];
    Range& r = window_[u];
    if (r.block == nullptr) continue;
    const PostingBlock& block = *r.block;
    const double idf = plan_.units[u].idf;
    std::size_t j = r.to;
    for (; j < block.size() && block.docs[j] <= to; ++j) {
      const std::uint32_t at = block.docs[j] - from;
      acc_[at] += bm25_.Score(idf, block.tfs.data() + j * nf, block.docs[j]);
      seen_[at / 64] |= std::uint64_t{1} << (at % 64);
    }
    if (stats_) stats_->postings_scored += j - r.to;
    r.to = j;
  }
}

bool MaxScore::Harvest(std::uint32_t from, std::size_t essential) {
  const std::size_t nf = data_.num_fields();
  const double rest = essential ? prefix_[essential - 1] : 0;
  bool stopped = false;
  for (std::size_t w = 0; w < seen_.size(); ++w) {
    for (std::uint64_t bits = seen_[w]; bits != 0; bits &= bits - 1) {
      const std::size_t at = w * 64 + static_cast<std::size_t>(std::countr_zero(bits));
      const double partial = acc_[at];
      acc_[at] = 0;
      const std::uint32_t d = from + static_cast<std::uint32_t>(at);
      const double theta = top_.threshold();
      if (stopped || Prunable(partial + rest, theta)) continue;
      if (allowed_ != nullptr && !allowed_->contains(d)) continue;
      if (stats_) ++stats_->candidates;
      stopped = Stop();
      present_.clear();
      if (stopped || !Complete(d, essential, theta, partial, rest)) continue;
      // The essential units' contributions one by one, for the exact sum.
      for (std::size_t i = essential; i < m_; ++i) {
        const std::size_t u = order_[i];
        const Range& r = window_[u];
        if (r.block == nullptr) continue;
        const auto docs = r.block->docs.begin();
        const auto it = std::lower_bound(docs + static_cast<std::ptrdiff_t>(r.from),
                                         docs + static_cast<std::ptrdiff_t>(r.to), d);
        if (it == docs + static_cast<std::ptrdiff_t>(r.to) || *it != d) continue;
        const auto j = static_cast<std::size_t>(it - docs);
        contrib_[u] = bm25_.Score(plan_.units[u].idf, r.block->tfs.data() + j * nf, d);
        if (stats_) ++stats_->postings_scored;
        present_.push_back(u);
      }
      Keep(d);
    }
    seen_[w] = 0;
  }
  return !stopped;
}

}  // namespace engram::text
