// Deduplication's refresh action through the engine (engine.h, DedupSpec):
// a duplicate refreshes its original's record time durably, exact and near,
// against stored and batch originals, leaving the expiry alone.
#include <chrono>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/dedup.h"
#include "engine/testing/dedup_fixture.h"
#include "engine/testing/test_clock.h"
#include "engram/embedder.h"
#include "engram/engine.h"

namespace engram {
namespace {

using testing::DedupTest;
using testing::kDedupSchema;
namespace fs = std::filesystem;

// The refresh action: a duplicate is not written, and the record it
// duplicates takes the later of its own time and the duplicate's (the
// record time: the collection's time_field).
class DedupRefreshTest : public DedupTest {
 protected:
  static CollectionSpec Timed(const char* dedup, std::size_t dim = 0) {
    CollectionSpec spec = Spec(dedup, dim);
    spec.time_field = "updated_at";
    return spec;
  }
  static std::string At(const std::string& id, const std::string& agent, const std::string& content,
                        const std::string& updated_at, const char* vector = nullptr) {
    std::string r =
        R"({"id":")" + id + R"(","agent_id":")" + agent + R"(","content":")" + content + R"(")";
    if (!updated_at.empty()) r += R"(,"updated_at":")" + updated_at + R"(")";
    if (vector != nullptr) r += R"(,"vector":)" + std::string(vector);
    return r + "}";
  }
  // The record's field `name` as stored, or "" when absent.
  static std::string Field(const Engine& e, const std::string& id, const std::string& agent,
                           const char* name = "updated_at") {
    StatusOr<std::optional<std::string>> got = e.Get("mem", id, std::nullopt, agent);
    if (!got.ok() || !got->has_value()) return "(none)";
    const std::string& body = **got;
    const std::string key = std::string("\"") + name + "\":\"";
    const std::size_t at = body.find(key);
    if (at == std::string::npos) return "";
    const std::size_t from = at + key.size();
    return body.substr(from, body.find('"', from) - from);
  }
  // The ids of the collection's records by record time, newest first.
  static std::vector<std::string> ByTime(const Engine& e) {
    ListRequest request;
    StatusOr<ListResponse> listed = e.List("mem", request);
    std::vector<std::string> ids;
    if (listed.ok()) {
      for (const ListedRecord& r : listed->records) ids.push_back(r.id);
    }
    return ids;
  }
};

TEST_F(DedupRefreshTest, ExactRefreshesTheOwnersRecordDurably) {
  clock_.Set("2026-06-01T00:00:00Z");
  {
    auto e = Open();
    ASSERT_TRUE(e->CreateCollection(Timed("exact:refresh")).ok());
    EXPECT_EQ(Put(*e, {At("a1", "alice", "salt", "2026-01-01T00:00:00Z"),
                       At("a2", "alice", "pepper", "2026-02-01T00:00:00Z"),
                       At("b1", "bob", "salt", "2026-01-15T00:00:00Z")})
                  .written,
              3u);
    EXPECT_EQ(ByTime(*e), (std::vector<std::string>{"a2", "b1", "a1"}));
    WriteResult w = Put(*e, {At("a3", "alice", "SALT", "2026-03-01T00:00:00Z")});
    EXPECT_EQ(w.written, 0u);
    ASSERT_EQ(w.deduplicated.size(), 1u);
    EXPECT_EQ(w.deduplicated[0].id, "a3");
    EXPECT_EQ(w.deduplicated[0].duplicate_of, "a1");
    EXPECT_EQ(w.deduplicated[0].action, DedupAction::kRefresh);
    EXPECT_EQ(Field(*e, "a1", "alice"), "2026-03-01T00:00:00Z");
    EXPECT_EQ(Field(*e, "a3", "alice"), "(none)") << "the duplicate is not written";
    EXPECT_EQ(Field(*e, "b1", "bob"), "2026-01-15T00:00:00Z") << "bob's salt is his own";
    EXPECT_EQ(ByTime(*e), (std::vector<std::string>{"a1", "a2", "b1"}));
    // An older duplicate leaves the time alone (time never goes back).
    w = Put(*e, {At("a4", "alice", "salt", "2025-12-01T00:00:00Z")});
    ASSERT_EQ(w.deduplicated.size(), 1u);
    EXPECT_EQ(w.deduplicated[0].action, DedupAction::kRefresh);
    EXPECT_EQ(Field(*e, "a1", "alice"), "2026-03-01T00:00:00Z");
    // A scoped writer refreshes its own record only: bob's duplicate of his
    // salt moves his record, not alice's.
    const Scope bob{"bob", ReadProfile::kAllScopes};
    w = Put(*e, {At("b2", "bob", "Salt", "2026-04-01T00:00:00Z")}, bob);
    ASSERT_EQ(w.deduplicated.size(), 1u);
    EXPECT_EQ(w.deduplicated[0].duplicate_of, "b1");
    EXPECT_EQ(Field(*e, "b1", "bob"), "2026-04-01T00:00:00Z");
    EXPECT_EQ(Field(*e, "a1", "alice"), "2026-03-01T00:00:00Z");
    // A duplicate without a time refreshes to the engine's clock.
    w = Put(*e, {At("a5", "alice", "pepper", "")});
    ASSERT_EQ(w.deduplicated.size(), 1u);
    EXPECT_EQ(Field(*e, "a2", "alice"), "2026-06-01T00:00:00Z");
    // A decay on the record time counts the refreshed memory as fresh.
    SearchRequest search;
    search.query = "salt";
    search.decay = ParseDecay("updated_at:exp:30d").value();
    search.filter = R"({"agent_id":"alice"})";
    search.dialect = FilterDialect::kVectorFilter;
    clock_.Set("2026-03-01T00:00:00Z");
    StatusOr<SearchResponse> found = e->Search("mem", search);
    ASSERT_TRUE(found.ok()) << found.status().message();
    ASSERT_FALSE(found->rejected) << found->rejected->message;
    ASSERT_EQ(found->hits.size(), 1u);
    EXPECT_DOUBLE_EQ(*found->hits[0].decay, 1.0);
  }
  // The refresh went through the store: it survives reopening.
  auto e = Open();
  EXPECT_EQ(Field(*e, "a1", "alice"), "2026-03-01T00:00:00Z");
  EXPECT_EQ(Field(*e, "b1", "bob"), "2026-04-01T00:00:00Z");
  EXPECT_EQ(Field(*e, "a2", "alice"), "2026-06-01T00:00:00Z");
  EXPECT_EQ(ByTime(*e), (std::vector<std::string>{"a2", "b1", "a1"}));
  EXPECT_EQ(DedupText(e->DescribeCollection("mem")->spec.dedup), "exact:refresh");
  // The content hash index still knows a1 after its refresh and the reopen.
  WriteResult w = Put(*e, {At("a6", "alice", "salt", "")});
  ASSERT_EQ(w.deduplicated.size(), 1u);
  EXPECT_EQ(w.deduplicated[0].duplicate_of, "a1");
}

TEST_F(DedupRefreshTest, NearRefreshesStoredAndBatchOriginals) {
  auto e = Open();
  ASSERT_TRUE(e->CreateCollection(Timed("near:0.95:refresh", 3)).ok());
  Put(*e, {At("a1", "alice", "x", "2026-01-01T00:00:00Z", "[1,0,0]"),
           At("b1", "bob", "x", "2026-01-01T00:00:00Z", "[1,0,0]")});
  WriteResult w = Put(*e, {At("a2", "alice", "x", "2026-02-01T00:00:00Z", "[1,0.1,0]")});
  ASSERT_EQ(w.deduplicated.size(), 1u);
  EXPECT_EQ(w.deduplicated[0].duplicate_of, "a1");
  EXPECT_EQ(w.deduplicated[0].action, DedupAction::kRefresh);
  EXPECT_EQ(Field(*e, "a1", "alice"), "2026-02-01T00:00:00Z");
  EXPECT_EQ(Field(*e, "b1", "bob"), "2026-01-01T00:00:00Z") << "another owner's is untouched";
  // Two duplicates of a1 in one batch: the later time wins.
  w = Put(*e, {At("a3", "alice", "x", "2026-04-01T00:00:00Z", "[1,0.05,0]"),
               At("a4", "alice", "x", "2026-03-01T00:00:00Z", "[1,0.02,0]")});
  EXPECT_EQ(w.deduplicated.size(), 2u);
  EXPECT_EQ(Field(*e, "a1", "alice"), "2026-04-01T00:00:00Z");
  // Within one batch: the kept record is written with the duplicate's later time.
  w = Put(*e, {At("a5", "alice", "x", "2026-01-01T00:00:00Z", "[0,0,1]"),
               At("a6", "alice", "x", "2026-05-01T00:00:00Z", "[0,0.01,1]")});
  EXPECT_EQ(w.written, 1u);
  ASSERT_EQ(w.deduplicated.size(), 1u);
  EXPECT_EQ(w.deduplicated[0].duplicate_of, "a5");
  EXPECT_EQ(Field(*e, "a5", "alice"), "2026-05-01T00:00:00Z");
}

// A refresh moves the record time, never the expiry: the refreshed record
// still expires at its own expires_at, and once expired it is no original
// (a fresh copy is written, the expired one is not refreshed).
TEST_F(DedupRefreshTest, RefreshLeavesTheExpiryAlone) {
  auto e = Open();
  clock_.Set("2026-04-01T00:00:00Z");
  CollectionSpec spec = Timed("exact:refresh");
  spec.ttl_field = "expires_at";
  ASSERT_TRUE(e->CreateCollection(spec).ok());
  Put(*e, {R"({"id":"a1","agent_id":"alice","content":"salt","updated_at":"2026-03-01T00:00:00Z",)"
           R"("expires_at":"2026-04-02T00:00:00Z"})"});
  WriteResult w = Put(*e, {R"({"id":"a2","agent_id":"alice","content":"salt",)"
                           R"("updated_at":"2026-03-20T00:00:00Z",)"
                           R"("expires_at":"2026-09-01T00:00:00Z"})"});
  ASSERT_EQ(w.deduplicated.size(), 1u);
  EXPECT_EQ(Field(*e, "a1", "alice"), "2026-03-20T00:00:00Z");
  EXPECT_EQ(Field(*e, "a1", "alice", "expires_at"), "2026-04-02T00:00:00Z");
  clock_.Set("2026-04-02T00:00:00Z");
  EXPECT_EQ(Field(*e, "a1", "alice"), "(none)") << "expired at its own time";
  w = Put(*e, {At("a3", "alice", "salt", "2026-04-02T00:00:00Z")});
  EXPECT_EQ(w.written, 1u);
  EXPECT_TRUE(w.deduplicated.empty());
}

TEST_F(DedupRefreshTest, RefreshNeedsARecordTime) {
  auto e = Open();
  const Status s = e->CreateCollection(Spec("exact:refresh"));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("time_field"), std::string::npos) << s.message();
  EXPECT_TRUE(e->CreateCollection(Spec("exact:skip")).ok());
}

}  // namespace
}  // namespace engram
