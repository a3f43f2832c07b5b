// The fixture of the supersession tests (supersede_test.cc,
// supersede_refusal_test.cc; tests only): a chain a -> b -> c of one
// owner's notes written at three instants of a fixed clock, and reads of
// what is visible as of an instant on every read path.
#ifndef ENGRAM_ENGINE_TESTING_SUPERSEDE_FIXTURE_H_
#define ENGRAM_ENGINE_TESTING_SUPERSEDE_FIXTURE_H_

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/testing/read_paths.h"
#include "engine/testing/test_clock.h"
#include "engram/engine.h"

namespace engram::testing {

namespace fs = std::filesystem;
using Clock = std::chrono::system_clock;
using std::chrono::microseconds;

inline const Clock::time_point kT1 = std::chrono::sys_days{std::chrono::year(2026) / 5 / 1};
inline const Clock::time_point kT2 = kT1 + std::chrono::hours(1);
inline const Clock::time_point kT3 = kT1 + std::chrono::hours(2);

inline std::string Text(Clock::time_point t) {
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

inline std::string ChainNote(const std::string& id, const std::string& agent,
                             const std::string& supersedes,
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
    Write(kT1 - std::chrono::hours(1), {ChainNote("n", "bob", "")});
    Write(kT1, {ChainNote("a", "alice", "")});
    EXPECT_EQ(Write(kT2, {ChainNote("b", "alice", R"(["a"])")}).superseded.size(), 1u);
    const WriteResult c = Write(kT3, {ChainNote("c", "alice", R"(["b"])")});
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
    for (const SearchRequest& r : {search, listing})
      seen.push_back(SearchedIds(*engine_, "notes", r));
    ListRequest list;
    list.selection = RecordSelection{scope, std::nullopt, "", as_of};
    list.page_size = 1;
    seen.push_back(ListedIds(*engine_, "notes", list));
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
    ExpectCounted(*engine_, "notes", list.selection, seen[0].size());
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

inline const Scope kAlice{"alice", ReadProfile::kPrivateOnly};
inline const Scope kBob{"bob", ReadProfile::kPrivatePlusProject};

}  // namespace engram::testing

#endif  // ENGRAM_ENGINE_TESTING_SUPERSEDE_FIXTURE_H_
