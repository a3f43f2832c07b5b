// The MCP tools end to end through McpServer::HandleMessage: SearchMemory
// (every search_type, detail and filter operator, every validated bound),
// StoreMemory's session chains, ForgetMemory, Retrieve, and tenancy.
#include <atomic>
#include <cctype>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/integration/mcp_test_support.h"

namespace engram::server::mcp {
namespace {

using std::chrono::hours;
using std::chrono::minutes;

class McpToolsTest : public McpTest {
 protected:
  // Two sessions: s1 (three memories, a minute apart) and s2 (two).
  void StoreSessions() {
    struct Item {
      const char* session;
      const char* tool;
      const char* title;
      const char* content;
    };
    const Item items[] = {
        {"s1", "Bash", "Pin cmake", "Fixed the flaky build by pinning cmake to 3.27"},
        {"s1", "Read", "Read the logs", "Read the compiler logs; the linker ran out of memory"},
        {"s2", "Edit", "Rename module", "Renamed the parser module and updated the imports"},
        {"s1", "Bash", "Rebuild", "Rebuilt everything with two jobs to save memory"},
        {"s2", "Bash", "Run tests", "Ran the parser tests: all green after the rename"},
    };
    for (const Item& item : items) {
      *now_ += minutes(1);
      const Json out = ToolOk("StoreMemory", {{"content", item.content},
                                              {"session_id", item.session},
                                              {"tool", item.tool},
                                              {"title", item.title},
                                              {"context", "project engram"},
                                              {"archetype_title", "Build Setup"}});
      ids_.push_back(out["memory_id"]);
    }
  }

  Json Search(Json arguments) { return ToolOk("SearchMemory", arguments)["results"]; }
  std::set<std::string> Ids(const Json& results) {
    std::set<std::string> out;
    for (const Json& r : results) out.insert(r["memory_id"].get<std::string>());
    return out;
  }
  std::set<std::string> Filtered(const Json& filters) {
    return Ids(
        Search({{"query", ""}, {"search_type", "filtered"}, {"limit", 100}, {"filters", filters}}));
  }

  std::vector<std::string> ids_;
};

TEST_F(McpToolsTest, AnEmptyStoreGivesEmptyResults) {
  EXPECT_EQ(Search({{"query", "anything"}}), Json::array());
  EXPECT_EQ(Search({{"query", ""}, {"search_type", "filtered"}}), Json::array());
  EXPECT_EQ(
      Search({{"query", "0b0e0f0a-0000-4000-8000-000000000000"}, {"search_type", "by_memory_id"}}),
      Json::array());
}

TEST_F(McpToolsTest, StoreMemoryChainsEachSession) {
  StoreSessions();
  const Json s1 =
      Search({{"query", ""},
              {"search_type", "filtered"},
              {"detail", "graph"},
              {"filters", {{{"field", "session_id"}, {"operator", "is"}, {"value", "s1"}}}}});
  ASSERT_EQ(s1.size(), 3u);
  // Newest first: the listing order.
  EXPECT_EQ(s1[0]["memory_id"], ids_[3]);
  EXPECT_EQ(s1[0]["sequence_order"], 3);
  EXPECT_EQ(s1[0]["preceding_memory_id"], ids_[1]);
  EXPECT_EQ(s1[1]["sequence_order"], 2);
  EXPECT_EQ(s1[1]["preceding_memory_id"], ids_[0]);
  EXPECT_EQ(s1[2]["sequence_order"], 1);
  EXPECT_TRUE(s1[2]["preceding_memory_id"].is_null());
  EXPECT_EQ(s1[2]["timestamp"], "2025-03-01T12:01:00.000000Z");
  EXPECT_EQ(s1[2]["agent_id"], "local");
  const Json s2 = Filtered({{{"field", "session_id"}, {"operator", "is"}, {"value", "s2"}}});
  EXPECT_EQ(s2, (std::set<std::string>{ids_[2], ids_[4]}));
}

TEST_F(McpToolsTest, ADroppedCollectionIsCreatedAgain) {
  ToolOk("StoreMemory", {{"content", "before the drop"}});
  ASSERT_TRUE(engine_->DropCollection("memories").ok());
  EXPECT_EQ(Search({{"query", ""}, {"search_type", "filtered"}}), Json::array());
  EXPECT_EQ(ToolOk("StoreMemory", {{"content", "after the drop"}})["sequence_order"], 1);
}

TEST_F(McpToolsTest, StoreMemoryDefaultsAndOutput) {
  const Json out = ToolOk("StoreMemory", {{"content", "just a note"}});
  EXPECT_EQ(out["session_id"], "default");
  EXPECT_EQ(out["sequence_order"], 1);
  EXPECT_TRUE(out["preceding_memory_id"].is_null());
  EXPECT_EQ(out["timestamp"], "2025-03-01T12:00:00.000000Z");
  const std::string id = out["memory_id"];
  ASSERT_EQ(id.size(), 36u);
  EXPECT_EQ(id[14], '4');  // version 4
  const Json full = Search({{"query", id}, {"search_type", "by_memory_id"}, {"detail", "full"}});
  ASSERT_EQ(full.size(), 1u);
  EXPECT_EQ(full[0]["tool"], "unknown");
  EXPECT_EQ(full[0]["archetype_title"], "general");
  EXPECT_EQ(full[0]["archetype_version"], "unknown");
  EXPECT_EQ(full[0]["schema_version"], "1.0");
  EXPECT_EQ(full[0]["content"], "just a note");
}

TEST_F(McpToolsTest, ConcurrentStoresInOneSessionDoNotFork) {
  constexpr int kThreads = 8;
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([this, i] {
      const std::string reply = server_->HandleMessage(
          Json{{"jsonrpc", "2.0"},
               {"id", i},
               {"method", "tools/call"},
               {"params",
                {{"name", "StoreMemory"},
                 {"arguments", {{"content", "step " + std::to_string(i)}, {"session_id", "c"}}}}}}
              .dump(),
          local_);
      EXPECT_NE(reply.find("\"isError\":false"), std::string::npos) << reply;
    });
  }
  for (std::thread& t : threads) t.join();
  const Json all =
      Search({{"query", ""}, {"search_type", "filtered"}, {"limit", 100}, {"detail", "graph"}});
  ASSERT_EQ(all.size(), static_cast<std::size_t>(kThreads));
  std::set<long> orders;
  std::set<std::string> preceding;
  for (const Json& r : all) {
    orders.insert(r["sequence_order"].get<long>());
    if (!r["preceding_memory_id"].is_null()) preceding.insert(r["preceding_memory_id"]);
  }
  EXPECT_EQ(orders.size(), static_cast<std::size_t>(kThreads));
  EXPECT_EQ(*orders.rbegin(), kThreads);
  EXPECT_EQ(preceding.size(), static_cast<std::size_t>(kThreads - 1));  // one chain, no fork
}

TEST_F(McpToolsTest, BasicSearchRanksByRelevanceWithAThreshold) {
  StoreSessions();
  const Json hits = Search({{"query", "cmake build"}, {"score_threshold", 0.0}});
  ASSERT_FALSE(hits.empty());
  EXPECT_EQ(hits[0]["memory_id"], ids_[0]);
  for (const Json& h : hits) {
    EXPECT_GE(h["score"].get<double>(), 0.0);
    EXPECT_LE(h["score"].get<double>(), 1.0);
  }
  // limit, and score_threshold as an inclusive floor on score.
  EXPECT_EQ(Search({{"query", "memory"}, {"limit", 1}, {"score_threshold", 0}}).size(), 1u);
  const Json loose = Search({{"query", "parser rename memory"}, {"score_threshold", 0}});
  const Json strict = Search({{"query", "parser rename memory"}, {"score_threshold", 0.9}});
  EXPECT_LT(strict.size(), loose.size());
  for (const Json& h : strict) EXPECT_GE(h["score"].get<double>(), 0.9);
  // Filters apply to basic search too.
  const Json bash =
      Search({{"query", "memory"},
              {"score_threshold", 0},
              {"filters", {{{"field", "tool"}, {"operator", "is"}, {"value", "Bash"}}}}});
  EXPECT_EQ(Ids(bash), (std::set<std::string>{ids_[3]}));
  // A query that matches nothing is empty, not an error.
  EXPECT_EQ(Search({{"query", "zebra"}}), Json::array());
}

TEST_F(McpToolsTest, FilteredSearchWithAQueryRanksAndWithoutListsNewestFirst) {
  StoreSessions();
  const Json listed = Search({{"query", ""}, {"search_type", "filtered"}, {"limit", 2}});
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed[0]["memory_id"], ids_[4]);
  EXPECT_EQ(listed[1]["memory_id"], ids_[3]);
  EXPECT_EQ(listed[0]["score"], 1.0);
  const Json ranked =
      Search({{"query", "parser"},
              {"search_type", "filtered"},
              {"score_threshold", 0},
              {"filters", {{{"field", "session_id"}, {"operator", "is"}, {"value", "s2"}}}}});
  EXPECT_EQ(Ids(ranked), (std::set<std::string>{ids_[2], ids_[4]}));
}

// An empty query cannot rank: basic lists like filtered (issue 17: basic
// with an empty query and filters returned []).
TEST_F(McpToolsTest, BasicWithAnEmptyQueryListsAsFiltered) {
  StoreSessions();
  const Json filters = {{{"field", "tool"}, {"operator", "is"}, {"value", "Bash"}}};
  for (const char* query : {"", "  "}) {
    const Json basic = Search({{"query", query}, {"filters", filters}});
    const Json filtered =
        Search({{"query", query}, {"search_type", "filtered"}, {"filters", filters}});
    EXPECT_EQ(basic, filtered);
    EXPECT_EQ(Ids(basic), (std::set<std::string>{ids_[0], ids_[3], ids_[4]}));
  }
  EXPECT_EQ(Search({{"query", ""}, {"limit", 2}}),
            Search({{"query", ""}, {"search_type", "filtered"}, {"limit", 2}}));
}

TEST_F(McpToolsTest, EveryFilterOperator) {
  StoreSessions();
  using Set = std::set<std::string>;
  EXPECT_EQ(Filtered({{{"field", "tool"}, {"operator", "is"}, {"value", "Bash"}}}),
            (Set{ids_[0], ids_[3], ids_[4]}));
  EXPECT_EQ(Filtered({{{"field", "tool"}, {"operator", "is_not"}, {"value", "Bash"}}}),
            (Set{ids_[1], ids_[2]}));
  EXPECT_EQ(Filtered({{{"field", "sequence_order"}, {"operator", "before"}, {"value", 2}}}),
            (Set{ids_[0], ids_[2]}));
  EXPECT_EQ(Filtered({{{"field", "sequence_order"}, {"operator", "after"}, {"value", 2}}}),
            (Set{ids_[3]}));
  EXPECT_EQ(
      Filtered(
          {{{"field", "timestamp"}, {"operator", "after"}, {"value", "2025-03-01T12:03:00Z"}}}),
      (Set{ids_[3], ids_[4]}));
  EXPECT_EQ(
      Filtered(
          {{{"field", "timestamp"}, {"operator", "before"}, {"value", "2025-03-01T12:02:00Z"}}}),
      (Set{ids_[0]}));
  EXPECT_EQ(Filtered({{{"field", "timestamp"},
                       {"operator", "between"},
                       {"value", {"2025-03-01T12:02:00Z", "2025-03-01T12:03:00Z"}}}}),
            (Set{ids_[1], ids_[2]}));
  EXPECT_EQ(Filtered({{{"field", "sequence_order"},
                       {"operator", "between"},
                       {"value", {{"from", 2}, {"to", 3}}}}}),
            (Set{ids_[1], ids_[3], ids_[4]}));
  EXPECT_EQ(Filtered({{{"field", "title"}, {"operator", "contains"}, {"value", "BUILD"}}}),
            (Set{ids_[3]}));  // case-insensitive: "Rebuild"
  EXPECT_EQ(Filtered({{{"field", "tool"}, {"operator", "any_of"}, {"value", {"Read", "Edit"}}}}),
            (Set{ids_[1], ids_[2]}));
  // Entries are ANDed.
  EXPECT_EQ(Filtered({{{"field", "tool"}, {"operator", "is"}, {"value", "Bash"}},
                      {{"field", "session_id"}, {"operator", "is"}, {"value", "s2"}}}),
            (Set{ids_[4]}));
}

TEST_F(McpToolsTest, ByMemoryIdFindsOneWithScoreOne) {
  StoreSessions();
  const Json one = Search(
      {{"query", ids_[2]},
       {"search_type", "by_memory_id"},
       {"score_threshold", 1.0},
       {"filters", {{{"field", "tool"}, {"operator", "is"}, {"value", "Nope"}}}}});  // both ignored
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0]["memory_id"], ids_[2]);
  EXPECT_EQ(one[0]["score"], 1.0);
  EXPECT_NE(ToolError("SearchMemory", {{"query", "not-a-uuid"}, {"search_type", "by_memory_id"}})
                .find("query: "),
            std::string::npos);
}

TEST_F(McpToolsTest, DetailLevels) {
  StoreSessions();
  *now_ += hours(3);
  const auto keys = [&](const std::string& detail) {
    const Json r =
        Search({{"query", ids_[0]}, {"search_type", "by_memory_id"}, {"detail", detail}})[0];
    std::set<std::string> out;
    for (const auto& item : r.items()) out.insert(item.key());
    return out;
  };
  const std::set<std::string> compact{"memory_id", "title",      "tool",
                                      "context",   "session_id", "score"};
  EXPECT_EQ(keys("compact"), compact);
  std::set<std::string> summary = compact;
  summary.insert({"content_preview", "relative_time"});
  EXPECT_EQ(keys("summary"), summary);
  std::set<std::string> graph = summary;
  graph.insert(
      {"preceding_memory_id", "sequence_order", "timestamp", "agent_id", "archetype_title"});
  EXPECT_EQ(keys("graph"), graph);
  std::set<std::string> full = graph;
  full.insert({"content", "archetype_version", "schema_version"});
  EXPECT_EQ(keys("full"), full);

  // The default detail is summary, with the relative time from the clock.
  const Json r = Search({{"query", ids_[0]}, {"search_type", "by_memory_id"}})[0];
  EXPECT_EQ(r["relative_time"], "3 hours ago");
  EXPECT_EQ(r["content_preview"], "Fixed the flaky build by pinning cmake to 3.27");
  *now_ += hours(48);
  EXPECT_EQ(Search({{"query", ids_[0]}, {"search_type", "by_memory_id"}})[0]["relative_time"],
            "2 days ago");
}

TEST_F(McpToolsTest, SummaryPreviewsAreAtMost150Characters) {
  std::string long_text;
  for (int i = 0; i < 60; ++i) long_text += "héllo ";
  const std::string id = ToolOk("StoreMemory", {{"content", long_text}})["memory_id"];
  const std::string preview =
      Search({{"query", id}, {"search_type", "by_memory_id"}})[0]["content_preview"];
  std::size_t chars = 0;
  for (unsigned char c : preview) chars += (c & 0xC0) != 0x80;
  EXPECT_EQ(chars, 150u);
  EXPECT_EQ(preview.substr(preview.size() - 3), "...");
}

TEST_F(McpToolsTest, SearchMemoryValidatesEveryBound) {
  const auto error = [&](const Json& args) { return ToolError("SearchMemory", args); };
  EXPECT_EQ(error({{"query", std::string(1001, 'a')}}).rfind("query: ", 0), 0u);
  EXPECT_EQ(error(Json::object()).rfind("query: ", 0), 0u);
  EXPECT_EQ(error({{"query", 5}}).rfind("query: ", 0), 0u);
  for (const Json& limit : {Json(0), Json(101), Json("3"), Json(2.5), Json(true)}) {
    EXPECT_EQ(error({{"query", "x"}, {"limit", limit}}).rfind("limit: ", 0), 0u) << limit;
  }
  EXPECT_EQ(error({{"query", "x"}, {"search_type", "fuzzy"}}).rfind("search_type: ", 0), 0u);
  EXPECT_EQ(error({{"query", "x"}, {"detail", "huge"}}).rfind("detail: ", 0), 0u);
  for (const Json& t : {Json(1.5), Json(-0.1), Json("0.5")}) {
    EXPECT_EQ(error({{"query", "x"}, {"score_threshold", t}}).rfind("score_threshold: ", 0), 0u);
  }
  EXPECT_EQ(error({{"query", "x"}, {"extra", 1}}).rfind("extra: ", 0), 0u);
  EXPECT_EQ(error({{"query", "x"}, {"filters", "tool=Bash"}}).rfind("filters: ", 0), 0u);
  EXPECT_EQ(ToolError("SearchMemory", Json::array()).rfind("<root>: ", 0), 0u);
  // Bounds that hold are accepted: limit 1 and 100, thresholds 0 and 1, 1000 characters, 3.0.
  ToolOk("SearchMemory", {{"query", std::string(1000, 'a')}, {"limit", 100}});
  ToolOk("SearchMemory", {{"query", "x"}, {"limit", 1}, {"score_threshold", 1}});
  ToolOk("SearchMemory", {{"query", "x"}, {"limit", 3.0}, {"score_threshold", 0}});
}

TEST_F(McpToolsTest, BadFiltersComeBackAsToolErrorsWithTheirPath) {
  StoreSessions();
  const Json ok{{"field", "tool"}, {"operator", "is"}, {"value", "Bash"}};
  const auto error = [&](const Json& third) {
    return ToolError("SearchMemory", {{"query", "x"}, {"filters", Json::array({ok, ok, third})}});
  };
  EXPECT_EQ(error({{"field", "sequence_order"}, {"operator", "is"}, {"value", "three"}})
                .rfind("filters[2].value: ", 0),
            0u);
  EXPECT_EQ(
      error({{"field", "nope"}, {"operator", "is"}, {"value", "x"}}).rfind("filters[2].field: ", 0),
      0u);
  EXPECT_EQ(error({{"field", "tool"}, {"operator", "like"}, {"value", "x"}})
                .rfind("filters[2].operator: ", 0),
            0u);
  EXPECT_EQ(
      error({{"field", "tool"}, {"operator", "before"}, {"value", "x"}}).rfind("filters[2]", 0),
      0u);
  EXPECT_EQ(error({{"field", "tool"}, {"operator", "is"}}).rfind("filters[2]", 0), 0u);
  // Also on the listing path.
  EXPECT_EQ(ToolError("SearchMemory", {{"query", ""},
                                       {"search_type", "filtered"},
                                       {"filters",
                                        {{{"field", "timestamp"},
                                          {"operator", "between"},
                                          {"value", {"2025-03-02", "2025-03-01"}}}}}})
                .rfind("filters[0].value: ", 0),
            0u);
}

TEST_F(McpToolsTest, StoreMemoryValidatesItsArguments) {
  EXPECT_EQ(ToolError("StoreMemory", Json::object()).rfind("content: ", 0), 0u);
  EXPECT_EQ(ToolError("StoreMemory", {{"content", ""}}).rfind("content: ", 0), 0u);
  EXPECT_EQ(ToolError("StoreMemory", {{"content", "x"}, {"title", 3}}).rfind("title: ", 0), 0u);
  EXPECT_EQ(
      ToolError("StoreMemory", {{"content", "x"}, {"memory_id", "x"}}).rfind("memory_id: ", 0), 0u);
  EXPECT_EQ(ToolError("StoreMemory", {{"content", "x"}, {"session_id", std::string(1001, 's')}})
                .rfind("session_id: ", 0),
            0u);
}

TEST_F(McpToolsTest, ForgetMemorySaysWhetherItExisted) {
  StoreSessions();
  Json out = ToolOk("ForgetMemory", {{"memory_id", ids_[1]}});
  EXPECT_EQ(out["existed"], true);
  out = ToolOk("ForgetMemory", {{"memory_id", ids_[1]}});
  EXPECT_EQ(out["existed"], false);
  EXPECT_EQ(Search({{"query", ids_[1]}, {"search_type", "by_memory_id"}}), Json::array());
  EXPECT_EQ(ToolError("ForgetMemory", {{"memory_id", "x"}}).rfind("memory_id: ", 0), 0u);
  EXPECT_EQ(ToolError("ForgetMemory", Json::object()).rfind("memory_id: ", 0), 0u);
}

// RFC 9562: UUIDs compare case-insensitively (issue 17: an upper-case id
// validated, found nothing, and ForgetMemory said existed:false).
TEST_F(McpToolsTest, MemoryIdsCompareCaseInsensitively) {
  StoreSessions();
  auto upper = [](std::string s) {
    for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
  };
  const Json one = Search({{"query", upper(ids_[2])}, {"search_type", "by_memory_id"}});
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0]["memory_id"], ids_[2]);
  EXPECT_EQ(ToolOk("ForgetMemory", {{"memory_id", upper(ids_[2])}})["existed"], true);
  EXPECT_EQ(Search({{"query", ids_[2]}, {"search_type", "by_memory_id"}}), Json::array());
  EXPECT_EQ(ToolOk("ForgetMemory", {{"memory_id", upper(ids_[2])}})["existed"], false);
}

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

}  // namespace
}  // namespace engram::server::mcp
