// Tenancy through the public API (SEARCH.md §6): scoped searches, reads,
// writes and deletes on the `notes` preset, filters that try to widen the
// scope, and listings (a search without query or vector).
#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/json.h"
#include "engine/collection.h"
#include "engine/record_key.h"
#include "engine/testing/notes.h"
#include "engram/engine.h"
#include "storage/store.h"

namespace engram {
namespace {

namespace fs = std::filesystem;
using testing::Note;
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

  batch = {Note("a3", "alice", "agent_private", "07")};
  views.assign(batch.begin(), batch.end());
  w = engine_->Upsert("notes", views, {}, alice);
  ASSERT_TRUE(w.ok());
  EXPECT_FALSE(w->rejected);
  EXPECT_EQ(w->written, 1u);
}

// Ids are unique per agent (engine.h, "Record keys"): writing an id another
// agent uses creates the writer's own record, answered exactly as if the id
// were free, and takes nothing from the other agent.
TEST_F(ScopeTest, IdsAreUniquePerAgent) {
  const Scope alice{"alice", ReadProfile::kAllScopes};
  const Scope bob{"bob", ReadProfile::kPrivateOnly};
  // alice takes "bob-2000" before bob, and writes over bob's "b1".
  std::vector<std::string> batch = {Note("bob-2000", "alice", "agent_private", "07"),
                                    Note("b1", "alice", "agent_private", "07")};
  std::vector<std::string_view> views(batch.begin(), batch.end());
  StatusOr<WriteResult> w = engine_->Upsert("notes", views, {}, alice);
  ASSERT_TRUE(w.ok());
  EXPECT_FALSE(w->rejected);
  EXPECT_EQ(w->written, 2u);
  batch = {Note("bob-2000", "bob", "agent_private", "08")};
  views.assign(batch.begin(), batch.end());
  w = engine_->Upsert("notes", views, {}, bob);
  ASSERT_TRUE(w.ok());
  EXPECT_FALSE(w->rejected);

  // Each reads its own under the id; bob's b1 is untouched.
  auto agent_of = [&](const std::string& id, const std::optional<Scope>& scope,
                      std::optional<std::string> agent = std::nullopt) -> std::string {
    StatusOr<std::optional<std::string>> got = engine_->Get("notes", id, scope, agent);
    if (!got.ok()) return "error: " + got.status().message();
    if (!got->has_value()) return "absent";
    const std::size_t at = (*got)->find("\"agent_id\":\"");
    return (*got)->substr(at + 12, (*got)->find('"', at + 12) - at - 12);
  };
  EXPECT_EQ(agent_of("bob-2000", alice), "alice");
  EXPECT_EQ(agent_of("bob-2000", bob), "bob");
  EXPECT_EQ(agent_of("b1", bob), "bob");
  EXPECT_EQ(agent_of("b1", alice), "alice");
  // Another agent's record, by name, only where the profile grants it.
  EXPECT_EQ(agent_of("b2", alice, "bob"), "bob");           // project_shared
  EXPECT_EQ(agent_of("bob-2000", alice, "bob"), "absent");  // bob's private one
  // The owner names the agent when an id is ambiguous.
  EXPECT_EQ(agent_of("b1", std::nullopt, "bob"), "bob");
  StatusOr<std::optional<std::string>> ambiguous = engine_->Get("notes", "b1");
  ASSERT_FALSE(ambiguous.ok());
  EXPECT_EQ(ambiguous.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(ambiguous.status().message(),
            "id 'b1' names records of 2 agents ('alice', 'bob') in collection 'notes': name the "
            "agent");
  EXPECT_EQ(agent_of("c1", std::nullopt), "carol");  // unique: no agent needed

  // Search hits show the ids as written.
  EXPECT_EQ(Seen(Query(std::nullopt, R"({"agent_id":"alice"})")),
            (Ids{"a1", "a2", "b1", "bob-2000"}));
  // Nothing of this depends on the key form after a reopen.
  engine_.reset();
  StatusOr<std::unique_ptr<Engine>> e = Engine::Open(dir_.string());
  ASSERT_TRUE(e.ok()) << e.status().message();
  engine_ = std::move(e).value();
  EXPECT_EQ(agent_of("bob-2000", alice), "alice");
  EXPECT_EQ(agent_of("bob-2000", bob), "bob");
  EXPECT_EQ(engine_->DescribeCollection("notes")->records, 9u);
  EXPECT_EQ(engine_->recovery().imaged, 9u) << "the owner keys match the records image's";
}

TEST_F(ScopeTest, DeletesTouchOnlyTheCallersRecords) {
  const Scope alice{"alice", ReadProfile::kPrivatePlusProject};
  // An id names the caller's own record: bob's b1 and b2 are not alice's.
  std::vector<std::string> ids = {"b1", "b2", "a1"};
  StatusOr<WriteResult> d = engine_->Delete("notes", ids, alice);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->written, 1u);
  EXPECT_FALSE(engine_->Get("notes", "a1").value().has_value());
  EXPECT_TRUE(engine_->Get("notes", "b1").value().has_value());
  EXPECT_TRUE(engine_->Get("notes", "b2").value().has_value());
  // Naming another agent is refused whether or not it has the id.
  for (const std::string id : {"b2", "nothing-here"}) {
    ids = {id};
    d = engine_->Delete("notes", ids, alice, "bob");
    ASSERT_FALSE(d.ok());
    EXPECT_EQ(d.status().code(), StatusCode::kPermissionDenied);
    EXPECT_EQ(d.status().message(), "a scoped caller deletes only its own records (agent 'alice')");
  }
  EXPECT_TRUE(engine_->Get("notes", "b2").value().has_value());

  d = engine_->DeleteWhere("notes", FilterDialect::kVectorFilter, R"({"importance":{"$gt":0}})",
                           alice);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->written, 1u);
  EXPECT_EQ(Seen(Query(std::nullopt)), (Ids{"b1", "b2", "b3", "c1"}));
}

TEST_F(ScopeTest, CountsAndListingsArePerCaller) {
  Checked<SchemaRef> schema =
      SchemaRef::Parse(R"({"fields":[{"name":"region","type":"string","optional":true}]})");
  ASSERT_TRUE(schema.ok());
  CollectionSpec spec{"plain", schema.value(), {{"content", 1.0}}, 0, "cosine", "en", ""};
  ASSERT_TRUE(engine_->CreateCollection(spec).ok());
  EXPECT_EQ(engine_->DescribeCollection("notes")->records, 6u);
  EXPECT_EQ(engine_->ListCollections().size(), 2u);
  const Scope alice{"alice", ReadProfile::kPrivatePlusProject};
  EXPECT_EQ(engine_->DescribeCollection("notes", alice)->records, 3u);  // a1, a2, b2
  EXPECT_EQ(engine_->DescribeCollection("notes", Scope{"nobody"})->records, 0u);
  const std::vector<CollectionInfo> listed = engine_->ListCollections(alice);
  ASSERT_EQ(listed.size(), 1u);  // "plain" is closed to scoped callers
  EXPECT_EQ(listed[0].spec.name, "notes");
  EXPECT_EQ(listed[0].records, 3u);
  EXPECT_EQ(engine_->DescribeCollection("plain", alice).status().code(),
            StatusCode::kPermissionDenied);
}

// A word only bob's private record has: alice's search, impact and explain
// come out as for a word nobody has (issue 17's zebrapassword42).
TEST_F(ScopeTest, DiagnosticsStayInsideTheScope) {
  std::vector<std::string> batch = {R"({"id":"secret","content":"zebrapassword42 river",)"
                                    R"("type":"fact","scope":"agent_private","agent_id":"bob",)"
                                    R"("importance":0.5,"confidence":0.9,)"
                                    R"("updated_at":"2026-01-09T10:00:00Z"})"};
  std::vector<std::string_view> views(batch.begin(), batch.end());
  ASSERT_TRUE(engine_->Upsert("notes", views).ok());
  auto run = [&](const std::string& query, FilterMode mode) {
    SearchRequest r;
    r.query = query;
    r.scope = Scope{"alice", ReadProfile::kPrivatePlusProject};
    r.filter = R"({"type":"fact"})";
    r.filter_mode = mode;
    r.explain = r.impact = true;
    StatusOr<SearchResponse> s = engine_->Search("notes", r);
    EXPECT_TRUE(s.ok() && !s->rejected);
    return s.ok() ? *s : SearchResponse{};
  };
  for (FilterMode mode : {FilterMode::kAuto, FilterMode::kPost}) {
    const SearchResponse secret = run("zebrapassword42", mode);
    const SearchResponse absent = run("quokkapassword99", mode);
    EXPECT_TRUE(secret.hits.empty());
    EXPECT_EQ(secret.filter_impact, absent.filter_impact);
    EXPECT_NE(secret.filter_impact.find("\"candidate_count_pre\":0"), std::string::npos)
        << secret.filter_impact;
    EXPECT_EQ(secret.filter_impact.find("scope:"), std::string::npos);
    EXPECT_NE(secret.explain.find("\"max_bm25\":0.0"), std::string::npos) << secret.explain;
    EXPECT_NE(secret.explain.find("\"readable\":3"), std::string::npos) << secret.explain;
    EXPECT_NE(secret.explain.find("\"live\":3"), std::string::npos) << secret.explain;
    EXPECT_NE(secret.explain.find("\"postings_scored\":null"), std::string::npos);
  }
  // A shared word: alice's hits come from her records only, in post mode too.
  const SearchResponse river = run("river", FilterMode::kPost);
  Ids ids;
  for (const SearchHit& h : river.hits) ids.insert(h.id);
  EXPECT_EQ(ids, (Ids{"a1", "a2", "b2"}));
  EXPECT_NE(river.filter_impact.find("\"candidate_count_pre\":3"), std::string::npos)
      << river.filter_impact;
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
