// Tenancy through the public API (SEARCH.md §6): scoped searches, reads,
// writes and deletes on the `notes` preset, filters that try to widen the
// scope, and listings (a search without query or vector).
#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engram/engine.h"

namespace engram {
namespace {

namespace fs = std::filesystem;

std::string Note(const std::string& id, const std::string& agent, const std::string& scope,
                 const std::string& day) {
  return R"({"id":")" + id + R"(","content":"the river mill at dawn","type":"fact","scope":")" +
         scope + R"(","agent_id":")" + agent + R"(","importance":0.5,"confidence":0.9,)" +
         R"("updated_at":"2026-01-)" + day + R"(T10:00:00Z"})";
}

class ScopeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("engram_scope_test_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    StatusOr<std::unique_ptr<Engine>> e = Engine::Open(dir_.string());
    ASSERT_TRUE(e.ok()) << e.status().message();
    engine_ = std::move(e).value();
    StatusOr<SchemaRef> schema = SchemaRef::Load("preset:notes");
    ASSERT_TRUE(schema.ok());
    CollectionSpec spec{"notes",  schema.value(), {{"content", 1.0}}, 0,
                        "cosine", "en",           "updated_at"};
    ASSERT_TRUE(engine_->CreateCollection(spec).ok());
    const std::vector<std::string> notes = {
        Note("a1", "alice", "agent_private", "01"), Note("a2", "alice", "project_shared", "02"),
        Note("b1", "bob", "agent_private", "03"),   Note("b2", "bob", "project_shared", "04"),
        Note("b3", "bob", "org_shared", "05"),      Note("c1", "carol", "agent_private", "06")};
    std::vector<std::string_view> views(notes.begin(), notes.end());
    StatusOr<WriteResult> w = engine_->Upsert("notes", views);
    ASSERT_TRUE(w.ok() && !w->rejected);
  }
  void TearDown() override {
    engine_.reset();
    fs::remove_all(dir_);
  }

  std::set<std::string> Seen(const SearchRequest& request) {
    StatusOr<SearchResponse> r = engine_->Search("notes", request);
    EXPECT_TRUE(r.ok()) << r.status().message();
    std::set<std::string> ids;
    if (!r.ok()) return ids;
    EXPECT_FALSE(r->rejected) << r->rejected->message;
    for (const SearchHit& h : r->hits) ids.insert(h.id);
    return ids;
  }
  static SearchRequest Query(std::optional<Scope> scope, std::string filter = "") {
    SearchRequest r;
    r.query = "river";
    r.scope = std::move(scope);
    r.filter = std::move(filter);
    return r;
  }

  fs::path dir_;
  std::unique_ptr<Engine> engine_;
};

using Ids = std::set<std::string>;

TEST_F(ScopeTest, EachReadProfileSeesWhatItGrants) {
  EXPECT_EQ(Seen(Query(std::nullopt)), (Ids{"a1", "a2", "b1", "b2", "b3", "c1"}));
  EXPECT_EQ(Seen(Query(Scope{"alice", ReadProfile::kPrivateOnly})), (Ids{"a1", "a2"}));
  EXPECT_EQ(Seen(Query(Scope{"alice", ReadProfile::kPrivatePlusProject})), (Ids{"a1", "a2", "b2"}));
  EXPECT_EQ(Seen(Query(Scope{"alice", ReadProfile::kAllScopes})), (Ids{"a1", "a2", "b2", "b3"}));
  EXPECT_EQ(Seen(Query(Scope{"nobody", ReadProfile::kPrivateOnly})), Ids{});
}

TEST_F(ScopeTest, NoFilterWidensTheScope) {
  const Scope alice{"alice", ReadProfile::kPrivatePlusProject};
  for (const std::string filter :
       {R"({"agent_id":"bob"})", R"({"$or":[{"agent_id":"bob"},{"agent_id":"carol"}]})",
        R"({"agent_id":{"$nin":["alice"]}})", R"({"scope":{"$in":["agent_private","org_shared"]}})",
        R"({"$or":[{"importance":{"$gte":0}},{"agent_id":{"$ne":"alice"}}]})"}) {
    const Ids seen = Seen(Query(alice, filter));
    EXPECT_TRUE(std::includes(Ids{"a1", "a2", "b2"}.begin(), Ids{"a1", "a2", "b2"}.end(),
                              seen.begin(), seen.end()))
        << filter;
  }
  SearchRequest listing;
  listing.scope = alice;
  listing.filter = R"({"agent_id":"bob"})";
  EXPECT_EQ(Seen(listing), Ids{"b2"});
}

TEST_F(ScopeTest, ListingsAreNewestFirstAndScoped) {
  SearchRequest all;
  all.k = 4;
  StatusOr<SearchResponse> r = engine_->Search("notes", all);
  ASSERT_TRUE(r.ok());
  std::vector<std::string> order;
  for (const SearchHit& h : r->hits) order.push_back(h.id);
  EXPECT_EQ(order, (std::vector<std::string>{"c1", "b3", "b2", "b1"}));
  all.scope = Scope{"alice", ReadProfile::kAllScopes};
  all.filter = R"({"importance":{"$gt":0.1}})";
  r = engine_->Search("notes", all);
  ASSERT_TRUE(r.ok());
  order.clear();
  for (const SearchHit& h : r->hits) order.push_back(h.id);
  EXPECT_EQ(order, (std::vector<std::string>{"b3", "b2", "a2", "a1"}));
  all.k = 0;
  r = engine_->Search("notes", all);
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->rejected);
  EXPECT_EQ(r->rejected->path, "k");
}

TEST_F(ScopeTest, GetHidesWhatTheScopeCannotRead) {
  const Scope alice{"alice", ReadProfile::kPrivatePlusProject};
  EXPECT_TRUE(engine_->Get("notes", "a1", alice).value().has_value());
  EXPECT_TRUE(engine_->Get("notes", "b2", alice).value().has_value());
  EXPECT_FALSE(engine_->Get("notes", "b1", alice).value().has_value());
  EXPECT_TRUE(engine_->Get("notes", "b1").value().has_value());
}

TEST_F(ScopeTest, WritesAreOnlyAsTheCallersAgent) {
  const Scope alice{"alice", ReadProfile::kAllScopes};
  std::vector<std::string> batch = {Note("a3", "alice", "agent_private", "07"),
                                    Note("x1", "bob", "agent_private", "07")};
  std::vector<std::string_view> views(batch.begin(), batch.end());
  StatusOr<WriteResult> w = engine_->Upsert("notes", views, {}, alice);
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE(w->rejected);
  EXPECT_EQ(w->rejected->kind, "scope.forbidden");
  EXPECT_EQ(w->rejected->code, 403);
  EXPECT_EQ(w->rejected_index, 1u);
  EXPECT_FALSE(engine_->Get("notes", "a3").value().has_value());  // nothing written

  // Taking over bob's record by writing its id as alice is refused too.
  batch = {Note("a3", "alice", "agent_private", "07"), Note("b2", "alice", "agent_private", "07")};
  views.assign(batch.begin(), batch.end());
  w = engine_->Upsert("notes", views, {}, alice);
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE(w->rejected);
  EXPECT_EQ(w->rejected->path, "id");
  EXPECT_EQ(w->rejected_index, 1u);

  batch = {Note("a3", "alice", "agent_private", "07")};
  views.assign(batch.begin(), batch.end());
  w = engine_->Upsert("notes", views, {}, alice);
  ASSERT_TRUE(w.ok());
  EXPECT_FALSE(w->rejected);
  EXPECT_EQ(w->written, 1u);
}

TEST_F(ScopeTest, DeletesTouchOnlyTheCallersRecords) {
  const Scope alice{"alice", ReadProfile::kPrivatePlusProject};
  // b1 is invisible to alice: as if absent. b2 is visible but bob's: refused.
  std::vector<std::string> ids = {"b1"};
  StatusOr<WriteResult> d = engine_->Delete("notes", ids, alice);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->written, 0u);
  ids = {"a1", "b2"};
  d = engine_->Delete("notes", ids, alice);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), StatusCode::kPermissionDenied);
  EXPECT_TRUE(engine_->Get("notes", "a1").value().has_value());  // nothing deleted

  d = engine_->DeleteWhere("notes", FilterDialect::kVectorFilter, R"({"importance":{"$gt":0}})",
                           alice);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->written, 2u);
  EXPECT_EQ(Seen(Query(std::nullopt)), (Ids{"b1", "b2", "b3", "c1"}));
}

TEST_F(ScopeTest, CollectionsWithoutAgentIdAreClosedToScopedCallers) {
  Checked<SchemaRef> schema =
      SchemaRef::Parse(R"({"fields":[{"name":"region","type":"string","optional":true}]})");
  ASSERT_TRUE(schema.ok());
  CollectionSpec spec{"plain", schema.value(), {{"content", 1.0}}, 0, "cosine", "en", ""};
  ASSERT_TRUE(engine_->CreateCollection(spec).ok());
  SearchRequest r = Query(Scope{"alice", ReadProfile::kAllScopes});
  StatusOr<SearchResponse> s = engine_->Search("plain", r);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kPermissionDenied);
  r.scope.reset();
  EXPECT_TRUE(engine_->Search("plain", r).ok());
}

TEST_F(ScopeTest, RetrieveIsScoped) {
  RetrieveSpec spec;
  spec.name = "facts";
  spec.collection = "notes";
  spec.dialect = FilterDialect::kVectorFilter;
  spec.filter = R"({"type":"fact"})";
  ASSERT_TRUE(engine_->PutRetrieve(spec).ok());
  StatusOr<SearchResponse> r =
      engine_->Retrieve("facts", "river", std::nullopt, Scope{"bob", ReadProfile::kPrivateOnly});
  ASSERT_TRUE(r.ok());
  Ids seen;
  for (const SearchHit& h : r->hits) seen.insert(h.id);
  EXPECT_EQ(seen, (Ids{"b1", "b2", "b3"}));
  ASSERT_EQ(engine_->ListRetrieves().size(), 1u);
  EXPECT_EQ(engine_->ListRetrieves()[0].name, "facts");
}

}  // namespace
}  // namespace engram
