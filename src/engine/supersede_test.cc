// Supersession (engine.h, "Superseded") through the public API: a chain
// a -> b -> c written at three instants of a fixed clock, read as of every
// instant around them on every read path (search, listing search, List,
// Count, Facets, Get, the collection's count), the history of each version,
// tenancy (a record supersedes only its own owner's records; another's id
// answers as a missing one), reopening (with and without snapshots),
// deleting a superseded record, located refusals and retried writes.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/testing/test_clock.h"
#include "engram/engine.h"

namespace engram {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::system_clock;
using Ids = std::set<std::string>;
using std::chrono::microseconds;

const Clock::time_point kT1 = std::chrono::sys_days{std::chrono::year(2026) / 5 / 1};
const Clock::time_point kT2 = kT1 + std::chrono::hours(1);
const Clock::time_point kT3 = kT1 + std::chrono::hours(2);

std::string Text(Clock::time_point t) {
  const auto micros = std::chrono::duration_cast<microseconds>(t.time_since_epoch()).count();
  const std::time_t secs = static_cast<std::time_t>(micros / 1000000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  const long frac = static_cast<long>(micros % 1000000);
  std::string out(buf);
  if (frac != 0) {
    char f[16];
    std::snprintf(f, sizeof f, ".%06ld", frac);
    out += f;
  }
  return out + "Z";
}

std::string Note(const std::string& id, const std::string& agent, const std::string& supersedes,
                 const std::string& text = "the river mill") {
  return R"({"id":")" + id + R"(","content":")" + text + R"(","type":"fact","agent_id":")" + agent +
         R"(","scope":"project_shared","importance":0.5,"confidence":0.9,)" +
         R"("updated_at":"2026-01-01T10:00:00Z")" +
         (supersedes.empty() ? "" : R"(,"supersedes":)" + supersedes) + "}";
}

class SupersedeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("engram_supersede_test_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    Open();
    StatusOr<SchemaRef> schema = SchemaRef::Load("preset:notes");
    ASSERT_TRUE(schema.ok());
    CollectionSpec spec{"notes", schema.value(), {{"content", 1.0}}, 0, "cosine", "en", ""};
    ASSERT_TRUE(engine_->CreateCollection(spec).ok());
    // The chain a -> b -> c of alice's, and n (never superseded) of bob's.
    Write(kT1 - std::chrono::hours(1), {Note("n", "bob", "")});
    Write(kT1, {Note("a", "alice", "")});
    EXPECT_EQ(Write(kT2, {Note("b", "alice", R"(["a"])")}).superseded.size(), 1u);
    const WriteResult c = Write(kT3, {Note("c", "alice", R"(["b"])")});
    ASSERT_EQ(c.superseded.size(), 1u);
    EXPECT_EQ(c.superseded[0].index, 0u);
    EXPECT_EQ(c.superseded[0].id, "c");
    EXPECT_EQ(c.superseded[0].superseded, "b");
    clock_.Set(kT3 + std::chrono::hours(1));
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

  WriteResult Write(Clock::time_point at, const std::vector<std::string>& records,
                    const std::optional<Scope>& scope = std::nullopt) {
    clock_.Set(at);
    std::vector<std::string_view> views(records.begin(), records.end());
    StatusOr<WriteResult> w = engine_->Upsert("notes", views, {}, scope);
    EXPECT_TRUE(w.ok()) << w.status().message();
    return w.ok() ? *w : WriteResult{};
  }

  // The ids every read path shows `scope` as of `as_of` (empty: now), which
  // must all agree.
  Ids Visible(const std::string& as_of, const std::optional<Scope>& scope = std::nullopt) {
    std::vector<Ids> seen;
    SearchRequest search;
    search.query = "river";
    search.scope = scope;
    search.as_of = as_of;
    search.k = 100;
    SearchRequest listing = search;
    listing.query.reset();
    for (const SearchRequest& r : {search, listing}) {
      StatusOr<SearchResponse> s = engine_->Search("notes", r);
      EXPECT_TRUE(s.ok() && !s->rejected) << (s.ok() ? s->rejected->message : "");
      Ids ids;
      for (const SearchHit& h : s->hits) ids.insert(h.id);
      seen.push_back(ids);
    }
    ListRequest list;
    list.selection = RecordSelection{scope, std::nullopt, "", as_of};
    list.page_size = 1;
    Ids listed;
    do {
      StatusOr<ListResponse> page = engine_->List("notes", list);
      EXPECT_TRUE(page.ok() && !page->rejected);
      for (const ListedRecord& r : page->records) listed.insert(r.id);
      list.page_token = page->next_page_token;
    } while (!list.page_token.empty());
    seen.push_back(listed);
    Ids got;
    for (const char* id : {"a", "b", "c", "n", "m", "x", "y", "z"}) {
      GetRequest get;
      get.scope = scope;
      get.as_of = as_of;
      StatusOr<GetResponse> g = engine_->Get("notes", id, get);
      EXPECT_TRUE(g.ok() && !g->rejected);
      if (g->found) got.insert(id);
      if (as_of.empty()) {
        StatusOr<std::optional<std::string>> plain = engine_->Get("notes", id, scope);
        EXPECT_EQ(plain->has_value(), g->found.has_value()) << id;
      }
    }
    seen.push_back(got);
    for (std::size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], seen[0]) << "read path " << i;
    StatusOr<CountResponse> count = engine_->Count("notes", list.selection);
    EXPECT_TRUE(count.ok() && !count->rejected);
    EXPECT_EQ(count->count, seen[0].size());
    FacetRequest facets;
    facets.selection = list.selection;
    facets.field = "agent_id";
    StatusOr<FacetResponse> f = engine_->Facets("notes", facets);
    EXPECT_TRUE(f.ok() && !f->rejected);
    std::uint64_t faceted = 0;
    for (const FacetValue& v : f->values) faceted += v.count;
    EXPECT_EQ(faceted, seen[0].size());
    if (as_of.empty()) {
      EXPECT_EQ(engine_->DescribeCollection("notes", scope)->records, seen[0].size());
    }
    return seen[0];
  }

  // The ids of `id`'s history (newest first) as of `as_of`; "-" when `id` is
  // not found.
  std::vector<std::string> History(const std::string& id, const std::string& as_of = "",
                                   const std::optional<Scope>& scope = std::nullopt) {
    GetRequest get;
    get.scope = scope;
    get.as_of = as_of;
    get.include_history = true;
    StatusOr<GetResponse> g = engine_->Get("notes", id, get);
    EXPECT_TRUE(g.ok() && !g->rejected);
    if (!g->found) return {"-"};
    std::vector<std::string> ids;
    for (const RecordVersion& v : g->history) ids.push_back(v.id);
    return ids;
  }

  fs::path dir_;
  testing::TestClock clock_;
  std::unique_ptr<Engine> engine_;
};

const Scope kAlice{"alice", ReadProfile::kPrivateOnly};
const Scope kBob{"bob", ReadProfile::kPrivatePlusProject};

// The chain read as of each instant around its writes.
struct AsOfCase {
  Clock::time_point at;
  Ids visible;
};

TEST_F(SupersedeTest, AsOfEveryInstantOfTheChain) {
  EXPECT_EQ(Visible(""), (Ids{"c", "n"}));
  const microseconds us(1);
  const std::vector<AsOfCase> cases = {
      {kT1 - std::chrono::hours(2), {}},          // before anything
      {kT1 - us, {"n"}},                          // a not yet written
      {kT1, {"a", "n"}},                          // a written at T1
      {kT2 - us, {"a", "n"}},                     // a still current
      {kT2, {"b", "n"}},                          // b supersedes a at T2
      {kT3 - us, {"b", "n"}},                     //
      {kT3, {"c", "n"}},                          // c supersedes b at T3
      {kT3 + std::chrono::hours(9), {"c", "n"}},  // after now: as now
  };
  for (const AsOfCase& c : cases) EXPECT_EQ(Visible(Text(c.at)), c.visible) << Text(c.at);
  // A date alone is its midnight UTC.
  EXPECT_EQ(Visible("2026-05-01"), (Ids{"a", "n"}));
  // Scoped: bob sees alice's shared records, as of each instant too.
  EXPECT_EQ(Visible(Text(kT2), kBob), (Ids{"b", "n"}));
  EXPECT_EQ(Visible(Text(kT2), kAlice), Ids{"b"});
}

TEST_F(SupersedeTest, HistoryListsPredecessorsNewestFirst) {
  EXPECT_EQ(History("c"), (std::vector<std::string>{"b", "a"}));
  EXPECT_EQ(History("b"), std::vector<std::string>{"-"});  // not current
  EXPECT_EQ(History("b", Text(kT2)), std::vector<std::string>{"a"});
  EXPECT_EQ(History("a", Text(kT1)), std::vector<std::string>{});
  EXPECT_EQ(History("n"), std::vector<std::string>{});
  // The versions' times.
  GetRequest get;
  get.include_history = true;
  StatusOr<GetResponse> g = engine_->Get("notes", "c", get);
  ASSERT_TRUE(g.ok() && g->found);
  EXPECT_EQ(g->found->written_at, Text(kT3));
  EXPECT_EQ(g->found->superseded_at, "");
  ASSERT_EQ(g->history.size(), 2u);
  EXPECT_EQ(g->history[0].written_at, Text(kT2));
  EXPECT_EQ(g->history[0].superseded_at, Text(kT3));
  EXPECT_EQ(g->history[1].written_at, Text(kT1));
  EXPECT_EQ(g->history[1].superseded_at, Text(kT2));
  EXPECT_EQ(g->history[1].record, Note("a", "alice", ""));  // the record as written
  EXPECT_FALSE(g->history_truncated);
  // Another agent reads the shared history; a private-only caller of
  // another agent reads nothing of it.
  EXPECT_EQ(History("c", "", kBob), (std::vector<std::string>{"b", "a"}));
  EXPECT_EQ(History("c", "", Scope{"carol", ReadProfile::kPrivateOnly}),
            std::vector<std::string>{"-"});
}

TEST_F(SupersedeTest, HistoryIsBounded) {
  // A chain longer than the bound: the newest predecessors come first.
  std::string previous = "c";
  for (int i = 0; i < 105; ++i) {
    const std::string id = "v" + std::to_string(i);
    Write(kT3 + std::chrono::minutes(i + 1), {Note(id, "alice", "[\"" + previous + "\"]")});
    previous = id;
  }
  GetRequest get;
  get.include_history = true;
  StatusOr<GetResponse> g = engine_->Get("notes", previous, get);
  ASSERT_TRUE(g.ok() && g->found);
  EXPECT_EQ(g->history.size(), 100u);
  EXPECT_TRUE(g->history_truncated);
  EXPECT_EQ(g->history.front().id, "v103");
}

TEST_F(SupersedeTest, SupersedesOnlyTheOwnersRecords) {
  // bob names alice's "c" and an id nobody has: the same refusal, located.
  WriteResult other = Write(kT3 + std::chrono::hours(2), {Note("m", "bob", R"(["n","c"])")});
  WriteResult missing = Write(kT3 + std::chrono::hours(2), {Note("m", "bob", R"(["n","zz"])")});
  ASSERT_TRUE(other.rejected && missing.rejected);
  EXPECT_EQ(other.rejected->kind, "record.supersedes_unknown");
  EXPECT_EQ(other.rejected->path, "supersedes[1]");
  EXPECT_EQ(other.rejected->kind, missing.rejected->kind);
  EXPECT_EQ(other.rejected->path, missing.rejected->path);
  EXPECT_EQ(other.rejected->message.find("'c'"), missing.rejected->message.find("'zz'"));
  // Nothing was written: n is current, m absent, c current.
  EXPECT_EQ(Visible(""), (Ids{"c", "n"}));
  // Scoped as bob too.
  WriteResult scoped = Write(kT3 + std::chrono::hours(2), {Note("m", "bob", R"(["c"])")}, kBob);
  ASSERT_TRUE(scoped.rejected);
  EXPECT_EQ(scoped.rejected->kind, "record.supersedes_unknown");
  // bob's own record with alice's id is a record of its own: bob's "c"
  // superseded leaves alice's "c" current.
  Write(kT3 + std::chrono::hours(3), {Note("c", "bob", "")});
  WriteResult own = Write(kT3 + std::chrono::hours(4), {Note("m", "bob", R"(["c"])")});
  ASSERT_FALSE(own.rejected);
  ASSERT_EQ(own.superseded.size(), 1u);
  GetRequest alice_c;
  alice_c.agent = "alice";
  EXPECT_TRUE(engine_->Get("notes", "c", alice_c)->found);
  GetRequest bob_c;
  bob_c.agent = "bob";
  EXPECT_FALSE(engine_->Get("notes", "c", bob_c)->found);
  EXPECT_EQ(Visible("", kAlice), Ids{"c"});
}

TEST_F(SupersedeTest, SurvivesReopenWithAndWithoutSnapshots) {
  const std::vector<std::pair<std::string, Ids>> expected = {
      {"", {"c", "n"}}, {Text(kT1), {"a", "n"}}, {Text(kT2), {"b", "n"}}};
  for (const bool checkpoint : {false, true}) {
    if (checkpoint) {
      ASSERT_TRUE(engine_->Checkpoint("notes").ok());
    }
    Open();
    for (const auto& [as_of, ids] : expected) EXPECT_EQ(Visible(as_of), ids) << as_of;
    EXPECT_EQ(History("c"), (std::vector<std::string>{"b", "a"}));
  }
}

TEST_F(SupersedeTest, DeletingForgetsAVersionForGood) {
  const std::vector<std::string> ids = {"a"};
  StatusOr<WriteResult> d = engine_->Delete("notes", ids);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->written, 1u);  // superseded, still deleted
  EXPECT_EQ(History("c"), std::vector<std::string>{"b"});
  EXPECT_EQ(Visible(Text(kT1)), Ids{"n"});
  // Deleting the current version leaves its predecessor superseded.
  const std::vector<std::string> current = {"c"};
  ASSERT_EQ(engine_->Delete("notes", current, kAlice)->written, 1u);
  EXPECT_EQ(Visible(""), Ids{"n"});
  EXPECT_EQ(Visible(Text(kT2)), (Ids{"b", "n"}));
  // By filter, superseded records go too.
  ASSERT_EQ(engine_->DeleteWhere("notes", FilterDialect::kVectorFilter, R"({"agent_id":"alice"})")
                ->written,
            1u);
  EXPECT_EQ(Visible(Text(kT2)), Ids{"n"});
}

TEST_F(SupersedeTest, RetriedWriteKeepsTheFirstTimeAndRewriteMakesCurrent) {
  const WriteResult again = Write(kT3 + std::chrono::hours(5), {Note("c", "alice", R"(["b"])")});
  EXPECT_FALSE(again.rejected);
  EXPECT_TRUE(again.superseded.empty());      // b was superseded already
  EXPECT_EQ(Visible(Text(kT3)), (Ids{"n"}));  // c is now written later
  EXPECT_EQ(Visible(Text(kT2)), (Ids{"b", "n"}));
  // Writing b again makes it current (and leaves c current).
  Write(kT3 + std::chrono::hours(6), {Note("b", "alice", "")});
  EXPECT_EQ(Visible(""), (Ids{"b", "c", "n"}));
}

TEST_F(SupersedeTest, WithinOneBatch) {
  const WriteResult w = Write(
      kT3 + std::chrono::hours(1),
      {Note("x", "alice", ""), Note("y", "alice", R"(["x"])"), Note("z", "alice", R"(["y","c"])")});
  ASSERT_FALSE(w.rejected);
  ASSERT_EQ(w.superseded.size(), 3u);
  EXPECT_EQ(w.superseded[0].id, "y");
  EXPECT_EQ(w.superseded[0].superseded, "x");
  EXPECT_EQ(w.superseded[2].id, "z");
  EXPECT_EQ(w.superseded[2].index, 2u);
  EXPECT_EQ(Visible(""), (Ids{"n", "z"}));
  // Newest written first: x and y with z (by id), then c, b, a.
  EXPECT_EQ(History("z"), (std::vector<std::string>{"x", "y", "c", "b", "a"}));
}

struct Refusal {
  std::string supersedes;
  std::string path;
  std::string message;
};

TEST_F(SupersedeTest, RefusesBadSupersedesWithTheirPlace) {
  std::string many = "[";
  for (int i = 0; i < 65; ++i)
    many += std::string(i > 0 ? "," : "") + "\"k" + std::to_string(i) + "\"";
  many += "]";
  const std::vector<Refusal> cases = {
      {R"("a")", "supersedes", "expected an array of record ids, got string"},
      {R"(["b",3])", "supersedes[1]", "expected a non-empty record id, got int"},
      {R"(["b",""])", "supersedes[1]", "expected a non-empty record id"},
      {R"(["b","b"])", "supersedes[1]", "'b' is named twice"},
      {R"(["m"])", "supersedes[0]", "a record cannot supersede itself"},
      {many, "supersedes", "names 65 records; at most 64"},
  };
  for (const Refusal& r : cases) {
    const WriteResult w = Write(kT3 + std::chrono::hours(1),
                                {Note("ok", "alice", ""), Note("m", "alice", r.supersedes)});
    ASSERT_TRUE(w.rejected) << r.supersedes;
    EXPECT_EQ(w.rejected_index, 1u);
    EXPECT_EQ(w.rejected->kind, "record.invalid");
    EXPECT_EQ(w.rejected->path, r.path) << r.supersedes;
    EXPECT_NE(w.rejected->message.find(r.message), std::string::npos) << w.rejected->message;
  }
  const WriteResult reserved = Write(
      kT3,
      {R"({"id":"r","content":"x","type":"fact","agent_id":"alice","updated_at":"2026-01-01","@version":{}})"});
  ASSERT_TRUE(reserved.rejected);
  EXPECT_EQ(reserved.rejected->path, "@version");
  EXPECT_EQ(Visible(""), (Ids{"c", "n"}));  // nothing written
}

TEST_F(SupersedeTest, RefusesABadAsOfOnEveryRead) {
  const std::string bad = "yesterday";
  SearchRequest search;
  search.query = "river";
  search.as_of = bad;
  StatusOr<SearchResponse> s = engine_->Search("notes", search);
  ASSERT_TRUE(s.ok() && s->rejected);
  EXPECT_EQ(s->rejected->path, "as_of");
  RecordSelection selection{std::nullopt, std::nullopt, "", bad};
  StatusOr<CountResponse> count = engine_->Count("notes", selection);
  ASSERT_TRUE(count.ok() && count->rejected);
  EXPECT_EQ(count->rejected->path, "as_of");
  ListRequest list;
  list.selection = selection;
  EXPECT_EQ(engine_->List("notes", list)->rejected->path, "as_of");
  GetRequest get;
  get.as_of = bad;
  EXPECT_EQ(engine_->Get("notes", "c", get)->rejected->path, "as_of");
}

TEST_F(SupersedeTest, PageTokenIsBoundToAsOf) {
  ListRequest list;
  list.selection.as_of = Text(kT2);
  list.page_size = 1;
  StatusOr<ListResponse> first = engine_->List("notes", list);
  ASSERT_TRUE(first.ok() && !first->rejected && !first->next_page_token.empty());
  list.page_token = first->next_page_token;
  list.selection.as_of = Text(kT3);
  StatusOr<ListResponse> other = engine_->List("notes", list);
  ASSERT_TRUE(other.ok() && other->rejected);
  EXPECT_EQ(other->rejected->path, "page_token");
}

TEST_F(SupersedeTest, SupersededRecordsAreNoDuplicatesOriginals) {
  StatusOr<SchemaRef> schema = SchemaRef::Load("preset:notes");
  CollectionSpec spec{"dedup", schema.value(), {{"content", 1.0}}, 0, "cosine", "en", ""};
  spec.dedup = DedupSpec{DedupMode::kExact, 0};
  ASSERT_TRUE(engine_->CreateCollection(spec).ok());
  auto write = [&](const std::string& record) {
    const std::vector<std::string_view> views = {record};
    return *engine_->Upsert("dedup", views);
  };
  write(Note("p", "alice", "", "the mill is red"));
  write(Note("q", "alice", R"(["p"])", "the mill is blue"));
  // Saying again what p said makes it a current fact again: no duplicate.
  const WriteResult again = write(Note("r", "alice", "", "the mill is red"));
  EXPECT_TRUE(again.deduplicated.empty());
  EXPECT_EQ(again.written, 1u);
  // A current record's duplicate is skipped and supersedes nothing.
  const WriteResult dup = write(Note("s", "alice", R"(["q"])", "the mill is red"));
  ASSERT_EQ(dup.deduplicated.size(), 1u);
  EXPECT_TRUE(dup.superseded.empty());
  EXPECT_TRUE(engine_->Get("dedup", "q")->has_value());
}

}  // namespace
}  // namespace engram
