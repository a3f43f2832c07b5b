// Forward-only iteration over the documents containing a plan unit (a term's
// postings, the documents where a phrase occurs, or the union of a prefix's
// terms' postings), with galloping seeks, for the pruned search (maxscore.cc).
#ifndef ENGRAM_TEXT_RANK_CURSOR_H_
#define ENGRAM_TEXT_RANK_CURSOR_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "text/index/index_data.h"
#include "text/rank/plan.h"

namespace engram::text {

inline constexpr std::uint32_t kNoDoc = UINT32_MAX;

// The first index i >= from of ascending `v` with v[i] >= target (v.size()
// when none): galloping from `from`, then a binary search, so a short step
// costs O(log step).
inline std::size_t Gallop(const std::vector<std::uint32_t>& v, std::size_t from,
                          std::uint32_t target) {
  std::size_t lo = from, hi = from, step = 1;
  while (hi < v.size() && v[hi] < target) {
    lo = hi + 1;
    hi += step;
    step *= 2;
  }
  hi = std::min(hi, v.size());
  return static_cast<std::size_t>(std::lower_bound(v.begin() + static_cast<std::ptrdiff_t>(lo),
                                                   v.begin() + static_cast<std::ptrdiff_t>(hi),
                                                   target) -
                                  v.begin());
}

class UnitCursor {
 public:
  UnitCursor(const IndexData& data, const PlanUnit& unit);

  std::uint32_t doc() const { return doc_; }  // kNoDoc when exhausted
  // Moves to the first document >= target containing the unit (never back).
  void Seek(std::uint32_t target) {
    if (doc_ < target) SeekAhead(target);  // kNoDoc is never below
  }
  // Seek(doc() + 1), with a shortcut for a one-term unit.
  void Next() {
    if (doc_ == kNoDoc) return;
    if (!single()) return Seek(doc_ + 1);
    Word& w = words_[0];
    if (++w.i == w.current->size()) w.Enter(w.block + 1);
    doc_ = w.current != nullptr ? w.doc() : kNoDoc;
  }
  // The unit's per-field frequencies in doc() (F values); valid until the
  // next call.
  const std::uint32_t* tfs() {
    if (any_) return SumPrefixTfs();
    if (words_.size() > 1) return tfs_.data();
    return words_[0].tfs(data_.num_fields());
  }
  // Whether the unit occurs in `doc`, seeking to it (doc >= previous targets).
  bool Has(std::uint32_t doc) {
    Seek(doc);
    return doc_ == doc;
  }

  // Block-max pruning. A unit of one term (single()) has per-block bounds
  // (TermPostings::block_max_t); phrases and prefixes have only the unit's.
  bool single() const { return words_.size() == 1 && !any_; }
  // The block of a single() unit that holds its first posting >= target,
  // found without moving the cursor (targets never decrease): its index and
  // its first and last documents; false when no posting is >= target.
  struct Block {
    std::size_t index = 0;
    std::uint32_t first = 0, last = 0;
  };
  bool ShallowSeek(std::uint32_t target, Block* block);
  // A single() unit's current block and where doc() is in it, so that a
  // window's postings can be read straight from the block; null at the end.
  const PostingBlock* current_block() const { return words_[0].current; }
  std::size_t at() const { return words_[0].i; }

 private:
  // One word's place in its postings, with the current block's arrays at
  // hand (the hot path reads them without going through the block list).
  struct Word {
    const TermPostings* postings;
    std::size_t block = 0;
    std::size_t i = 0;
    const PostingBlock* current = nullptr;  // blocks[block], null at the end
    void Enter(std::size_t b) {
      block = b;
      i = 0;
      current = b < postings->blocks.size() ? &postings->blocks[b] : nullptr;
    }
    std::uint32_t doc() const { return current->docs[i]; }
    const std::uint32_t* tfs(std::size_t nf) const { return current->tfs.data() + i * nf; }
  };
  // Seek, for a target past doc().
  void SeekAhead(std::uint32_t target);
  // tfs() of a prefix: the sums over its words at doc().
  const std::uint32_t* SumPrefixTfs();
  // Gallops word w to the first doc >= target (across blocks by their last
  // documents, then within one); false at end.
  bool SeekWord(std::size_t w, std::uint32_t target);
  // Moves a phrase cursor to the first document >= target where it occurs.
  void FindPhrase(std::uint32_t target);
  // The phrase's per-field occurrence counts at the words' current postings.
  bool CountPhrase();
  // A prefix's union: the document word w is at (kNoDoc past its end).
  std::uint32_t WordDoc(std::uint32_t w) const {
    return words_[w].current != nullptr ? words_[w].doc() : kNoDoc;
  }
  // Restores the heap order below heap_[i] after its word moved forward.
  void SiftDown(std::size_t i);
  // Adds the tfs of the words at doc_ in the heap's subtree at i to tfs_.
  void SumTfs(std::size_t i);

  const IndexData& data_;
  std::vector<Word> words_;
  std::vector<std::uint32_t> tfs_;  // a phrase's occurrence counts, or a prefix's tf sums
  // A prefix (PlanUnit::any): its words by current document, a binary
  // min-heap, so a seek costs O(log words) per posting passed; else empty.
  bool any_ = false;
  std::vector<std::uint32_t> heap_;
  std::size_t shallow_ = 0;              // ShallowSeek's block
  Block shallow_block_{SIZE_MAX, 0, 0};  // and what it found there
  std::uint32_t doc_ = 0;
};

}  // namespace engram::text

#endif  // ENGRAM_TEXT_RANK_CURSOR_H_
