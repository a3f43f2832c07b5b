// The MCP tools end to end through McpServer::HandleMessage: SearchMemory
// (every search_type, detail and filter operator, every validated bound),
// StoreMemory's session chains and ForgetMemory. Duplicates, revisions,
// tenancy, Retrieve, listing and stats: mcp_memory_tools_test.cc.
#include <atomic>
#include <cctype>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/integration/mcp_tools_fixture.h"

namespace engram::server::mcp {
namespace {
namespace mcp_tools_test {

using std::chrono::hours;
using std::chrono::minutes;
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

}  // namespace mcp_tools_test
}  // namespace
}  // namespace engram::server::mcp
