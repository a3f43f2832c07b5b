// BM25F scoring (the simple BM25F of Robertson & Zaragoza, "The Probabilistic
// Relevance Framework: BM25 and Beyond", FnTIR 3(4), 2009, §3.7.1) with
// Lucene's non-negative IDF, and the upper bounds dynamic pruning needs.
//
// For a query unit (a term, or a phrase) and a document d with fields f:
//
//   tf~(d)  = sum_f  w_f * tf_f(d) / B_f(d),   B_f(d) = 1 - b + b * len_f(d) / avglen_f
//   score   = idf * tf~ * (k1 + 1) / (k1 + tf~)
//   idf     = ln(1 + (N - n + 0.5) / (n + 0.5))
//
// N is the number of live documents, n the number containing the term
// (Lucene's BM25Similarity.idf, lucene/core/.../search/similarities/
// BM25Similarity.java; unlike Robertson's original it never goes negative, so
// adding a matching unit never lowers a score). With one field of weight 1 this
// is the classic Okapi BM25 that SQLite documents in ext/fts5/fts5_aux.c
// (there with the raw Robertson IDF). Fields are combined before saturation
// (BM25F) rather than by summing per-field BM25 scores, so that a term repeated
// in title and body does not count as two independent pieces of evidence.
// A phrase is scored as one unit: tf_f is the number of its occurrences in
// field f, and its idf is the sum of its words' idfs, as Lucene's PhraseQuery
// does (BM25Similarity.idfExplain over several TermStatistics).
// A document's score is the sum over the distinct positive units of the query
// (terms, the terms a prefix expands to, phrases; leaves under NOT excluded)
// that it contains.
#ifndef ENGRAM_TEXT_RANK_BM25_H_
#define ENGRAM_TEXT_RANK_BM25_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "text/index/index_data.h"

namespace engram::text {

class Bm25 {
 public:
  // The collection statistics of `data` (N, avglen_f) and its parameters.
  explicit Bm25(const IndexData& data);

  // idf of a term found in n of the N live documents.
  double Idf(std::size_t n) const;
  // The score of a unit with `idf` whose per-field frequencies in document
  // `doc` are tfs[0..F). 0 when every tf is 0.
  double Score(double idf, const std::uint32_t* tfs, std::uint32_t doc) const {
    const std::size_t nf = weight_.size();
    const std::uint32_t* lens = data_.lengths.data() + static_cast<std::size_t>(doc) * nf;
    double t = 0;
    for (std::size_t f = 0; f < nf; ++f) {
      if (tfs[f] == 0) continue;
      t += weight_[f] * static_cast<double>(tfs[f]) / Norm(f, lens[f]);
    }
    return idf * Saturate(t);
  }
  // An upper bound of Score over every document whose field f has tf <=
  // max_tf[f] and length >= min_len[f] (fields with max_tf 0 never occur):
  // tf~ is increasing in tf and decreasing in len (b >= 0), and the
  // saturation t (k1 + 1) / (k1 + t) is increasing in t (k1 >= 0).
  double Bound(double idf, const std::vector<std::uint32_t>& max_tf,
               const std::vector<std::uint32_t>& min_len) const;

  // An upper bound of Score over the postings whose tf~ at the index's
  // bound_avglen is at most max_t (TermPostings::block_max_t): a field's
  // tf / B_f grows with avglen_f by at most the factor avglen_f /
  // bound_avglen_f when that is over 1 (B_f(d) at one average over B_f(d) at
  // the other lies between 1 and their ratio), so max_t times the largest
  // such factor bounds tf~ now. (Without a base for some field, the bound is
  // that of any tf~: idf (k1 + 1).)
  double BlockBound(double idf, float max_t) const;

  std::size_t num_docs() const { return n_docs_; }

 private:
  double Norm(std::size_t field, std::uint32_t len) const {
    return norm_a_[field] + norm_c_[field] * static_cast<double>(len);
  }
  double Saturate(double t) const { return t <= 0 ? 0 : t * (k1_ + 1) / (k1_ + t); }

  const IndexData& data_;
  double k1_, b_;
  std::size_t n_docs_;
  std::vector<double> avglen_, weight_, norm_a_, norm_c_;
  double growth_ = 1;  // BlockBound's factor
};

}  // namespace engram::text

#endif  // ENGRAM_TEXT_RANK_BM25_H_
