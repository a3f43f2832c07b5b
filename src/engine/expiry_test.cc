// Expiry (CollectionSpec::ttl_field) through the public API: a record is
// visible up to the instant before its TTL value and invisible from that
// instant on every read path (search, listing search, get, List, Count,
// Facets, collection counts, filter impact, explain, Retrieve), scoped or
// not, whatever the filter; then the maintenance deletes it durably.
#include <chrono>
#include <filesystem>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "engine/testing/read_paths.h"
#include "engine/testing/test_clock.h"
#include "engram/engine.h"

namespace engram {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::system_clock;
using testing::ExpectCounted;
using testing::Ids;
using testing::ListedIds;
using testing::SearchedIds;

// 2026-03-01T12:00:00Z: the instant `e1` expires.
const Clock::time_point kExpiry =
    std::chrono::sys_days{std::chrono::year(2026) / 3 / 1} + std::chrono::hours(12);

std::string ExpiringNote(const std::string& id, const std::string& agent, const std::string& scope,
                         const std::string& expires) {
  return R"({"id":")" + id + R"(","content":"the river mill at dawn","type":"fact","scope":")" +
         scope + R"(","agent_id":")" + agent + R"(","importance":0.5,"confidence":0.9,)" +
         R"("updated_at":"2026-01-01T10:00:00Z")" +
         (expires.empty() ? "" : R"(,"expires_at":")" + expires + "\"") + "}";
}

class ExpiryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("engram_expiry_test_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    Open();
    StatusOr<SchemaRef> schema = SchemaRef::Load("preset:notes");
    ASSERT_TRUE(schema.ok());
    CollectionSpec spec{"notes",  schema.value(), {{"content", 1.0}}, 0,
                        "cosine", "en",           "updated_at"};
    spec.ttl_field = DefaultTtlField("preset:notes");
    ASSERT_EQ(spec.ttl_field, "expires_at");
    ASSERT_TRUE(engine_->CreateCollection(spec).ok());
    // e1 expires at kExpiry exactly, e2 a microsecond later, e0 an hour
    // earlier; n1 never. e1 is alice's, shared with the project.
    const std::vector<std::string> notes = {
        ExpiringNote("e0", "alice", "agent_private", "2026-03-01T11:00:00Z"),
        ExpiringNote("e1", "alice", "project_shared", "2026-03-01T12:00:00Z"),
        ExpiringNote("e2", "alice", "agent_private", "2026-03-01T12:00:00.000001Z"),
        ExpiringNote("n1", "alice", "project_shared", "")};
    std::vector<std::string_view> views(notes.begin(), notes.end());
    StatusOr<WriteResult> w = engine_->Upsert("notes", views);
    ASSERT_TRUE(w.ok() && !w->rejected) << (w.ok() ? w->rejected->message : "");
    RetrieveSpec retrieve{"all", "notes", FilterDialect::kRetrieve, "", 100, 0, SearchMode::kText};
    ASSERT_TRUE(engine_->PutRetrieve(retrieve).ok());
  }
  void TearDown() override {
    engine_.reset();
    fs::remove_all(dir_);
  }
  void Open() {
    engine_.reset();
    StatusOr<std::unique_ptr<Engine>> e = Engine::Open(dir_.string(), clock_.Options());
    ASSERT_TRUE(e.ok()) << e.status().message();
    engine_ = std::move(e).value();
  }

  // The ids each read path shows `scope`, which must all agree; `filter`
  // (vector_filter) is ANDed in.
  Ids Visible(const std::optional<Scope>& scope, const std::string& filter = "") {
    std::vector<Ids> seen;
    SearchRequest search;
    search.query = "river";
    search.scope = scope;
    search.filter = filter;
    search.k = 100;
    SearchRequest listing = search;
    listing.query.reset();
    for (const SearchRequest& r : {search, listing})
      seen.push_back(SearchedIds(*engine_, "notes", r));
    ListRequest list;
    list.selection = RecordSelection{scope, std::nullopt, filter};
    list.page_size = 2;
    seen.push_back(ListedIds(*engine_, "notes", list));
    if (filter.empty()) {
      Ids got;
      for (const char* id : {"e0", "e1", "e2", "n1"}) {
        StatusOr<std::optional<std::string>> g = engine_->Get("notes", id, scope);
        EXPECT_TRUE(g.ok());
        if (*g) got.insert(id);
      }
      seen.push_back(got);
    }
    if (!scope && filter.empty()) {
      StatusOr<SearchResponse> r = engine_->Retrieve("all", "river");
      EXPECT_TRUE(r.ok() && !r->rejected);
      Ids retrieved;
      for (const SearchHit& h : r->hits) retrieved.insert(h.id);
      seen.push_back(retrieved);
    }
    for (std::size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], seen[0]) << "read path " << i;
    // The figures: Count, Facets, the collection's count, filter impact and explain.
    ExpectCounted(*engine_, "notes", list.selection, seen[0].size());
    FacetRequest facets;
    facets.selection = list.selection;
    facets.field = "expires_at";
    facets.ranges = {FacetRange{std::nullopt, std::nullopt}};
    StatusOr<FacetResponse> f = engine_->Facets("notes", facets);
    EXPECT_TRUE(f.ok() && !f->rejected);
    EXPECT_EQ(f->ranges.at(0).count, seen[0].size() - seen[0].count("n1"));
    if (filter.empty()) {
      StatusOr<CollectionInfo> info = engine_->DescribeCollection("notes", scope);
      EXPECT_TRUE(info.ok());
      EXPECT_EQ(info->records, seen[0].size());
      search.filter = R"({"type":"fact"})";
      search.impact = search.explain = true;
      StatusOr<SearchResponse> s = engine_->Search("notes", search);
      EXPECT_TRUE(s.ok() && !s->rejected);
      EXPECT_NE(s->explain.find("\"live\":" + std::to_string(seen[0].size())), std::string::npos)
          << s->explain;
    }
    return seen[0];
  }

  fs::path dir_;
  testing::TestClock clock_;
  std::unique_ptr<Engine> engine_;
};

const Scope kBob{"bob", ReadProfile::kPrivatePlusProject};
const Scope kAlice{"alice", ReadProfile::kPrivateOnly};

TEST_F(ExpiryTest, VisibleUpToTheInstantBeforeAndHiddenFromIt) {
  clock_.Set(kExpiry - std::chrono::microseconds(1));
  EXPECT_EQ(Visible(std::nullopt), (Ids{"e1", "e2", "n1"}));
  EXPECT_EQ(Visible(kAlice), (Ids{"e1", "e2", "n1"}));
  EXPECT_EQ(Visible(kBob), (Ids{"e1", "n1"}));
  clock_.Set(kExpiry);  // at the TTL value: expired
  EXPECT_EQ(Visible(std::nullopt), (Ids{"e2", "n1"}));
  EXPECT_EQ(Visible(kAlice), (Ids{"e2", "n1"}));
  EXPECT_EQ(Visible(kBob), (Ids{"n1"}));
  // No filter brings an expired record back, not even one naming it.
  EXPECT_EQ(Visible(std::nullopt, R"({"expires_at":{"$lte":"2026-03-01T12:00:00Z"}})"), Ids{});
  EXPECT_EQ(Visible(kAlice, R"({"agent_id":"alice"})"), (Ids{"e2", "n1"}));
  clock_.Set(kExpiry + std::chrono::microseconds(1));
  EXPECT_EQ(Visible(std::nullopt), (Ids{"n1"}));
}

TEST_F(ExpiryTest, MaintenancePurgesDurablyAndCountsIt) {
  clock_.Set(kExpiry);
  // The maintenance thread purges e0 and e1 soon (it looks every 50 ms).
  std::uint64_t purged = 0;
  for (int i = 0; i < 400 && purged < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
    purged = engine_->DescribeCollection("notes")->purged;
  }
  ASSERT_EQ(purged, 2u);
  EXPECT_EQ(Visible(std::nullopt), (Ids{"e2", "n1"}));
  // Reopened with the clock turned back, the purged records are gone for
  // good and the unexpired ones remain.
  clock_.Set(kExpiry - std::chrono::hours(24));
  Open();
  EXPECT_EQ(Visible(std::nullopt), (Ids{"e2", "n1"}));
  EXPECT_EQ(Visible(kBob), (Ids{"n1"}));
  EXPECT_EQ(engine_->DescribeCollection("notes")->purged, 0u);  // counted since open
}

TEST_F(ExpiryTest, DeletesCountOnlyVisibleRecords) {
  clock_.Set(kExpiry);
  // e0 and e1 are expired: a delete by filter neither counts them nor
  // needs to (the maintenance purges them); an id names no expired record.
  const std::vector<std::string> ids = {"e1"};
  StatusOr<WriteResult> by_id = engine_->Delete("notes", ids, kAlice);
  ASSERT_TRUE(by_id.ok());
  EXPECT_EQ(by_id->written, 0u);
  StatusOr<WriteResult> where =
      engine_->DeleteWhere("notes", FilterDialect::kVectorFilter, R"({"type":"fact"})", kAlice);
  ASSERT_TRUE(where.ok() && !where->rejected);
  EXPECT_EQ(where->written, 2u);  // e2 and n1
  EXPECT_EQ(Visible(std::nullopt), Ids{});
}

TEST_F(ExpiryTest, TtlFieldMustBeADatetimeOfTheSchema) {
  StatusOr<SchemaRef> schema = SchemaRef::Load("preset:notes");
  CollectionSpec spec{"bad", schema.value(), {{"content", 1.0}}, 0, "cosine", "en", ""};
  spec.ttl_field = "content";
  const Status s = engine_->CreateCollection(spec);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("ttl_field: 'content' is not a datetime field"), std::string::npos)
      << s.message();
  EXPECT_EQ(DefaultTtlField("preset:memory"), "");
}

}  // namespace
}  // namespace engram
