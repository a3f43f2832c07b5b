// What the `engram` CLI's engine tests share (engine_cli_test.cc,
// engine_cli_search_test.cc, engine_cli_memory_test.cc): the examples'
// lore collection, a store directory of its own per test or suite, and
// reading the JSON the commands print.
#ifndef ENGRAM_TESTS_INTEGRATION_ENGINE_CLI_FIXTURE_H_
#define ENGRAM_TESTS_INTEGRATION_ENGINE_CLI_FIXTURE_H_

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "tests/integration/run_cli.h"

namespace engram::cli {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

inline std::string Example(const std::string& name) {
  return std::string(ENGRAM_SOURCE_DIR) + "/examples/" + name;
}

// A directory of its own per test (and per process: CTest runs tests in
// parallel), removed afterwards.
inline fs::path FreshDir(const std::string& name) {
  fs::path dir =
      fs::temp_directory_path() / ("engram_engine_cli_" + std::to_string(getpid()) + "_" + name);
  fs::remove_all(dir);
  return dir;
}

inline std::vector<std::string> CreateArgs(const std::string& db,
                                           const std::string& name = "lore") {
  return {"collection",   "create", "--db",      db,
          "--name",       name,     "--schema",  Example("lore.schema.json"),
          "--text",       "text",   "--vectors", "4:cosine",
          "--time-field", "written"};
}

// The lore collection of examples/, created and ingested in `db`.
inline void MakeLore(const std::string& db) {
  Result c = Engram(CreateArgs(db));
  ASSERT_EQ(c.code, 0) << c.err;
  Result i = Engram({"ingest", "--db", db, "--collection", "lore", Example("lore.jsonl")});
  ASSERT_EQ(i.code, 0) << i.err;
}

inline Json ParseJson(const Result& r) {
  Json doc = Json::parse(r.out, nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << r.out;
  return doc;
}

inline std::vector<std::string> HitIds(const Json& doc) {
  std::vector<std::string> ids;
  for (const Json& h : doc.value("hits", Json::array())) ids.push_back(h.value("id", ""));
  return ids;
}

inline std::set<std::string> Sorted(const std::vector<std::string>& ids) {
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

  inline static fs::path* dir_ = nullptr;
};

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

inline const char* const kGoodRecord =
    R"({"id":"n1","text":"A new rumour about the ferry.","region":"river",)"
    R"("written":"2025-07-01T00:00:00Z","vector":[0,0,1,0]})";

}  // namespace engram::cli

#endif  // ENGRAM_TESTS_INTEGRATION_ENGINE_CLI_FIXTURE_H_
