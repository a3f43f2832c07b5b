// The k best hits seen so far (score descending, ties by doc ascending), as a
// heap whose root is the worst kept hit: its score is the pruning threshold.
#ifndef ENGRAM_TEXT_RANK_TOP_K_H_
#define ENGRAM_TEXT_RANK_TOP_K_H_

#include <algorithm>
#include <cstddef>
#include <limits>
#include <vector>

#include "text/index/text_index.h"

namespace engram::text {

// The ranking order of hits: higher score first, then smaller doc.
inline bool Better(const TextHit& a, const TextHit& b) {
  return a.score > b.score || (a.score == b.score && a.doc < b.doc);
}

// Whether a document whose score is at most `bound` can be skipped when the
// k-th best score is `threshold` (documents arrive in ascending order, so a
// tie loses to the kept hit). The relative margin absorbs the rounding that
// makes a sum of bounds and a score summed in another order differ (~1e-16
// per addition), so pruning never drops a hit the oracle keeps.
inline bool Prunable(double bound, double threshold) {
  return bound * (1 + 1e-9) < threshold;
}

class TopK {
 public:
  explicit TopK(std::size_t k) : k_(k) {}
  bool full() const { return k_ > 0 && heap_.size() == k_; }
  // -inf until k hits are kept.
  double threshold() const {
    return full() ? heap_.front().score : -std::numeric_limits<double>::infinity();
  }
  void Push(TextHit hit) {
    if (k_ == 0) return;
    if (heap_.size() < k_) {
      heap_.push_back(hit);
      std::push_heap(heap_.begin(), heap_.end(), Better);
    } else if (Better(hit, heap_.front())) {
      std::pop_heap(heap_.begin(), heap_.end(), Better);
      heap_.back() = hit;
      std::push_heap(heap_.begin(), heap_.end(), Better);
    }
  }
  std::vector<TextHit> Take() {
    std::sort(heap_.begin(), heap_.end(), Better);
    return std::move(heap_);
  }

 private:
  std::size_t k_;
  std::vector<TextHit> heap_;  // std heap ordered by Better: front is the worst
};

// `a` and `b` merged in ranking order, truncated to k.
inline std::vector<TextHit> MergeHits(std::vector<TextHit> a, const std::vector<TextHit>& b,
                                      std::size_t k) {
  a.insert(a.end(), b.begin(), b.end());
  std::sort(a.begin(), a.end(), Better);
  if (a.size() > k) a.resize(k);
  return a;
}

}  // namespace engram::text

#endif  // ENGRAM_TEXT_RANK_TOP_K_H_
