// `engram search|list|count|facets` end to end over the examples' lore
// collection: text, vector and hybrid search, filters in the four dialects
// agreeing with `engram filter eval`, filter impact, explain, ranking, pages.
#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/cli.h"
#include "tests/integration/engine_cli_fixture.h"

namespace engram::cli {
namespace {
namespace engine_cli_search_test {

TEST_F(EngineCliSearch, TextSearchFindsTheWordAndShowsPreviews) {
  Result r = Search({"--query", "dragon", "--k", "20", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  Json doc = ParseJson(r);
  EXPECT_EQ(Sorted(HitIds(doc)),
            (std::set<std::string>{"lore-008", "lore-024", "lore-025", "lore-026", "lore-039"}));
  for (const Json& h : doc["hits"]) {
    EXPECT_TRUE(h.contains("bm25")) << h;
    EXPECT_GT(h["score"].get<double>(), 0);
    EXPECT_NE(h["record"]["text"].get<std::string>().find("dragon"), std::string::npos);
    EXPECT_FALSE(h["record"].contains("vector")) << h;
  }
  EXPECT_FALSE(doc.contains("filter_impact"));
  Result human = Search({"--query", "crossing", "--mode", "text"});
  ASSERT_EQ(human.code, 0) << human.err;
  EXPECT_EQ(human.out.rfind(" 1. lore-004", 0), 0u) << human.out;
  EXPECT_NE(human.out.find("    Ferrymen on the Silverrun"), std::string::npos) << human.out;
  Result none = Search({"--query", "xylophone"});
  EXPECT_EQ(none.code, 0);
  EXPECT_EQ(none.out, "no results\n");
}

TEST_F(EngineCliSearch, VectorSearchRanksByCosineAndAcceptsAThousand) {
  Result r = Search({"--vector", "[1,0,0,0]", "--k", "1000", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  Json doc = ParseJson(r);
  std::vector<std::string> ids = HitIds(doc);
  ASSERT_EQ(ids.size(), 40u);
  // lore-002 and lore-015 are pure combat: distance 0.
  EXPECT_EQ(Sorted({ids[0], ids[1]}), (std::set<std::string>{"lore-002", "lore-015"}));
  EXPECT_NEAR(doc["hits"][0]["distance"].get<double>(), 0.0, 1e-6);
  double last = -1;
  for (const Json& h : doc["hits"]) {
    EXPECT_GE(h["distance"].get<double>(), last - 1e-9);
    last = h["distance"].get<double>();
  }
  Result bad_dim = Search({"--vector", "[1,0]"});
  EXPECT_EQ(bad_dim.code, 1) << bad_dim.err;
  EXPECT_EQ(Search({"--vector", "[1,\"x\"]"}).code, 2);
  EXPECT_EQ(Search({}).code, 2);
}

TEST_F(EngineCliSearch, HybridFusesTextAndVector) {
  Result r = Search({"--query", "goblin", "--vector", "[1,0,0,0]", "--k", "5", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  Json doc = ParseJson(r);
  std::vector<std::string> ids = HitIds(doc);
  ASSERT_EQ(ids.size(), 5u);
  // The three goblin records lead (both lists have them); lore-011, the most
  // combat-heavy, first. Pure-combat records without the word follow.
  EXPECT_EQ(ids[0], "lore-011") << r.out;
  EXPECT_EQ(Sorted({ids[1], ids[2]}), (std::set<std::string>{"lore-018", "lore-032"})) << r.out;
  EXPECT_EQ(Sorted({ids[3], ids[4]}), (std::set<std::string>{"lore-002", "lore-015"})) << r.out;
  bool both = false;
  for (const Json& h : doc["hits"]) both |= h.contains("bm25") && h.contains("distance");
  EXPECT_TRUE(both) << r.out;
  Result text_only =
      Search({"--query", "goblin", "--vector", "[1,0,0,0]", "--mode", "text", "--json"});
  ASSERT_EQ(text_only.code, 0) << text_only.err;
  // Text mode ranks by BM25 alone (the distance is still reported, so that
  // --threshold cuts uniformly).
  const Json text_doc = ParseJson(text_only);
  EXPECT_EQ(HitIds(text_doc).at(0), "lore-032");
  for (const Json& h : text_doc["hits"]) EXPECT_EQ(h["score"], h["bm25"]) << h;
}

// The same filters as `engram filter eval` over examples/lore.jsonl: with k
// above the collection's size, a filtered vector search returns exactly the
// records the reference evaluator accepts.
TEST_F(EngineCliSearch, FiltersInEveryDialectAgreeWithFilterEval) {
  const std::vector<std::pair<std::string, std::string>> filters = {
      {"retrieve",
       R"({"op":"and","args":[{"op":"ge","lhs":{"value":12},"rhs":{"knowledge":"min_level"}},)"
       R"({"op":"or","args":[{"op":"in","needle":{"value":"mage"},)"
       R"("haystack":{"knowledge":"character_classes"}},)"
       R"({"op":"eq","lhs":{"value":"mage"},"rhs":{"knowledge":"character_class"}}]}]})"},
      {"retrieve", R"({"op":"not","arg":{"op":"eq","lhs":{"knowledge":"character_class"},)"
                   R"("rhs":{"value":"warrior"}}})"},
      {"vector_filter",
       R"({"region":{"$in":["port","river"]},"quest_reached":{"$ne":"dragon_pact"}})"},
      {"vector_filter", R"({"quest_reached":"dragon_pact"})"},
      {"vector_filter", R"({"tags":{"$in":["salt"]},"min_level":{"$lte":4}})"},
      {"expr_v1", R"({"schema":"search_filter_expr/v1","expr":{"op":"and","args":[)"
                  R"({"op":"in","field":"region","value":["keep","mountains"]},)"
                  R"({"op":"gte","field":"min_level","value":5}]}})"},
      {"search_memory",
       R"([{"field":"written","operator":"between","value":["2024-01-01","2024-12-31"]},)"
       R"({"field":"region","operator":"any_of","value":["capital","port"]}])"},
      {"search_memory", R"([{"field":"written","operator":"after","value":"2025-03-01"}])"},
  };
  for (const auto& [dialect, filter] : filters) {
    Result eval = Engram({"filter", "eval", "--dialect", dialect, "--schema",
                          Example("lore.schema.json"), "--records", Example("lore.jsonl"), filter});
    ASSERT_EQ(eval.code, 0) << eval.out << eval.err;
    std::vector<std::string> expected = ParseJson(eval)["matches"];
    ASSERT_GT(expected.size(), 0u) << filter;
    ASSERT_LT(expected.size(), 40u) << filter;
    for (const char* mode : {"auto", "pre", "post"}) {
      Result r = Search({"--vector", "[0.2,0.3,0.4,0.1]", "--k", "1000", "--filter", filter,
                         "--dialect", dialect, "--filter-mode", mode, "--json"});
      ASSERT_EQ(r.code, 0) << r.err;
      EXPECT_EQ(Sorted(HitIds(ParseJson(r))), Sorted(expected))
          << dialect << " " << mode << " " << filter;
    }
    // Filtered text search: only records that pass, and all those with the word.
    Result t = Search(
        {"--query", "the", "--k", "1000", "--filter", filter, "--dialect", dialect, "--json"});
    ASSERT_EQ(t.code, 0) << t.err;
    for (const std::string& id : HitIds(ParseJson(t))) {
      EXPECT_NE(std::find(expected.begin(), expected.end(), id), expected.end()) << id;
    }
  }
}

TEST_F(EngineCliSearch, ImpactReportsTheSeedsShape) {
  const std::string filter = R"({"min_level":{"$lte":12}})";
  Result r = Search({"--query", "dragon", "--k", "3", "--filter", filter, "--dialect",
                     "vector_filter", "--impact", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  Json doc = ParseJson(r);
  // Of the five records that mention the dragon, 008 (20), 025 (18), 026 (25)
  // and 039 (13) are above level 12.
  EXPECT_EQ(HitIds(doc), std::vector<std::string>{"lore-024"});
  ASSERT_TRUE(doc.contains("filter_impact")) << r.out;
  const Json& impact = doc["filter_impact"];
  EXPECT_EQ(impact["schema"], "search_filter_impact/v1");
  EXPECT_EQ(impact["requested_candidate_k"], 60);
  EXPECT_EQ(impact["effective_candidate_k"], 180);
  EXPECT_EQ(impact["candidate_count_pre"], 5);
  EXPECT_EQ(impact["candidate_count_post"], 1);
  EXPECT_EQ(impact["dropped_total"], 4);
  EXPECT_EQ(impact["top_drop_reasons"], Json::parse(R"([{"reason":"$lte:min_level","count":4}])"));
  EXPECT_TRUE(impact.contains("filter"));

  // candidate_k and the dialect's own op names carry through; retrieve's `ne`
  // needs the field present, so lore-008 (no quest) is dropped too.
  Result c =
      Search({"--query", "dragon", "--filter",
              R"({"op":"ne","lhs":{"knowledge":"quest_reached"},"rhs":{"value":"dragon_pact"}})",
              "--dialect", "retrieve", "--candidate-k", "400", "--impact", "--json"});
  ASSERT_EQ(c.code, 0) << c.err;
  const Json ci = ParseJson(c)["filter_impact"];
  EXPECT_EQ(ci["requested_candidate_k"], 400);
  EXPECT_EQ(ci["effective_candidate_k"], 1024);
  EXPECT_EQ(ci["top_drop_reasons"], Json::parse(R"([{"reason":"ne:quest_reached","count":4}])"));

  Result human =
      Search({"--query", "dragon", "--filter", filter, "--dialect", "vector_filter", "--impact"});
  ASSERT_EQ(human.code, 0) << human.err;
  EXPECT_NE(human.out.find("filter impact: 5 candidates, 1 pass the filter, 4 dropped; "
                           "$lte:min_level x4"),
            std::string::npos)
      << human.out;
}

TEST_F(EngineCliSearch, ExplainIsPresentWhenAsked) {
  Result r =
      Search({"--query", "wolves", "--vector", "[1,0,0.2,0]", "--filter", R"({"region":"forest"})",
              "--dialect", "vector_filter", "--explain", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  Json doc = ParseJson(r);
  ASSERT_TRUE(doc.contains("explain")) << r.out;
  EXPECT_TRUE(doc["explain"].is_object());
  EXPECT_FALSE(doc["explain"].empty());
  EXPECT_EQ(HitIds(doc).at(0), "lore-028");
  Result human = Search({"--query", "wolves", "--explain"});
  ASSERT_EQ(human.code, 0) << human.err;
  EXPECT_NE(human.out.find("explain: {"), std::string::npos) << human.out;
  EXPECT_FALSE(ParseJson(Search({"--query", "wolves", "--json"})).contains("explain"));
}

TEST_F(EngineCliSearch, BadInputIsRejectedWithItsPath) {
  Result r = Search(
      {"--query", "dragon", "--dialect", "retrieve", "--filter",
       R"({"op":"and","args":[{"op":"ge","lhs":{"value":12},"rhs":{"knowledge":"min_level"}},)"
       R"({"op":"eq","lhs":{"value":"warrior"},"rhs":{"knowledge":"min_level"}}]})"});
  EXPECT_EQ(r.code, 1);
  Json e = ParseJson(r);
  EXPECT_EQ(e["ok"], false);
  EXPECT_EQ(e["error"]["path"], "args[1].rhs");
  EXPECT_EQ(e["error"]["kind"], "filter.type_mismatch");
  EXPECT_NE(r.err.find("args[1].rhs"), std::string::npos) << r.err;

  Result unknown_field = Search({"--vector", "[1,0,0,0]", "--dialect", "vector_filter", "--filter",
                                 R"({"level":{"$gte":3}})"});
  EXPECT_EQ(unknown_field.code, 1);
  EXPECT_EQ(ParseJson(unknown_field)["error"]["path"], "/level");

  EXPECT_EQ(Search({"--query", "x", "--filter", R"({"region":"port"})"}).code, 2);  // no dialect
  EXPECT_EQ(Search({"--query", "x", "--filter", "{}", "--dialect", "sql"}).code, 2);
  EXPECT_EQ(Search({"--query", "x", "--k", "0"}).code, 2);
  Result missing = Engram({"search", "--db", Db(), "--collection", "nope", "--query", "x"});
  EXPECT_EQ(missing.code, 4) << missing.err;
  EXPECT_NE(missing.err.find("nope"), std::string::npos) << missing.err;
}

// Ranking by recency and importance: the factors on every hit, the final
// score ordering them, the collection's default, and located errors.
TEST_F(EngineCliSearch, DecayAndBoostRankTheHits) {
  Result r = Search({"--query", "dragon OR amulet OR river", "--k", "20", "--decay",
                     "written:exp:365d::0.1", "--boost", "min_level:0.05", "--explain", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  Json doc = ParseJson(r);
  ASSERT_GE(doc["hits"].size(), 3u);
  double last = 1e300;
  for (const Json& h : doc["hits"]) {
    const double decay = h["decay"].get<double>(), boost = h["boost"].get<double>();
    EXPECT_GE(decay, 0.1) << h;
    EXPECT_LE(decay, 1.0) << h;
    EXPECT_DOUBLE_EQ(boost, 1 + 0.05 * h["record"].value("min_level", 0)) << h;
    EXPECT_NEAR(h["final_score"].get<double>(), h["relevance"].get<double>() * decay * boost,
                1e-12);
    EXPECT_LE(h["final_score"].get<double>(), last) << "sorted by the final score";
    last = h["final_score"].get<double>();
  }
  EXPECT_EQ(doc["explain"]["ranking"]["hits"].size(), doc["hits"].size());
  EXPECT_EQ(doc["explain"]["ranking"]["decay"]["function"], "exp");
  Result human = Search({"--query", "dragon", "--boost", "min_level"});
  ASSERT_EQ(human.code, 0) << human.err;
  EXPECT_NE(human.out.find("  boost "), std::string::npos) << human.out;

  Result bad = Search({"--query", "dragon", "--decay", "region:exp:1d", "--json"});
  EXPECT_EQ(bad.code, 1) << bad.err;
  EXPECT_EQ(ParseJson(bad)["error"]["path"], "decay");
  Result syntax = Search({"--query", "dragon", "--decay", "written:exp:soon"});
  EXPECT_EQ(syntax.code, 2);
  EXPECT_NE(syntax.err.find("--decay: scale 'soon'"), std::string::npos) << syntax.err;
}

// `engram list`: every page with --page-token until none is given, in the
// order asked; a token used with another query is exit 1, located.
TEST_F(EngineCliSearch, ListPagesThroughEveryRecordInOrder) {
  std::vector<std::string> ids;
  std::string token;
  int pages = 0;
  do {
    std::vector<std::string> args = {
        "list",           "--db",        Db(), "--collection", "lore", "--order-by",
        "min_level:desc", "--page-size", "7",  "--json"};
    if (!token.empty()) args.insert(args.end(), {"--page-token", token});
    Result r = Engram(args);
    ASSERT_EQ(r.code, 0) << r.err;
    Json doc = ParseJson(r);
    ASSERT_LE(doc["records"].size(), 7u);
    for (const Json& record : doc["records"]) ids.push_back(record.value("id", ""));
    token = doc.value("next_page_token", "");
    ++pages;
  } while (!token.empty() && pages < 20);
  EXPECT_EQ(ids.size(), 40u);
  EXPECT_EQ(Sorted(ids).size(), 40u);
  EXPECT_EQ(pages, 6);
  Result first =
      Engram({"list", "--db", Db(), "--collection", "lore", "--page-size", "3", "--json"});
  ASSERT_EQ(first.code, 0) << first.err;
  const std::string t = ParseJson(first).value("next_page_token", "");
  Result other = Engram({"list", "--db", Db(), "--collection", "lore", "--page-token", t,
                         "--filter", R"({"region":"valley"})", "--dialect", "vector_filter"});
  EXPECT_EQ(other.code, 1);
  EXPECT_NE(other.err.find("page_token: belongs to another query"), std::string::npos) << other.err;
  EXPECT_EQ(ParseJson(other)["error"].value("path", ""), "page_token");
  Result bad = Engram({"list", "--db", Db(), "--collection", "lore", "--order-by", "nope"});
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.err.find("order_by: no field 'nope' in the schema"), std::string::npos) << bad.err;
}

TEST_F(EngineCliSearch, CountAndFacetsAgreeWithTheListing) {
  const std::vector<std::string> filter = {"--filter", R"({"min_level":{"$gte":5}})", "--dialect",
                                           "vector_filter"};
  std::vector<std::string> args = {"count", "--db", Db(), "--collection", "lore", "--json"};
  args.insert(args.end(), filter.begin(), filter.end());
  Result count = Engram(args);
  ASSERT_EQ(count.code, 0) << count.err;
  args[0] = "list";
  args.insert(args.end(), {"--page-size", "1000"});
  Result list = Engram(args);
  ASSERT_EQ(list.code, 0) << list.err;
  const Json records = ParseJson(list)["records"];
  EXPECT_EQ(ParseJson(count)["count"], records.size());
  std::map<std::string, int> regions;
  for (const Json& r : records) ++regions[r.value("region", "")];
  args = {"facets",  "--db",   Db(),    "--collection", "lore",
          "--field", "region", "--top", "100",          "--json"};
  args.insert(args.end(), filter.begin(), filter.end());
  Result facets = Engram(args);
  ASSERT_EQ(facets.code, 0) << facets.err;
  const Json doc = ParseJson(facets);
  EXPECT_EQ(doc["field"], "region");
  std::map<std::string, int> got;
  for (const Json& v : doc["values"]) got[v["value"].get<std::string>()] = v["count"].get<int>();
  EXPECT_EQ(got, regions);
  Result ranges = Engram({"facets", "--db", Db(), "--collection", "lore", "--field", "written",
                          "--ranges", "..2023-06-01,2023-06-01..", "--json"});
  ASSERT_EQ(ranges.code, 0) << ranges.err;
  const Json r = ParseJson(ranges)["ranges"];
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0]["count"].get<int>() + r[1]["count"].get<int>(), 40);
  Result bad = Engram(
      {"facets", "--db", Db(), "--collection", "lore", "--field", "min_level", "--ranges", "1..x"});
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.err.find("ranges[0].to: 'x' is not a value of int field 'min_level'"),
            std::string::npos)
      << bad.err;
}

}  // namespace engine_cli_search_test
}  // namespace
}  // namespace engram::cli
