#include "text/rank/cursor.h"

#include <algorithm>

namespace engram::text {

UnitCursor::UnitCursor(const IndexData& data, const PlanUnit& unit)
    : data_(data), tfs_(data.num_fields(), 0), any_(unit.any) {
  for (std::uint32_t w : unit.words) {
    words_.push_back(Word{&data.postings[w]});
    words_.back().Enter(0);
  }
  if (any_) {
    for (std::uint32_t w = 0; w < words_.size(); ++w) {
      if (words_[w].current != nullptr) heap_.push_back(w);
    }
    for (std::size_t i = heap_.size() / 2; i-- > 0;) SiftDown(i);
    doc_ = heap_.empty() ? kNoDoc : WordDoc(heap_[0]);
    return;
  }
  for (const Word& w : words_) {
    if (w.current == nullptr) {
      doc_ = kNoDoc;
      return;
    }
  }
  if (words_.size() == 1) {
    doc_ = words_[0].doc();
  } else {
    FindPhrase(0);
  }
}

bool UnitCursor::SeekWord(std::size_t w, std::uint32_t target) {
  Word& word = words_[w];
  if (word.current == nullptr) return false;
  const std::vector<std::uint32_t>* docs = &word.current->docs;
  if ((*docs)[word.i] >= target) return true;
  if (docs->back() < target) {
    // Over the blocks by their last documents, to the first whose last is
    // >= target.
    word.Enter(Gallop(word.postings->lasts, word.block, target));
    if (word.current == nullptr) return false;
    docs = &word.current->docs;
    if ((*docs)[0] >= target) return true;
  }
  // Within the block (its last is >= target).
  word.i = Gallop(*docs, word.i, target);
  return true;
}

bool UnitCursor::ShallowSeek(std::uint32_t target, Block* block) {
  const std::vector<std::uint32_t>& lasts = words_[0].postings->lasts;
  // Galloping from the block found last (or the cursor's, if further).
  std::size_t lo = std::max(shallow_, words_[0].block);
  if (lo >= lasts.size()) return false;
  if (lo == shallow_block_.index && lasts[lo] >= target) {
    *block = shallow_block_;
    return true;
  }
  lo = Gallop(lasts, lo, target);
  shallow_ = lo;
  if (lo == lasts.size()) return false;
  shallow_block_ = Block{lo, words_[0].postings->blocks[lo].docs.front(), lasts[lo]};
  *block = shallow_block_;
  return true;
}

void UnitCursor::SiftDown(std::size_t i) {
  const std::size_t n = heap_.size();
  const std::uint32_t w = heap_[i];
  const std::uint32_t d = WordDoc(w);
  while (true) {
    std::size_t child = 2 * i + 1;
    if (child >= n) break;
    if (child + 1 < n && WordDoc(heap_[child + 1]) < WordDoc(heap_[child])) ++child;
    if (WordDoc(heap_[child]) >= d) break;
    heap_[i] = heap_[child];
    i = child;
  }
  heap_[i] = w;
}

void UnitCursor::SeekAhead(std::uint32_t target) {
  if (any_) {
    // Move every word behind target forward, the smallest first; a word
    // that runs out leaves the heap.
    while (!heap_.empty() && WordDoc(heap_[0]) < target) {
      if (!SeekWord(heap_[0], target)) {
        heap_[0] = heap_.back();
        heap_.pop_back();
        if (heap_.empty()) break;
      }
      SiftDown(0);
    }
    doc_ = heap_.empty() ? kNoDoc : WordDoc(heap_[0]);
    return;
  }
  if (words_.size() > 1) return FindPhrase(target);
  doc_ = SeekWord(0, target) ? words_[0].doc() : kNoDoc;
}

void UnitCursor::FindPhrase(std::uint32_t target) {
  // Leapfrog the words to a common document, then check positions.
  while (true) {
    bool aligned = true;
    for (std::size_t w = 0; w < words_.size() && aligned; ++w) {
      if (!SeekWord(w, target)) {
        doc_ = kNoDoc;
        return;
      }
      std::uint32_t d = words_[w].doc();
      if (d != target) {
        target = d;
        aligned = false;
      }
    }
    if (!aligned) continue;
    if (CountPhrase()) {
      doc_ = target;
      return;
    }
    if (target == kNoDoc - 1) {
      doc_ = kNoDoc;
      return;
    }
    ++target;
  }
}

bool UnitCursor::CountPhrase() {
  const std::size_t nf = data_.num_fields();
  bool any = false;
  for (std::size_t f = 0; f < nf; ++f) {
    std::size_t n0;
    const std::uint32_t* p0 = words_[0].current->field_positions(words_[0].i, f, nf, &n0);
    std::uint32_t count = 0;
    for (std::size_t s = 0; s < n0; ++s) {
      bool ok = true;
      for (std::size_t w = 1; w < words_.size() && ok; ++w) {
        std::size_t n;
        const std::uint32_t* p = words_[w].current->field_positions(words_[w].i, f, nf, &n);
        ok = std::binary_search(p, p + n, p0[s] + static_cast<std::uint32_t>(w));
      }
      if (ok) ++count;
    }
    tfs_[f] = count;
    any = any || count > 0;
  }
  return any;
}

void UnitCursor::SumTfs(std::size_t i) {
  if (i >= heap_.size()) return;
  const std::uint32_t w = heap_[i];
  if (WordDoc(w) != doc_) return;  // the heap order: nothing below is at doc_ either
  const std::size_t nf = data_.num_fields();
  const std::uint32_t* t = words_[w].tfs(nf);
  for (std::size_t f = 0; f < nf; ++f) tfs_[f] += t[f];
  SumTfs(2 * i + 1);
  SumTfs(2 * i + 2);
}

const std::uint32_t* UnitCursor::SumPrefixTfs() {
  std::fill(tfs_.begin(), tfs_.end(), 0);
  SumTfs(0);
  return tfs_.data();
}

}  // namespace engram::text
