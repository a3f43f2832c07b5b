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

TEST(WeightedRrf, WeightsEachList) {
  const std::vector<Hit> text = {TextHit(1, 1, 9.0), TextHit(2, 2, 8.0)};
  const std::vector<Hit> vec = {VectorHit(2, 1, 0.1), VectorHit(1, 2, 0.2)};
  Fusion f;
  f.method = FusionMethod::kWeightedRrf;
  f.rrf_k = 10;
  f.text_weight = 1;
  f.vector_weight = 3;
  FusionContext c;
  const std::vector<Hit> fused = Fuse(text, vec, f, vector::Metric::kCosine, &c);
  ASSERT_EQ(fused.size(), 2u);
  // 2: 1/12 + 3/11; 1: 1/11 + 3/12: the vector list's order wins.
  EXPECT_EQ(fused[0].doc, 2u);
  EXPECT_DOUBLE_EQ(fused[0].score, 1.0 / 12 + 3.0 / 11);
  EXPECT_DOUBLE_EQ(fused[1].score, 1.0 / 11 + 3.0 / 12);
  const Components parts = FusionComponents(fused[0], c);
  EXPECT_DOUBLE_EQ(parts.text, 1.0 / 12);
  EXPECT_DOUBLE_EQ(parts.vector, 3.0 / 11);
}

TEST(Convex, MinMaxOverEachRetrieversCandidates) {
  // text BM25 10, 6, 2 -> 1, 0.5, 0; vector similarity 0.9, 0.5, 0.7 ->
  // 1, 0, 0.5 (cosine distance 1 - similarity).
  const std::vector<Hit> text = {TextHit(1, 1, 10.0), TextHit(2, 2, 6.0), TextHit(3, 3, 2.0)};
  const std::vector<Hit> vec = {VectorHit(4, 1, 0.1), VectorHit(3, 2, 0.3), VectorHit(2, 3, 0.5)};
  Fusion f;
  f.method = FusionMethod::kConvex;
  f.alpha = 0.25;
  FusionContext c;
  const std::vector<Hit> fused = Fuse(text, vec, f, vector::Metric::kCosine, &c);
  ASSERT_EQ(fused.size(), 4u);
  // 1: 0.75 x 1 + 0.25 x 0 (missing) = 0.75; 2: 0.75 x 0.5 + 0 = 0.375;
  // 3: 0 + 0.25 x 0.5 = 0.125; 4: 0 + 0.25 x 1 = 0.25.
  std::vector<std::pair<std::uint32_t, double>> got;
  for (const Hit& h : fused) got.emplace_back(h.doc, h.score);
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[0].first, 1u);
  EXPECT_DOUBLE_EQ(got[0].second, 0.75);
  EXPECT_EQ(got[1].first, 2u);
  EXPECT_NEAR(got[1].second, 0.375, 1e-12);
  EXPECT_EQ(got[2].first, 4u);
  EXPECT_NEAR(got[2].second, 0.25, 1e-12);
  EXPECT_EQ(got[3].first, 3u);
  EXPECT_NEAR(got[3].second, 0.125, 1e-12);
  EXPECT_DOUBLE_EQ(c.text.shift, 2.0);
  EXPECT_DOUBLE_EQ(c.text.scale, 8.0);
  EXPECT_EQ(c.vector.candidates, 3u);
  // alpha 1 is the vector list alone, alpha 0 the text list alone.
  f.alpha = 1;
  EXPECT_EQ(Fuse(text, vec, f, vector::Metric::kCosine, &c)[0].doc, 4u);
  f.alpha = 0;
  EXPECT_EQ(Fuse(text, vec, f, vector::Metric::kCosine, &c)[0].doc, 1u);
}

TEST(Convex, ZScoreAndTheMissingValue) {
  // text 3, 1 -> mean 2, sd 1 -> z 1, -1; vector similarity 0.8, 0.4 ->
  // mean 0.6, sd 0.2 -> z 1, -1. Missing: the lowest candidate's z, -1.
  const std::vector<Hit> text = {TextHit(1, 1, 3.0), TextHit(2, 2, 1.0)};
  const std::vector<Hit> vec = {VectorHit(3, 1, 0.2), VectorHit(1, 2, 0.6)};
  Fusion f;
  f.method = FusionMethod::kConvex;
  f.normalization = Normalization::kZScore;
  f.alpha = 0.5;
  FusionContext c;
  const std::vector<Hit> fused = Fuse(text, vec, f, vector::Metric::kCosine, &c);
  ASSERT_EQ(fused.size(), 3u);
  // 1: 0.5 x 1 + 0.5 x -1 = 0; 3: 0.5 x -1 + 0.5 x 1 = 0; 2: -1.
  EXPECT_NEAR(fused[0].score, 0.0, 1e-12);
  EXPECT_NEAR(fused[1].score, 0.0, 1e-12);
  EXPECT_NEAR(fused[2].score, -1.0, 1e-12);
  EXPECT_EQ(fused[2].doc, 2u);
  EXPECT_NEAR(c.vector.missing, -1.0, 1e-12);
  const json::Value ex = FusionExplain(c, fused);
  EXPECT_EQ(ex["method"], "convex");
  EXPECT_EQ(ex["normalization"], "z_score");
  EXPECT_NEAR(ex["normalizers"]["text"]["mean"].get<double>(), 2.0, 1e-12);
  ASSERT_EQ(ex["hits"].size(), 3u);
  const json::Value& last = ex["hits"][2];
  EXPECT_EQ(last["rank"], 3);
  EXPECT_EQ(last["doc"], 2);
  EXPECT_EQ(last["text_rank"], 2);
  EXPECT_EQ(last["bm25"], 1.0);
  EXPECT_NEAR(last["text"].get<double>(), -0.5, 1e-12);
  EXPECT_TRUE(last["vector_rank"].is_null());
  EXPECT_TRUE(last["similarity"].is_null());
  EXPECT_NEAR(last["vector"].get<double>(), -0.5, 1e-12);
}

TEST(Fusion, ChecksItsParameters) {
  Fusion f;
  EXPECT_TRUE(CheckFusion(f).ok());
  f.alpha = 1.5;
  EXPECT_EQ(CheckFusion(f).message(), "fusion.alpha: must be within [0, 1], got 1.5");
  f.alpha = 0.5;
  f.text_weight = -1;
  EXPECT_EQ(CheckFusion(f).message(),
            "fusion.weights.text: must be a number within [0, 1000000], got -1.0");
  f.text_weight = 0;
  f.vector_weight = 0;
  EXPECT_EQ(CheckFusion(f).message(), "fusion.weights: text and vector cannot both be 0");
  f.vector_weight = 1;
  f.rrf_k = 2000000;
  EXPECT_EQ(CheckFusion(f).message(), "fusion.rrf_k: must be between 0 and 1000000, got 2000000");
  EXPECT_EQ(FusionMethodFromName("convex"), FusionMethod::kConvex);
  EXPECT_FALSE(FusionMethodFromName("max").has_value());
  EXPECT_EQ(NormalizationFromName("z_score"), Normalization::kZScore);
}

}  // namespace
}  // namespace engram::search
