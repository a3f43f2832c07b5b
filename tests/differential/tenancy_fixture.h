// The fixture of the tenancy differential tests (tenancy_diff_test.cc;
// the fixture's set-up and comparison in tenancy_fixture.cc, its random
// requests in tenancy_requests.cc): two stores that differ only in bob's
// private records, each with its Api and MCP server, the same request sent
// to both and the answers compared, scores and timings aside.
#ifndef ENGRAM_TESTS_DIFFERENTIAL_TENANCY_FIXTURE_H_
#define ENGRAM_TESTS_DIFFERENTIAL_TENANCY_FIXTURE_H_

#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "engram/engine.h"
#include "server/http/api.h"
#include "server/http/auth.h"
#include "server/mcp/mcp_server.h"

namespace engram::server::http::tenancy {

using nlohmann::json;
namespace fs = std::filesystem;

inline constexpr char kAdmin[] = "admin-key-0123456789";
// agent -> key; alice private_plus_project, carol all_scopes, dave
// private_only; bob is the agent whose private records differ.
inline const std::map<std::string, std::string> kKeys = {{"alice", "alice-key-0123456789"},
                                                         {"carol", "carol-key-0123456789"},
                                                         {"dave", "dave-key-01234567890"},
                                                         {"bob", "bob-key-0123456789ab"}};
inline const std::vector<std::string> kReaders = {"alice", "carol", "dave"};
inline const std::vector<std::string> kWords = {"river",  "mill",   "dawn",   "stone", "bridge",
                                                "copper", "meadow", "falcon", "harbor"};
// Only bob's private records have these.
inline const std::vector<std::string> kSecrets = {"zebrapassword42", "orchid77", "quasar"};
inline constexpr int kDim = 4;

// The key file of the five callers.
std::string KeysJson();

// A memory id for seeded memories: UUID-shaped, never random (the
// normaliser maps only ids StoreMemory makes up).
std::string SeedUuid(int n);

class Rng {
 public:
  explicit Rng(unsigned seed) : gen_(seed) {}
  std::size_t Below(std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n - 1)(gen_);
  }
  bool Coin() { return Below(2) == 0; }
  template <typename T>
  const T& Pick(const std::vector<T>& v) {
    return v[Below(v.size())];
  }
  double Unit() { return std::uniform_real_distribution<double>(0, 1)(gen_); }
  std::string Words(const std::vector<std::string>& pool, std::size_t n) {
    std::string out;
    for (std::size_t i = 0; i < n; ++i) out += (i ? " " : "") + Pick(pool);
    return out;
  }
  json Vector() {
    json v = json::array();
    for (int i = 0; i < kDim; ++i) v.push_back(Unit() * 2 - 1 + (i == 0 ? 0.01 : 0));
    return v;
  }

 private:
  std::mt19937 gen_;
};

// A note of the notes preset with random type, importance, day and vector.
json Note(Rng& rng, const std::string& id, const std::string& agent, const std::string& scope,
          const std::string& content);

// A memory of the memories collection, its id SeedUuid(n).
json Memory(Rng& rng, int n, const std::string& agent, const std::string& content);

// One store with its API and MCP server.
struct Side {
  fs::path dir;
  std::unique_ptr<Engine> engine;
  std::unique_ptr<mcp::McpServer> mcp;
  std::unique_ptr<Api> api;
  std::map<std::string, std::string> uuids;  // StoreMemory's random ids -> "uuid#n"
};

struct Reply {
  int status = 0;
  json body;
};

class TenancyDiff : public ::testing::Test {
 protected:
  void SetUp() override;

  void TearDown() override;

  static Reply Send(Side& s, const std::string& method, const std::string& path, const json& body,
                    const std::string& key,
                    std::vector<std::pair<std::string, std::string>> headers = {});

  void Both(const std::string& method, const std::string& path, const json& body);

  // A tools/call through /mcp, in the 2026-07-28 era or the handshake era.
  static Reply ToolOn(Side& s, const std::string& key, const std::string& tool, const json& args,
                      bool stateless);

  // The same request to both sides, answers compared after Normalize.
  // Returns side 0's answer.
  json Compare(const std::string& what, const std::function<Reply(Side&)>& send, bool ranked);
  json Http(const std::string& agent, const std::string& method, const std::string& path,
            const json& body = nullptr, bool ranked = false);
  json Tool(const std::string& agent, const std::string& tool, const json& args, bool stateless,
            bool ranked);

  // Scores and timings aside; ranked hit lists as sets; the ids StoreMemory
  // makes up as the order they first appeared in on that side.
  json Normalize(Side& s, json v, bool ranked);

  json RandomSearch(Rng& rng);

  // One random request by `agent`, over HTTP or MCP.
  void RandomRequest(Rng& rng, const std::string& agent);

  Side sides_[2];
  std::vector<std::string> ids_, uuids_, bob_uuids_;
  std::set<std::string> bob_ids_;
  int compared_ = 0;
};

}  // namespace engram::server::http::tenancy

#endif  // ENGRAM_TESTS_DIFFERENTIAL_TENANCY_FIXTURE_H_
