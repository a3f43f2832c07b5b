// `engram collection|ingest|delete` end to end, in process, on temporary
// store directories: exit codes, output shapes, located rejections, and what
// a later run (a fresh Engine::Open) sees. Searches: engine_cli_search_test.cc;
// duplicates, supersession and recall: engine_cli_memory_test.cc.
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
namespace engine_cli_test {

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
                                         R"("vectors":{"dim":4,"metric":"cosine",)"
                                         R"("quantization":"none"}}]})"));
}

TEST_F(EngineCliWrite, CreateTakesAQuantization) {
  const std::string db = (dir_ / "q").string();
  std::vector<std::string> args = CreateArgs(db);
  std::replace(args.begin(), args.end(), std::string("4:cosine"), std::string("4:l2:int8"));
  Result r = Engram(args);
  ASSERT_EQ(r.code, 0) << r.err;
  Result list = Engram({"collection", "list", "--db", db});
  ASSERT_EQ(list.code, 0) << list.err;
  EXPECT_NE(list.out.find(", vectors 4:l2:int8"), std::string::npos) << list.out;
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
      {{"--name", "lore", "--schema", schema, "--vectors", "4:cosine:int4"},
       1,
       "unknown quantization 'int4' (none, int8)"},
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

}  // namespace engine_cli_test
}  // namespace
}  // namespace engram::cli
