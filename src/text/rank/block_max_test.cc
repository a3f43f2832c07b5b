// Block-max pruning (text/rank/search.h, TermPostings::block_max_t): every
// block's figure bounds the score of each of its postings however the lists
// were built (appends, inserts that split blocks, removals that merge them)
// and however the average lengths moved since (Bm25::BlockBound); the
// pruned search equals the oracle and skips whole blocks; a small OR is
// summed whole instead.
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "text/index/text_index.h"
#include "text/query/query.h"
#include "text/rank/bm25.h"

namespace engram::text {
namespace {

TextIndexOptions TwoFields() {
  TextIndexOptions o;
  o.fields = {{"title", 2.0}, {"body", 1.0}};
  o.stemmer = Stemmer::kNone;
  return o;
}

TextIndexOptions OneField() {
  TextIndexOptions o;
  o.fields = {{"text", 1.0}};
  o.stemmer = Stemmer::kNone;
  return o;
}

DefaultQuery Q(std::string_view text) {
  return ParseQuery(text, QueryOptions{}).value().def;
}

// `word` repeated tf times among `len` filler words.
std::string Text(const std::string& word, std::size_t tf, std::size_t len) {
  std::string s;
  for (std::size_t i = 0; i < len; ++i) {
    s += (i ? " " : "") + (i < tf ? word : "filler" + std::to_string(i % 7));
  }
  return s;
}

// Every block's bound, as search computes it now, is at least the score of
// each of its postings; the list's bound is at least every block's.
void ExpectBlocksBound(const TextIndex& index) {
  const IndexData& d = index.data();
  const Bm25 bm25(d);
  const std::size_t nf = d.num_fields();
  std::size_t checked = 0;
  for (const TermPostings& p : d.postings) {
    if (p.empty()) continue;
    ASSERT_EQ(p.block_max_t.size(), p.blocks.size());
    const double idf = bm25.Idf(p.size());
    for (std::size_t b = 0; b < p.blocks.size(); ++b) {
      EXPECT_LE(p.block_max_t[b], p.max_t);
      const double bound = bm25.BlockBound(idf, p.block_max_t[b]);
      const PostingBlock& k = p.blocks[b];
      for (std::size_t i = 0; i < k.size(); ++i) {
        const double score = bm25.Score(idf, k.tfs.data() + i * nf, k.docs[i]);
        ASSERT_LE(score, bound) << "block " << b << " doc " << k.docs[i];
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 0u);
}

TEST(BlockMax, BoundsHoldThroughSplitsMergesAndGrowingAverages) {
  TextIndex index(TwoFields());
  std::mt19937_64 rng(5);
  std::vector<std::uint32_t> order(3000);
  for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  // Out of order (inserts split blocks), each document longer than the
  // last (the averages grow, past the bound base more than once).
  std::size_t len = 2;
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (i % 300 == 299) len += 4;
    const std::size_t tf = 1 + rng() % 4;
    index.Put(order[i], {Text("alpha", rng() % 2, 1 + rng() % 3), Text("alpha", tf, len + tf)});
    if (i % 500 == 0) ExpectBlocksBound(index);
  }
  EXPECT_GT(index.data().bound_avglen[1], 2.0);  // rebased as the body grew
  EXPECT_FALSE(BoundsStale(index.data()));
  ExpectBlocksBound(index);
  // Removals merge blocks and leave the bounds loose, still bounds; the
  // averages fall.
  for (std::uint32_t d : order) {
    if (d % 7 != 0) index.Remove(d);
  }
  ExpectBlocksBound(index);
  // Short documents again: the averages fall further, no rebase needed.
  for (std::uint32_t d = 3000; d < 3300; ++d) index.Put(d, {"alpha", Text("alpha", 1, 2)});
  ExpectBlocksBound(index);
  for (const char* q : {"alpha", "filler1", "alpha filler3", "alpha OR filler2"}) {
    for (std::size_t k : {1, 10, 100}) {
      const std::vector<TextHit> got = index.Search(Q(q), k);
      const std::vector<TextHit> want = index.SearchExhaustive(Q(q), k);
      ASSERT_EQ(got.size(), want.size()) << q;
      for (std::size_t i = 0; i < got.size(); ++i) {
        EXPECT_EQ(got[i].doc, want[i].doc) << q << " k=" << k << " at " << i;
      }
    }
  }
}

// One term in every document, its best postings in a few places: the search
// reads the blocks that hold them and skips most of the others.
TEST(BlockMax, ACommonTermSkipsBlocks) {
  TextIndex index(OneField());
  for (std::uint32_t d = 0; d < 5000; ++d) {
    index.Put(d, {d % 1000 == 500 ? Text("common", 6, 8) : Text("common", 1, 30 + d % 20)});
  }
  const TermPostings& p = index.data().postings[index.data().terms.at("common")];
  ASSERT_GE(p.blocks.size(), 5000 / TermPostings::kBlockPostings);
  for (std::size_t k : {1, 3}) {
    TextSearchStats pruned, all;
    const std::vector<TextHit> got = index.Search(Q("common"), k, nullptr, &pruned);
    const std::vector<TextHit> want = index.SearchExhaustive(Q("common"), k, nullptr, &all);
    ASSERT_EQ(got.size(), k);
    for (std::size_t i = 0; i < k; ++i) {
      EXPECT_EQ(got[i].doc, want[i].doc);
      EXPECT_EQ(got[i].doc % 1000, 500u);
    }
    EXPECT_EQ(all.postings_scored, 5000u);
    // Every posting until the k-th best is seen, then only the blocks of
    // the later best ones (and the block a best one ends).
    const std::size_t block = TermPostings::kBlockPostings;
    EXPECT_LE(pruned.postings_scored, (k - 1) * 1000 + 500 + (5 - k + 1) * block) << "k=" << k;
  }
}

// Two terms in every document, the best documents first: once they are
// kept, the windows of the others go by unread.
TEST(BlockMax, WindowsOfTwoTermsAreSkippedWhole) {
  TextIndex index(OneField());
  for (std::uint32_t d = 0; d < 5000; ++d) {
    index.Put(d, {d < 3 ? Text("one", 4, 6) + " two two" : Text("one", 1, 40) + " two"});
  }
  for (const char* q : {"one OR two", "one two"}) {
    TextSearchStats pruned, all;
    const std::vector<TextHit> got = index.Search(Q(q), 3, nullptr, &pruned);
    const std::vector<TextHit> want = index.SearchExhaustive(Q(q), 3, nullptr, &all);
    ASSERT_EQ(got.size(), 3u) << q;
    for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(got[i].doc, want[i].doc) << q;
    EXPECT_EQ(all.postings_scored, 10000u) << q;
    EXPECT_LE(pruned.postings_scored, 4 * TermPostings::kBlockPostings) << q;
  }
}

// An OR of three or more terms whose lists hold at most full_sum_postings
// postings together is summed whole, every posting read once; one posting
// more, or two terms, and the query is pruned. The hits are the oracle's
// either way.
TEST(BlockMax, SmallOrsAreSummedWhole) {
  TextIndex index(OneField());
  for (std::uint32_t d = 0; d < 3000; ++d) {
    index.Put(d,
              {d < 3 ? Text("one", 4, 6) + " two two three" : Text("one", 1, 40) + " two three"});
  }
  TextSearchOptions all;
  all.full_sum_postings = SIZE_MAX;
  TextSearchStats two;
  ASSERT_EQ(index.Search(Q("one OR two"), 3, nullptr, &two, all).size(), 3u);
  EXPECT_LE(two.postings_scored, 4 * TermPostings::kBlockPostings);
  const std::vector<TextHit> want = index.SearchExhaustive(Q("one OR two OR three"), 3);
  for (std::size_t bound : {9000, 8999}) {
    TextSearchOptions options;
    options.full_sum_postings = bound;
    TextSearchStats stats;
    const std::vector<TextHit> got =
        index.Search(Q("one OR two OR three"), 3, nullptr, &stats, options);
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].doc, want[i].doc);
      EXPECT_EQ(got[i].score, want[i].score);  // summed term by term, as the oracle sums
    }
    if (bound == 9000) {
      EXPECT_EQ(stats.postings_scored, 9000u);
      EXPECT_EQ(stats.candidates, 3000u);
    } else {
      EXPECT_LE(stats.postings_scored, 6 * TermPostings::kBlockPostings);
    }
  }
}

}  // namespace
}  // namespace engram::text
