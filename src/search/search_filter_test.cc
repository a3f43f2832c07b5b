// The filter inside retrieval (SEARCH.md §2): pre-filtering returns exactly
// the oracle's best k among the allowed records at every selectivity, post
// filtering keeps the seed's behaviour, and filter impact counts the same
// candidates in both modes (SEARCH.md §3).
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "filter/eval/evaluator.h"
#include "search/filter_impact.h"
#include "search/fusion.h"
#include "search/search.h"
#include "search/test_collection.h"
#include "vector/neighbor.h"

namespace engram::search {
namespace {
namespace search_filter_test {

using testing::CompileFilter;
using testing::Docs;
using testing::ParseText;
using testing::TestCollection;

constexpr std::size_t kN = 1000;
// Allowed counts 1000 .. 1: selectivities 100 % .. 0.1 %.
constexpr std::size_t kAllowed[] = {1000, 500, 100, 30, 10, 3, 1};

const TestCollection& Collection() {
  static const TestCollection c(kN);
  return c;
}

std::string BucketBelow(std::size_t m) {
  return R"({"bucket":{"$lt":)" + std::to_string(m) + "}}";
}

bool Passes(const filter::CompiledFilter& f, std::uint32_t doc) {
  return filter::Evaluate(f.checked.root, *Collection().metadata.Row(doc));
}

// Every allowed record scored, sorted: the text oracle. SearchExhaustive
// over the whole collection, in its order (relaxed bare-word hits after the
// strict ones), then the allowed kept.
std::vector<Hit> TextOracle(const text::DefaultQuery& q, const filter::CompiledFilter& f,
                            std::size_t k) {
  std::vector<Hit> out;
  for (const text::TextHit& h : Collection().text.SearchExhaustive(q, kN)) {
    if (!Passes(f, h.doc) || out.size() == k) continue;
    Hit hit;
    hit.doc = h.doc;
    hit.bm25 = h.score;
    hit.text_rank = out.size() + 1;
    out.push_back(hit);
  }
  return out;
}

// Every allowed record's distance, sorted (Neighbor order): the vector oracle.
std::vector<Hit> VectorOracle(const std::vector<float>& q, const filter::CompiledFilter& f,
                              std::size_t k) {
  const vector::VectorStore& store = Collection().vectors.store();
  const std::vector<float> prepared = store.PrepareQuery(q).value();
  std::vector<vector::Neighbor> all;
  for (std::uint32_t id = 0; id < kN; ++id) {
    if (Passes(f, id)) all.push_back({id, store.Distance(prepared.data(), id)});
  }
  std::sort(all.begin(), all.end());
  std::vector<Hit> out;
  for (std::size_t i = 0; i < std::min(k, all.size()); ++i) {
    Hit hit;
    hit.doc = all[i].id;
    hit.distance = all[i].distance;  // cosine: reported = internal
    hit.vector_rank = i + 1;
    out.push_back(hit);
  }
  return out;
}

std::vector<float> RandomQuery(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> g(0, 1);
  std::vector<float> q(8);
  for (float& x : q) x = g(rng);
  return q;
}

TEST(PreFilter, TextEqualsTheOracleAtEverySelectivity) {
  const char* queries[] = {"alpha", "alpha bravo",   "kiwi fig",       "\"alpha bravo\"",
                           "alp*",  "mango OR lime", "alpha NOT bravo"};
  for (std::size_t m : kAllowed) {
    auto f = CompileFilter(BucketBelow(m));
    for (const char* qs : queries) {
      Request r;
      r.mode = Mode::kText;
      r.query = ParseText(qs);
      r.filter = f.get();
      r.k = 10;
      for (FilterMode mode : {FilterMode::kAuto, FilterMode::kPre}) {
        r.filter_mode = mode;
        auto got = Search(Collection().View(), r);
        ASSERT_TRUE(got.ok()) << got.status().ToString();
        const std::vector<Hit> want = TextOracle(*r.query, *f, r.k);
        ASSERT_EQ(Docs(got.value().hits), Docs(want)) << qs << " allowed " << m;
        for (std::size_t i = 0; i < want.size(); ++i) {
          EXPECT_DOUBLE_EQ(*got.value().hits[i].bm25, *want[i].bm25);
          EXPECT_EQ(got.value().hits[i].text_rank, i + 1);
        }
      }
    }
  }
}

TEST(PreFilter, VectorExactPlanEqualsTheOracleAndThePlannerMeetsARecallFloor) {
  double recall_sum = 0;
  std::size_t cases = 0;
  for (std::size_t m : kAllowed) {
    auto f = CompileFilter(BucketBelow(m));
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
      Request r;
      r.mode = Mode::kVector;
      r.vector = RandomQuery(seed);
      r.filter = f.get();
      r.k = 10;
      const std::vector<Hit> want = VectorOracle(r.vector, *f, r.k);
      r.vector_plan = vector::VectorPlan::kExact;
      auto exact = Search(Collection().View(), r);
      ASSERT_TRUE(exact.ok()) << exact.status().ToString();
      ASSERT_EQ(Docs(exact.value().hits), Docs(want)) << "allowed " << m;
      for (std::size_t i = 0; i < want.size(); ++i) {
        EXPECT_FLOAT_EQ(*exact.value().hits[i].distance, *want[i].distance);
      }
      r.vector_plan.reset();
      auto planned = Search(Collection().View(), r);
      ASSERT_TRUE(planned.ok());
      ASSERT_EQ(planned.value().hits.size(), want.size()) << "never fewer than k: " << m;
      std::set<std::uint32_t> truth;
      for (const Hit& h : want) truth.insert(h.doc);
      std::size_t found = 0;
      for (const Hit& h : planned.value().hits) {
        found += truth.count(h.doc);
        EXPECT_TRUE(Passes(*f, h.doc));
      }
      recall_sum += want.empty() ? 1.0 : static_cast<double>(found) / want.size();
      ++cases;
    }
  }
  EXPECT_GE(recall_sum / static_cast<double>(cases), 0.95);
}

TEST(PreFilter, HybridFusesTheTwoOracleLists) {
  for (std::size_t m : {std::size_t{1000}, std::size_t{50}, std::size_t{5}}) {
    auto f = CompileFilter(BucketBelow(m));
    Request r;
    r.mode = Mode::kHybrid;
    r.query = ParseText("alpha bravo");
    r.vector = RandomQuery(9);
    r.vector_plan = vector::VectorPlan::kExact;
    r.filter = f.get();
    r.k = 10;
    auto got = Search(Collection().View(), r);
    ASSERT_TRUE(got.ok());
    // Each retriever fetched max(k, 60) among the allowed.
    std::vector<Hit> want =
        FuseRrf(TextOracle(*r.query, *f, 60), VectorOracle(r.vector, *f, 60), 60);
    if (want.size() > r.k) want.resize(r.k);
    EXPECT_EQ(Docs(got.value().hits), Docs(want)) << m;
    for (std::size_t i = 0; i < want.size(); ++i) {
      EXPECT_DOUBLE_EQ(got.value().hits[i].score, want[i].score);
    }
  }
}

TEST(PostFilter, DropsAfterCandidateGenerationAndMayReturnFewer) {
  for (std::size_t m : kAllowed) {
    auto f = CompileFilter(BucketBelow(m));
    for (Mode mode : {Mode::kText, Mode::kVector}) {
      Request r;
      r.mode = mode;
      if (mode == Mode::kText) r.query = ParseText("alpha");
      if (mode == Mode::kVector) r.vector = RandomQuery(3);
      r.vector_plan = vector::VectorPlan::kExact;
      r.filter = f.get();
      r.k = 10;
      r.filter_mode = FilterMode::kPre;
      const std::vector<Hit> pre = Search(Collection().View(), r).value().hits;
      r.filter_mode = FilterMode::kPost;
      const std::vector<Hit> post = Search(Collection().View(), r).value().hits;
      // The allowed among the unfiltered candidates are the best allowed: a
      // prefix of pre's list.
      ASSERT_LE(post.size(), pre.size());
      for (std::size_t i = 0; i < post.size(); ++i) EXPECT_EQ(post[i].doc, pre[i].doc) << m;
      if (m == kN) {
        EXPECT_EQ(post.size(), pre.size());
      }
      if (m <= 3) {
        EXPECT_LT(post.size(), r.k) << "the seed's mode starves selective filters";
      }
    }
  }
}

TEST(FilterImpact, SameCandidatesInBothModesAndCountsMatchAnOracle) {
  auto f = CompileFilter(R"({"bucket":{"$lt":500},"section":{"$ne":"a"}})");
  Request r;
  r.mode = Mode::kHybrid;
  r.query = ParseText("alpha bravo");
  r.vector = RandomQuery(5);
  r.vector_plan = vector::VectorPlan::kExact;
  r.filter = f.get();
  r.dialect = filter::Dialect::kVectorFilter;
  r.k = 10;
  r.candidate_k = 20;
  r.impact = true;
  r.filter_mode = FilterMode::kPre;
  const json::Value pre = Search(Collection().View(), r).value().filter_impact;
  r.filter_mode = FilterMode::kPost;
  const json::Value post = Search(Collection().View(), r).value().filter_impact;
  EXPECT_EQ(pre.dump(), post.dump());

  // The candidates: each retriever's 60 (= 3 x 20) best without the filter.
  auto all = CompileFilter(R"({"bucket":{"$gte":0}})");
  std::set<std::uint32_t> candidates;
  for (const Hit& h : TextOracle(*r.query, *all, 60)) candidates.insert(h.doc);
  for (const Hit& h : VectorOracle(r.vector, *all, 60)) candidates.insert(h.doc);
  std::size_t kept = 0, bucket = 0, section = 0;
  for (std::uint32_t d : candidates) {
    const auto& row = *Collection().metadata.Row(d);
    const bool b = std::get<std::int64_t>(row[testing::kBucketSlot]) < 500;
    const bool s = std::get<std::string>(row[testing::kSectionSlot]) != "a";
    kept += b && s;
    bucket += !b;        // the and's first failing child
    section += b && !s;  // $ne lowered to not($eq): reported as written
  }
  EXPECT_EQ(pre["schema"], "search_filter_impact/v1");
  EXPECT_EQ(pre["requested_candidate_k"], 20);
  EXPECT_EQ(pre["effective_candidate_k"], 60);
  EXPECT_EQ(pre["candidate_count_pre"], candidates.size());
  EXPECT_EQ(pre["candidate_count_post"], kept);
  EXPECT_EQ(pre["dropped_total"], candidates.size() - kept);
  ASSERT_EQ(pre["top_drop_reasons"].size(), 2u) << pre.dump();
  EXPECT_EQ(pre["top_drop_reasons"][0]["reason"], "$lt:bucket");
  EXPECT_EQ(pre["top_drop_reasons"][0]["count"], bucket);
  EXPECT_EQ(pre["top_drop_reasons"][1]["reason"], "$ne:section");
  EXPECT_EQ(pre["top_drop_reasons"][1]["count"], section);
  EXPECT_TRUE(pre["filter"].is_object());

  r.impact = false;
  EXPECT_TRUE(Search(Collection().View(), r).value().filter_impact.is_null());
  r.impact = true;
  r.filter = nullptr;
  EXPECT_TRUE(Search(Collection().View(), r).value().filter_impact.is_null()) << "no filter";
}

}  // namespace search_filter_test
}  // namespace
}  // namespace engram::search
