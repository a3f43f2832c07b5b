// The storage of a TextIndex: the term dictionary, the postings with
// per-field term frequencies and positions, per-document field lengths and
// forward lists (so that a replaced or removed document leaves no trace), and
// the collection statistics BM25 needs. Written by text_index.cc and
// serialize.cc, read by text/rank/.
#ifndef ENGRAM_TEXT_INDEX_INDEX_DATA_H_
#define ENGRAM_TEXT_INDEX_INDEX_DATA_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/roaring.h"
#include "text/index/options.h"
#include "text/index/sorted_words.h"
#include "text/index/word_hash.h"

namespace engram::text {

// The postings of one (stemmed) term, as parallel arrays ordered by document.
// Posting i is document docs[i]; its frequency in field f is tfs[i * F + f];
// its positions are positions[pos_start[i] .. pos_start[i + 1]), field 0's
// ascending, then field 1's, and so on (tfs give the split).
struct TermPostings {
  std::vector<std::uint32_t> docs;
  std::vector<std::uint32_t> tfs;
  std::vector<std::uint32_t> pos_start{0};
  std::vector<std::uint32_t> positions;
  // Per field, over the postings with tf > 0 in that field: the largest tf
  // and the shortest field length. Exact (recomputed when a posting goes);
  // they bound a posting's BM25 contribution for dynamic pruning.
  std::vector<std::uint32_t> max_tf;
  std::vector<std::uint32_t> min_len;

  std::size_t size() const { return docs.size(); }
  std::uint32_t tf(std::size_t i, std::size_t field, std::size_t num_fields) const {
    return tfs[i * num_fields + field];
  }
  // The positions of posting i in `field`.
  const std::uint32_t* field_positions(std::size_t i, std::size_t field, std::size_t num_fields,
                                       std::size_t* count) const;
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
  WordHash term_ids;                      // the same, hashed (over term_text)
  std::vector<std::string> term_text;     // id -> stemmed term
  std::vector<TermPostings> postings;     // id -> postings
  std::vector<std::uint32_t> free_terms;  // ids whose postings emptied
  // Only with a stemmer: unstemmed word -> its term (kNone: the terms themselves),
  // sorted for prefixes; surface_words holds the same words by id, with their
  // document counts, and surface_ids hashes them to their ids.
  SortedWords surface;
  std::vector<SurfaceWord> surface_words;
  WordHash surface_ids;
  std::vector<std::uint32_t> free_surface;  // ids of words no document has any more
  std::uint64_t put_serial = 0;             // Put's counter (SurfaceWord::seen)

  roaring::Roaring live;  // live documents
  // doc * F + f: the number of tokens of field f of doc (0 for absent docs).
  std::vector<std::uint32_t> lengths;
  // doc -> distinct term ids, and the ids of its distinct surface words
  // (stemmed indexes only), of the live document; in no particular order.
  std::vector<std::vector<std::uint32_t>> doc_terms;
  std::vector<std::vector<std::uint32_t>> doc_surface;
  std::vector<std::uint64_t> total_len;  // per field, over live documents

  std::size_t num_fields() const { return options.fields.size(); }
  std::uint32_t length(std::uint32_t doc, std::size_t field) const {
    return lengths[static_cast<std::size_t>(doc) * num_fields() + field];
  }
  // The id of `term`, or -1 when no live document has it.
  std::int64_t Find(std::string_view term) const;
  // The ids of the terms with postings, in the byte order of their texts.
  std::vector<std::uint32_t> TermsInTextOrder() const;
  // The ids of the terms with postings whose text (kNone), or some surface
  // word of which (stemmers), starts with `prefix`; ascending, unique. Reads
  // at most `limit` dictionary words (terms, or surface words); *matched,
  // when given, gets how many it read, limit + 1 when more match.
  std::vector<std::uint32_t> ExpandPrefix(std::string_view prefix, std::size_t limit = SIZE_MAX - 1,
                                          std::size_t* matched = nullptr) const;
  bool stemmed() const { return options.stemmer != Stemmer::kNone; }
  // The id of `term` in term_ids, or WordHash::kNone.
  std::uint32_t TermIdOf(std::string_view term) const {
    return term_ids.Find(term,
                         [this](std::uint32_t id) -> const std::string& { return term_text[id]; });
  }
  // The id of surface word `word`, or WordHash::kNone.
  std::uint32_t SurfaceIdOf(std::string_view word) const {
    return SurfaceIdOf(word, WordHash::Hash(word));
  }
  std::uint32_t SurfaceIdOf(std::string_view word, std::uint64_t hash) const {
    return surface_ids.FindHashed(word, hash, [this](std::uint32_t id) -> const std::string& {
      return surface_words[id].text;
    });
  }
};

// Recomputes p.max_tf and p.min_len from p's postings and data's lengths.
void RecomputeBounds(const IndexData& data, TermPostings& p);

}  // namespace engram::text

#endif  // ENGRAM_TEXT_INDEX_INDEX_DATA_H_
