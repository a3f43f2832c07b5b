// MaxScore's windows summed term at a time (maxscore.h): the essential
// units' postings added into an array over a chunk of documents, then each
// document seen completed and kept, as Lucene's BooleanScorer does for
// disjunctions.
#include <algorithm>
#include <bit>

#include "text/rank/maxscore.h"

namespace engram::text {

void MaxScore::FullSum() {
  // order_ is still in plan order: Open sorts it, and FullSum opens no window.
  const std::size_t nf = data_.num_fields();
  struct At {
    const TermPostings* postings;
    std::size_t block = 0, i = 0;
  };
  std::vector<At> at;
  at.reserve(m_);
  for (std::size_t u : order_) at.push_back(At{&data_.postings[plan_.units[u].words[0]]});
  while (!Stop()) {
    std::uint32_t from = kNoDoc;
    for (const At& a : at) {
      if (a.block < a.postings->blocks.size()) {
        from = std::min(from, a.postings->blocks[a.block].docs[a.i]);
      }
    }
    if (from == kNoDoc) return;
    const std::uint32_t to = kNoDoc - from <= kBulkSpan ? kNoDoc - 1 : from + kBulkSpan - 1;
    for (std::size_t j = 0; j < m_; ++j) {
      const double idf = plan_.units[order_[j]].idf;
      At& a = at[j];
      for (; a.block < a.postings->blocks.size(); ++a.block, a.i = 0) {
        const PostingBlock& block = a.postings->blocks[a.block];
        const std::size_t begin = a.i;
        for (; a.i < block.size() && block.docs[a.i] <= to; ++a.i) {
          const std::uint32_t d = block.docs[a.i];
          acc_[d - from] += bm25_.Score(idf, block.tfs.data() + a.i * nf, d);
          seen_[(d - from) / 64] |= std::uint64_t{1} << ((d - from) % 64);
        }
        if (stats_) stats_->postings_scored += a.i - begin;
        if (a.i < block.size()) break;  // the next posting is past the chunk
      }
    }
    for (std::size_t w = 0; w < seen_.size(); ++w) {
      for (std::uint64_t bits = seen_[w]; bits != 0; bits &= bits - 1) {
        const std::size_t i = w * 64 + static_cast<std::size_t>(std::countr_zero(bits));
        const std::uint32_t d = from + static_cast<std::uint32_t>(i);
        const double score = acc_[i];
        acc_[i] = 0;
        if (allowed_ != nullptr && !allowed_->contains(d)) continue;
        if (stats_) ++stats_->candidates;
        top_.Push(TextHit{d, score});
      }
      seen_[w] = 0;
    }
    if (to == kNoDoc - 1) return;
  }
}

bool MaxScore::SumWindow(std::uint32_t start, std::uint32_t end) {
  // Fixed for the window: acc_ holds these units' sums. An AND sums every
  // unit and keeps the documents that have them all.
  const std::size_t essential = conjunction_ ? 0 : essential_;
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
    std::size_t j = r.to;
    if (conjunction_) {  // counted only: Harvest scores the documents that have every unit
      for (; j < block.size() && block.docs[j] <= to; ++j) {
        const std::uint32_t at = block.docs[j] - from;
        seen_[at / 64] |= std::uint64_t{1} << (at % 64);
        ++count_[at];
      }
    } else {
      const double idf = plan_.units[u].idf;
      for (; j < block.size() && block.docs[j] <= to; ++j) {
        const std::uint32_t at = block.docs[j] - from;
        acc_[at] += bm25_.Score(idf, block.tfs.data() + j * nf, block.docs[j]);
        seen_[at / 64] |= std::uint64_t{1} << (at % 64);
      }
      if (stats_) stats_->postings_scored += j - r.to;
    }
    r.to = j;
  }
}

bool MaxScore::Contribute(std::size_t u, std::uint32_t d) {
  Range& r = window_[u];
  if (r.block == nullptr) return false;
  const std::vector<std::uint32_t>& docs = r.block->docs;
  while (r.scan < r.to && docs[r.scan] < d) ++r.scan;  // d only grows
  if (r.scan == r.to || docs[r.scan] != d) return false;
  if (stats_) ++stats_->postings_scored;
  contrib_[u] =
      bm25_.Score(plan_.units[u].idf, r.block->tfs.data() + r.scan * data_.num_fields(), d);
  present_.push_back(u);
  return true;
}

bool MaxScore::Harvest(std::uint32_t from, std::size_t essential) {
  // What a document may add to its partial sum: the units not summed (an
  // OR's non-essential ones; an AND sums none, so its bound is every unit's).
  const double rest = conjunction_ ? prefix_[m_ - 1] : essential ? prefix_[essential - 1] : 0;
  bool stopped = false;
  for (std::size_t w = 0; w < seen_.size(); ++w) {
    for (std::uint64_t bits = seen_[w]; bits != 0; bits &= bits - 1) {
      const std::size_t at = w * 64 + static_cast<std::size_t>(std::countr_zero(bits));
      const std::uint32_t d = from + static_cast<std::uint32_t>(at);
      double partial = 0;
      if (conjunction_) {
        const bool all = count_[at] == m_;
        count_[at] = 0;
        if (!all) continue;
      } else {
        partial = acc_[at];
        acc_[at] = 0;
      }
      const double theta = top_.threshold();
      if (stopped || Prunable(partial + rest, theta)) continue;
      if (allowed_ != nullptr && !allowed_->contains(d)) continue;
      if (stats_) ++stats_->candidates;
      stopped = Stop();
      present_.clear();
      if (stopped) continue;
      if (conjunction_) {
        // Every unit is at d: its contributions, largest bound first, while
        // d can still beat the threshold.
        double remaining = rest;
        bool pruned = false;
        for (std::size_t i = m_; i-- > 0 && !pruned;) {
          pruned = Prunable(partial + remaining, theta);
          remaining -= bound_[order_[i]];
          if (!pruned && Contribute(order_[i], d)) partial += contrib_[order_[i]];
        }
        if (pruned || Prunable(partial, theta)) continue;
      } else {
        if (!Complete(d, essential, theta, partial, rest)) continue;
        // The essential units' contributions one by one, for the exact sum.
        for (std::size_t i = essential; i < m_; ++i) Contribute(order_[i], d);
      }
      Keep(d);
    }
    seen_[w] = 0;
  }
  return !stopped;
}

}  // namespace engram::text
