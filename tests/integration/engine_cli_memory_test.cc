// The CLI's memory features end to end: duplicates reported with their
// lines and refreshed, supersession and reads as of an instant, recall
// statistics of notes collections, a collection's default ranking.
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
namespace engine_cli_memory_test {

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

}  // namespace engine_cli_memory_test
}  // namespace
}  // namespace engram::cli
