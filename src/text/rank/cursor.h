// Forward-only iteration over the documents containing a plan unit (a term's
// postings, or the documents where a phrase occurs), with galloping seeks,
// for the pruned search (maxscore.cc).
#ifndef ENGRAM_TEXT_RANK_CURSOR_H_
#define ENGRAM_TEXT_RANK_CURSOR_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "text/index/index_data.h"
#include "text/rank/plan.h"

namespace engram::text {

inline constexpr std::uint32_t kNoDoc = UINT32_MAX;

class UnitCursor {
 public:
  UnitCursor(const IndexData& data, const PlanUnit& unit);

  std::uint32_t doc() const { return doc_; }  // kNoDoc when exhausted
  // Moves to the first document >= target containing the unit (never back).
  void Seek(std::uint32_t target);
  // The unit's per-field frequencies in doc() (F values).
  const std::uint32_t* tfs() const;
  // Whether the unit occurs in `doc`, seeking to it (doc >= previous targets).
  bool Has(std::uint32_t doc) {
    Seek(doc);
    return doc_ == doc;
  }

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
  };
  // Gallops word w to the first doc >= target (across blocks by their last
  // documents, then within one); false at end.
  bool SeekWord(std::size_t w, std::uint32_t target);
  // Moves a phrase cursor to the first document >= target where it occurs.
  void FindPhrase(std::uint32_t target);
  // The phrase's per-field occurrence counts at the words' current postings.
  bool CountPhrase();

  const IndexData& data_;
  std::vector<Word> words_;
  std::vector<std::uint32_t> phrase_tfs_;
  std::uint32_t doc_ = 0;
};

}  // namespace engram::text

#endif  // ENGRAM_TEXT_RANK_CURSOR_H_
