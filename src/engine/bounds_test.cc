// RequestBounds through the engine's public API: the reply budget (at it
// and one byte under), the prefix-expansion cap, and the deadline for
// searches, listings, retrieve configurations and deletes by filter.
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engram/engine.h"

namespace engram {
namespace {

namespace fs = std::filesystem;

class EngineBoundsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("engram_bounds_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    StatusOr<std::unique_ptr<Engine>> e = Engine::Open(dir_.string());
    ASSERT_TRUE(e.ok()) << e.status().ToString();
    engine_ = std::move(e).value();
    Checked<SchemaRef> schema =
        SchemaRef::Parse(R"({"fields":[{"name":"n","type":"int","required":true},
                                       {"name":"name","type":"string","required":true}]})");
    ASSERT_TRUE(schema.ok());
    ASSERT_TRUE(
        engine_->CreateCollection({"c", schema.value(), {{"text", 1.0}}, 0, "cosine", "none", ""})
            .ok());
    // r0..r9: "word<i> shared", with a body of (i + 1) * 100 bytes of padding.
    std::vector<std::string> records;
    for (int i = 0; i < 10; ++i) {
      records.push_back(R"({"id":"r)" + std::to_string(i) + R"(","n":)" + std::to_string(i) +
                        R"(,"name":"item )" + std::to_string(i) + R"(","text":"word)" +
                        std::to_string(i) + R"( shared","pad":")" +
                        std::string(static_cast<std::size_t>(i + 1) * 100, 'x') + "\"}");
    }
    std::vector<std::string_view> views(records.begin(), records.end());
    StatusOr<WriteResult> w = engine_->Upsert("c", views);
    ASSERT_TRUE(w.ok() && !w->rejected);
  }
  void TearDown() override {
    engine_.reset();
    fs::remove_all(dir_);
  }

  // What the budget charges for a hit (RequestBounds::max_reply_bytes).
  static std::size_t Cost(const SearchHit& h) {
    return h.id.size() + h.record.size() + kHitReplyBytes;
  }

  std::filesystem::path dir_;
  std::unique_ptr<Engine> engine_;
};

TEST_F(EngineBoundsTest, ReplyBudgetAtTheBoundAndOneByteUnder) {
  for (const bool listing : {false, true}) {
    SearchRequest r;
    if (!listing) r.query = "shared";
    r.k = 10;
    StatusOr<SearchResponse> all = engine_->Search("c", r);
    ASSERT_TRUE(all.ok() && !all->rejected);
    ASSERT_EQ(all->hits.size(), 10u);
    EXPECT_FALSE(all->truncated);
    std::size_t three = 0;
    for (int i = 0; i < 3; ++i) three += Cost(all->hits[i]);
    r.bounds.max_reply_bytes = three;  // exactly the first three
    StatusOr<SearchResponse> cut = engine_->Search("c", r);
    ASSERT_TRUE(cut.ok());
    ASSERT_EQ(cut->hits.size(), 3u) << listing;
    EXPECT_TRUE(cut->truncated);
    EXPECT_EQ(cut->omitted, 7u);
    for (int i = 0; i < 3; ++i) EXPECT_EQ(cut->hits[i].id, all->hits[i].id);
    r.bounds.max_reply_bytes = three - 1;
    cut = engine_->Search("c", r);
    ASSERT_TRUE(cut.ok());
    EXPECT_EQ(cut->hits.size(), 2u);
    EXPECT_EQ(cut->omitted, 8u);
    r.bounds.max_reply_bytes = 1;  // not even one hit
    cut = engine_->Search("c", r);
    ASSERT_TRUE(cut.ok());
    EXPECT_TRUE(cut->hits.empty());
    EXPECT_TRUE(cut->truncated);
    EXPECT_EQ(cut->omitted, 10u);
  }
}

TEST_F(EngineBoundsTest, ExpansionCapIsALocatedQueryDiagnostic) {
  SearchRequest r;
  r.query = "word*";  // word0..word9
  r.bounds.max_expansions = 10;
  StatusOr<SearchResponse> ok = engine_->Search("c", r);
  ASSERT_TRUE(ok.ok());
  EXPECT_FALSE(ok->rejected);
  EXPECT_EQ(ok->hits.size(), 10u);
  r.bounds.max_expansions = 9;
  StatusOr<SearchResponse> refused = engine_->Search("c", r);
  ASSERT_TRUE(refused.ok());
  ASSERT_TRUE(refused->rejected);
  EXPECT_EQ(refused->rejected->kind, "query.too_many_expansions");
  EXPECT_TRUE(refused->hits.empty());
}

TEST_F(EngineBoundsTest, PassedDeadlineStopsEveryRead) {
  RequestBounds passed;
  passed.deadline = std::chrono::steady_clock::now() - std::chrono::milliseconds(1);
  RequestBounds later;
  later.deadline = std::chrono::steady_clock::now() + std::chrono::hours(1);
  for (const char* query : {"shared", ""}) {  // a search and a listing
    SearchRequest r;
    if (*query != '\0') r.query = query;
    r.filter = R"({"name":{"$ne":"item 3"}})";
    r.bounds = passed;
    StatusOr<SearchResponse> stopped = engine_->Search("c", r);
    ASSERT_FALSE(stopped.ok()) << query;
    EXPECT_EQ(stopped.status().code(), StatusCode::kDeadlineExceeded);
    r.bounds = later;
    StatusOr<SearchResponse> done = engine_->Search("c", r);
    ASSERT_TRUE(done.ok()) << done.status().ToString();
    EXPECT_EQ(done->hits.size(), 9u);
  }
  // A delete by filter that runs out of time deletes nothing.
  StatusOr<WriteResult> deleted = engine_->DeleteWhere("c", FilterDialect::kVectorFilter,
                                                       R"({"n":{"$lt":5}})", std::nullopt, passed);
  ASSERT_FALSE(deleted.ok());
  EXPECT_EQ(deleted.status().code(), StatusCode::kDeadlineExceeded);
  SearchRequest count;
  count.k = 100;
  EXPECT_EQ(engine_->Search("c", count)->hits.size(), 10u);
  deleted = engine_->DeleteWhere("c", FilterDialect::kVectorFilter, R"({"n":{"$lt":5}})",
                                 std::nullopt, later);
  ASSERT_TRUE(deleted.ok());
  EXPECT_EQ(deleted->written, 5u);
  // Retrieve configurations carry the bounds too.
  RetrieveSpec spec;
  spec.name = "all";
  spec.collection = "c";
  spec.filter = "";
  ASSERT_TRUE(engine_->PutRetrieve(spec).ok());
  StatusOr<SearchResponse> stopped =
      engine_->Retrieve("all", "shared", std::nullopt, std::nullopt, passed);
  ASSERT_FALSE(stopped.ok());
  EXPECT_EQ(stopped.status().code(), StatusCode::kDeadlineExceeded);
  StatusOr<SearchResponse> done =
      engine_->Retrieve("all", "shared", std::nullopt, std::nullopt, later);
  ASSERT_TRUE(done.ok());
  EXPECT_EQ(done->hits.size(), 5u);
}

}  // namespace
}  // namespace engram
