// `engram collection|ingest|search|delete` end to end, in process, on temporary
// store directories: exit codes, output shapes, filters in the four dialects
// agreeing with `engram filter eval`, filter impact, and what a later run (a
// fresh Engine::Open) sees.
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
#include <unistd.h>

#include "cli/cli.h"
#include "tests/integration/run_cli.h"

namespace engram::cli {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

std::string Example(const std::string& name) {
  return std::string(ENGRAM_SOURCE_DIR) + "/examples/" + name;
}

// A directory of its own per test (and per process: CTest runs tests in
// parallel), removed afterwards.
fs::path FreshDir(const std::string& name) {
  fs::path dir =
      fs::temp_directory_path() / ("engram_engine_cli_" + std::to_string(getpid()) + "_" + name);
  fs::remove_all(dir);
  return dir;
}

std::vector<std::string> CreateArgs(const std::string& db, const std::string& name = "lore") {
  return {"collection",   "create", "--db",      db,
          "--name",       name,     "--schema",  Example("lore.schema.json"),
          "--text",       "text",   "--vectors", "4:cosine",
          "--time-field", "written"};
}

// The lore collection of examples/, created and ingested in `db`.
void MakeLore(const std::string& db) {
  Result c = Engram(CreateArgs(db));
  ASSERT_EQ(c.code, 0) << c.err;
  Result i = Engram({"ingest", "--db", db, "--collection", "lore", Example("lore.jsonl")});
  ASSERT_EQ(i.code, 0) << i.err;
}

Json ParseJson(const Result& r) {
  Json doc = Json::parse(r.out, nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << r.out;
  return doc;
}

std::vector<std::string> HitIds(const Json& doc) {
  std::vector<std::string> ids;
  for (const Json& h : doc.value("hits", Json::array())) ids.push_back(h.value("id", ""));
  return ids;
}

std::set<std::string> Sorted(const std::vector<std::string>& ids) {
  return {ids.begin(), ids.end()};
}

// One store with the lore collection, shared by the tests that only read.
class EngineCliSearch : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(FreshDir("search"));
    MakeLore(Db());
  }
  static void TearDownTestSuite() {
    fs::remove_all(*dir_);
    delete dir_;
  }
  static std::string Db() { return (*dir_ / "store").string(); }

  static Result Search(std::vector<std::string> args) {
    std::vector<std::string> all = {"search", "--db", Db(), "--collection", "lore"};
    all.insert(all.end(), args.begin(), args.end());
    return Engram(all);
  }

  static fs::path* dir_;
};
fs::path* EngineCliSearch::dir_ = nullptr;

class EngineCliWrite : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = FreshDir(::testing::UnitTest::GetInstance()->current_test_info()->name());
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Db() const { return (dir_ / "store").string(); }
  std::string WriteFile(const std::string& name, const std::string& text) const {
    fs::create_directories(dir_);
    std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  std::size_t Records(const std::string& collection = "lore") const {
    Result r = Engram({"collection", "list", "--db", Db(), "--json"});
    EXPECT_EQ(r.code, 0) << r.err;
    const Json doc = ParseJson(r);
    for (const Json& c : doc["collections"]) {
      if (c["name"] == collection) return c["records"].get<std::size_t>();
    }
    ADD_FAILURE() << "no collection " << collection << " in " << r.out;
    return 0;
  }

  fs::path dir_;
};

const char* const kGoodRecord =
    R"({"id":"n1","text":"A new rumour about the ferry.","region":"river",)"
    R"("written":"2025-07-01T00:00:00Z","vector":[0,0,1,0]})";

TEST_F(EngineCliWrite, CreateMakesTheStoreDirectoryAndListsTheCollection) {
  const std::string db = (dir_ / "a" / "b").string();
  Result r = Engram(CreateArgs(db));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "created collection 'lore' in " + db + "\n");
  EXPECT_TRUE(fs::is_directory(db));
  Result list = Engram({"collection", "list", "--db", db, "--json"});
  ASSERT_EQ(list.code, 0) << list.err;
  EXPECT_EQ(ParseJson(list), Json::parse(R"({"collections":[{"name":"lore","records":0,)"
                                         R"("text":[{"name":"text","weight":1.0}],)"
                                         R"("vectors":{"dim":4,"metric":"cosine"}}]})"));
}

TEST_F(EngineCliWrite, CreateRejectsBadSpecs) {
  const std::string schema = Example("lore.schema.json");
  struct Case {
    std::vector<std::string> args;
    int code;
    std::string err_has;
  };
  const std::vector<Case> cases = {
      {{"--name", "bad name!", "--schema", schema, "--text", "text"}, 1, "bad name!"},
      {{"--name", ".hidden", "--schema", schema, "--text", "text"}, 1, "not a collection name"},
      {{"--name", "lore", "--schema", schema}, 1, "text fields, vectors, or both"},
      {{"--name", "lore", "--schema", schema, "--text", "text", "--time-field", "nowhere"},
       1,
       "'nowhere' is not a datetime field"},
      {{"--name", "lore", "--schema", schema, "--text", "text", "--time-field", "min_level"},
       1,
       "'min_level' is not a datetime field"},
      {{"--name", "lore", "--schema", schema, "--text", "min_level"}, 1, "declared int"},
      {{"--name", "lore", "--schema", schema, "--vectors", "4:hamming"}, 1, "hamming"},
      {{"--name", "lore", "--schema", schema, "--vectors", "four"}, 2, "DIM:METRIC"},
      {{"--name", "lore", "--schema", schema, "--text", "text:heavy"}, 2, "weight"},
      {{"--name", "lore", "--schema", (dir_ / "missing.json").string(), "--text", "text"},
       2,
       "--schema"},
      {{"--name", "lore", "--text", "text"}, 2, "--schema"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"collection", "create", "--db", Db()};
    args.insert(args.end(), c.args.begin(), c.args.end());
    Result r = Engram(args);
    EXPECT_EQ(r.code, c.code) << c.args[1] << ": " << r.err;
    EXPECT_NE(r.err.find(c.err_has), std::string::npos) << r.err;
  }
  ASSERT_EQ(Engram(CreateArgs(Db())).code, 0);
  Result dup = Engram(CreateArgs(Db()));
  EXPECT_EQ(dup.code, 1);
  EXPECT_NE(dup.err.find("lore"), std::string::npos) << dup.err;
}

// `engram embed`, a collection created with --embedder and --fusion, search
// with a query alone and --fusion, and `collection reembed`.
TEST_F(EngineCliWrite, EmbedderCommands) {
  const std::string models = std::string(ENGRAM_SOURCE_DIR) + "/src/embed/testdata/model2vec/";
  const std::string small = "model2vec:" + models + "test-model-float32";
  Result embed = Engram({"embed", "--embedder", small, "hello world"});
  ASSERT_EQ(embed.code, 0) << embed.err;
  // The reference library's vector for "hello world" (embeddings_short.json).
  const Json v = Json::parse(embed.out);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_NEAR(v[0].get<double>(), -0.3934547007083893, 1e-6);
  EXPECT_NEAR(v[1].get<double>(), -0.9193440079689026, 1e-6);
  Result lines = Engram({"embed", "--embedder", small}, "a\nb c\n");
  ASSERT_EQ(lines.code, 0) << lines.err;
  EXPECT_EQ(std::count(lines.out.begin(), lines.out.end(), '\n'), 2);
  EXPECT_EQ(Engram({"embed", "--embedder", "model2vec:/nonexistent", "x"}).code, 4);
  EXPECT_EQ(Engram({"embed", "--embedder", "bogus", "x"}).code, 1);

  const std::string schema = WriteFile("schema.json", R"({"fields":[]})");
  Result create =
      Engram({"collection", "create", "--db", Db(), "--name", "docs", "--schema", schema, "--text",
              "text", "--embedder", small, "--fusion", "weighted_rrf:text=1,vector=3"});
  ASSERT_EQ(create.code, 0) << create.err;
  const std::string data = WriteFile("docs.jsonl", R"({"id":"a","text":"hello world"})"
                                                   "\n"
                                                   R"({"id":"b","text":"tokenization of text"})"
                                                   "\n");
  ASSERT_EQ(Engram({"ingest", "--db", Db(), "--collection", "docs", data}).code, 0);
  Result list = Engram({"collection", "list", "--db", Db(), "--json"});
  const Json c = ParseJson(list)["collections"][0];
  EXPECT_EQ(c["vectors"]["dim"], 2);
  EXPECT_EQ(c["embedder"]["model"], "test-model-float32");
  EXPECT_EQ(c["fusion"], "weighted_rrf:text=1.0,vector=3.0,k=60");

  Result search = Engram(
      {"search", "--db", Db(), "--collection", "docs", "--query", "hello", "--json", "--explain"});
  ASSERT_EQ(search.code, 0) << search.err;
  Json doc = ParseJson(search);
  EXPECT_EQ(doc["hits"][0]["id"], "a");
  EXPECT_EQ(doc["explain"]["mode"], "hybrid");
  EXPECT_EQ(doc["explain"]["fusion"]["method"], "weighted_rrf");
  search = Engram({"search", "--db", Db(), "--collection", "docs", "--query", "hello", "--json",
                   "--explain", "--fusion", "convex:alpha=0.2,normalization=z_score"});
  ASSERT_EQ(search.code, 0) << search.err;
  doc = ParseJson(search);
  EXPECT_EQ(doc["explain"]["fusion"]["normalization"], "z_score");
  EXPECT_EQ(doc["explain"]["fusion"]["hits"][0]["id"], "a");
  Result bad = Engram({"search", "--db", Db(), "--collection", "docs", "--query", "hello",
                       "--fusion", "convex:alpha=3"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(bad.err, "engram: --fusion: fusion: alpha: must be within [0, 1], got 3.0\n");

  Result re = Engram({"collection", "reembed", "--db", Db(), "--collection", "docs", "--embedder",
                      "model2vec:" + models + "test-model-vocab-quantized", "--json"});
  ASSERT_EQ(re.code, 0) << re.err;
  EXPECT_EQ(ParseJson(re)["records"], 2);
  EXPECT_EQ(ParseJson(re)["embedder"]["dimension"], 64);
  list = Engram({"collection", "list", "--db", Db(), "--json"});
  EXPECT_EQ(ParseJson(list)["collections"][0]["vectors"]["dim"], 64);
}

TEST_F(EngineCliWrite, IngestPrintsASummary) {
  ASSERT_EQ(Engram(CreateArgs(Db())).code, 0);
  Result r = Engram({"ingest", "--db", Db(), "--collection", "lore", Example("lore.jsonl")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("ingested 40 records into 'lore' in 1 batch (", 0), 0u) << r.out;
  // Writing the same ids again replaces them: still 40 records.
  Result j = Engram({"ingest", "--db", Db(), "--collection", "lore", "--json", "--batch", "16",
                     Example("lore.jsonl")});
  ASSERT_EQ(j.code, 0) << j.err;
  Json doc = ParseJson(j);
  EXPECT_EQ(doc["ok"], true);
  EXPECT_EQ(doc["collection"], "lore");
  EXPECT_EQ(doc["written"], 40);
  EXPECT_EQ(doc["batches"], 3);
  EXPECT_TRUE(doc["seconds"].is_number());
  EXPECT_EQ(Records(), 40u);
}

TEST_F(EngineCliWrite, ARejectedLineNamesFileLineAndFieldAndWritesNothingOfItsBatch) {
  ASSERT_EQ(Engram(CreateArgs(Db())).code, 0);
  std::string lines;
  for (int i = 1; i <= 3; ++i) {
    lines += R"({"id":"g)" + std::to_string(i) +
             R"(","text":"good","region":"valley","written":"2025-01-01","vector":[1,0,0,0]})" +
             "\n";
  }
  lines += "\n";  // blank lines are skipped but counted
  lines += R"({"id":"bad","text":"bad","region":"valley","min_level":"high",)"
           R"("written":"2025-01-01","vector":[1,0,0,0]})"
           "\n";
  const std::string file = WriteFile("bad.jsonl", lines);

  // One batch: nothing is written.
  Result r = Engram({"ingest", "--db", Db(), "--collection", "lore", file});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find(file + ":5: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("min_level"), std::string::npos) << r.err;
  Json e = ParseJson(r);
  EXPECT_EQ(e["ok"], false);
  EXPECT_EQ(e["error"]["line"], 5);
  EXPECT_EQ(e["error"]["path"], "min_level");
  EXPECT_EQ(e["error"]["kind"], "record.invalid");
  EXPECT_EQ(Records(), 0u);

  // Batches of 2: g1, g2 are written; the batch of g3 and the bad line is not.
  Result b = Engram({"ingest", "--db", Db(), "--collection", "lore", "--batch", "2", file});
  EXPECT_EQ(b.code, 1);
  EXPECT_NE(b.err.find("2 records from earlier lines were"), std::string::npos) << b.err;
  EXPECT_EQ(Records(), 2u);
  Result s = Engram({"search", "--db", Db(), "--collection", "lore", "--vector", "[1,0,0,0]", "--k",
                     "10", "--json"});
  ASSERT_EQ(s.code, 0) << s.err;
  EXPECT_EQ(Sorted(HitIds(ParseJson(s))), (std::set<std::string>{"g1", "g2"}));
}

TEST_F(EngineCliWrite, IngestNamesAWrongVectorAndAnUnknownCollection) {
  ASSERT_EQ(Engram(CreateArgs(Db())).code, 0);
  const std::string file = WriteFile(
      "short.jsonl", std::string(kGoodRecord) + "\n" +
                         R"({"id":"n2","text":"x","region":"river","written":"2025-07-01",)"
                         R"("vector":[1,0]})" +
                         "\n");
  Result r = Engram({"ingest", "--db", Db(), "--collection", "lore", file});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find(file + ":2: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("vector"), std::string::npos) << r.err;
  Result missing = Engram({"ingest", "--db", Db(), "--collection", "nope", file});
  EXPECT_EQ(missing.code, 4) << missing.err;
  Result no_file =
      Engram({"ingest", "--db", Db(), "--collection", "lore", (dir_ / "absent.jsonl").string()});
  EXPECT_EQ(no_file.code, 2) << no_file.err;
}

TEST_F(EngineCliWrite, DeleteByIdAndByFilterAndALaterRunSeesIt) {
  MakeLore(Db());
  auto search = [&](const std::string& filter) {
    std::vector<std::string> args = {"search",   "--db",      Db(),  "--collection", "lore",
                                     "--vector", "[0,0,0,1]", "--k", "1000",         "--json"};
    if (!filter.empty()) {
      args.insert(args.end(), {"--filter", filter, "--dialect", "vector_filter"});
    }
    Result r = Engram(args);
    EXPECT_EQ(r.code, 0) << r.err;
    return r;
  };
  const std::string before = search("").out;
  EXPECT_EQ(HitIds(Json::parse(before)).size(), 40u);

  Result by_id = Engram({"delete", "--db", Db(), "--collection", "lore", "--id", "lore-006", "--id",
                         "lore-014", "--id", "no-such-id"});
  ASSERT_EQ(by_id.code, 0) << by_id.err;
  EXPECT_EQ(by_id.out, "deleted 2 records\n");

  Result by_filter = Engram({"delete", "--db", Db(), "--collection", "lore", "--filter",
                             R"({"region":"port"})", "--dialect", "vector_filter", "--json"});
  ASSERT_EQ(by_filter.code, 0) << by_filter.err;
  EXPECT_EQ(ParseJson(by_filter), Json::parse(R"({"ok":true,"deleted":6})"));  // 006 was gone

  std::set<std::string> left = Sorted(HitIds(Json::parse(search("").out)));
  EXPECT_EQ(left.size(), 32u);
  for (const char* gone : {"lore-006", "lore-014", "lore-009", "lore-039"}) {
    EXPECT_EQ(left.count(gone), 0u) << gone;
  }
  EXPECT_EQ(HitIds(Json::parse(search(R"({"region":"port"})").out)).size(), 0u);
  EXPECT_EQ(Records(), 32u);
  // Every run opens the store afresh: the same search gives the same answer.
  EXPECT_EQ(search("").out, search("").out);

  Result bad = Engram({"delete", "--db", Db(), "--collection", "lore", "--filter",
                       R"({"region":{"$gt":3}})", "--dialect", "vector_filter"});
  EXPECT_EQ(bad.code, 1) << bad.err;
  EXPECT_EQ(Records(), 32u);
  EXPECT_EQ(Engram({"delete", "--db", Db(), "--collection", "lore"}).code, 2);
  EXPECT_EQ(Engram({"delete", "--db", Db(), "--collection", "nope", "--id", "x"}).code, 4);
}

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

TEST_F(EngineCliWrite, IngestReportsDuplicatesWithTheirLines) {
  std::vector<std::string> args = CreateArgs(Db());
  args.insert(args.end(), {"--dedup", "exact"});
  ASSERT_EQ(Engram(args).code, 0);
  const fs::path file = dir_ / "dups.jsonl";
  {
    std::ofstream out(file);
    const char* texts[] = {"The  Amulet", "the amulet", "a river", "THE AMULET"};
    for (int i = 0; i < 4; ++i) {
      out << R"({"id":"d)" << i << R"(","text":")" << texts[i]
          << R"(","region":"river","written":"2024-01-01T00:00:00Z","vector":[1,0,0,0]})"
          << "\n";
    }
  }
  Result r = Engram({"ingest", "--db", Db(), "--collection", "lore", file.string(), "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const Json doc = ParseJson(r);
  EXPECT_EQ(doc["written"], 2);
  EXPECT_EQ(doc["deduplicated_total"], 2);
  EXPECT_EQ(doc["deduplicated"],
            Json::parse(R"([{"line":2,"id":"d1","duplicate_of":"d0","action":"skipped"},)"
                        R"({"line":4,"id":"d3","duplicate_of":"d0","action":"skipped"}])"));
  Result list = Engram({"collection", "list", "--db", Db(), "--json"});
  EXPECT_EQ(ParseJson(list)["collections"][0]["dedup"], "exact");
  std::vector<std::string> bad = CreateArgs(Db(), "other");
  bad.insert(bad.end(), {"--dedup", "near:high"});
  Result refused = Engram(bad);
  EXPECT_EQ(refused.code, 2);
  EXPECT_NE(refused.err.find("--dedup: threshold 'high'"), std::string::npos) << refused.err;
}

TEST_F(EngineCliWrite, SupersedesAndReadsAsOf) {
  ASSERT_EQ(Engram(CreateArgs(Db())).code, 0);
  auto record = [](const std::string& id, const std::string& supersedes) {
    return R"({"id":")" + id + R"(","text":"the ferry runs at dawn","region":"river",)" +
           R"("written":"2025-07-01T00:00:00Z","vector":[0,0,1,0])" +
           (supersedes.empty() ? "" : R"(,"supersedes":)" + supersedes) + "}\n";
  };
  auto ingest = [&](const std::string& name, const std::string& lines) {
    return Engram(
        {"ingest", "--db", Db(), "--collection", "lore", WriteFile(name, lines), "--json"});
  };
  ASSERT_EQ(ingest("a.jsonl", record("a", "")).code, 0);
  // An instant after a was written and before b is.
  const auto between = std::chrono::system_clock::now();
  const std::time_t secs = std::chrono::system_clock::to_time_t(between);
  const auto micros =
      std::chrono::duration_cast<std::chrono::microseconds>(between.time_since_epoch()).count() %
      1000000;
  char text[64];
  std::tm tm{};
  gmtime_r(&secs, &tm);
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &tm);
  const std::string as_of =
      std::string(text) + "." + std::to_string(1000000 + micros).substr(1) + "Z";
  Result b = ingest("b.jsonl", record("b", R"(["a"])"));
  ASSERT_EQ(b.code, 0) << b.err;
  const Json doc = ParseJson(b);
  EXPECT_EQ(doc["superseded_total"], 1);
  EXPECT_EQ(doc["superseded"], Json::parse(R"([{"line":1,"id":"b","superseded":"a"}])"));
  auto ids = [&](const std::string& command, const std::string& at) {
    std::vector<std::string> args = {command, "--db", Db(), "--collection", "lore", "--json"};
    if (command == "search") args.insert(args.end(), {"--query", "ferry"});
    if (!at.empty()) args.insert(args.end(), {"--as-of", at});
    Result r = Engram(args);
    EXPECT_EQ(r.code, 0) << r.err;
    const Json out = ParseJson(r);
    std::set<std::string> got;
    for (const Json& h : out.value(command == "search" ? "hits" : "records", Json::array())) {
      got.insert(h["id"].get<std::string>());
    }
    return got;
  };
  EXPECT_EQ(ids("list", ""), std::set<std::string>{"b"});
  EXPECT_EQ(ids("list", as_of), std::set<std::string>{"a"});
  EXPECT_EQ(ids("list", "2000-01-01"), std::set<std::string>{});
  EXPECT_EQ(ids("search", ""), std::set<std::string>{"b"});
  EXPECT_EQ(ids("search", as_of), std::set<std::string>{"a"});
  Result count =
      Engram({"count", "--db", Db(), "--collection", "lore", "--as-of", as_of, "--json"});
  ASSERT_EQ(count.code, 0) << count.err;
  EXPECT_EQ(ParseJson(count)["count"], 1);
  EXPECT_EQ(Records(), 1u);  // the collection's count: current records
  // A bad instant is exit 1 with the located error; so is an unknown id.
  Result bad = Engram({"count", "--db", Db(), "--collection", "lore", "--as-of", "soon", "--json"});
  EXPECT_EQ(bad.code, 1);
  EXPECT_EQ(ParseJson(bad)["error"]["path"], "as_of");
  Result unknown = ingest("c.jsonl", "\n" + record("c", R"(["nope"])"));
  EXPECT_EQ(unknown.code, 1);
  EXPECT_NE(unknown.err.find(":2: supersedes[0]: no record 'nope'"), std::string::npos)
      << unknown.err;
}

TEST_F(EngineCliWrite, IngestRefreshesTheOriginalsOfDuplicates) {
  std::vector<std::string> args = CreateArgs(Db());
  args.insert(args.end(), {"--dedup", "exact:refresh"});
  ASSERT_EQ(Engram(args).code, 0);
  const fs::path file = dir_ / "dups.jsonl";
  {
    std::ofstream out(file);
    out << R"({"id":"d0","text":"the amulet","region":"river","written":"2024-01-01T00:00:00Z",)"
        << R"("vector":[1,0,0,0]})"
        << "\n"
        << R"({"id":"d1","text":"THE AMULET","region":"river","written":"2024-06-01T00:00:00Z",)"
        << R"("vector":[1,0,0,0]})"
        << "\n";
  }
  Result r = Engram({"ingest", "--db", Db(), "--collection", "lore", file.string(), "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(ParseJson(r)["deduplicated"],
            Json::parse(R"([{"line":2,"id":"d1","duplicate_of":"d0","action":"refreshed"}])"));
  Result got = Engram({"list", "--db", Db(), "--collection", "lore", "--filter",
                       R"({"written":{"$gte":"2024-06-01T00:00:00Z"}})", "--dialect",
                       "vector_filter", "--json"});
  ASSERT_EQ(got.code, 0) << got.err;
  ASSERT_EQ(ParseJson(got)["records"].size(), 1u) << got.out;
  EXPECT_EQ(ParseJson(got)["records"][0]["id"], "d0") << "d0 took d1's later time";
  Result human = Engram({"ingest", "--db", Db(), "--collection", "lore", file.string()});
  ASSERT_EQ(human.code, 0) << human.err;
  EXPECT_NE(human.out.find("1 duplicates refreshed their originals"), std::string::npos)
      << human.out;
  Result list = Engram({"collection", "list", "--db", Db(), "--json"});
  EXPECT_EQ(ParseJson(list)["collections"][0]["dedup"], "exact:refresh");
  // Refreshing needs a record time.
  Result refused =
      Engram({"collection", "create", "--db", Db(), "--name", "other", "--schema",
              Example("lore.schema.json"), "--text", "text", "--dedup", "exact:refresh"});
  EXPECT_EQ(refused.code, 1);
  EXPECT_NE(refused.err.find("time_field"), std::string::npos) << refused.err;
}

TEST_F(EngineCliWrite, NotesCollectionsCountHitsByDefault) {
  Result c = Engram({"collection", "create", "--db", Db(), "--name", "notes", "--schema",
                     "preset:notes", "--text", "content"});
  ASSERT_EQ(c.code, 0) << c.err;
  Result off =
      Engram({"collection", "create", "--db", Db(), "--name", "quiet", "--schema", "preset:notes",
              "--text", "content", "--hit-count-field", "", "--last-hit-field", ""});
  ASSERT_EQ(off.code, 0) << off.err;
  Result list = Engram({"collection", "list", "--db", Db(), "--json"});
  const Json collections = ParseJson(list)["collections"];
  ASSERT_EQ(collections.size(), 2u);
  EXPECT_EQ(collections[0]["hit_count_field"], "hit_count");
  EXPECT_EQ(collections[0]["last_hit_field"], "last_hit_at");
  EXPECT_FALSE(collections[1].contains("hit_count_field"));
  const fs::path file = dir_ / "notes.jsonl";
  {
    std::ofstream out(file);
    out << R"({"id":"n1","content":"the mill wheel","type":"fact","scope":"agent_private",)"
        << R"("agent_id":"alice","importance":0.5,"confidence":0.9,)"
        << R"("updated_at":"2026-01-01T00:00:00Z"})"
        << "\n";
  }
  ASSERT_EQ(Engram({"ingest", "--db", Db(), "--collection", "notes", file.string()}).code, 0);
  // Each CLI search opens the store, tallies its hit and writes it on close.
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(Engram({"search", "--db", Db(), "--collection", "notes", "--query", "mill"}).code, 0);
  }
  Result counted = Engram({"count", "--db", Db(), "--collection", "notes", "--filter",
                           R"({"hit_count":2})", "--dialect", "vector_filter", "--json"});
  ASSERT_EQ(counted.code, 0) << counted.err;
  EXPECT_EQ(ParseJson(counted)["count"], 1) << counted.out;
  Result bad = Engram({"collection", "create", "--db", Db(), "--name", "bad", "--schema",
                       "preset:notes", "--text", "content", "--hit-count-field", "updated_at"});
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.err.find("hit_count_field: 'updated_at' is not an int field"), std::string::npos)
      << bad.err;
}

TEST_F(EngineCliWrite, ACollectionsDefaultRankingIsStoredAndListed) {
  std::vector<std::string> args = CreateArgs(Db());
  args.insert(args.end(), {"--decay", "written:gauss:30d", "--boost", "min_level:0.5"});
  ASSERT_EQ(Engram(args).code, 0);
  Result list = Engram({"collection", "list", "--db", Db(), "--json"});
  ASSERT_EQ(list.code, 0) << list.err;
  const Json c = ParseJson(list)["collections"][0];
  EXPECT_EQ(c["decay"], "written:gauss:2592000.0s:0.0s:0.0");
  EXPECT_EQ(c["boost"], "min_level:0.5");
  std::vector<std::string> bad = CreateArgs(Db(), "other");
  bad.insert(bad.end(), {"--decay", "region:exp:1d"});
  Result refused = Engram(bad);
  EXPECT_EQ(refused.code, 1);
  EXPECT_NE(refused.err.find("'region' is not a datetime field"), std::string::npos) << refused.err;
}

}  // namespace
}  // namespace engram::cli

namespace engram::cli {
namespace {

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

}  // namespace
}  // namespace engram::cli
