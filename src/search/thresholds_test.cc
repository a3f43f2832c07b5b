#include "search/thresholds.h"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "search/test_collection.h"

namespace engram::search {
namespace {

using vector::Metric;

TEST(Relevance, VectorMapsIntoUnitInterval) {
  EXPECT_DOUBLE_EQ(VectorRelevance(Metric::kCosine, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(VectorRelevance(Metric::kCosine, 0.25), 0.75);
  EXPECT_DOUBLE_EQ(VectorRelevance(Metric::kCosine, 1.5), 0.0) << "negative cosine";
  EXPECT_DOUBLE_EQ(VectorRelevance(Metric::kL2, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(VectorRelevance(Metric::kL2, 3.0), 0.25);
  EXPECT_DOUBLE_EQ(VectorRelevance(Metric::kDot, 0.0), 0.5);  // distance = -dot
  EXPECT_DOUBLE_EQ(VectorRelevance(Metric::kDot, -2.0), 1 / (1 + std::exp(-2.0)));
  EXPECT_EQ(VectorRelevance(Metric::kDot, 1e6), 0.0);
  EXPECT_EQ(VectorRelevance(Metric::kDot, -1e6), 1.0);
  EXPECT_DOUBLE_EQ(VectorSimilarity(Metric::kCosine, 0.25), 0.75);
  EXPECT_DOUBLE_EQ(VectorSimilarity(Metric::kDot, -3.0), 3.0);
  EXPECT_DOUBLE_EQ(VectorSimilarity(Metric::kL2, 1.0), 0.5);
}

TEST(Relevance, TextIsBm25OverTheAttainableMaximum) {
  EXPECT_DOUBLE_EQ(TextRelevance(2.0, 8.0), 0.25);
  EXPECT_EQ(TextRelevance(9.0, 8.0), 1.0);
  EXPECT_EQ(TextRelevance(0.0, 0.0), 0.0);
}

TEST(Relevance, MaxAttainableBm25BoundsEveryDocument) {
  const testing::TestCollection c(300);
  for (const char* q : {"alpha", "alpha bravo", "kiwi OR fig", "\"alpha bravo\"", "alp*",
                        "alpha NOT bravo", "nothing_here", ""}) {
    const text::DefaultQuery query = testing::ParseText(q);
    const double bound = MaxAttainableBm25(c.text, query);
    const auto all = c.text.SearchExhaustive(query, 1000);
    for (const text::TextHit& h : all) EXPECT_LE(h.score, bound * (1 + 1e-12)) << q;
    if (!all.empty() && all[0].score > 0) {
      EXPECT_GT(all[0].score, 0.3 * bound) << q << ": the bound is not absurdly loose";
    }
  }
  EXPECT_EQ(MaxAttainableBm25(c.text, testing::ParseText("NOT alpha")), 0.0);
}

// Within a set of records (a caller's readable ones) the bound still holds
// for each of them, tighter or equal, and a term none of them has adds 0.
TEST(Relevance, MaxAttainableBm25WithinASetBoundsItsDocuments) {
  const testing::TestCollection c(300);
  roaring::Roaring within;
  for (std::uint32_t doc = 0; doc < 300; doc += 7) within.add(doc);
  for (const char* q : {"alpha", "alpha bravo", "kiwi OR fig", "\"alpha bravo\"", "alp*"}) {
    const text::DefaultQuery query = testing::ParseText(q);
    const double bound = MaxAttainableBm25(c.text, query, &within);
    EXPECT_LE(bound, MaxAttainableBm25(c.text, query) * (1 + 1e-12)) << q;
    for (const text::TextHit& h : c.text.SearchExhaustive(query, 1000, &within)) {
      EXPECT_LE(h.score, bound * (1 + 1e-12)) << q;
    }
  }
  const text::DefaultQuery alpha = testing::ParseText("alpha");
  roaring::Roaring without;  // the records without "alpha"
  without.addRange(0, 300);
  for (const text::TextHit& h : c.text.SearchExhaustive(alpha, 1000)) without.remove(h.doc);
  EXPECT_EQ(MaxAttainableBm25(c.text, alpha, &without), 0.0);
  EXPECT_GT(MaxAttainableBm25(c.text, alpha), 0.0);
}

Hit H(std::uint32_t doc, std::optional<double> distance, double relevance) {
  Hit h;
  h.doc = doc;
  h.distance = distance;
  h.relevance = relevance;
  return h;
}

TEST(Thresholds, DistanceCutThenRelevanceFloorInclusive) {
  std::vector<Hit> hits = {H(1, 0.1, 0.9), H(2, 0.3, 0.7), H(3, 0.5, 0.5), H(4, std::nullopt, 1),
                           H(5, 0.2, 0.4)};
  std::vector<Hit> a = hits;
  CutCounts cut = ApplyThresholds(0.3, std::nullopt, &a);
  EXPECT_EQ(testing::Docs(a), (std::vector<std::uint32_t>{1, 2, 5})) << "0.3 itself is kept";
  EXPECT_EQ(cut.by_threshold, 2u) << "above, and without a distance";
  std::vector<Hit> b = hits;
  cut = ApplyThresholds(std::nullopt, 0.5, &b);
  EXPECT_EQ(testing::Docs(b), (std::vector<std::uint32_t>{1, 2, 3, 4}));
  EXPECT_EQ(cut.by_score_threshold, 1u);
  std::vector<Hit> c = hits;
  cut = ApplyThresholds(0.3, 0.8, &c);
  EXPECT_EQ(testing::Docs(c), (std::vector<std::uint32_t>{1}));
  EXPECT_EQ(cut.by_threshold + cut.by_score_threshold, 4u);
  std::vector<Hit> d = hits;
  ApplyThresholds(std::nullopt, std::nullopt, &d);
  EXPECT_EQ(d.size(), hits.size());
}

}  // namespace
}  // namespace engram::search
