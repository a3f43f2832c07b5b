// The CLI over a PostgreSQL store (`--store postgresql://…`) against the same
// commands over the embedded SQLite store (`--db DIR`): collection create,
// ingest, searches of every kind, delete and list answer the same, run after
// run (each command opens the store afresh, loading the snapshots the last one
// wrote). PostgreSQL 15 runs for the test as an unprivileged user on a private
// socket (tests/support/store_places.h). Also: --store's validation and the
// store shared with a running engine.
#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <unistd.h>

#include "engram/engine.h"
#include "tests/integration/run_cli.h"
#include "tests/support/store_places.h"

namespace engram::cli {
namespace {
namespace postgres_cli_test {

namespace fs = std::filesystem;

std::string Example(const std::string& name) {
  return std::string(ENGRAM_SOURCE_DIR) + "/examples/" + name;
}

class PostgresCli : public ::testing::Test {
 protected:
  void SetUp() override {
    place_ = storage::testing::PostgresPlace::Make();
    ASSERT_NE(place_, nullptr);
    url_ = place_->location();
    const std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    dir_ = fs::temp_directory_path() / ("engram_pg_cli_" + std::to_string(getpid()) + "_" + name);
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs `args` with `--db DIR` and with `--store URL` in its place; both
  // must succeed alike. The PostgreSQL run's standard output.
  std::string Both(const std::vector<std::string>& args) {
    std::vector<std::string> lite = args, pg = args;
    const std::string db = (dir_ / "store").string();
    lite.insert(lite.begin() + Verbs(args), {"--db", db});
    pg.insert(pg.begin() + Verbs(args), {"--store", url_});
    const Result a = Engram(lite), b = Engram(pg);
    EXPECT_EQ(a.code, 0) << a.err;
    EXPECT_EQ(b.code, a.code) << b.err;
    EXPECT_EQ(Untimed(b.out), Untimed(a.out)) << "engram " << ::testing::PrintToString(args);
    return b.out;
  }
  // `out` without what a run measures ("seconds":…) or where the store is
  // ("created collection 'lore' in …").
  static std::string Untimed(std::string out) {
    const std::size_t seconds = out.find("\"seconds\":");
    if (seconds != std::string::npos) out.erase(seconds, out.find(',', seconds) - seconds);
    const std::size_t in = out.find("' in ");
    if (in != std::string::npos) out.erase(in);
    return out;
  }
  // How many leading words name the command ("collection create": 2).
  static std::size_t Verbs(const std::vector<std::string>& args) {
    return args[0] == "collection" ? 2 : 1;
  }

  std::unique_ptr<storage::testing::PostgresPlace> place_;  // a fresh database
  fs::path dir_;
  std::string url_;
};

TEST_F(PostgresCli, CommandsAnswerAsOverTheEmbeddedStore) {
  Both({"collection", "create", "--name", "lore", "--schema", Example("lore.schema.json"), "--text",
        "text", "--vectors", "4:cosine", "--time-field", "written"});
  Both({"ingest", "--collection", "lore", "--batch", "16", "--json", Example("lore.jsonl")});
  const std::vector<std::vector<std::string>> searches = {
      {"--query", "river"},
      {"--query", "wolves pass", "--k", "3"},
      {"--vector", "[1,0,0,0]", "--k", "5"},
      {"--query", "river", "--vector", "[0,1,0,0]"},
      {"--query", "river", "--filter", R"({"region":{"$eq":"river"}})", "--dialect",
       "vector_filter"},
  };
  for (int round = 0; round < 2; ++round) {
    for (const auto& s : searches) {
      std::vector<std::string> args = {"search", "--collection", "lore", "--json"};
      args.insert(args.end(), s.begin(), s.end());
      EXPECT_NE(Both(args).find("\"hits\":[{"), std::string::npos) << s[1];
    }
    Both({"count", "--collection", "lore", "--json"});
    Both({"collection", "list", "--json"});
    if (round == 0) {
      // Changes, then the same questions again.
      Both({"delete", "--collection", "lore", "--id", "lore-023", "--json"});
      Both({"ingest", "--collection", "lore", "--json", Example("lore.jsonl")});
      Both({"delete", "--collection", "lore", "--filter", R"({"region":{"$eq":"valley"}})",
            "--dialect", "vector_filter", "--json"});
    }
  }
}

TEST_F(PostgresCli, StoreOptionsAreExactlyOneAndAURLIsChecked) {
  const std::vector<std::string> search = {"search", "--collection", "lore", "--query", "x"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = search;
    args.insert(args.begin() + 1, extra.begin(), extra.end());
    return Engram(args);
  };
  Result r = with({"--store", "mysql://engram:secret@host/db"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--store: 'mysql://engram:****@host/db' is not a store URL"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("secret"), std::string::npos) << "the password was shown";
  r = with({"--db", (dir_ / "s").string(), "--store", url_});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("[--db,--store]"), std::string::npos) << r.err;
  r = with({});
  EXPECT_EQ(r.code, 2);
  r = with({"--store", "postgresql://engram@%zz/db"});
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("invalid percent-encoded token"), std::string::npos) << r.err;
}

TEST_F(PostgresCli, AStoreIsSharedWithARunningEngine) {
  // A server's engine holds the store open; the CLI writes to it meanwhile
  // (a PostgreSQL store has no single owner) and the engine follows.
  auto served = Engine::Open(url_, Engine::Options{});
  ASSERT_TRUE(served.ok()) << served.status().ToString();
  Result r = Engram({"collection", "create", "--store", url_, "--name", "lore", "--schema",
                     Example("lore.schema.json"), "--text", "text"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!(*served)->DescribeCollection("lore").ok() && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE((*served)->DescribeCollection("lore").ok()) << "the engine did not follow";
  r = Engram({"collection", "list", "--store", url_});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("lore"), std::string::npos) << r.out;
}

}  // namespace postgres_cli_test
}  // namespace
}  // namespace engram::cli
