// The storage of a TextIndex: the term dictionary, the postings with
// per-field term frequencies and positions (in blocks, postings.cc),
// per-document field lengths and forward lists (so that a replaced or removed
// document leaves no trace), and the collection statistics BM25 needs.
// Written by text_index.cc, postings.cc and load.cc, read by text/rank/.
#ifndef ENGRAM_TEXT_INDEX_INDEX_DATA_H_
#define ENGRAM_TEXT_INDEX_INDEX_DATA_H_

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "base/flat_hash.h"
#include "base/roaring.h"
#include "text/index/options.h"
#include "text/index/sorted_words.h"

namespace engram::text {

// A run of one term's postings, as parallel arrays ordered by document.
// Posting i is document docs[i]; its frequency in field f is tfs[i * F + f];
// its positions are positions[pos_start[i] .. pos_start[i + 1]), field 0's
// ascending, then field 1's, and so on (tfs give the split).
struct PostingBlock {
  std::vector<std::uint32_t> docs;
  std::vector<std::uint32_t> tfs;
  std::vector<std::uint32_t> pos_start{0};
  std::vector<std::uint32_t> positions;

  std::size_t size() const { return docs.size(); }
  // The positions of posting i in `field`.
  const std::uint32_t* field_positions(std::size_t i, std::size_t field, std::size_t num_fields,
                                       std::size_t* count) const;
  // Bytes held (capacities), for MemoryBytes.
  std::size_t MemoryBytes() const;
};

// Where a posting is: block b, index i in it.
struct PostingAt {
  std::size_t block = 0;
  std::size_t i = 0;
};

// The postings of one (stemmed) term, in document order, cut into blocks of
// at most kBlockPostings (a B+-tree's leaves without inner nodes), so that
// adding or removing a document in the middle costs a block, not the list:
// bulk re-puts and removes stay linear in the documents (issue 18).
struct TermPostings {
  // A block holds at most kBlockPostings postings, and is split once its
  // positions pass kBlockPositions (one posting may hold more: a document's
  // own positions are its cost), so an insert moves a bounded amount.
  static constexpr std::size_t kBlockPostings = 128;
  static constexpr std::size_t kBlockPositions = 4096;
  // Non-empty, in document order (each block's documents before the next's).
  // By value, so that an append reaches the last block's arrays through one
  // record less; a split in the middle moves the later block records (96
  // bytes each: a list of N postings moves N / 2 bytes, once per 64 inserts).
  std::vector<PostingBlock> blocks;
  // lasts[b]: the last document of blocks[b], contiguous so that finding a
  // block is a binary search over one array (not a pointer chase per step).
  std::vector<std::uint32_t> lasts;
  std::uint32_t count = 0;  // postings (documents with the term)
  // Per field, over the live postings with tf > 0 in that field: an upper
  // bound of tf and a lower bound of the field's length (0: none). They bound
  // a posting's BM25 contribution for dynamic pruning. Put keeps them exact;
  // Remove leaves them loose (still bounds) and recomputes them once the
  // postings removed since pass half the list, so the work is amortised O(1).
  std::vector<std::uint32_t> max_tf;
  std::vector<std::uint32_t> min_len;
  // Per block, for block-max pruning: block_max_t[b] >= the normalised
  // frequency tf~ (text/rank/bm25.h) of each posting of block b, computed
  // with IndexData::bound_avglen; max_t, the same over the list. An append
  // keeps them exact, a split recomputes both halves; removals and merges
  // leave them loose (still bounds) until RecomputeBounds.
  std::vector<float> block_max_t;
  float max_t = 0;
  std::uint32_t removed = 0;  // postings removed since the bounds were exact

  std::size_t size() const { return count; }
  bool empty() const { return count == 0; }
  const PostingBlock& block(std::size_t b) const { return blocks[b]; }
  std::uint32_t doc(PostingAt at) const { return blocks[at.block].docs[at.i]; }
  // The position of `doc`'s posting, or of the first posting after it
  // (block == blocks.size() when none).
  PostingAt LowerBound(std::uint32_t doc) const;
  // Calls f(doc, block, i) for every posting, in document order.
  template <typename F>
  void ForEach(F&& f) const {
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      const PostingBlock& k = blocks[b];
      for (std::size_t i = 0; i < k.size(); ++i) f(k.docs[i], b, i);
    }
  }
};

// A word as it appeared in documents (before stemming), for prefix queries:
// which stemmed term it became and in how many live documents it occurs.
struct SurfaceWord {
  std::string text;  // "" while the id is free
  std::uint32_t term = 0;
  std::uint32_t docs = 0;
  std::uint64_t seen = 0;  // Put's scratch: the serial of the last Put that met the word
};

struct IndexData {
  TextIndexOptions options;
  // Term -> id, sorted, for prefix queries: kept only without a stemmer (with
  // one, prefixes expand over `surface`, and Serialize sorts the terms).
  SortedWords terms;
  FlatHash term_ids;                      // the same, hashed (over term_text)
  std::vector<std::string> term_text;     // id -> stemmed term
  std::vector<TermPostings> postings;     // id -> postings
  std::vector<std::uint32_t> free_terms;  // ids whose postings emptied
  // Only with a stemmer: unstemmed word -> its term (kNone: the terms themselves),
  // sorted for prefixes; surface_words holds the same words by id, with their
  // document counts, and surface_ids hashes them to their ids.
  SortedWords surface;
  std::vector<SurfaceWord> surface_words;
  FlatHash surface_ids;
  std::vector<std::uint32_t> free_surface;  // ids of words no document has any more
  std::uint64_t put_serial = 0;             // Put's counter (SurfaceWord::seen)

  roaring::Roaring live;  // live documents
  // doc * F + f: the number of tokens of field f of doc (0 for absent docs);
  // dense up to the largest record number put.
  std::vector<std::uint32_t> lengths;
  // doc -> the ids of its distinct surface words (stemmed indexes only), or
  // of its distinct terms (unstemmed only: a stemmed index has its words'
  // terms, DocTerms), of the live document; in no particular order; freed
  // (not just cleared) on Remove. One forward list per document, not two:
  // a million documents' lists cost a scatter per posting to load.
  std::vector<std::vector<std::uint32_t>> doc_terms;
  std::vector<std::vector<std::uint32_t>> doc_surface;
  std::vector<std::uint64_t> total_len;  // per field, over live documents
  // Per field, the average length the block bounds' tf~ are computed with
  // (TermPostings::block_max_t): the average when Load or RebaseBounds last
  // set them (SetBoundBase).
  std::vector<double> bound_avglen;

  std::size_t num_fields() const { return options.fields.size(); }
  // The distinct term ids of live document `doc`, in no particular order,
  // into *out (cleared first): its forward list, or with a stemmer its
  // surface words' terms (sorted, duplicates dropped). O(the document).
  void DocTerms(std::uint32_t doc, std::vector<std::uint32_t>* out) const;
  std::uint32_t length(std::uint32_t doc, std::size_t field) const {
    return lengths[static_cast<std::size_t>(doc) * num_fields() + field];
  }
  // The average length of `field` over the live documents (0: none).
  double avglen(std::size_t field) const;
  // tf~ (text/rank/bm25.h) of a posting of `doc` with frequencies tfs (F
  // values), at bound_avglen, as a float no smaller than it.
  float BoundTf(std::uint32_t doc, const std::uint32_t* tfs) const {
    return UpToFloat(Tf(doc, tfs));
  }
  // The same before rounding, and the rounding (the float no smaller than t),
  // for a caller that takes the largest of many first.
  double Tf(std::uint32_t doc, const std::uint32_t* tfs) const {
    // As Bm25::Score's tf~, with bound_avglen for the averages.
    const double b = options.b;
    const std::size_t nf = num_fields();
    double t = 0;
    for (std::size_t f = 0; f < nf; ++f) {
      if (tfs[f] == 0) continue;
      const double avg = bound_avglen[f];
      const double norm = avg <= 0 ? 1.0 : 1.0 - b + b / avg * length(doc, f);
      t += options.fields[f].weight * static_cast<double>(tfs[f]) / norm;
    }
    return t;
  }
  static float UpToFloat(double t) {
    const auto rounded = static_cast<float>(t);
    return rounded < t ? std::nextafter(rounded, std::numeric_limits<float>::infinity()) : rounded;
  }
  // The id of `term`, or -1 when no live document has it.
  std::int64_t Find(std::string_view term) const;
  // The ids of the terms with postings, in the byte order of their texts
  // (read from postings and term_text only).
  std::vector<std::uint32_t> TermsInTextOrder() const;
  // The ids of the terms with postings whose text (kNone), or some surface
  // word of which (stemmers), starts with `prefix`; ascending, unique. Reads
  // at most `limit` dictionary words (terms, or surface words); *matched,
  // when given, gets how many it read, limit + 1 when more match.
  std::vector<std::uint32_t> ExpandPrefix(std::string_view prefix, std::size_t limit = SIZE_MAX - 1,
                                          std::size_t* matched = nullptr) const;
  bool stemmed() const { return options.stemmer != Stemmer::kNone; }
  // The id of `term` in term_ids, or FlatHash::kNone.
  std::uint32_t TermIdOf(std::string_view term) const {
    return term_ids.Find(term,
                         [this](std::uint32_t id) -> const std::string& { return term_text[id]; });
  }
  // The id of surface word `word`, or FlatHash::kNone.
  std::uint32_t SurfaceIdOf(std::string_view word) const {
    return SurfaceIdOf(word, FlatHash::Hash(word));
  }
  std::uint32_t SurfaceIdOf(std::string_view word, std::uint64_t hash) const {
    return surface_ids.FindHashed(word, hash, [this](std::uint32_t id) -> const std::string& {
      return surface_words[id].text;
    });
  }
};

// Sets data.bound_avglen to the current averages.
void SetBoundBase(IndexData& data);
// Sets p's bounds, the list's and its blocks', to none (p.removed = 0),
// for its postings to widen them one by one (WidenListBounds).
void ClearBounds(std::size_t num_fields, TermPostings& p);
// Recomputes p's bounds, the list's and its blocks', from its postings and
// data's lengths (exact again: p.removed = 0).
void RecomputeBounds(const IndexData& data, TermPostings& p);
// Sets data.bound_avglen to the current averages and recomputes every
// list's bounds: O(postings). Put runs it when BoundsStale (Load sets the
// same figures as it reads the postings): tf~
// grows with the average, and Bm25::BlockBound widens the blocks' figures
// by that growth, so they would loosen without end. An average grows by a
// tenth only after about a tenth of the documents or tokens changed, so the
// work is amortised over them.
void RebaseBounds(IndexData& data);
// Whether Put should rebase: an average has grown past kBoundSlack times
// its bound_avglen, and the index holds at most kRebaseTokens tokens, so
// that one Put never recomputes more than that many postings under the
// writer's lock (a larger index keeps its widened, still valid, figures
// until the next Load).
inline constexpr double kBoundSlack = 1.1;
inline constexpr std::uint64_t kRebaseTokens = std::uint64_t{1} << 22;
bool BoundsStale(const IndexData& data);

// Widens the per-field bounds (max_tf, min_len: nf values each; min_len 0
// is "none") by a posting with frequencies tfs in fields of lengths lens.
inline void WidenBounds(std::uint32_t* max_tf, std::uint32_t* min_len, const std::uint32_t* tfs,
                        const std::uint32_t* lens, std::size_t nf) {
  for (std::size_t f = 0; f < nf; ++f) {
    if (tfs[f] == 0) continue;
    if (tfs[f] > max_tf[f]) max_tf[f] = tfs[f];
    if (min_len[f] == 0 || lens[f] < min_len[f]) min_len[f] = lens[f];
  }
}

// Widens p's list-wide bounds by a posting of `doc` (its lengths set) with
// frequencies tfs; returns the posting's tf~ (IndexData::BoundTf) for the
// caller to widen its block's figure.
inline float WidenListBounds(const IndexData& data, TermPostings& p, std::uint32_t doc,
                             const std::uint32_t* tfs) {
  const std::size_t nf = data.num_fields();
  WidenBounds(p.max_tf.data(), p.min_len.data(), tfs,
              data.lengths.data() + static_cast<std::size_t>(doc) * nf, nf);
  const float t = data.BoundTf(doc, tfs);
  p.max_t = std::max(p.max_t, t);
  return t;
}

// Posting-list upkeep (postings.cc). Adds posting `doc` (tfs: F values; its
// `count` positions, field by field) of `data`'s list p in document order,
// widening p's bounds by it (doc's lengths are set): appended when doc is
// past the last posting (filling the last block, then a new one), inserted
// into its block otherwise (splitting a full block, whose halves' bounds
// are recomputed). doc must not be in p.
void AddPosting(const IndexData& data, TermPostings& p, std::uint32_t doc, const std::uint32_t* tfs,
                const std::uint32_t* pos, std::uint32_t count);
// AddPosting for the common case, inline: doc past the last posting and room
// in the last block; everything else goes to AddPosting.
inline void AppendPosting(const IndexData& data, TermPostings& p, std::uint32_t doc,
                          const std::uint32_t* tfs, const std::uint32_t* pos, std::uint32_t count) {
  if (p.blocks.empty()) return AddPosting(data, p, doc, tfs, pos, count);
  PostingBlock& k = p.blocks.back();
  if (k.docs.back() >= doc || k.size() >= TermPostings::kBlockPostings ||
      k.positions.size() >= TermPostings::kBlockPositions) {
    return AddPosting(data, p, doc, tfs, pos, count);
  }
  const std::size_t nf = data.num_fields();
  p.block_max_t.back() = std::max(p.block_max_t.back(), WidenListBounds(data, p, doc, tfs));
  ++p.count;
  p.lasts.back() = doc;
  k.docs.push_back(doc);
  k.tfs.insert(k.tfs.end(), tfs, tfs + nf);
  k.positions.insert(k.positions.end(), pos, pos + count);
  k.pos_start.push_back(static_cast<std::uint32_t>(k.positions.size()));
}
// Removes posting `doc` from p (no-op when absent); a block left empty goes,
// one left a quarter full merges with a neighbour when both fit in one.
void RemovePosting(TermPostings& p, std::uint32_t doc, std::size_t nf);
// Fetches ahead what finding `doc` in the postings of `terms` reads (term
// records, block bounds, the blocks), level by level across the terms, so
// that their cache misses overlap instead of coming one after another.
void PrefetchPostings(const IndexData& data, const std::vector<std::uint32_t>& terms,
                      std::uint32_t doc);

}  // namespace engram::text

#endif  // ENGRAM_TEXT_INDEX_INDEX_DATA_H_
