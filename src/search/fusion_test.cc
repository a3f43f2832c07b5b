#include "search/fusion.h"

#include <vector>

#include <gtest/gtest.h>

namespace engram::search {
namespace {

Hit TextHit(std::uint32_t doc, std::size_t rank, double bm25) {
  Hit h;
  h.doc = doc;
  h.text_rank = rank;
  h.bm25 = bm25;
  h.score = bm25;
  return h;
}

Hit VectorHit(std::uint32_t doc, std::size_t rank, double distance) {
  Hit h;
  h.doc = doc;
  h.vector_rank = rank;
  h.distance = distance;
  h.score = 1 - distance;
  return h;
}

TEST(Rrf, ScoreIsTheSumOfReciprocalRanks) {
  Hit h;
  h.text_rank = 1;
  h.vector_rank = 3;
  EXPECT_DOUBLE_EQ(RrfScore(h, 60), 1.0 / 61 + 1.0 / 63);
  h.vector_rank.reset();
  EXPECT_DOUBLE_EQ(RrfScore(h, 60), 1.0 / 61);
  EXPECT_DOUBLE_EQ(RrfScore(h, 0), 1.0);
  EXPECT_EQ(RrfScore(Hit{}, 60), 0.0);
}

TEST(Rrf, FusesMergesAndOrders) {
  // text: 10, 20, 30; vector: 30, 40, 10.
  const std::vector<Hit> text = {TextHit(10, 1, 5.0), TextHit(20, 2, 4.0), TextHit(30, 3, 3.0)};
  const std::vector<Hit> vec = {VectorHit(30, 1, 0.1), VectorHit(40, 2, 0.2),
                                VectorHit(10, 3, 0.3)};
  const std::vector<Hit> fused = FuseRrf(text, vec, 60);
  ASSERT_EQ(fused.size(), 4u);
  // 10: 1/61 + 1/63; 30: 1/63 + 1/61 (bit-equal: tie), 20: 1/62, 40: 1/62 (tie).
  EXPECT_EQ(fused[0].doc, 10u) << "tie on score and best rank 1: record number";
  EXPECT_EQ(fused[1].doc, 30u);
  EXPECT_EQ(fused[0].score, fused[1].score);
  EXPECT_DOUBLE_EQ(fused[0].score, 1.0 / 61 + 1.0 / 63);
  EXPECT_EQ(fused[2].doc, 20u) << "tie on score and best rank 2: record number";
  EXPECT_EQ(fused[3].doc, 40u);
  // Both sides' fields are kept.
  EXPECT_EQ(fused[0].bm25, 5.0);
  EXPECT_EQ(fused[0].distance, 0.3);
  EXPECT_EQ(fused[0].text_rank, 1u);
  EXPECT_EQ(fused[0].vector_rank, 3u);
  EXPECT_FALSE(fused[3].bm25.has_value());
  EXPECT_FALSE(fused[3].text_rank.has_value());
}

TEST(Rrf, EqualScoresBreakByBetterSingleRank) {
  // With rrf_k = 0, rank 1 in one list (1/1) ties exactly with rank 2 in
  // both (1/2 + 1/2).
  const std::vector<Hit> text = {TextHit(9, 1, 2.0), TextHit(7, 2, 1.0)};
  const std::vector<Hit> vec = {VectorHit(8, 1, 0.1), VectorHit(7, 2, 0.2)};
  const std::vector<Hit> fused = FuseRrf(text, vec, 0);
  ASSERT_EQ(fused.size(), 3u);
  // 9: 1, 8: 1, 7: 1/2 + 1/2 = 1: all equal; best ranks 1, 1, 2.
  EXPECT_EQ(fused[0].score, 1.0);
  EXPECT_EQ(fused[2].score, 1.0);
  EXPECT_EQ(fused[0].doc, 8u);
  EXPECT_EQ(fused[1].doc, 9u);
  EXPECT_EQ(fused[2].doc, 7u);
}

TEST(Rrf, OneEmptySide) {
  const std::vector<Hit> text = {TextHit(4, 1, 2.0), TextHit(2, 2, 1.0)};
  const std::vector<Hit> fused = FuseRrf(text, {}, 60);
  ASSERT_EQ(fused.size(), 2u);
  EXPECT_EQ(fused[0].doc, 4u);
  EXPECT_EQ(fused[1].doc, 2u);
  EXPECT_TRUE(FuseRrf({}, {}, 60).empty());
}

}  // namespace
}  // namespace engram::search
