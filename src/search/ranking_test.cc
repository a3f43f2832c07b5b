#include "search/ranking.h"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "search/search.h"
#include "search/test_collection.h"

namespace engram::search {
namespace {
namespace ranking_test {

constexpr double kDay = 86400.0 * 1e6;  // microseconds

Datetime At(const char* rfc3339) {
  return ParseDatetime(rfc3339, DatetimeForm::kStrict).value().value;
}

std::uint32_t SlotOf(const char* name) {
  return testing::TestSchema()->Find(name)->slot;
}

// Hand-computed from Elasticsearch's definitions (decay 0.5 at the scale).
TEST(DecayValue, ElasticsearchDefinitions) {
  const double scale = 10 * kDay, offset = 2 * kDay;
  for (DecayFunction f : {DecayFunction::kExp, DecayFunction::kGauss, DecayFunction::kLinear}) {
    EXPECT_DOUBLE_EQ(DecayValue(f, 0, scale, offset), 1.0) << DecayFunctionName(f);
    EXPECT_DOUBLE_EQ(DecayValue(f, offset, scale, offset), 1.0) << "within the offset";
    EXPECT_NEAR(DecayValue(f, offset + scale, scale, offset), 0.5, 1e-12) << "0.5 at the scale";
  }
  // At twice the scale past the offset: exp 0.5^2, gauss 0.5^4, linear 0.
  EXPECT_NEAR(DecayValue(DecayFunction::kExp, offset + 2 * scale, scale, offset), 0.25, 1e-12);
  EXPECT_NEAR(DecayValue(DecayFunction::kGauss, offset + 2 * scale, scale, offset), 0.0625, 1e-12);
  EXPECT_DOUBLE_EQ(DecayValue(DecayFunction::kLinear, offset + 2 * scale, scale, offset), 0.0);
  // Half the scale: exp 2^-0.5, gauss 2^-0.25, linear 0.75.
  EXPECT_NEAR(DecayValue(DecayFunction::kExp, scale / 2, scale, 0), std::sqrt(0.5), 1e-12);
  EXPECT_NEAR(DecayValue(DecayFunction::kGauss, scale / 2, scale, 0), std::pow(0.5, 0.25), 1e-12);
  EXPECT_DOUBLE_EQ(DecayValue(DecayFunction::kLinear, scale / 2, scale, 0), 0.75);
  EXPECT_DOUBLE_EQ(DecayValue(DecayFunction::kLinear, 3 * scale, scale, 0), 0.0) << "never < 0";
}

// Records 0..3: `when` 0, 10, 30 days before the origin and none; `score`
// 2, 0, 1 and none (test_collection.h's schema).
struct Fixture {
  Fixture() : metadata(testing::TestSchema()) {
    const char* when[] = {"2026-03-31T00:00:00Z", "2026-03-21T00:00:00Z", "2026-03-01T00:00:00Z",
                          nullptr};
    const double score[] = {2, 0, 1, -1};
    for (std::uint32_t i = 0; i < 4; ++i) {
      json::Value rec = {{"id", std::to_string(i)}, {"section", "a"}, {"bucket", i}};
      if (when[i]) rec["when"] = when[i];
      if (score[i] >= 0) rec["score"] = score[i];
      metadata.Put(i, ParseRecord(rec, *testing::TestSchema()).value().slots);
      Hit h;
      h.doc = i;
      h.relevance = 1.0 - 0.1 * i;  // retrieval order 0, 1, 2, 3
      hits.push_back(h);
    }
  }
  index::MetadataIndex metadata;
  std::vector<Hit> hits;
};

Decay TenDayExp(double floor) {
  Decay d;
  d.slot = SlotOf("when");
  d.function = DecayFunction::kExp;
  d.scale_micros = 10 * kDay;
  d.floor = floor;
  d.origin = At("2026-03-31T00:00:00Z");  // the fixed clock
  return d;
}

TEST(DecayFactor, FixedClockAndFloor) {
  Fixture f;
  const Decay d = TenDayExp(0);
  EXPECT_DOUBLE_EQ(DecayFactor(d, f.metadata, 0), 1.0);
  EXPECT_NEAR(DecayFactor(d, f.metadata, 1), 0.5, 1e-12);
  EXPECT_NEAR(DecayFactor(d, f.metadata, 2), 0.125, 1e-12) << "30 days: 0.5^3";
  EXPECT_DOUBLE_EQ(DecayFactor(d, f.metadata, 3), 1.0) << "no time: no decay";
  const Decay floored = TenDayExp(0.2);
  EXPECT_NEAR(DecayFactor(floored, f.metadata, 1), 0.5, 1e-12) << "above the floor";
  EXPECT_DOUBLE_EQ(DecayFactor(floored, f.metadata, 2), 0.2) << "the floor holds";
  Decay future = d;
  future.origin = At("2026-03-11T00:00:00Z");  // record 0 is 20 days after it
  EXPECT_NEAR(DecayFactor(future, f.metadata, 0), 0.25, 1e-12) << "distance is symmetric";
}

TEST(BoostFactor, OnePlusWeightTimesValue) {
  Fixture f;
  const Boost b{SlotOf("score"), 0.5};
  EXPECT_DOUBLE_EQ(BoostFactor(b, f.metadata, 0), 2.0);
  EXPECT_DOUBLE_EQ(BoostFactor(b, f.metadata, 1), 1.0);
  EXPECT_DOUBLE_EQ(BoostFactor(b, f.metadata, 2), 1.5);
  EXPECT_DOUBLE_EQ(BoostFactor(b, f.metadata, 3), 1.0) << "absent: value 0";
  const Boost by_int{SlotOf("bucket"), 1};
  EXPECT_DOUBLE_EQ(BoostFactor(by_int, f.metadata, 3), 4.0);
}

TEST(ApplyRanking, ReSortsByTheFinalScore) {
  Fixture f;
  Ranking ranking;
  ranking.decay = TenDayExp(0.2);
  ranking.boost = Boost{SlotOf("score"), 0.5};
  const json::Value ex = ApplyRanking(ranking, RankingBase::kRelevance, 60, f.metadata, &f.hits);
  // final: 0: 1.0*1*2 = 2; 1: 0.9*0.5*1 = 0.45; 2: 0.8*0.2*1.5 = 0.24; 3: 0.7*1*1 = 0.7
  ASSERT_EQ(f.hits.size(), 4u);
  EXPECT_EQ(f.hits[0].doc, 0u);
  EXPECT_EQ(f.hits[1].doc, 3u);
  EXPECT_EQ(f.hits[2].doc, 1u);
  EXPECT_EQ(f.hits[3].doc, 2u);
  EXPECT_DOUBLE_EQ(*f.hits[0].final_score, 2.0);
  EXPECT_NEAR(*f.hits[1].final_score, 0.7, 1e-12);
  EXPECT_NEAR(*f.hits[2].final_score, 0.45, 1e-12);
  EXPECT_NEAR(*f.hits[3].final_score, 0.24, 1e-12);
  EXPECT_DOUBLE_EQ(*f.hits[3].decay, 0.2);
  EXPECT_DOUBLE_EQ(*f.hits[3].field_boost, 1.5);
  EXPECT_DOUBLE_EQ(f.hits[3].relevance, 0.8) << "relevance is kept, undecayed";
  EXPECT_EQ(ex["decay"]["origin"], "2026-03-31T00:00:00Z");
  EXPECT_EQ(ex["ranked"], 4);
  const json::Value per_hit = RankedHitsJson(f.hits);
  EXPECT_EQ(per_hit[1]["position"], 2);
  EXPECT_DOUBLE_EQ(per_hit[3]["decay"].get<double>(), 0.2);
}

TEST(ApplyRanking, TiesKeepRetrievalOrder) {
  Fixture f;
  for (Hit& h : f.hits) h.relevance = 0.5;
  Ranking ranking;
  ranking.boost = Boost{SlotOf("score"), 0};  // every factor 1
  ApplyRanking(ranking, RankingBase::kRelevance, 60, f.metadata, &f.hits);
  for (std::uint32_t i = 0; i < 4; ++i) EXPECT_EQ(f.hits[i].doc, i);
}

// Hybrid: the factors multiply the fused score, which ordered the hits,
// not the relevance (the larger of the two sides' relevances).
TEST(ApplyRanking, FusedScoreIsTheBase) {
  Fixture f;
  const double fused[] = {0.0328, 0.0325, 0.0161, 0.0159};  // RRF sums, fusion order
  for (std::uint32_t i = 0; i < 4; ++i) {
    f.hits[i].score = fused[i];
    f.hits[i].relevance = 0.2 + 0.2 * i;  // ascending: it must not decide
  }
  Ranking ranking;
  ranking.decay = TenDayExp(0);  // 1, 0.5, 0.125, 1
  const json::Value ex = ApplyRanking(ranking, RankingBase::kFusedScore, 60, f.metadata, &f.hits);
  EXPECT_EQ(ex["base"], "fused_score");
  ASSERT_EQ(f.hits.size(), 4u);
  EXPECT_EQ(f.hits[0].doc, 0u);
  EXPECT_EQ(f.hits[1].doc, 1u) << "0.0325 * 0.5 = 0.01625 beats 0.0159 * 1";
  EXPECT_EQ(f.hits[2].doc, 3u);
  EXPECT_EQ(f.hits[3].doc, 2u);
  EXPECT_DOUBLE_EQ(*f.hits[0].base, 0.0328);
  EXPECT_NEAR(*f.hits[1].final_score, 0.0325 * 0.5, 1e-15);
  EXPECT_NEAR(*f.hits[3].final_score, 0.0161 * 0.125, 1e-15);
  EXPECT_DOUBLE_EQ(f.hits[3].relevance, 0.6) << "relevance is kept for score_threshold";
  const json::Value per_hit = RankedHitsJson(f.hits);
  EXPECT_DOUBLE_EQ(per_hit[2]["base"].get<double>(), 0.0159);
}

// Convex fusion over z-scores can give negative scores, which a factor
// below 1 would raise: the base is then the fused rank on RRF's scale.
TEST(ApplyRanking, ZScoresRankByTheFusedRank) {
  Fixture f;
  const double fused[] = {1.2, 0.3, -0.4, -1.1};
  for (std::uint32_t i = 0; i < 4; ++i) f.hits[i].score = fused[i];
  Ranking ranking;
  ranking.decay = TenDayExp(0);
  const json::Value ex = ApplyRanking(ranking, RankingBase::kFusedRank, 60, f.metadata, &f.hits);
  EXPECT_EQ(ex["base"], "fused_rank");
  EXPECT_EQ(ex["rrf_k"], 60);
  // bases 1/61, 1/62, 1/63, 1/64; finals 1/61, 0.5/62, 0.125/63, 1/64.
  ASSERT_EQ(f.hits.size(), 4u);
  EXPECT_EQ(f.hits[0].doc, 0u);
  EXPECT_EQ(f.hits[1].doc, 3u) << "the last, undecayed, passes the decayed ones";
  EXPECT_EQ(f.hits[2].doc, 1u);
  EXPECT_EQ(f.hits[3].doc, 2u);
  EXPECT_DOUBLE_EQ(*f.hits[1].base, 1.0 / 64);
  EXPECT_DOUBLE_EQ(*f.hits[3].final_score, 0.125 / 63);
}

}  // namespace ranking_test
}  // namespace
}  // namespace engram::search
