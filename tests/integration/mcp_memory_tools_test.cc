// The MCP memory tools end to end through McpServer::HandleMessage: a
// duplicate of the agent's own memory reported, ReviseMemory and
// MemoryHistory, concurrent revisions, refreshed originals, scoped agents,
// Retrieve, ListMemories' cursor, MemoryStats, expired records left out.
#include <atomic>
#include <cctype>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/integration/mcp_tools_fixture.h"

namespace engram::server::mcp {
namespace {
namespace mcp_memory_tools_test {

using std::chrono::hours;
using std::chrono::minutes;
// A memories collection created beforehand with `dedup`.
CollectionSpec MemoriesWithDedup(const char* dedup) {
  CollectionSpec spec{"memories",
                      SchemaRef::Load("preset:memory").value(),
                      {{"content", 1.0}, {"title", 1.0}, {"context", 1.0}},
                      0,
                      "cosine",
                      "en",
                      "timestamp"};
  spec.dedup = ParseDedup(dedup).value();
  return spec;
}

TEST_F(McpToolsTest, StoreMemoryReportsADuplicateOfTheAgentsOwn) {
  ASSERT_TRUE(engine_->CreateCollection(MemoriesWithDedup("exact")).ok());
  Principal alice{"alice", ReadProfile::kPrivateOnly, false};
  Principal bob{"bob", ReadProfile::kPrivateOnly, false};
  const Json first = ToolOk("StoreMemory", {{"content", "The cache lives in /tmp"}}, &alice);
  EXPECT_FALSE(first.contains("duplicate_of"));
  const Json again = ToolOk("StoreMemory", {{"content", "the cache  lives in /TMP"}}, &alice);
  EXPECT_EQ(again["duplicate_of"], first["memory_id"]);
  EXPECT_EQ(again["dedup_action"], "skipped");
  const Json bobs = ToolOk("StoreMemory", {{"content", "The cache lives in /tmp"}}, &bob);
  EXPECT_FALSE(bobs.contains("duplicate_of")) << "bob's copy is his own memory";
  EXPECT_EQ(engine_->DescribeCollection("memories")->records, 2u);
}

TEST_F(McpToolsTest, ReviseMemorySupersedesAndMemoryHistoryReadsTheVersions) {
  Principal alice{"alice", ReadProfile::kPrivatePlusProject, false};
  Principal bob{"bob", ReadProfile::kPrivatePlusProject, false};
  const Json first = ToolOk("StoreMemory",
                            {{"content", "the deploy key lives in vault A"},
                             {"session_id", "ops"},
                             {"title", "deploy key"}},
                            &alice);
  const std::string v1 = first["memory_id"];
  const Json revised = ToolOk(
      "ReviseMemory", {{"memory_id", v1}, {"content", "the deploy key moved to vault B"}}, &alice);
  const std::string v2 = revised["memory_id"];
  EXPECT_NE(v2, v1);
  EXPECT_EQ(revised["supersedes"], v1);
  EXPECT_EQ(revised["session_id"], "ops");  // inherited from the old version
  EXPECT_EQ(revised["sequence_order"], 2);
  // Searches see the new version only.
  const Json hits = ToolOk("SearchMemory", {{"query", "deploy key vault"}, {"score_threshold", 0}},
                           &alice)["results"];
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0]["memory_id"], v2);
  EXPECT_EQ(hits[0]["title"], "deploy key");
  EXPECT_EQ(ToolOk("MemoryStats", Json::object(), &alice)["count"], 1);
  // The history: the new version with the one it replaced.
  const Json history = ToolOk("MemoryHistory", {{"memory_id", v2}}, &alice);
  EXPECT_EQ(history["memory"]["memory_id"], v2);
  EXPECT_FALSE(history["memory"].contains("superseded_at"));
  ASSERT_EQ(history["history"].size(), 1u);
  EXPECT_EQ(history["history"][0]["memory_id"], v1);
  EXPECT_EQ(history["history"][0]["superseded_at"], history["memory"]["written_at"]);
  EXPECT_EQ(history["history_truncated"], false);
  // The old version as of a time before the revision.
  const Json then = ToolOk(
      "MemoryHistory", {{"memory_id", v1}, {"as_of", history["history"][0]["written_at"]}}, &alice);
  EXPECT_EQ(then["memory"]["memory_id"], v1);
  // A revised memory is revised no more; another agent's cannot be revised.
  EXPECT_EQ(ToolError("ReviseMemory", {{"memory_id", v1}, {"content", "x"}}, &alice)
                .rfind("memory_id: no current memory", 0),
            0u);
  EXPECT_EQ(ToolError("ReviseMemory", {{"memory_id", v2}, {"content", "x"}}, &bob)
                .rfind("memory_id: no current memory", 0),
            0u);
  EXPECT_EQ(
      ToolError("MemoryHistory", {{"memory_id", v1}}, &alice).rfind("memory_id: no memory", 0), 0u);
  EXPECT_EQ(ToolError("MemoryHistory", {{"memory_id", v2}}, &bob).rfind("memory_id: no memory", 0),
            0u);
  // Located argument errors.
  EXPECT_EQ(ToolError("ReviseMemory", {{"memory_id", "x"}, {"content", "y"}}, &alice)
                .rfind("memory_id: ", 0),
            0u);
  EXPECT_EQ(ToolError("ReviseMemory", {{"memory_id", v2}}, &alice).rfind("content: ", 0), 0u);
  EXPECT_EQ(ToolError("MemoryHistory", {{"memory_id", v2}, {"as_of", "soon"}}, &alice)
                .rfind("as_of: ", 0),
            0u);
  // Forgetting the current version leaves nothing current.
  EXPECT_EQ(ToolOk("ForgetMemory", {{"memory_id", v2}}, &alice)["existed"], true);
  EXPECT_EQ(ToolOk("MemoryStats", Json::object(), &alice)["count"], 0);
}

// Revisions of one memory at once: exactly one succeeds and one version
// stays current (the others find the memory superseded).
TEST_F(McpToolsTest, ConcurrentRevisionsOfOneMemoryLeaveOneCurrent) {
  Principal alice{"alice", ReadProfile::kPrivateOnly, false};
  const std::string v1 =
      ToolOk("StoreMemory", {{"content", "the build runs nightly"}}, &alice)["memory_id"];
  constexpr int kThreads = 8;
  std::atomic<int> ready{0}, succeeded{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const std::string call =
          Json{{"jsonrpc", "2.0"},
               {"id", 1000 + t},
               {"method", "tools/call"},
               {"params",
                {{"name", "ReviseMemory"},
                 {"arguments",
                  {{"memory_id", v1},
                   {"content", "the build runs hourly, take " + std::to_string(t)}}}}}}
              .dump();
      ++ready;
      while (ready.load() < kThreads) std::this_thread::yield();
      const Json reply = Json::parse(server_->HandleMessage(call, alice));
      if (!reply["result"].value("isError", true)) ++succeeded;
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(succeeded.load(), 1);
  EXPECT_EQ(ToolOk("MemoryStats", Json::object(), &alice)["count"], 1);
}

TEST_F(McpToolsTest, StoreMemoryReportsARefreshedOriginal) {
  ASSERT_TRUE(engine_->CreateCollection(MemoriesWithDedup("exact:refresh")).ok());
  Principal alice{"alice", ReadProfile::kPrivateOnly, false};
  const Json first = ToolOk("StoreMemory", {{"content", "The cache lives in /tmp"}}, &alice);
  *now_ += std::chrono::hours(1);
  const Json again = ToolOk("StoreMemory", {{"content", "the cache lives in /tmp"}}, &alice);
  EXPECT_EQ(again["duplicate_of"], first["memory_id"]);
  EXPECT_EQ(again["dedup_action"], "refreshed");
  // The original now carries the duplicate's later time (in canonical form).
  StatusOr<std::optional<std::string>> stored = engine_->Get(
      "memories", first["memory_id"].get<std::string>(), std::nullopt, std::string("alice"));
  ASSERT_TRUE(stored.ok() && stored->has_value());
  EXPECT_EQ(first["timestamp"], "2025-03-01T12:00:00.000000Z");
  EXPECT_EQ(Json::parse(**stored)["timestamp"], "2025-03-01T13:00:00Z");
  EXPECT_EQ(engine_->DescribeCollection("memories")->records, 1u);
}

TEST_F(McpToolsTest, ScopedAgentsSeeAndForgetOnlyTheirOwn) {
  Principal alice{"alice", ReadProfile::kPrivateOnly, false};
  Principal bob{"bob", ReadProfile::kPrivateOnly, false};
  const std::string id =
      ToolOk("StoreMemory", {{"content", "alice's secret"}}, &alice)["memory_id"];
  const Json by_id{{"query", id}, {"search_type", "by_memory_id"}};
  EXPECT_EQ(ToolOk("SearchMemory", by_id, &alice)["results"].size(), 1u);
  EXPECT_EQ(ToolOk("SearchMemory", by_id, &bob)["results"].size(), 0u);
  EXPECT_EQ(
      ToolOk("SearchMemory", {{"query", "secret"}, {"score_threshold", 0}}, &bob)["results"].size(),
      0u);
  EXPECT_EQ(ToolOk("ForgetMemory", {{"memory_id", id}}, &bob)["existed"], false);
  EXPECT_EQ(ToolOk("SearchMemory", by_id, &alice)["results"].size(), 1u);
  // Bob's chain in the same session name is his own.
  EXPECT_EQ(ToolOk("StoreMemory", {{"content", "bob's"}}, &bob)["sequence_order"], 1);
  EXPECT_EQ(ToolOk("StoreMemory", {{"content", "alice's 2"}}, &alice)["sequence_order"], 2);
}

TEST_F(McpToolsTest, RetrieveRunsANamedConfiguration) {
  auto schema =
      SchemaRef::Parse(R"({"fields":[{"name":"region","type":"string","required":true}]})");
  ASSERT_TRUE(schema.ok());
  ASSERT_TRUE(engine_
                  ->CreateCollection(CollectionSpec{
                      "lore", schema.value(), {{"text", 1.0}}, 0, "cosine", "en", ""})
                  .ok());
  const std::string records[] = {
      R"({"id":"k1","region":"north","text":"The dragon sleeps under the northern mountain"})",
      R"({"id":"k2","region":"south","text":"A dragon egg was found in the southern desert"})",
      R"({"id":"k3","region":"north","text":"Wolves hunt in the northern forest"})"};
  const std::string_view views[] = {records[0], records[1], records[2]};
  auto written = engine_->Upsert("lore", views);
  ASSERT_TRUE(written.ok() && !written->rejected);
  RetrieveSpec spec;
  spec.name = "north_lore";
  spec.collection = "lore";
  spec.filter = R"({"op":"eq","lhs":{"knowledge":"region"},"rhs":{"value":"north"}})";
  spec.threshold = 0;
  spec.mode = SearchMode::kText;
  auto put = engine_->PutRetrieve(spec);
  ASSERT_TRUE(put.ok() && !put->has_value()) << (put.ok() ? (*put)->message : "");

  const Json out = ToolOk("Retrieve", {{"name", "north_lore"}, {"query", "dragon"}});
  EXPECT_EQ(out["name"], "north_lore");
  ASSERT_EQ(out["chunks"].size(), 1u);
  EXPECT_EQ(out["chunks"][0]["id"], "k1");
  EXPECT_EQ(out["chunks"][0]["record"]["region"], "north");
  EXPECT_GT(out["chunks"][0]["score"].get<double>(), 0.0);

  EXPECT_FALSE(ToolError("Retrieve", {{"name", "nope"}, {"query", "dragon"}}).empty());
  EXPECT_EQ(ToolError("Retrieve", {{"query", "dragon"}}).rfind("name: ", 0), 0u);
  EXPECT_EQ(ToolError("Retrieve", {{"name", "north_lore"}}).rfind("query: ", 0), 0u);
}

// ListMemories pages with a cursor bound to its query; every memory once.
TEST_F(McpToolsTest, ListMemoriesPagesWithACursor) {
  StoreSessions();
  std::vector<std::string> listed;
  Json args{{"page_size", 2}, {"detail", "compact"}};
  for (int pages = 0; pages < 10; ++pages) {
    const Json out = ToolOk("ListMemories", args);
    ASSERT_LE(out["memories"].size(), 2u);
    for (const Json& m : out["memories"]) listed.push_back(m["memory_id"]);
    if (!out.contains("next_cursor")) break;
    args["cursor"] = out["next_cursor"];
  }
  // Newest first: the order they were stored in, reversed.
  EXPECT_EQ(listed, std::vector<std::string>(ids_.rbegin(), ids_.rend()));
  const Json s1 =
      ToolOk("ListMemories",
             {{"filters", {{{"field", "session_id"}, {"operator", "is"}, {"value", "s1"}}}},
              {"order_by", "sequence_order"}});
  ASSERT_EQ(s1["memories"].size(), 3u);
  EXPECT_EQ(s1["memories"][0]["memory_id"], ids_[0]);
  EXPECT_FALSE(s1.contains("next_cursor"));
  // A cursor of another listing, or none at all, is refused with its name.
  const std::string cursor = ToolOk("ListMemories", {{"page_size", 1}})["next_cursor"];
  EXPECT_EQ(ToolError("ListMemories", {{"cursor", cursor}, {"order_by", "sequence_order"}})
                .rfind("cursor: belongs to another query", 0),
            0u);
  EXPECT_EQ(ToolError("ListMemories", {{"cursor", "zz"}}).rfind("cursor: ", 0), 0u);
  EXPECT_EQ(ToolError("ListMemories", {{"order_by", "colour"}}).rfind("order_by: ", 0), 0u);
  EXPECT_EQ(ToolError("ListMemories", {{"page_size", 0}}).rfind("page_size: ", 0), 0u);
  EXPECT_EQ(
      ToolError("ListMemories", {{"filters", {{{"field", "colour"}}}}}).rfind("filters[0]", 0), 0u);
}

TEST_F(McpToolsTest, MemoryStatsCountsAndBreaksDown) {
  StoreSessions();
  EXPECT_EQ(ToolOk("MemoryStats", Json::object()), (Json{{"count", 5}}));
  const Json sessions = ToolOk("MemoryStats", {{"field", "session_id"}});
  EXPECT_EQ(sessions["count"], 5);
  EXPECT_EQ(sessions["values"],
            Json::parse(R"([{"value":"s1","count":3},{"value":"s2","count":2}])"));
  const Json tools =
      ToolOk("MemoryStats",
             {{"field", "tool"},
              {"top", 1},
              {"filters", {{{"field", "session_id"}, {"operator", "is"}, {"value", "s1"}}}}});
  EXPECT_EQ(tools["count"], 3);
  EXPECT_EQ(tools["values"], Json::parse(R"([{"value":"Bash","count":2}])"));
  const Json order = ToolOk(
      "MemoryStats", {{"field", "sequence_order"}, {"ranges", {{{"to", 2}}, {{"from", 2}}}}});
  EXPECT_EQ(order["ranges"], Json::parse(R"([{"to":2,"count":2},{"from":2,"count":3}])"));
  EXPECT_EQ(ToolError("MemoryStats", {{"field", "colour"}}).rfind("field: ", 0), 0u);
  EXPECT_EQ(ToolError("MemoryStats", {{"field", "sequence_order"}}).rfind("ranges: ", 0), 0u);
  EXPECT_EQ(ToolError("MemoryStats", {{"ranges", {{{"from", 1}}}}}).rfind("ranges: ", 0), 0u);
  // Another agent's memories are not counted.
  Principal bob{"bob", ReadProfile::kAllScopes, false};
  EXPECT_EQ(ToolOk("MemoryStats", {{"field", "session_id"}}, &bob),
            (Json{{"count", 0}, {"field", "session_id"}, {"values", Json::array()}}));
}

// Retrieve (any collection) never returns an expired record.
TEST_F(McpToolsTest, RetrieveLeavesExpiredRecordsOut) {
  StatusOr<SchemaRef> schema = SchemaRef::Load("preset:notes");
  ASSERT_TRUE(schema.ok());
  CollectionSpec notes{"notes", schema.value(), {{"content", 1.0}}, 0, "cosine", "en", ""};
  notes.ttl_field = "expires_at";
  ASSERT_TRUE(engine_->CreateCollection(notes).ok());
  auto note = [](const std::string& id, const std::string& expires) {
    return R"({"id":")" + id +
           R"(","content":"the dragon","type":"fact","scope":"s","agent_id":"a",)" +
           R"("importance":1,"confidence":1,"updated_at":"2026-01-01T00:00:00Z","expires_at":")" +
           expires + "\"}";
  };
  const std::string records[] = {note("old", "2001-01-01T00:00:00Z"),
                                 note("new", "2999-01-01T00:00:00Z")};
  const std::string_view views[] = {records[0], records[1]};
  ASSERT_TRUE(engine_->Upsert("notes", views).ok());
  RetrieveSpec spec;
  spec.name = "notes";
  spec.collection = "notes";
  spec.threshold = 0;
  spec.mode = SearchMode::kText;
  ASSERT_TRUE(engine_->PutRetrieve(spec).ok());
  const Json out = ToolOk("Retrieve", {{"name", "notes"}, {"query", "dragon"}});
  ASSERT_EQ(out["chunks"].size(), 1u);
  EXPECT_EQ(out["chunks"][0]["id"], "new");
}

}  // namespace mcp_memory_tools_test
}  // namespace
}  // namespace engram::server::mcp
