// Supersession (engine.h, "Superseded") through the public API: a chain
// a -> b -> c written at three instants of a fixed clock, read as of every
// instant around them on every read path (search, listing search, List,
// Count, Facets, Get, the collection's count), the history of each version,
// tenancy (a record supersedes only its own owner's records; another's id
// answers as a missing one), reopening (with and without snapshots),
// deleting a superseded record, located refusals and retried writes.
#include <atomic>
#include <chrono>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "engine/testing/supersede_fixture.h"
#include "engram/engine.h"

namespace engram {
namespace {

using std::chrono::microseconds;
using testing::ChainNote;
using testing::Clock;
using testing::Ids;
using testing::kAlice;
using testing::kBob;
using testing::kT1;
using testing::kT2;
using testing::kT3;

using testing::SupersedeTest;
using testing::Text;

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
  EXPECT_EQ(g->history[1].record, ChainNote("a", "alice", ""));  // the record as written
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
    Write(kT3 + std::chrono::minutes(i + 1), {ChainNote(id, "alice", "[\"" + previous + "\"]")});
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
  WriteResult other = Write(kT3 + std::chrono::hours(2), {ChainNote("m", "bob", R"(["n","c"])")});
  WriteResult missing =
      Write(kT3 + std::chrono::hours(2), {ChainNote("m", "bob", R"(["n","zz"])")});
  ASSERT_TRUE(other.rejected && missing.rejected);
  EXPECT_EQ(other.rejected->kind, "record.supersedes_unknown");
  EXPECT_EQ(other.rejected->path, "supersedes[1]");
  EXPECT_EQ(other.rejected->kind, missing.rejected->kind);
  EXPECT_EQ(other.rejected->path, missing.rejected->path);
  EXPECT_EQ(other.rejected->message.find("'c'"), missing.rejected->message.find("'zz'"));
  // Nothing was written: n is current, m absent, c current.
  EXPECT_EQ(Visible(""), (Ids{"c", "n"}));
  // Scoped as bob too.
  WriteResult scoped =
      Write(kT3 + std::chrono::hours(2), {ChainNote("m", "bob", R"(["c"])")}, kBob);
  ASSERT_TRUE(scoped.rejected);
  EXPECT_EQ(scoped.rejected->kind, "record.supersedes_unknown");
  // bob's own record with alice's id is a record of its own: bob's "c"
  // superseded leaves alice's "c" current.
  Write(kT3 + std::chrono::hours(3), {ChainNote("c", "bob", "")});
  WriteResult own = Write(kT3 + std::chrono::hours(4), {ChainNote("m", "bob", R"(["c"])")});
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
  const WriteResult again =
      Write(kT3 + std::chrono::hours(5), {ChainNote("c", "alice", R"(["b"])")});
  EXPECT_FALSE(again.rejected);
  EXPECT_TRUE(again.superseded.empty());      // b was superseded already
  EXPECT_EQ(Visible(Text(kT3)), (Ids{"n"}));  // c is now written later
  EXPECT_EQ(Visible(Text(kT2)), (Ids{"b", "n"}));
  // Writing b again makes it current (and leaves c current).
  Write(kT3 + std::chrono::hours(6), {ChainNote("b", "alice", "")});
  EXPECT_EQ(Visible(""), (Ids{"b", "c", "n"}));
}

TEST_F(SupersedeTest, WithinOneBatch) {
  const WriteResult w = Write(kT3 + std::chrono::hours(1),
                              {ChainNote("x", "alice", ""), ChainNote("y", "alice", R"(["x"])"),
                               ChainNote("z", "alice", R"(["y","c"])")});
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

}  // namespace
}  // namespace engram
