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
  // Gallops word w's position to the first doc >= target (across blocks,
  // then within one); false at end.
  bool SeekWord(std::size_t w, std::uint32_t target);
  std::uint32_t WordDoc(std::size_t w) const { return words_[w]->doc(at_[w]); }
  // Moves a phrase cursor to the first document >= target where it occurs.
  void FindPhrase(std::uint32_t target);
  // The phrase's per-field occurrence counts at the words' current postings.
  bool CountPhrase();

  const IndexData& data_;
  std::vector<const TermPostings*> words_;
  std::vector<PostingAt> at_;  // per word: its current posting
  std::vector<std::uint32_t> phrase_tfs_;
  std::uint32_t doc_ = 0;
};

}  // namespace engram::text

#endif  // ENGRAM_TEXT_RANK_CURSOR_H_
