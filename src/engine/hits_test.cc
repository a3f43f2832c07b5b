// Recall statistics through the engine (CollectionSpec::hit_count_field,
// last_hit_field; hit_tally.h): searches tally their returned hits without
// writing, FlushHits (and the maintenance, and closing) writes them as
// metadata-only touches, per record, within the caller's scope, under
// concurrent searches, within the tally's bound, across reopening.
#include <atomic>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "base/json.h"
#include "engine/hit_tally.h"
#include "engine/testing/test_clock.h"
#include "engram/engine.h"

namespace engram {
namespace {

namespace fs = std::filesystem;

std::string Note(const std::string& id, const std::string& agent, const std::string& content,
                 int n = 0) {
  return R"({"id":")" + id + R"(","content":")" + content +
         R"(","type":"fact","scope":"agent_private","agent_id":")" + agent +
         R"(","importance":0.5,"confidence":0.9,"updated_at":"2026-01-01T00:00:00Z","n":)" +
         std::to_string(n) + R"(,"vector":[1,)" + std::to_string(n % 7) + ",1]}";
}

TEST(HitTally, BoundedAndMerging) {
  engine::HitTally tally;
  const Datetime t1{1}, t2{2};
  tally.Add({"a", "b", "a"}, t1);
  tally.Add({"a"}, t2);
  EXPECT_EQ(tally.pending(), 2u);
  EXPECT_EQ(tally.tallied(), 4u);
  engine::HitTally::Taken taken = tally.Take(10);
  ASSERT_EQ(taken.size(), 2u);
  EXPECT_EQ(tally.pending(), 0u);
  for (const auto& [key, entry] : taken) {
    EXPECT_EQ(entry.count, key == "a" ? 3u : 1u) << key;
    EXPECT_EQ(entry.last, key == "a" ? t2 : t1) << key;
  }
  // A failed write puts them back, merged with what came meanwhile.
  tally.Add({"a"}, t1);
  tally.Restore(std::move(taken));
  taken = tally.Take(1);
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_EQ(tally.pending(), 1u) << "Take gives at most what it is asked";
  // The bound: new records past kMaxPendingHitRecords are dropped and counted;
  // records already tallied still count.
  engine::HitTally full;
  std::vector<std::string> keys;
  for (std::size_t i = 0; i < kMaxPendingHitRecords + 5; ++i) keys.push_back(std::to_string(i));
  full.Add(keys, t1);
  EXPECT_EQ(full.pending(), kMaxPendingHitRecords);
  EXPECT_EQ(full.dropped(), 5u);
  full.Add({"0", "new"}, t2);
  EXPECT_EQ(full.dropped(), 6u);
  EXPECT_EQ(full.tallied(), kMaxPendingHitRecords + 1);
  EXPECT_EQ(full.Take(kMaxHitBatch).size(), kMaxHitBatch);
}

class HitsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("engram_hits_test_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    clock_.Set("2026-03-01T12:00:00Z");
  }
  void TearDown() override {
    engine_.reset();
    fs::remove_all(dir_);
  }

  // `interval_ms` 0: only FlushHits and closing write hits.
  void Open(std::uint64_t interval_ms = 0) {
    engine_.reset();
    Engine::Options options = clock_.Options();
    options.hit_flush_interval_ms = interval_ms;
    StatusOr<std::unique_ptr<Engine>> e = Engine::Open(dir_.string(), options);
    ASSERT_TRUE(e.ok()) << e.status().message();
    engine_ = std::move(e).value();
  }
  void Create() {
    // preset:notes with an int field `n` for filters.
    std::string schema = R"({"fields":[)"
                         R"({"name":"type","type":"string","required":true},)"
                         R"({"name":"scope","type":"string","required":true},)"
                         R"({"name":"agent_id","type":"string","required":true},)"
                         R"({"name":"importance","type":"float","required":true},)"
                         R"({"name":"confidence","type":"float","required":true},)"
                         R"({"name":"updated_at","type":"datetime","required":true},)"
                         R"({"name":"n","type":"int","required":true},)"
                         R"({"name":"hit_count","type":"int","default":0},)"
                         R"({"name":"last_hit_at","type":"datetime","optional":true}]})";
    CollectionSpec spec{
        "notes",     SchemaRef::Parse(schema).value(), {{"content", 1.0}}, 3, "cosine", "en",
        "updated_at"};
    spec.hit_count_field = "hit_count";
    spec.last_hit_field = "last_hit_at";
    spec.dedup = ParseDedup("exact").value();
    ASSERT_TRUE(engine_->CreateCollection(spec).ok());
  }
  void Put(const std::vector<std::string>& records) {
    std::vector<std::string_view> views(records.begin(), records.end());
    StatusOr<WriteResult> w = engine_->Upsert("notes", views);
    ASSERT_TRUE(w.ok()) << w.status().message();
    ASSERT_FALSE(w->rejected) << w->rejected->message;
  }
  std::vector<std::string> Search(const std::string& query, std::optional<Scope> scope = {},
                                  std::size_t k = 10, std::string filter = "") {
    SearchRequest r;
    r.query = query;
    r.mode = SearchMode::kText;
    r.scope = std::move(scope);
    r.k = k;
    r.filter = std::move(filter);
    StatusOr<SearchResponse> found = engine_->Search("notes", r);
    std::vector<std::string> ids;
    EXPECT_TRUE(found.ok()) << found.status().message();
    if (!found.ok()) return ids;
    EXPECT_FALSE(found->rejected) << found->rejected->message;
    for (const SearchHit& h : found->hits) ids.push_back(h.id);
    return ids;
  }
  // The record's hit count and last hit as stored ("" when absent).
  std::pair<std::int64_t, std::string> Hits(const std::string& id, const std::string& agent) {
    StatusOr<std::optional<std::string>> got = engine_->Get("notes", id, std::nullopt, agent);
    if (!got.ok() || !got->has_value()) return {-1, "(none)"};
    const json::Value body = json::Read(**got, json::ReadOptions{}).value;
    return {body.value("hit_count", std::int64_t{0}), body.value("last_hit_at", std::string())};
  }
  std::uint64_t CountWhere(const std::string& filter) {
    RecordSelection s;
    s.filter = filter;
    StatusOr<CountResponse> c = engine_->Count("notes", s);
    EXPECT_TRUE(c.ok() && !c->rejected);
    return c.ok() ? c->count : 0;
  }

  fs::path dir_;
  testing::TestClock clock_;
  std::unique_ptr<Engine> engine_;
};

TEST_F(HitsTest, SearchesTallyAndFlushWritesPerRecord) {
  Open();
  Create();
  Put({Note("a1", "alice", "salt from the mill"), Note("a2", "alice", "salt and pepper"),
       Note("a3", "alice", "bread")});
  EXPECT_EQ(Search("salt").size(), 2u);
  // The search wrote nothing: the tally waits for a flush.
  EXPECT_EQ(Hits("a1", "alice"), (std::pair<std::int64_t, std::string>{0, ""}));
  EXPECT_EQ(engine_->DescribeCollection("notes")->hits_tallied, 2u);
  ASSERT_TRUE(engine_->FlushHits().ok());
  EXPECT_EQ(Hits("a1", "alice"), (std::pair<std::int64_t, std::string>{1, "2026-03-01T12:00:00Z"}));
  EXPECT_EQ(Hits("a2", "alice"), (std::pair<std::int64_t, std::string>{1, "2026-03-01T12:00:00Z"}));
  EXPECT_EQ(Hits("a3", "alice"), (std::pair<std::int64_t, std::string>{0, ""})) << "not returned";
  clock_.Set("2026-03-02T08:30:00Z");
  Search("mill");
  Search("mill");
  ASSERT_TRUE(engine_->FlushHits().ok());
  EXPECT_EQ(Hits("a1", "alice"), (std::pair<std::int64_t, std::string>{3, "2026-03-02T08:30:00Z"}));
  EXPECT_EQ(Hits("a2", "alice").first, 1);
  // The hit fields are metadata like any other: filters see them at once.
  EXPECT_EQ(CountWhere(R"({"hit_count":{"$gte":2}})"), 1u);
  // Reads other than searches are no recall.
  ListRequest list;
  ASSERT_TRUE(engine_->List("notes", list).ok());
  ASSERT_TRUE(engine_->FlushHits().ok());
  EXPECT_EQ(Hits("a3", "alice").first, 0);
}

// A hit write touches metadata only: the record keeps its text, vector and
// dedup identity, and the index snapshots stay valid (nothing is indexed
// again on reopen).
TEST_F(HitsTest, WritesAreMetadataOnlyAndSurviveReopen) {
  Open();
  Create();
  Put({Note("a1", "alice", "salt from the mill", 3), Note("a2", "alice", "bread", 5)});
  ASSERT_TRUE(engine_->Checkpoint("notes").ok());
  SearchRequest near;
  near.vector = std::vector<float>{1, 3, 1};
  near.mode = SearchMode::kVector;
  near.k = 1;
  const double distance = engine_->Search("notes", near)->hits.at(0).distance.value();
  Search("salt");
  ASSERT_TRUE(engine_->FlushHits().ok());
  const StatusOr<SearchResponse> again = engine_->Search("notes", near);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->hits.at(0).id, "a1");
  EXPECT_DOUBLE_EQ(again->hits.at(0).distance.value(), distance);
  EXPECT_EQ(Search("mill"), std::vector<std::string>{"a1"}) << "the text is indexed as before";
  // Pending hits of the last searches are written on close.
  Search("salt");
  Open();
  EXPECT_EQ(engine_->recovery().replayed, 0u) << "a touch leaves the snapshots valid";
  // Two vector searches, "salt" twice, "mill".
  EXPECT_EQ(Hits("a1", "alice").first, 5);
  EXPECT_EQ(Hits("a2", "alice").first, 0);
  // Its content is still what dedup compares.
  std::vector<std::string> copy = {Note("a9", "alice", "SALT from the mill")};
  std::vector<std::string_view> views(copy.begin(), copy.end());
  StatusOr<WriteResult> w = engine_->Upsert("notes", views);
  ASSERT_TRUE(w.ok());
  ASSERT_EQ(w->deduplicated.size(), 1u);
  EXPECT_EQ(w->deduplicated[0].duplicate_of, "a1");
}

// A scoped search tallies its caller's own records only: bob's shared note
// that alice finds keeps the count of bob's (and unscoped) searches, so
// that nobody's searches, which their private records shape, change what
// another's records say.
TEST_F(HitsTest, HitsStayWithinTheCallersOwnRecords) {
  Open();
  Create();
  std::string shared = Note("b2", "bob", "the river bank");
  shared.replace(shared.find("agent_private"), 13, "org_shared");
  Put({Note("a1", "alice", "the river"), Note("b1", "bob", "the river"), shared});
  const Scope alice{"alice", ReadProfile::kAllScopes};
  EXPECT_EQ(Search("river", alice), (std::vector<std::string>{"a1", "b2"}));
  ASSERT_TRUE(engine_->FlushHits().ok());
  EXPECT_EQ(Hits("a1", "alice").first, 1);
  EXPECT_EQ(Hits("b1", "bob").first, 0) << "not alice's to read";
  EXPECT_EQ(Hits("b2", "bob").first, 0) << "alice's search, bob's record";
  EXPECT_EQ(Search("bank", Scope{"bob", ReadProfile::kAllScopes}), std::vector<std::string>{"b2"});
  Search("bank");  // unscoped: the store's owner
  ASSERT_TRUE(engine_->FlushHits().ok());
  EXPECT_EQ(Hits("b2", "bob").first, 2);
}

// Searches from several threads at once: every returned hit is counted once.
TEST_F(HitsTest, ConcurrentSearchesCountEveryHit) {
  Open();
  Create();
  Put({Note("a1", "alice", "salt"), Note("a2", "alice", "salt mill"), Note("a3", "alice", "mill")});
  constexpr int kThreads = 4, kSearches = 40;
  std::atomic<int> salt_hits{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kSearches; ++i) {
        salt_hits += static_cast<int>(Search(i % 2 == 0 ? "salt" : "mill").size());
        if (t == 0 && i % 10 == 0) (void)engine_->FlushHits();  // writes race the searches
      }
    });
  }
  for (std::thread& t : threads) t.join();
  ASSERT_TRUE(engine_->FlushHits().ok());
  const std::int64_t total =
      Hits("a1", "alice").first + Hits("a2", "alice").first + Hits("a3", "alice").first;
  EXPECT_EQ(total, salt_hits.load());
  EXPECT_EQ(Hits("a2", "alice").first, kThreads * kSearches) << "a2 matches both queries";
  EXPECT_EQ(engine_->DescribeCollection("notes")->hits_dropped, 0u);
}

// The maintenance writes at most one batch of at most kMaxHitBatch records
// per collection per interval: with a long interval, hits past the first
// batch wait (for FlushHits here).
TEST_F(HitsTest, TheMaintenanceWritesOneBoundedBatchPerInterval) {
  Open(/*interval_ms=*/3'600'000);
  Create();
  std::vector<std::string> notes;
  for (int i = 0; i < 1500; ++i)
    notes.push_back(Note("r" + std::to_string(i), "alice", "salt " + std::to_string(i), i));
  Put(notes);
  for (const char* range :
       {R"({"n":{"$lt":500}})", R"({"n":{"$gte":500,"$lt":1000}})", R"({"n":{"$gte":1000}})"}) {
    EXPECT_EQ(Search("salt", {}, 500, range).size(), 500u);
  }
  std::uint64_t written = 0;
  for (int i = 0; i < 200 && written == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    written = CountWhere(R"({"hit_count":1})");
  }
  ASSERT_GT(written, 0u) << "the maintenance wrote the first batch";
  EXPECT_LE(written, kMaxHitBatch);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(CountWhere(R"({"hit_count":1})"), written) << "no second batch within the interval";
  ASSERT_TRUE(engine_->FlushHits().ok());
  EXPECT_EQ(CountWhere(R"({"hit_count":1})"), 1500u);
}

TEST_F(HitsTest, SpecsAreChecked) {
  Open();
  EXPECT_EQ(DefaultHitCountField("preset:notes"), "hit_count");
  EXPECT_EQ(DefaultLastHitField("preset:notes"), "last_hit_at");
  EXPECT_EQ(DefaultHitCountField("preset:memory"), "");
  CollectionSpec spec{
      "notes",     SchemaRef::Load("preset:notes").value(), {{"content", 1.0}}, 0, "cosine", "en",
      "updated_at"};
  for (const auto& [count, last, what] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"importance", "", "not an int field"},
           {"", "type", "not a datetime field"},
           {"", "updated_at", "time_field"},
           {"nope", "", "not an int field"}}) {
    spec.hit_count_field = count;
    spec.last_hit_field = last;
    const Status s = engine_->CreateCollection(spec);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << count << last;
    EXPECT_NE(s.message().find(what), std::string::npos) << s.message();
  }
  spec.hit_count_field = "hit_count";
  spec.last_hit_field = "last_hit_at";
  ASSERT_TRUE(engine_->CreateCollection(spec).ok());
  Open();
  EXPECT_EQ(engine_->DescribeCollection("notes")->spec.last_hit_field, "last_hit_at");
}

}  // namespace
}  // namespace engram
