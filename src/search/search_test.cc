// The pipeline end to end on a small collection: request validation, modes,
// hybrid fallback, thresholds, relevance, temporal hints and explain.
#include "search/search.h"

#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "search/test_collection.h"

namespace engram::search {
namespace {
namespace search_test {

using testing::CompileFilter;
using testing::Docs;
using testing::ParseText;
using testing::TestCollection;

const TestCollection& Collection() {
  static const TestCollection c(400);
  return c;
}

std::vector<float> Query(float x = 1) {
  return {x, 0.5f, -0.25f, 0, 1, 0, 0.5f, 0};
}

std::string Error(const CollectionView& c, const Request& r) {
  auto got = Search(c, r);
  if (got.ok()) return "ok";
  EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
  return got.status().message();
}

TEST(Search, RequestErrorsNameTheField) {
  const CollectionView all = Collection().View();
  Request r;
  r.mode = Mode::kVector;
  r.vector = {1, 2, 3};
  EXPECT_EQ(Error(all, r), "vector: expected 8 numbers, got 3");
  r.vector = Query();
  r.k = 0;
  EXPECT_EQ(Error(all, r), "k: must be between 1 and 10000, got 0");
  r.k = 10001;
  EXPECT_EQ(Error(all, r), "k: must be between 1 and 10000, got 10001");
  r.k = 10;
  r.candidate_k = 0;
  EXPECT_EQ(Error(all, r), "candidate_k: must be between 1 and 10000, got 0");
  r.candidate_k.reset();
  r.vector[2] = NAN;
  EXPECT_EQ(Error(all, r).rfind("vector: ", 0), 0u) << Error(all, r);
  r.vector = {};
  EXPECT_EQ(Error(all, r), "vector: mode vector needs a query vector");
  r.vector = Query();
  EXPECT_EQ(Error(Collection().View(true, false), r), "vector: the collection has no vectors");
  r.mode = Mode::kText;
  EXPECT_EQ(Error(all, r), "query: mode text needs a query");
  r.query = ParseText("alpha");
  EXPECT_EQ(Error(Collection().View(false, true), r), "query: the collection has no text fields");
  r.mode = Mode::kHybrid;
  r.query.reset();
  r.vector.clear();
  EXPECT_EQ(Error(all, r), "query: mode hybrid needs a query or a vector");
  r.query = ParseText("alpha");
  r.score_threshold = 1.5;
  EXPECT_EQ(Error(all, r), "score_threshold: must be within [0, 1], got 1.5");
  r.score_threshold.reset();
  r.threshold = 0.5;
  EXPECT_EQ(Error(all, r), "threshold: needs a query vector (the distance is to it)");
  r.threshold = -1;
  EXPECT_EQ(Error(all, r), "threshold: must be a finite distance >= 0, got -1.0");
  r.threshold = 0.5;
  EXPECT_EQ(Error(Collection().View(true, false), r), "threshold: the collection has no vectors");
}

TEST(Search, ThresholdWithDotIsAnError) {
  static const TestCollection dot(50, 8, vector::Metric::kDot);
  Request r;
  r.mode = Mode::kVector;
  r.vector = Query();
  r.threshold = 0.5;
  EXPECT_EQ(Error(dot.View(), r),
            "threshold: a distance threshold is not defined for the dot metric");
  r.threshold.reset();
  auto got = Search(dot.View(), r);
  ASSERT_TRUE(got.ok());
  for (const Hit& h : got.value().hits) {
    EXPECT_DOUBLE_EQ(h.score, -*h.distance) << "dot: score is the inner product";
    EXPECT_GE(h.relevance, 0);
    EXPECT_LE(h.relevance, 1);
  }
}

TEST(Search, HybridFallsBackToTheRetrieverItHasInputFor) {
  Request r;
  r.mode = Mode::kHybrid;
  r.query = ParseText("alpha");
  r.explain = true;
  auto text_only = Search(Collection().View(), r);
  ASSERT_TRUE(text_only.ok());
  EXPECT_EQ(text_only.value().explain["retrievers"].dump(), R"(["text"])");
  EXPECT_EQ(text_only.value().explain["fallback"],
            "hybrid without a vector: the text retriever alone");
  r.mode = Mode::kText;
  EXPECT_EQ(Docs(Search(Collection().View(), r).value().hits), Docs(text_only.value().hits));
  for (const Hit& h : text_only.value().hits) EXPECT_DOUBLE_EQ(h.score, *h.bm25);

  r.mode = Mode::kHybrid;
  r.query.reset();
  r.vector = Query();
  auto vector_only = Search(Collection().View(), r);
  ASSERT_TRUE(vector_only.ok());
  EXPECT_EQ(vector_only.value().explain["retrievers"].dump(), R"(["vector"])");
  EXPECT_FALSE(vector_only.value().explain["fallback"].is_null());
}

TEST(Search, HybridHitsCarryBothSignalsAndRelevanceIsTheLarger) {
  Request r;
  r.mode = Mode::kHybrid;
  r.query = ParseText("alpha bravo");
  r.vector = Query();
  r.k = 30;
  auto got = Search(Collection().View(), r);
  ASSERT_TRUE(got.ok());
  ASSERT_EQ(got.value().hits.size(), 30u);
  const double max_bm25 = [&] {
    Request t = r;
    t.mode = Mode::kText;
    t.explain = true;
    return Search(Collection().View(), t).value().explain["text"]["max_bm25"].get<double>();
  }();
  for (const Hit& h : got.value().hits) {
    ASSERT_TRUE(h.distance.has_value()) << "every record has a vector";
    EXPECT_TRUE(h.text_rank || h.vector_rank);
    double want = std::max(0.0, 1 - *h.distance);
    if (h.bm25) want = std::max(want, *h.bm25 / max_bm25);
    EXPECT_NEAR(h.relevance, want, 1e-12);
    EXPECT_GE(h.relevance, 0);
    EXPECT_LE(h.relevance, 1);
  }
}

TEST(Search, ThresholdsCutAfterTopK) {
  Request r;
  r.mode = Mode::kVector;
  r.vector = Query();
  r.k = 20;
  const std::vector<Hit> all = Search(Collection().View(), r).value().hits;
  ASSERT_EQ(all.size(), 20u);
  const double cut = *all[9].distance;
  r.threshold = cut;
  const std::vector<Hit> kept = Search(Collection().View(), r).value().hits;
  EXPECT_EQ(kept.size(), 10u) << "distance <= threshold is kept";
  r.threshold.reset();
  r.score_threshold = all[4].relevance;
  EXPECT_EQ(Search(Collection().View(), r).value().hits.size(), 5u);
  // Text mode with a vector: distances of the text hits are computed, so the
  // distance cut applies; relevance stays the text relevance.
  r = Request();
  r.mode = Mode::kText;
  r.query = ParseText("alpha");
  r.vector = Query();
  r.threshold = 0.8;
  auto text = Search(Collection().View(), r);
  ASSERT_TRUE(text.ok());
  for (const Hit& h : text.value().hits) {
    ASSERT_TRUE(h.distance.has_value());
    EXPECT_LE(*h.distance, 0.8);
    EXPECT_FALSE(h.vector_rank.has_value());
  }
}

TEST(Search, L2DistancesAreEuclidean) {
  static const TestCollection l2(60, 8, vector::Metric::kL2);
  Request r;
  r.mode = Mode::kVector;
  r.vector = Query();
  r.k = 5;
  auto got = Search(l2.View(), r);
  ASSERT_TRUE(got.ok());
  for (const Hit& h : got.value().hits) {
    double sq = 0;
    for (std::size_t d = 0; d < 8; ++d) {
      const double diff = l2.vector_data[h.doc * 8 + d] - r.vector[d];
      sq += diff * diff;
    }
    EXPECT_NEAR(*h.distance, std::sqrt(sq), 1e-4);
    EXPECT_DOUBLE_EQ(h.relevance, 1 / (1 + *h.distance));
  }
}

TEST(Search, TemporalHintsRerankOnlyWithATimeField) {
  // "3 days ago" from 2026-03-01 is around 2026-02-26; record times are
  // 2026-01-01 .. 2026-02-28 for even records (odd ones have none).
  Request r;
  r.mode = Mode::kText;
  r.query = ParseText("alpha 3 days ago", {2026, 3, 1});
  ASSERT_EQ(r.query->hints.size(), 1u);
  r.k = 10;
  r.explain = true;
  auto boosted = Search(Collection().View(), r);
  ASSERT_TRUE(boosted.ok());
  CollectionView untimed = Collection().View();
  untimed.time_slot.reset();
  auto plain = Search(untimed, r);
  ASSERT_TRUE(plain.ok());
  EXPECT_TRUE(plain.value().explain["temporal"].is_null());
  EXPECT_EQ(boosted.value().explain["temporal"]["time_field"], "when");
  EXPECT_NE(Docs(boosted.value().hits), Docs(plain.value().hits));
  for (const Hit& h : boosted.value().hits) ASSERT_TRUE(h.boost.has_value());
  // The top hits are dated near the day: at least as close as plain's on average.
  EXPECT_GT(*boosted.value().hits[0].boost, 1.5);

  r.query = ParseText("the first alpha", {2026, 3, 1});
  auto first = Search(Collection().View(), r);
  ASSERT_TRUE(first.ok());
  const auto& hits = first.value().hits;
  for (std::size_t i = 1; i < hits.size(); ++i) {
    const auto& a = (*Collection().metadata.Row(hits[i - 1].doc))[testing::kWhenSlot];
    const auto& b = (*Collection().metadata.Row(hits[i].doc))[testing::kWhenSlot];
    if (std::holds_alternative<Datetime>(b)) {
      ASSERT_TRUE(std::holds_alternative<Datetime>(a)) << "untimed records last";
      EXPECT_LE(std::get<Datetime>(a), std::get<Datetime>(b)) << "earliest first";
    }
  }
}

TEST(Search, ExplainShowsQueryFilterPlanCountsAndTimings) {
  auto f = CompileFilter(R"({"bucket":{"$lt":40},"section":{"$ne":"b"}})");
  Request r;
  r.mode = Mode::kHybrid;
  r.query = ParseText("alpha OR bravo");
  r.vector = Query();
  r.filter = f.get();
  r.k = 5;
  r.explain = true;
  auto got = Search(Collection().View(), r);
  ASSERT_TRUE(got.ok());
  const json::Value& ex = got.value().explain;
  EXPECT_EQ(ex["mode"], "hybrid");
  EXPECT_EQ(ex["query"]["compact"], "(or alpha bravo)");
  EXPECT_EQ(ex["filter"]["mode"], "pre");
  EXPECT_NE(ex["filter"]["mode_reason"].get<std::string>().find("auto chose pre"),
            std::string::npos);
  const std::size_t allowed = Collection().metadata.Evaluate(f->optimized.root).cardinality();
  ASSERT_GT(allowed, 5u);
  ASSERT_LT(allowed, 40u);
  EXPECT_EQ(ex["filter"]["allowed"], allowed);
  EXPECT_TRUE(ex["filter"]["checked"].is_object());
  EXPECT_TRUE(ex["filter"]["optimized_sexpr"].is_string());
  EXPECT_GT(ex["filter"]["estimate"].get<double>(), 0);
  EXPECT_TRUE(ex["vector"]["plan"].is_string());
  EXPECT_EQ(ex["vector"]["allowed"], allowed);
  EXPECT_TRUE(ex["text"]["postings_scored"].is_number());
  EXPECT_EQ(ex["fusion"]["rrf_k"], 60);
  ASSERT_EQ(ex["fusion"]["hits"].size(), 5u);
  for (std::size_t i = 0; i < 5; ++i) {
    const json::Value& e = ex["fusion"]["hits"][i];
    EXPECT_EQ(e["doc"], got.value().hits[i].doc);
    EXPECT_NEAR(e["text"].get<double>() + e["vector"].get<double>(), e["score"].get<double>(),
                1e-12);
  }
  EXPECT_EQ(ex["counts"]["retrieved"]["vector"], allowed) << "fetch 60 > allowed";
  EXPECT_EQ(ex["counts"]["top_k"], 5);
  EXPECT_EQ(ex["counts"]["after_thresholds"], 5);
  for (const char* stage :
       {"validate", "filter", "retrieve", "fusion", "signals", "thresholds", "total"}) {
    EXPECT_TRUE(ex["timings_us"][stage].is_number()) << stage;
  }
  r.explain = false;
  EXPECT_TRUE(Search(Collection().View(), r).value().explain.is_null());
}

TEST(Search, EmptyCollectionAndEmptyQueryGiveNoHits) {
  static const TestCollection empty(0);
  Request r;
  r.mode = Mode::kHybrid;
  r.query = ParseText("alpha");
  r.vector = Query();
  auto got = Search(empty.View(), r);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_TRUE(got.value().hits.empty());
  r.mode = Mode::kText;
  r.query = ParseText("the");  // a stopword only
  got = Search(Collection().View(), r);
  ASSERT_TRUE(got.ok());
  EXPECT_TRUE(got.value().hits.empty());
}

}  // namespace search_test
}  // namespace
}  // namespace engram::search
