// List, Count and Facets through the public API (listing.h): orders, pages
// and their tokens, the refusals with their paths, facets of each kind,
// scopes, and a listing that pages through a collection while another
// thread upserts and deletes.
#include <algorithm>
#include <atomic>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "base/json.h"
#include "engram/engine.h"

namespace engram {
namespace {

namespace fs = std::filesystem;

std::string Note(int i, const std::string& agent, const std::string& scope) {
  char day[12];
  std::snprintf(day, sizeof day, "%02d", 1 + i % 28);
  return R"({"id":"n)" + std::to_string(i) + R"(","content":"note )" + std::to_string(i) +
         R"(","type":")" + (i % 3 == 0 ? "fact" : "decision") + R"(","scope":")" + scope +
         R"(","agent_id":")" + agent + R"(","importance":)" + std::to_string(i % 10) +
         R"(.5,"confidence":0.9,)" + R"("updated_at":"2026-01-)" + day + R"(T10:00:00Z"})";
}

class ListingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("engram_listing_test_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    StatusOr<std::unique_ptr<Engine>> e = Engine::Open(dir_.string());
    ASSERT_TRUE(e.ok()) << e.status().message();
    engine_ = std::move(e).value();
    StatusOr<SchemaRef> schema = SchemaRef::Load("preset:notes");
    ASSERT_TRUE(schema.ok());
    const CollectionSpec spec{"notes",  schema.value(), {{"content", 1.0}}, 0,
                              "cosine", "en",           "updated_at"};
    ASSERT_TRUE(engine_->CreateCollection(spec).ok());
    std::vector<std::string> notes;
    for (int i = 0; i < 60; ++i) {
      notes.push_back(
          Note(i, i % 2 ? "alice" : "bob", i % 5 == 0 ? "project_shared" : "agent_private"));
    }
    Put(notes);
  }
  void TearDown() override {
    engine_.reset();
    fs::remove_all(dir_);
  }
  void Put(const std::vector<std::string>& notes) {
    std::vector<std::string_view> views(notes.begin(), notes.end());
    StatusOr<WriteResult> w = engine_->Upsert("notes", views);
    ASSERT_TRUE(w.ok() && !w->rejected);
  }
  // Every page of `request`, its ids in order.
  std::vector<std::string> All(ListRequest request) {
    std::vector<std::string> ids;
    do {
      StatusOr<ListResponse> page = engine_->List("notes", request);
      EXPECT_TRUE(page.ok() && !page->rejected) << (page.ok() ? page->rejected->message : "");
      if (!page.ok() || page->rejected) break;
      EXPECT_LE(page->records.size(), request.page_size);
      for (const ListedRecord& r : page->records) ids.push_back(r.id);
      request.page_token = page->next_page_token;
    } while (!request.page_token.empty());
    return ids;
  }
  Diagnostic Rejected(const ListRequest& request) {
    StatusOr<ListResponse> r = engine_->List("notes", request);
    EXPECT_TRUE(r.ok() && r->rejected);
    return r.ok() && r->rejected ? *r->rejected : Diagnostic{};
  }

  fs::path dir_;
  std::unique_ptr<Engine> engine_;
};

TEST_F(ListingTest, PagesFollowTheOrderToTheEnd) {
  ListRequest r;
  r.page_size = 7;
  r.order_by = "importance:desc";
  const std::vector<std::string> ids = All(r);
  ASSERT_EQ(ids.size(), 60u);
  EXPECT_EQ(std::set<std::string>(ids.begin(), ids.end()).size(), 60u);
  // importance i % 10 + 0.5 descending, then by id.
  std::vector<std::string> want;
  for (int imp = 9; imp >= 0; --imp) {
    std::vector<std::string> tie;
    for (int i = imp; i < 60; i += 10) tie.push_back("n" + std::to_string(i));
    std::sort(tie.begin(), tie.end());
    want.insert(want.end(), tie.begin(), tie.end());
  }
  EXPECT_EQ(ids, want);
  // One page of everything is the same listing.
  r.page_size = kMaxPageSize;
  EXPECT_EQ(All(r), want);
  // The default: record time, newest first.
  r.order_by.clear();
  const std::vector<std::string> by_time = All(r);
  EXPECT_EQ(by_time.front(), "n27");  // 2026-01-28
  EXPECT_EQ(by_time.back(), "n56");   // 2026-01-01 with n0 and n28, last by key
}

TEST_F(ListingTest, ScopeAndFilterSelect) {
  ListRequest r;
  r.page_size = 4;
  r.selection.scope = Scope{"alice", ReadProfile::kPrivatePlusProject};
  r.selection.filter = R"({"type":"fact"})";
  std::vector<std::string> ids = All(r);
  std::set<std::string> want;
  for (int i = 0; i < 60; ++i) {
    const bool readable = i % 2 == 1 || i % 5 == 0;
    if (readable && i % 3 == 0) want.insert("n" + std::to_string(i));
  }
  EXPECT_EQ(std::set<std::string>(ids.begin(), ids.end()), want);
  EXPECT_EQ(ids.size(), want.size());
  StatusOr<CountResponse> count = engine_->Count("notes", r.selection);
  ASSERT_TRUE(count.ok() && !count->rejected);
  EXPECT_EQ(count->count, want.size());
}

TEST_F(ListingTest, TokensBelongToTheirQuery) {
  ListRequest r;
  r.page_size = 5;
  StatusOr<ListResponse> first = engine_->List("notes", r);
  ASSERT_TRUE(first.ok() && !first->rejected);
  ASSERT_FALSE(first->next_page_token.empty());
  ListRequest other = r;
  other.page_token = first->next_page_token;
  other.selection.filter = R"({"type":"fact"})";
  Diagnostic d = Rejected(other);
  EXPECT_EQ(d.path, "page_token");
  EXPECT_NE(d.message.find("another query"), std::string::npos) << d.message;
  other = r;
  other.page_token = first->next_page_token;
  other.order_by = "importance";
  EXPECT_EQ(Rejected(other).path, "page_token");
  other = r;
  other.page_token = first->next_page_token;
  other.selection.scope = Scope{"alice", ReadProfile::kAllScopes};
  EXPECT_EQ(Rejected(other).path, "page_token");
  other = r;
  other.page_token = "zz";
  EXPECT_EQ(Rejected(other).path, "page_token");
  other.page_token = "7b7d";  // "{}"
  EXPECT_EQ(Rejected(other).path, "page_token");
  // The page size may change between pages.
  other = r;
  other.page_token = first->next_page_token;
  other.page_size = 100;
  StatusOr<ListResponse> rest = engine_->List("notes", other);
  ASSERT_TRUE(rest.ok() && !rest->rejected);
  EXPECT_EQ(rest->records.size(), 55u);
  EXPECT_TRUE(rest->next_page_token.empty());
}

TEST_F(ListingTest, BadRequestsAreLocated) {
  ListRequest r;
  r.page_size = 0;
  EXPECT_EQ(Rejected(r).path, "page_size");
  r.page_size = kMaxPageSize + 1;
  EXPECT_EQ(Rejected(r).path, "page_size");
  r.page_size = 10;
  r.order_by = "nope";
  EXPECT_EQ(Rejected(r).message, "order_by: no field 'nope' in the schema");
  r.order_by = "importance:up";
  EXPECT_EQ(Rejected(r).path, "order_by");
  r.order_by.clear();
  r.selection.filter = R"({"nope":1})";
  EXPECT_EQ(Rejected(r).kind, "filter.unknown_field");

  FacetRequest f;
  f.field = "nope";
  EXPECT_EQ(engine_->Facets("notes", f)->rejected->path, "field");
  f.field = "type";
  f.top = 0;
  EXPECT_EQ(engine_->Facets("notes", f)->rejected->path, "top");
  f.top = 5;
  f.ranges = {FacetRange{"1", "2"}};
  EXPECT_EQ(engine_->Facets("notes", f)->rejected->path, "ranges");
  f.field = "importance";
  f.ranges.clear();
  EXPECT_EQ(engine_->Facets("notes", f)->rejected->path, "ranges");
  f.ranges = {FacetRange{"1", "x"}};
  const std::optional<Diagnostic> bad = engine_->Facets("notes", f)->rejected;
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->path, "ranges[0].to");
  EXPECT_EQ(bad->message, "ranges[0].to: 'x' is not a value of float field 'importance'");
  EXPECT_EQ(engine_->List("nope", ListRequest{}).status().code(), StatusCode::kNotFound);
}

TEST_F(ListingTest, FacetsCountValuesAndRanges) {
  FacetRequest f;
  f.field = "type";
  StatusOr<FacetResponse> r = engine_->Facets("notes", f);
  ASSERT_TRUE(r.ok() && !r->rejected);
  ASSERT_EQ(r->values.size(), 2u);
  EXPECT_EQ(r->values[0].value, "\"decision\"");
  EXPECT_EQ(r->values[0].count, 40u);
  EXPECT_EQ(r->values[1].value, "\"fact\"");
  EXPECT_EQ(r->values[1].count, 20u);
  f.top = 1;
  EXPECT_EQ(engine_->Facets("notes", f)->values.size(), 1u);
  f.field = "importance";
  f.ranges = {FacetRange{std::nullopt, "5"}, FacetRange{"5", std::nullopt},
              FacetRange{"2.5", "3.5"}};
  r = engine_->Facets("notes", f);
  ASSERT_TRUE(r.ok() && !r->rejected);
  EXPECT_EQ(r->ranges[0].count, 30u);
  EXPECT_EQ(r->ranges[1].count, 30u);
  EXPECT_EQ(r->ranges[2].count, 6u);  // from inclusive: 2.5; to exclusive: not 3.5
  f.field = "updated_at";
  f.ranges = {FacetRange{"2026-01-01", "2026-01-02"}, FacetRange{"2026-01-28T10:00:00Z", {}}};
  f.selection.scope = Scope{"bob", ReadProfile::kPrivateOnly};
  r = engine_->Facets("notes", f);
  ASSERT_TRUE(r.ok() && !r->rejected);
  EXPECT_EQ(r->ranges[0].count, 3u);  // n0, n28, n56: bob's, on the 1st
  EXPECT_EQ(r->ranges[1].count, 0u);  // n27 and n55 are alice's
}

TEST_F(ListingTest, SetAndBoolFacets) {
  Checked<SchemaRef> schema = SchemaRef::Parse(
      R"({"fields":[{"name":"tags","type":"set<string>","optional":true},
                    {"name":"done","type":"bool","required":true}]})");
  ASSERT_TRUE(schema.ok());
  ASSERT_TRUE(
      engine_
          ->CreateCollection({"tagged", schema.value(), {{"text", 1.0}}, 0, "cosine", "none", ""})
          .ok());
  const std::string records[] = {R"({"id":"a","tags":["x","y"],"done":true})",
                                 R"({"id":"b","tags":["y"],"done":false})",
                                 R"({"id":"c","done":false})"};
  const std::string_view views[] = {records[0], records[1], records[2]};
  ASSERT_TRUE(engine_->Upsert("tagged", views).ok());
  FacetRequest f;
  f.field = "tags";
  StatusOr<FacetResponse> r = engine_->Facets("tagged", f);
  ASSERT_TRUE(r.ok() && !r->rejected);
  ASSERT_EQ(r->values.size(), 2u);
  EXPECT_EQ(r->values[0].value, "\"y\"");
  EXPECT_EQ(r->values[0].count, 2u);
  EXPECT_EQ(r->values[1].value, "\"x\"");
  f.field = "done";
  f.selection.filter = R"({"tags":{"$in":["y"]}})";
  r = engine_->Facets("tagged", f);
  ASSERT_TRUE(r.ok() && !r->rejected) << r->rejected->message;
  ASSERT_EQ(r->values.size(), 2u);
  EXPECT_EQ(r->values[0].value, "false");
  EXPECT_EQ(r->values[1].value, "true");
  ListRequest l;
  l.order_by = "tags";
  StatusOr<ListResponse> listed = engine_->List("tagged", l);
  ASSERT_TRUE(listed.ok() && listed->rejected);
  EXPECT_EQ(listed->rejected->path, "order_by");
}

// Pages through the collection while another thread upserts new records and
// deletes and rewrites others: every record that existed, unchanged, for the
// whole listing is seen exactly once, and no record twice.
TEST_F(ListingTest, StableUnderConcurrentWrites) {
  for (const std::string order : {"", "importance", "updated_at:asc", "type:desc"}) {
    std::atomic<bool> stop{false};
    std::thread writer([&] {
      for (int round = 0; !stop && round < 300; ++round) {
        std::vector<std::string> batch;
        for (int j = 0; j < 5; ++j) {
          batch.push_back(Note(1000 + round * 5 + j, "alice", "agent_private"));
        }
        Put(batch);
        // n0..n9 are churned: deleted, and every other round written again.
        const int churned = round % 10;
        const std::string agent = churned % 2 ? "alice" : "bob";
        const std::vector<std::string> gone = {"n" + std::to_string(churned)};
        EXPECT_TRUE(engine_->Delete("notes", gone, std::nullopt, agent).ok());
        if (round % 2 == 0) Put({Note(churned, agent, "agent_private")});
      }
    });
    ListRequest r;
    r.page_size = 3;
    r.order_by = order;
    std::vector<std::string> ids;
    do {
      StatusOr<ListResponse> page = engine_->List("notes", r);
      ASSERT_TRUE(page.ok() && !page->rejected);
      for (const ListedRecord& rec : page->records) ids.push_back(rec.id);
      r.page_token = page->next_page_token;
      std::this_thread::yield();
    } while (!r.page_token.empty());
    stop = true;
    writer.join();
    std::multiset<std::string> seen(ids.begin(), ids.end());
    for (const std::string& id : seen) EXPECT_EQ(seen.count(id), 1u) << order << ": " << id;
    for (int i = 10; i < 60; ++i) {
      EXPECT_EQ(seen.count("n" + std::to_string(i)), 1u) << order << ": n" << i;
    }
  }
}

}  // namespace
}  // namespace engram
