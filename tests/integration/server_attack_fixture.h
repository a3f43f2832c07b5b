// The fixture of the hostile-client tests against the real `engram serve`
// (server_attack_test.cc, server_connections_test.cc): the server as a child
// process, a seeded collection, and the checks every test makes (a refusal
// as a problem, the server still answering, its memory bounded).
#ifndef ENGRAM_TESTS_INTEGRATION_SERVER_ATTACK_FIXTURE_H_
#define ENGRAM_TESTS_INTEGRATION_SERVER_ATTACK_FIXTURE_H_

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "integration/serve_process.h"

namespace engram::testing {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

inline constexpr std::size_t kMaxGrowthKib = 64 << 10;  // 64 MiB
inline constexpr char kAdminKey[] = "admin-key-0123456789";

class ServerAttackTest : public ::testing::Test {
 protected:
  void Start(std::vector<std::string> args = {}) {
    std::string error;
    server_ = ServeProcess::Start(args, &error);
    ASSERT_NE(server_, nullptr) << error;
  }

  // A collection with a few records, for searches.
  void Seed(const std::string& key_header = "") {
    RawConnection c(port());
    ASSERT_TRUE(c.ok());
    const json create = {{"name", "notes"},
                         {"schema", "preset:notes"},
                         {"text", {{{"name", "content"}}}},
                         {"time_field", "updated_at"}};
    ASSERT_EQ(c.Exchange(Request("POST", "/v1/collections", create.dump(), key_header)).status,
              201);
    json records = json::array();
    for (int i = 0; i < 20; ++i) {
      records.push_back({{"id", "n" + std::to_string(i)},
                         {"content", "the dragon number " + std::to_string(i) + " sleeps"},
                         {"type", "fact"},
                         {"scope", "org_shared"},
                         {"agent_id", "local"},
                         {"importance", 0.5},
                         {"confidence", 0.9},
                         {"updated_at", "2024-05-01T10:00:00Z"}});
    }
    ASSERT_EQ(c.Exchange(Request("POST", "/v1/collections/notes/records",
                                 json{{"records", records}}.dump(), key_header))
                  .status,
              200);
  }

  int port() const { return server_->port(); }

  // The server still answers a probe on a fresh connection.
  void ExpectAlive() {
    RawConnection c(port());
    ASSERT_TRUE(c.ok()) << server_->Log();
    EXPECT_EQ(c.Exchange(Request("GET", "/livez")).status, 200) << server_->Log();
  }

  void ExpectRssBounded(std::size_t before_kib) {
    const std::size_t after = server_->RssKib();
    EXPECT_LT(after, before_kib + kMaxGrowthKib)
        << "VmRSS grew from " << before_kib << " KiB to " << after << " KiB";
  }

  // A refusal: the status, a problem+json body with the kind.
  static void ExpectRefused(const RawReply& r, int status, const std::string& kind) {
    EXPECT_EQ(r.status, status) << r.head << r.body;
    if (r.status == 0) return;
    EXPECT_EQ(r.Header("content-type"), "application/problem+json") << r.head;
    const json body = json::parse(r.body, nullptr, false);
    EXPECT_EQ(body.value("kind", ""), kind) << r.body;
    EXPECT_FALSE(body.value("message", "").empty()) << r.body;
  }

  std::unique_ptr<ServeProcess> server_;
};

}  // namespace engram::testing

#endif  // ENGRAM_TESTS_INTEGRATION_SERVER_ATTACK_FIXTURE_H_
