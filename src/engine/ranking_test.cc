// Ranking by recency and importance through the engine (engine.h,
// DecaySpec): a fixed clock, hand-computed final scores, the floor,
// score_threshold on the undecayed relevance, hybrid hits ranked on their
// fused score, one clock for decay and expiry, collection defaults that
// survive reopening, and located errors.
#include <chrono>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/testing/test_clock.h"
#include "engram/engine.h"

namespace engram {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSchema = R"({"fields":[
  {"name":"at","type":"datetime","optional":true},
  {"name":"importance","type":"float","optional":true},
  {"name":"kind","type":"string","default":"note"},
  {"name":"until","type":"datetime","optional":true}]})";

// The fixed clock: 2026-04-01T00:00:00Z.
std::chrono::system_clock::time_point FixedNow() {
  return std::chrono::system_clock::time_point(std::chrono::seconds(1775001600));
}

class RankingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("engram_ranking_test_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    clock_.Set(FixedNow());
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::unique_ptr<Engine> Open() {
    StatusOr<std::unique_ptr<Engine>> e = Engine::Open(dir_.string(), clock_.Options());
    EXPECT_TRUE(e.ok()) << e.status().message();
    return e.ok() ? std::move(e).value() : nullptr;
  }

  static CollectionSpec Spec() {
    return CollectionSpec{
        "memos", SchemaRef::Parse(kSchema).value(), {{"content", 1.0}}, 0, "cosine", "none", ""};
  }

  static void Put(Engine& e, const std::vector<std::string>& records) {
    std::vector<std::string_view> views(records.begin(), records.end());
    StatusOr<WriteResult> w = e.Upsert("memos", views);
    ASSERT_TRUE(w.ok()) << w.status().message();
    ASSERT_FALSE(w->rejected) << w->rejected->message;
  }

  // Three records with the same text (equal BM25, so equal relevance):
  // "old" 30 days before the clock with importance 2, "mid" 10 days before,
  // "new" on the clock; and "plain" with other text and no time.
  static void Fill(Engine& e) {
    if (!e.DescribeCollection("memos").ok()) {
      ASSERT_TRUE(e.CreateCollection(Spec()).ok());
    }
    Put(e, {R"({"id":"old","content":"river trade","at":"2026-03-02T00:00:00Z","importance":2})",
            R"({"id":"mid","content":"river trade","at":"2026-03-22T00:00:00Z"})",
            R"({"id":"new","content":"river trade","at":"2026-04-01T00:00:00Z","importance":0})",
            R"({"id":"plain","content":"river","kind":"other"})"});
  }

  static SearchResponse Search(const Engine& e, SearchRequest r) {
    StatusOr<SearchResponse> s = e.Search("memos", r);
    EXPECT_TRUE(s.ok()) << s.status().message();
    return s.ok() ? *s : SearchResponse{};
  }

  static std::string Ids(const SearchResponse& s) {
    std::string ids;
    for (const SearchHit& h : s.hits) ids += h.id + " ";
    return ids;
  }

  fs::path dir_;
  // The engine's clock (read by its maintenance thread too).
  testing::TestClock clock_;
};

SearchRequest Query(const char* text) {
  SearchRequest r;
  r.query = text;
  r.k = 10;
  return r;
}

const SearchHit* HitOf(const SearchResponse& s, const std::string& id) {
  for (const SearchHit& h : s.hits) {
    if (h.id == id) return &h;
  }
  return nullptr;
}

TEST_F(RankingTest, OffByDefault) {
  auto e = Open();
  ASSERT_NO_FATAL_FAILURE(Fill(*e));
  const SearchResponse s = Search(*e, Query("river trade"));
  ASSERT_EQ(s.hits.size(), 4u);
  for (const SearchHit& h : s.hits) {
    EXPECT_FALSE(h.decay || h.boost || h.final_score) << h.id;
  }
}

TEST_F(RankingTest, DecayWithAFixedClockAndTheFloor) {
  auto e = Open();
  ASSERT_NO_FATAL_FAILURE(Fill(*e));
  SearchRequest r = Query("river trade");
  r.decay = ParseDecay("at:exp:10d:0d:0.2").value();
  r.explain = true;
  const SearchResponse s = Search(*e, r);
  ASSERT_FALSE(s.rejected) << s.rejected->message;
  ASSERT_EQ(s.hits.size(), 4u);
  // exp with scale 10 days: new 1, mid (10 days) 0.5, old (30 days) 0.125
  // under the floor 0.2; plain has no time: 1.
  const SearchHit* fresh = HitOf(s, "new");
  const SearchHit* mid = HitOf(s, "mid");
  const SearchHit* old = HitOf(s, "old");
  const SearchHit* plain = HitOf(s, "plain");
  ASSERT_TRUE(fresh && mid && old && plain);
  EXPECT_DOUBLE_EQ(*fresh->decay, 1.0);
  EXPECT_NEAR(*mid->decay, 0.5, 1e-12);
  EXPECT_DOUBLE_EQ(*old->decay, 0.2) << "the floor";
  EXPECT_DOUBLE_EQ(*plain->decay, 1.0);
  for (const SearchHit& h : s.hits) {
    EXPECT_NEAR(*h.final_score, h.relevance * *h.decay, 1e-12) << h.id;
    EXPECT_FALSE(h.boost) << "no boost asked";
  }
  EXPECT_EQ(s.hits[0].id, "new");
  EXPECT_EQ(s.hits[1].id, "mid");
  EXPECT_EQ(s.hits[3].id, "old") << "below plain, which has no time and does not decay";
  for (std::size_t i = 1; i < s.hits.size(); ++i) {
    EXPECT_GE(*s.hits[i - 1].final_score, *s.hits[i].final_score);
  }
  EXPECT_NE(s.explain.find(R"("origin":"2026-04-01T00:00:00Z")"), std::string::npos) << s.explain;
  EXPECT_NE(s.explain.find(R"("formula":"final_score = base * decay * boost")"), std::string::npos);
}

TEST_F(RankingTest, BoostAndDecayTogether) {
  auto e = Open();
  ASSERT_NO_FATAL_FAILURE(Fill(*e));
  SearchRequest r = Query("river trade");
  r.decay = ParseDecay("at:linear:20d").value();   // s = 40 days: mid 0.75, old 0.25
  r.boost = ParseBoost("importance:1.5").value();  // old 1 + 1.5 * 2 = 4
  const SearchResponse s = Search(*e, r);
  ASSERT_EQ(s.hits.size(), 4u);
  const SearchHit* old = HitOf(s, "old");
  ASSERT_TRUE(old);
  EXPECT_NEAR(*old->decay, 0.25, 1e-12);
  EXPECT_DOUBLE_EQ(*old->boost, 4.0);
  EXPECT_NEAR(*old->final_score, old->relevance, 1e-12) << "0.25 * 4 = 1";
  EXPECT_EQ(Ids(s).substr(0, 8), "old new ") << "tied at 1: the retrieval order (record number)";
  EXPECT_DOUBLE_EQ(*s.hits[0].final_score, *s.hits[1].final_score);
  EXPECT_NEAR(*HitOf(s, "mid")->final_score, 0.75 * HitOf(s, "mid")->relevance, 1e-12);
}

TEST_F(RankingTest, ScoreThresholdComparesTheUndecayedRelevance) {
  auto e = Open();
  ASSERT_NO_FATAL_FAILURE(Fill(*e));
  SearchRequest plain = Query("river trade");
  const SearchResponse unranked = Search(*e, plain);
  const double top = unranked.hits[0].relevance;
  SearchRequest r = plain;
  r.decay = ParseDecay("at:gauss:1d::0").value();
  r.score_threshold = top;  // keeps the three equal-text records whatever their decay
  const SearchResponse s = Search(*e, r);
  EXPECT_EQ(Ids(s), "new mid old ");
  EXPECT_LT(*HitOf(s, "old")->final_score, 1e-100) << "decayed far below the threshold";
}

TEST_F(RankingTest, CollectionDefaultSurvivesReopenAndCanBeSwitchedOff) {
  {
    auto e = Open();
    CollectionSpec spec = Spec();
    spec.decay = ParseDecay("at:exp:10d:0s:0.2").value();
    spec.boost = ParseBoost("importance:0.5").value();
    ASSERT_TRUE(e->CreateCollection(spec).ok());
    ASSERT_NO_FATAL_FAILURE(Fill(*e));
  }
  auto e = Open();
  StatusOr<CollectionInfo> info = e->DescribeCollection("memos");
  ASSERT_TRUE(info.ok());
  ASSERT_TRUE(info->spec.decay && info->spec.boost);
  EXPECT_EQ(DecayText(*info->spec.decay), "at:exp:864000.0s:0.0s:0.2");
  EXPECT_EQ(BoostText(*info->spec.boost), "importance:0.5");
  const SearchResponse s = Search(*e, Query("river trade"));
  const SearchHit* old = HitOf(s, "old");
  ASSERT_TRUE(old && old->decay && old->boost);
  EXPECT_DOUBLE_EQ(*old->decay, 0.2);
  EXPECT_DOUBLE_EQ(*old->boost, 2.0);
  // A named retrieve configuration ranks by the defaults too.
  ASSERT_TRUE(
      e->PutRetrieve({"all", "memos", FilterDialect::kRetrieve, "", 10, 0, SearchMode::kText})
          .ok());
  StatusOr<SearchResponse> retrieved = e->Retrieve("all", "river trade");
  ASSERT_TRUE(retrieved.ok()) << retrieved.status().message();
  const SearchHit* old_retrieved = HitOf(*retrieved, "old");
  ASSERT_TRUE(old_retrieved && old_retrieved->decay && old_retrieved->boost);
  EXPECT_DOUBLE_EQ(*old_retrieved->final_score, *old->final_score);
  SearchRequest off = Query("river trade");
  off.decay = ParseDecay("off").value();
  const SearchResponse no_decay = Search(*e, off);
  EXPECT_FALSE(HitOf(no_decay, "old")->decay) << "the default decay is off";
  EXPECT_TRUE(HitOf(no_decay, "old")->boost) << "the default boost stays";
}

TEST_F(RankingTest, LocatedErrors) {
  auto e = Open();
  ASSERT_NO_FATAL_FAILURE(Fill(*e));
  SearchRequest r = Query("river");
  r.decay = ParseDecay("kind:exp:1d").value();
  SearchResponse s = Search(*e, r);
  ASSERT_TRUE(s.rejected);
  EXPECT_EQ(s.rejected->path, "decay");
  EXPECT_NE(s.rejected->message.find("'kind' is not a datetime field"), std::string::npos);
  r = Query("river");
  r.boost = ParseBoost("at").value();
  s = Search(*e, r);
  ASSERT_TRUE(s.rejected);
  EXPECT_EQ(s.rejected->path, "boost");
  SearchRequest listing;
  listing.decay = ParseDecay("at:exp:1d").value();
  s = Search(*e, listing);
  ASSERT_TRUE(s.rejected);
  EXPECT_EQ(s.rejected->path, "decay");
  EXPECT_FALSE(ParseDecay("at:cubic:1d").ok());
  EXPECT_FALSE(ParseDecay("at:exp:0d").ok());
  EXPECT_FALSE(ParseDecay("at:exp:10").ok()) << "a duration needs a unit";
  EXPECT_FALSE(ParseDecay("at:exp:1d:1d:1.5").ok()) << "floor above 1";
  EXPECT_FALSE(ParseBoost("importance:-1").ok());
  EXPECT_NE(ParseDecay("at:exp:1y").status().message().find("scale '1y'"), std::string::npos);
  CollectionSpec bad = Spec();
  bad.name = "bad";
  bad.decay = ParseDecay("kind:exp:1d").value();
  EXPECT_EQ(e->CreateCollection(bad).code(), StatusCode::kInvalidArgument);
}

// The re-ranked pool is the candidate depth: a record past it is never
// ranked in, whatever its decay (README "Ranking").
TEST_F(RankingTest, CandidateDepthBoundsThePool) {
  auto e = Open();
  ASSERT_TRUE(e->CreateCollection(Spec()).ok());
  std::vector<std::string> records;
  // 5 old records that match the query strongly, 1 new weak match.
  for (int i = 0; i < 5; ++i) {
    records.push_back(R"({"id":"strong)" + std::to_string(i) +
                      R"(","content":"salt salt salt","at":"2025-01-01T00:00:00Z"})");
  }
  records.push_back(
      R"({"id":"weak","content":"salt mill tower bridge","at":"2026-04-01T00:00:00Z"})");
  std::vector<std::string_view> views(records.begin(), records.end());
  ASSERT_TRUE(e->Upsert("memos", views).ok());
  SearchRequest r = Query("salt");
  r.k = 1;
  r.decay = ParseDecay("at:exp:1d:0s:0.01").value();
  EXPECT_EQ(Ids(Search(*e, r)), "weak ") << "the default depth (100) holds every record";
  r.candidate_k = 5;
  EXPECT_EQ(Ids(Search(*e, r)).substr(0, 6), "strong") << "weak is 6th: outside a depth of 5";
}

// Hybrid (text and vector): the factors multiply the fused score that
// ordered the hits, not their relevance (the larger of the two sides'), so
// factors of 1 keep the fusion's order; convex fusion over z-scores (which
// can be negative) multiplies the fused rank's 1 / (rrf_k + position).
TEST_F(RankingTest, HybridMultipliesTheFusedScore) {
  auto e = Open();
  CollectionSpec spec = Spec();
  spec.vector_dim = 2;
  ASSERT_TRUE(e->CreateCollection(spec).ok());
  ASSERT_NO_FATAL_FAILURE(Put(
      *e, {R"({"id":"old","content":"river trade","at":"2026-03-02T00:00:00Z","vector":[1,0]})",
           R"({"id":"mid","content":"river trade","at":"2026-03-22T00:00:00Z","vector":[0.8,0.6]})",
           R"({"id":"new","content":"river","at":"2026-04-01T00:00:00Z","vector":[0,1]})",
           R"({"id":"plain","content":"trade","vector":[0.6,0.8]})"}));
  SearchRequest plain = Query("river trade");
  plain.vector = std::vector<float>{1, 0};
  for (const char* fusion : {"rrf", "weighted_rrf:text=1,vector=3", "convex:alpha=0.5"}) {
    plain.fusion = ParseFusion(fusion).value();
    const SearchResponse unranked = Search(*e, plain);
    ASSERT_EQ(unranked.hits.size(), 4u) << fusion;
    SearchRequest r = plain;
    r.boost = ParseBoost("importance:0").value();  // every factor 1
    r.explain = true;
    const SearchResponse same = Search(*e, r);
    EXPECT_EQ(Ids(same), Ids(unranked)) << fusion << ": factors of 1 keep the fused order";
    EXPECT_NE(same.explain.find(R"("base":"fused_score")"), std::string::npos) << fusion;
    r.decay = ParseDecay("at:exp:10d").value();
    const SearchResponse s = Search(*e, r);
    ASSERT_EQ(s.hits.size(), 4u) << fusion;
    for (std::size_t i = 0; i < s.hits.size(); ++i) {
      const SearchHit& h = s.hits[i];
      EXPECT_NEAR(*h.final_score, h.score * *h.decay, 1e-12) << fusion << ' ' << h.id;
      EXPECT_DOUBLE_EQ(h.score, HitOf(unranked, h.id)->score) << "the fused score is unchanged";
      if (i > 0) {
        EXPECT_GE(*s.hits[i - 1].final_score, *h.final_score) << fusion;
      }
    }
  }
  plain.fusion = ParseFusion("convex:alpha=0.5,normalization=z_score").value();
  const SearchResponse unranked = Search(*e, plain);
  SearchRequest r = plain;
  r.decay = ParseDecay("at:exp:10d").value();
  r.explain = true;
  const SearchResponse s = Search(*e, r);
  EXPECT_NE(s.explain.find(R"("base":"fused_rank")"), std::string::npos);
  ASSERT_EQ(s.hits.size(), unranked.hits.size());
  for (std::size_t position = 1; position <= unranked.hits.size(); ++position) {
    const SearchHit* h = HitOf(s, unranked.hits[position - 1].id);
    ASSERT_TRUE(h);
    EXPECT_NEAR(*h->final_score, *h->decay / (60.0 + position), 1e-12) << h->id;
  }
}

// One clock (Engine::Options::clock) for decay and expiry: moving it ages
// every record, and a record is gone from the instant of its TTL value.
TEST_F(RankingTest, OneClockForDecayAndExpiry) {
  auto e = Open();
  CollectionSpec spec = Spec();
  spec.ttl_field = "until";
  ASSERT_TRUE(e->CreateCollection(spec).ok());
  ASSERT_NO_FATAL_FAILURE(Put(
      *e,
      {R"({"id":"new","content":"salt","at":"2026-04-01T00:00:00Z","until":"2026-04-06T00:00:00Z"})",
       R"({"id":"old","content":"salt","at":"2026-03-22T00:00:00Z"})"}));
  SearchRequest r = Query("salt");
  r.decay = ParseDecay("at:exp:10d").value();
  SearchResponse s = Search(*e, r);
  ASSERT_EQ(Ids(s), "new old ");
  EXPECT_DOUBLE_EQ(*s.hits[0].decay, 1.0);
  EXPECT_NEAR(*s.hits[1].decay, 0.5, 1e-12);
  clock_.Advance(std::chrono::hours(120));  // 2026-04-06T00:00:00Z: new's TTL value
  s = Search(*e, r);
  ASSERT_EQ(Ids(s), "old ") << "expired at that instant";
  EXPECT_NEAR(*s.hits[0].decay, std::pow(0.5, 1.5), 1e-12) << "15 days old now";
}

}  // namespace
}  // namespace engram
