// What the HTTP API's end-to-end tests share (server_http_test.cc,
// server_http_guard_test.cc): the keys of four callers, a note of the
// notes preset, and a fixture that runs a real Server on 127.0.0.1:0 over a
// fresh store and sends it requests with httplib::Client.
#ifndef ENGRAM_TESTS_INTEGRATION_SERVER_HTTP_FIXTURE_H_
#define ENGRAM_TESTS_INTEGRATION_SERVER_HTTP_FIXTURE_H_

#include <filesystem>
#include <string>
#include <utility>

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "tests/integration/loopback_server.h"

namespace engram::server::http {

using nlohmann::json;
namespace fs = std::filesystem;

inline constexpr char kAliceKey[] = "alice-key-0123456789";
inline constexpr char kBobKey[] = "bob-key-0123456789ab";
inline constexpr char kCarolKey[] = "carol-key-0123456789";  // all_scopes
inline constexpr char kAdminKey[] = "admin-key-0123456789";

inline std::string KeysJson() {
  return json{{"keys",
               {{{"key", kAliceKey}, {"agent", "alice"}, {"profile", "private_only"}},
                {{"key", kBobKey}, {"agent", "bob"}, {"profile", "private_plus_project"}},
                {{"key", kCarolKey}, {"agent", "carol"}, {"profile", "all_scopes"}},
                {{"key", kAdminKey}, {"admin", true}}}}}
      .dump();
}

inline json Note(const std::string& id, const std::string& agent, const std::string& scope,
                 const std::string& content) {
  return {{"id", id},          {"content", content},
          {"type", "fact"},    {"scope", scope},
          {"agent_id", agent}, {"importance", 0.5},
          {"confidence", 0.9}, {"updated_at", "2024-05-01T10:00:00Z"}};
}

// A store, the Api and a Server on 127.0.0.1:0 (loopback_server.h), with
// the four callers' keys or none.
class ServerHttpTest : public LoopbackServerTest {
 protected:
  void Start(bool with_keys, ApiOptions options = {}, ServerOptions server_options = {}) {
    KeyRing keys;
    if (with_keys) {
      StatusOr<KeyRing> parsed = KeyRing::Parse(KeysJson());
      ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
      keys = *parsed;
    }
    StartServer("engram-http-", std::move(keys), std::move(options), server_options);
  }

  httplib::Client Client(const std::string& key = "") {
    httplib::Client c("127.0.0.1", port_);
    c.set_read_timeout(20, 0);
    if (!key.empty()) c.set_bearer_token_auth(key);
    return c;
  }

  struct Reply {
    int status = 0;
    json body;
    std::string content_type;
    httplib::Headers headers;
  };
  static Reply Wrap(const httplib::Result& r) {
    Reply out;
    if (!r) return out;
    out.status = r->status;
    out.body = json::parse(r->body, nullptr, false);
    out.content_type = r->get_header_value("Content-Type");
    out.headers = r->headers;
    return out;
  }
  Reply Send(const std::string& method, const std::string& path, const std::string& body = "",
             const std::string& key = kAdminKey) {
    httplib::Client c = Client(key);
    if (method == "GET") return Wrap(c.Get(path));
    if (method == "DELETE") return Wrap(c.Delete(path));
    if (method == "PUT") return Wrap(c.Put(path, body, "application/json"));
    if (method == "PATCH") return Wrap(c.Patch(path, body, "application/json"));
    return Wrap(c.Post(path, body, "application/json"));
  }
  Reply Post(const std::string& path, const json& body, const std::string& key = kAdminKey) {
    return Send("POST", path, body.dump(), key);
  }

  void CreateNotes(const std::string& key = kAdminKey) {
    Reply r = Post("/v1/collections",
                   {{"name", "notes"},
                    {"schema", "preset:notes"},
                    {"text", {{{"name", "content"}}}},
                    {"time_field", "updated_at"}},
                   key);
    ASSERT_EQ(r.status, 201) << r.body.dump();
  }

  static void ExpectProblem(const Reply& r, int status, const std::string& kind,
                            const std::string& path = "") {
    EXPECT_EQ(r.status, status) << r.body.dump();
    EXPECT_EQ(r.content_type, "application/problem+json");
    ASSERT_TRUE(r.body.is_object()) << r.body.dump();
    EXPECT_EQ(r.body.value("status", 0), status);
    EXPECT_EQ(r.body.value("kind", ""), kind) << r.body.dump();
    for (const char* field : {"type", "title", "detail", "message", "path"}) {
      EXPECT_TRUE(r.body.contains(field)) << field << " in " << r.body.dump();
    }
    if (!path.empty()) {
      EXPECT_EQ(r.body.value("path", ""), path) << r.body.dump();
    }
  }
};

}  // namespace engram::server::http

#endif  // ENGRAM_TESTS_INTEGRATION_SERVER_HTTP_FIXTURE_H_
