// One store, one owner (issue 16), with the real binary: while `engram
// serve` holds a store, every other command that opens it exits 3 at once,
// names the holder and how to reach it, and writes nothing; a holder killed
// with SIGKILL releases the store; `engram mcp --connect` reaches the
// server's store instead, and what it stores the REST API finds.
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "subprocess.h"

namespace engram {
namespace {
namespace store_owner_test {

using nlohmann::json;
using testing::RunToEnd;
using testing::Subprocess;
namespace fs = std::filesystem;

const std::string kEngram = ENGRAM_BIN;
const std::string kLore = std::string(ENGRAM_SOURCE_DIR) + "/examples/lore.jsonl";
const std::string kLoreSchema = std::string(ENGRAM_SOURCE_DIR) + "/examples/lore.schema.json";

// Every file of a store with its size and modification time: "writes
// nothing" means this does not change.
std::map<std::string, std::pair<std::uintmax_t, fs::file_time_type>> Files(const fs::path& dir) {
  std::map<std::string, std::pair<std::uintmax_t, fs::file_time_type>> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    files[entry.path().string()] = {entry.file_size(), entry.last_write_time()};
  }
  return files;
}

class StoreOwnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("engram-owner-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    store_ = (dir_ / "store").string();
    ASSERT_EQ(RunToEnd({kEngram, "collection", "create", "--db", store_, "--name", "lore",
                        "--schema", kLoreSchema, "--text", "text", "--vectors", "4:cosine"})
                  .code,
              0);
    ASSERT_EQ(RunToEnd({kEngram, "ingest", "--db", store_, "--collection", "lore", kLore}).code, 0);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Starts `engram serve` on a free port; its URL.
  std::string Serve(std::unique_ptr<Subprocess>* server) {
    *server = std::make_unique<Subprocess>(
        std::vector<std::string>{kEngram, "serve", "--db", store_, "--listen", "127.0.0.1:0"});
    const auto line =
        (*server)->WaitForLine("listening on http://", true, std::chrono::seconds(60));
    EXPECT_TRUE(line) << (*server)->err();
    if (!line) return "";
    std::smatch m;
    std::regex_search(*line, m, std::regex("http://[0-9.]+:[0-9]+"));
    return m.str();
  }

  fs::path dir_;
  std::string store_;
};

TEST_F(StoreOwnerTest, EveryOtherOpenerIsRefusedNamingTheServer) {
  std::unique_ptr<Subprocess> server;
  const std::string url = Serve(&server);
  ASSERT_FALSE(url.empty());
  const auto before = Files(store_);
  const std::string expected = "store " + store_ + " is in use by engram serve (pid " +
                               std::to_string(server->pid()) + "); use engram mcp --connect " +
                               url + " to reach it";
  const std::vector<std::vector<std::string>> openers = {
      {kEngram, "serve", "--db", store_, "--listen", "127.0.0.1:0"},
      {kEngram, "mcp", "--db", store_},
      {kEngram, "ingest", "--db", store_, "--collection", "lore", kLore},
      {kEngram, "search", "--db", store_, "--collection", "lore", "--query", "dragon"},
      {kEngram, "collection", "create", "--db", store_, "--name", "other", "--schema", kLoreSchema,
       "--text", "text"},
      {kEngram, "collection", "list", "--db", store_},
      {kEngram, "delete", "--db", store_, "--collection", "lore", "--id", "lore-001"},
  };
  for (const auto& argv : openers) {
    SCOPED_TRACE(argv[1] + " " + argv[2]);
    const auto start = std::chrono::steady_clock::now();
    const testing::Finished r = RunToEnd(argv, R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})"
                                               "\n");
    EXPECT_EQ(r.code, 3) << r.err;
    EXPECT_NE(r.err.find(expected), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
    // "At once": no waiting on a busy store (generous: the binary's start-up
    // under sanitizers is what takes time here).
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  }
  EXPECT_EQ(Files(store_), before) << "a refused opener wrote to the store";

  // The server still has every record and still serves.
  httplib::Client client(url);
  auto reply = client.Post("/v1/collections/lore/search", R"({"query":"dragon","k":40})",
                           "application/json");
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 200) << reply->body;
  EXPECT_FALSE(json::parse(reply->body)["hits"].empty());
  server->Signal(SIGTERM);
  EXPECT_EQ(server->Wait(), 0) << server->err();
}

TEST_F(StoreOwnerTest, AHolderKilledWithSigkillReleasesTheStore) {
  std::unique_ptr<Subprocess> server;
  ASSERT_FALSE(Serve(&server).empty());
  EXPECT_EQ(RunToEnd({kEngram, "collection", "list", "--db", store_}).code, 3);
  server->Signal(SIGKILL);
  EXPECT_EQ(server->Wait(), 128 + SIGKILL);
  const testing::Finished after = RunToEnd({kEngram, "collection", "list", "--db", store_});
  EXPECT_EQ(after.code, 0) << after.err;
  EXPECT_NE(after.out.find("lore  40 records"), std::string::npos) << after.out;
}

// The bridge: a stdio MCP session through `engram mcp --connect` stores a
// memory in the server's store, which the REST API then finds; a memory
// stored over REST is found through the bridge.
TEST_F(StoreOwnerTest, TheBridgeReachesTheServersStore) {
  std::unique_ptr<Subprocess> server;
  const std::string url = Serve(&server);
  ASSERT_FALSE(url.empty());
  Subprocess bridge({kEngram, "mcp", "--connect", url});
  auto rpc = [&](const json& message) -> json {
    bridge.Write(message.dump() + "\n");
    const auto line = bridge.WaitForLine("\"jsonrpc\"", false, std::chrono::seconds(60));
    EXPECT_TRUE(line) << bridge.err();
    return line ? json::parse(*line) : json();
  };
  json init = rpc({{"jsonrpc", "2.0"},
                   {"id", 1},
                   {"method", "initialize"},
                   {"params",
                    {{"protocolVersion", "2025-11-25"},
                     {"capabilities", json::object()},
                     {"clientInfo", {{"name", "store-owner-test"}, {"version", "1"}}}}}});
  EXPECT_EQ(init["result"]["protocolVersion"], "2025-11-25") << init.dump();
  bridge.Write(R"({"jsonrpc":"2.0","method":"notifications/initialized"})"
               "\n");
  json stored =
      rpc({{"jsonrpc", "2.0"},
           {"id", 2},
           {"method", "tools/call"},
           {"params",
            {{"name", "StoreMemory"},
             {"arguments",
              {{"content", "The user's dog is called Brindle"}, {"session_id", "s-bridge"}}}}}});
  ASSERT_EQ(stored["result"].value("isError", true), false) << stored.dump();

  httplib::Client client(url);
  auto found = client.Post("/v1/collections/memories/search", R"({"query":"Brindle","k":5})",
                           "application/json");
  ASSERT_TRUE(found);
  ASSERT_EQ(found->status, 200) << found->body;
  ASSERT_EQ(json::parse(found->body)["hits"].size(), 1u) << found->body;

  // A memory written over REST, found over the bridge.
  auto put = client.Post(
      "/v1/collections/memories/records",
      json{{"records", json::array({{{"memory_id", "0b9a1c9e-5c4f-4d55-9a3e-1f1c2b3d4e5f"},
                                     {"content", "Deploys go out on Thursdays"},
                                     {"title", "deploy day"},
                                     {"session_id", "s-rest"},
                                     {"tool", "Bash"},
                                     {"agent_id", "local"},
                                     {"sequence_order", 1},
                                     {"timestamp", "2026-11-01T10:00:00Z"},
                                     {"archetype_title", "assistant"},
                                     {"schema_version", "1"}}})}}
          .dump(),
      "application/json");
  ASSERT_TRUE(put);
  ASSERT_EQ(put->status, 200) << put->body;
  json search = rpc({{"jsonrpc", "2.0"},
                     {"id", 3},
                     {"method", "tools/call"},
                     {"params",
                      {{"name", "SearchMemory"},
                       {"arguments", {{"query", "Thursdays deploys"}, {"score_threshold", 0}}}}}});
  ASSERT_EQ(search["result"].value("isError", true), false) << search.dump();
  EXPECT_NE(search.dump().find("Deploys go out on Thursdays"), std::string::npos) << search.dump();

  bridge.CloseStdin();
  EXPECT_EQ(bridge.Wait(), 0) << bridge.err();
  server->Signal(SIGTERM);
  EXPECT_EQ(server->Wait(), 0) << server->err();
}

TEST_F(StoreOwnerTest, TheBridgeAnswersEvenWhenNoServerListens) {
  const testing::Finished r = RunToEnd({kEngram, "mcp", "--connect", "http://127.0.0.1:9"},
                                       R"({"jsonrpc":"2.0","id":4,"method":"tools/list"})"
                                       "\n");
  EXPECT_EQ(r.code, 0) << r.err;
  const json reply = json::parse(r.out);
  EXPECT_EQ(reply["id"], 4);
  EXPECT_EQ(reply["error"]["code"], -32603);
  EXPECT_NE(r.err.find("cannot reach http://127.0.0.1:9/mcp"), std::string::npos) << r.err;
  EXPECT_EQ(RunToEnd({kEngram, "mcp", "--connect", "127.0.0.1:9"}).code, 2);
  EXPECT_EQ(RunToEnd({kEngram, "mcp", "--connect", "http://127.0.0.1:9", "--key-env",
                      "ENGRAM_TEST_NO_SUCH_VARIABLE"})
                .code,
            2);
  EXPECT_EQ(RunToEnd({kEngram, "mcp"}).code, 2);
}

// `--db ~/x` from a client's JSON configuration (no shell) means the home
// directory, and a path that cannot be a store is a clear error.
TEST_F(StoreOwnerTest, DbExpandsTheHomeDirectory) {
  const fs::path home = dir_ / "home";
  fs::create_directories(home);
  ::setenv("HOME", home.c_str(), 1);
  const testing::Finished created =
      RunToEnd({kEngram, "collection", "create", "--db", "~/mem", "--name", "lore", "--schema",
                kLoreSchema, "--text", "text"});
  EXPECT_EQ(created.code, 0) << created.err;
  EXPECT_TRUE(fs::exists(home / "mem" / "engram.db"));
  EXPECT_FALSE(fs::exists("~"));
  std::ofstream(dir_ / "file") << "x";
  const testing::Finished bad =
      RunToEnd({kEngram, "collection", "list", "--db", (dir_ / "file").string()});
  EXPECT_EQ(bad.code, 3);
  EXPECT_NE(bad.err.find("exists and is not a directory"), std::string::npos) << bad.err;
}

}  // namespace store_owner_test
}  // namespace
}  // namespace engram
