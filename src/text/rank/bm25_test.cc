// BM25F against hand-computed values (Lucene idf, Robertson saturation).
#include "text/rank/bm25.h"

#include <cmath>

#include <gtest/gtest.h>

#include "text/index/text_index.h"

namespace engram::text {
namespace {

TEST(Bm25, SingleFieldIsOkapiBm25) {
  TextIndexOptions o;
  o.fields = {{"body", 1.0}};
  o.stemmer = Stemmer::kNone;
  TextIndex index(o);
  index.Put(0, {"a b c d"});
  index.Put(1, {"a a"});
  Bm25 bm25(index.data());
  // N = 2, avglen = 3; idf(a) with n = 2.
  const double idf = std::log(1 + (2 - 2 + 0.5) / (2 + 0.5));
  EXPECT_DOUBLE_EQ(bm25.Idf(2), idf);
  const std::uint32_t tfs[] = {2};
  const double norm = 1 - 0.75 + 0.75 * 2 / 3.0, t = 2 / norm;
  EXPECT_DOUBLE_EQ(bm25.Score(idf, tfs, 1), idf * t * 2.2 / (1.2 + t));
  // The bound covers every posting.
  const TermPostings& a = index.data().postings[index.data().terms.at("a")];
  EXPECT_GE(bm25.Bound(idf, a.max_tf, a.min_len), bm25.Score(idf, tfs, 1));
}

TEST(Bm25, FieldsCombineBeforeSaturation) {
  TextIndexOptions o;
  o.fields = {{"title", 3.0}, {"body", 1.0}};
  o.stemmer = Stemmer::kNone;
  o.b = 0;
  TextIndex index(o);
  index.Put(0, {"x", "x y"});
  Bm25 bm25(index.data());
  const std::uint32_t tfs[] = {1, 1};
  const double t = 3.0 * 1 + 1.0 * 1;  // b = 0: no length normalisation
  EXPECT_DOUBLE_EQ(bm25.Score(1.0, tfs, 0), t * 2.2 / (1.2 + t));
}

}  // namespace
}  // namespace engram::text
