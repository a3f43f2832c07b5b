// engram's in-memory full-text index: an inverted index over one or more
// weighted text fields (positions kept for phrases, a sorted term dictionary
// for prefixes, optional Snowball stemming), with BM25F ranking and top-k
// search under an allowed-set (SEARCH.md §2). The storage is
// index/index_data.h, the ranking and
// the query evaluation are in text/rank/.
#ifndef ENGRAM_TEXT_INDEX_TEXT_INDEX_H_
#define ENGRAM_TEXT_INDEX_TEXT_INDEX_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/deadline.h"
#include "base/roaring.h"
#include "engram/status.h"
#include "text/index/index_data.h"
#include "text/index/options.h"
#include "text/query/ast.h"

namespace engram::text {

struct TextHit {
  std::uint32_t doc;
  double score;
};  // best first; ties by doc ascending

struct TextSearchStats {
  std::size_t postings_scored = 0;  // postings whose BM25 contribution was computed
  std::size_t candidates = 0;       // documents considered (passed the allowed-set check)
  bool relaxed = false;             // a bare-word query was filled with partial matches
  bool stopped = false;             // the deadline passed: the hits are incomplete
};

// The default cap on the dictionary words a query's prefixes may expand to,
// all prefixes together (Lucene's and Elasticsearch's default bound on the
// clauses a query may rewrite to is 1024, `max_clause_count`).
inline constexpr std::size_t kDefaultMaxExpansions = 1024;

// The default of TextSearchOptions::full_sum_postings.
inline constexpr std::size_t kDefaultFullSumPostings = 4096;

struct TextSearchOptions {
  // Search expands no more dictionary words than this for the query's
  // prefixes; a query whose prefixes match more is the caller's to refuse
  // first (CheckExpansions in text/rank/plan.h; search::Search does, with
  // kDefaultMaxExpansions unless told otherwise), else its last prefixes are
  // cut short. The default expands every match.
  std::size_t max_expansions = SIZE_MAX - 1;
  // When it passes, the walk stops and returns the hits found so far with
  // stats->stopped set; the caller reports the deadline.
  const Deadline* deadline = nullptr;
  // An OR of three or more plain terms whose posting lists hold at most this many
  // postings together is answered by summing every posting, term by term,
  // with no block bounds and no seeks: at that size opening the pruning's
  // windows costs more than reading every posting. The hits are the same
  // either way; 0 always prunes (the differential tests run both).
  std::size_t full_sum_postings = kDefaultFullSumPostings;
};

class TextIndex;

// What an index's image is made of (its options, live documents and their
// lengths, terms and postings, surface words), copied by TextIndex::Freeze
// so that the image can be serialised after the caller's lock is released:
// a checkpoint holds the lock for these flat copies only, not for the
// varint encoding of every posting (three to five times as long at 1M records).
class FrozenTextIndex {
 public:
  // The image TextIndex::Serialize would have returned at the Freeze.
  std::string Serialize() const;

 private:
  friend class TextIndex;
  FrozenTextIndex() = default;
  // Only the parts the image holds; the rest is empty.
  IndexData data_;
};

// Thread-safety: const methods may run concurrently; Put and Remove need
// exclusive access. Documents are record numbers chosen by the caller; per
// document arrays are dense up to the largest number put, so callers keep
// numbers dense by reusing them: a number may be put again after Remove (a
// new record under a freed number) or while live (a replacement), and Remove
// frees everything the document held (postings, forward lists, dictionary
// words no other document has). Put and Remove cost in proportion to the
// document (a block of each posting list it touches, postings.cc), not to
// the lists.
class TextIndex {
 public:
  explicit TextIndex(TextIndexOptions options);

  // Adds or replaces document `doc`; texts[i] is the text of options.fields[i]
  // (missing trailing texts are empty, extra ones ignored). Each text goes
  // through TokenizeDocument and then the stemmer. doc UINT32_MAX is
  // reserved and ignored.
  void Put(std::uint32_t doc, const std::vector<std::string_view>& texts);
  void Remove(std::uint32_t doc);  // no-op when absent
  std::size_t size() const;        // live documents
  bool Contains(std::uint32_t doc) const;

  // The best k documents for `query` by BM25F among `allowed` (all live
  // documents when null; numbers of absent documents are ignored), using
  // MaxScore dynamic pruning (text/rank/maxscore.h). Ordered by score
  // descending, ties by doc ascending; a bare-word query with relax on puts
  // the documents matching every term first (QUERY_DSL.md §3). Documents that
  // match with no positive leaf (`NOT urban`) score 0.
  std::vector<TextHit> Search(const DefaultQuery& query, std::size_t k,
                              const roaring::Roaring* allowed = nullptr,
                              TextSearchStats* stats = nullptr,
                              const TextSearchOptions& options = {}) const;
  // The oracle: scores every matching document, keeps the allowed, sorts.
  // Same results as Search.
  std::vector<TextHit> SearchExhaustive(const DefaultQuery& query, std::size_t k,
                                        const roaring::Roaring* allowed = nullptr) const;
  // The same, counting the oracle's work in *stats (for comparisons).
  std::vector<TextHit> SearchExhaustive(const DefaultQuery& query, std::size_t k,
                                        const roaring::Roaring* allowed,
                                        TextSearchStats* stats) const;

  // Bytes held by the index (capacities of its arrays, dictionary words,
  // posting blocks), for memory reports and the churn tests.
  std::size_t MemoryBytes() const;

  // A versioned, checksummed byte image of the index (options included):
  // live documents only, nothing of removed ones (image_format.h).
  std::string Serialize() const;
  // A copy of what Serialize reads (FrozenTextIndex), for an image made
  // later without the lock that keeps the index from changing.
  FrozenTextIndex Freeze() const;
  // The index an image describes. Corruption for bytes that are not a
  // serialised index (truncated, corrupt, inconsistent, another version:
  // images of version 1 are refused, and the caller rebuilds from its
  // records), or that name a document >= doc_limit (the caller's bound on its
  // record numbers). Never UB; allocates at most ~128 bytes per byte of the
  // image (the worst case: one-letter terms each in one document; a real
  // index takes ~10x its image) plus (8F + 64) bytes per document number
  // below the largest in the image (F fields), checking every count against
  // the bytes left before allocating for it.
  static StatusOr<TextIndex> Load(std::string_view bytes, std::uint32_t doc_limit);

  const TextIndexOptions& options() const { return data_.options; }
  // Read-only storage for the ranking code (text/rank/).
  const IndexData& data() const { return data_; }

 private:
  explicit TextIndex(IndexData data) : data_(std::move(data)) {}
  IndexData data_;
};

}  // namespace engram::text

#endif  // ENGRAM_TEXT_INDEX_TEXT_INDEX_H_
