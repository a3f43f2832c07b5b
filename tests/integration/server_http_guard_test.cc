// The HTTP API's guards end to end: every error class as a located problem,
// the auth matrix (SEARCH.md §6), key files, overload (503 with
// Retry-After) and a graceful stop with a request in flight.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <ctime>
#include <future>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "tests/integration/server_http_fixture.h"

namespace engram::server::http {
namespace {
namespace server_http_guard_test {

TEST_F(ServerHttpTest, RequestErrors) {
  ApiOptions options;
  options.limits.max_batch = 3;
  options.limits.max_k = 50;
  options.limits.max_body_bytes = 64 << 10;
  Start(false, options);
  CreateNotes("");
  ExpectProblem(Send("POST", "/v1/collections/notes/search", "{\"k\":", ""), 400,
                "request.invalid_json", "$");
  ExpectProblem(Send("POST", "/v1/collections/notes/search", "{\"k\":1,\"k\":2}", ""), 400,
                "request.invalid_json");
  ExpectProblem(Send("POST", "/v1/collections/notes/search", "[1]", ""), 400, "request.invalid");
  ExpectProblem(Send("POST", "/v1/collections/notes/search", "", ""), 400, "request.invalid");
  ExpectProblem(Send("GET", "/v2/nothing", "", ""), 404, "route.not_found");
  Reply wrong = Send("PUT", "/v1/collections", "{}", "");
  ExpectProblem(wrong, 405, "route.method_not_allowed");
  EXPECT_NE(wrong.headers.find("Allow"), wrong.headers.end());
  ExpectProblem(Post("/v1/collections/notes/search", {{"k", 51}}, ""), 400, "request.invalid",
                "$.k");
  ExpectProblem(Post("/v1/collections/notes/search", {{"k", "3"}}, ""), 400, "request.invalid",
                "$.k");
  ExpectProblem(Post("/v1/collections/notes/search", {{"vector", {1, "x"}}}, ""), 400,
                "request.invalid", "$.vector[1]");
  ExpectProblem(Post("/v1/collections/notes/search", {{"query", std::string(5000, 'a')}}, ""), 400,
                "request.invalid", "$.query");
  ExpectProblem(Post("/v1/collections/notes/search", {{"mode", "fuzzy"}}, ""), 400,
                "request.invalid", "$.mode");
  json four = json::array();
  for (int i = 0; i < 4; ++i) four.push_back(Note("b" + std::to_string(i), "a", "s", "x"));
  ExpectProblem(Post("/v1/collections/notes/records", {{"records", four}}, ""), 400,
                "request.invalid", "$.records");
  ExpectProblem(Post("/v1/collections/notes/records", {{"records", {1}}}, ""), 400,
                "request.invalid", "$.records[0]");
  std::string deep = "{\"filter\":" + std::string(100, '[') + std::string(100, ']') + "}";
  ExpectProblem(Send("POST", "/v1/collections/notes/search", deep, ""), 400,
                "request.invalid_json");
  Reply big = Send("POST", "/v1/collections/notes/search", std::string(70 << 10, ' '), "");
  ExpectProblem(big, 413, "request.too_large");
  ExpectProblem(Post("/v1/collections/nope/search", {{"query", "x"}}, ""), 404, "not_found");
  ExpectProblem(Post("/v1/collections/notes/records:delete", json::object(), ""), 400,
                "request.invalid", "$");
}

TEST_F(ServerHttpTest, AuthMatrix) {
  Start(true);
  // No key, a malformed header, an unknown key.
  Reply none = Send("GET", "/v1/collections", "", "");
  ExpectProblem(none, 401, "auth.unauthenticated");
  EXPECT_NE(none.headers.find("WWW-Authenticate"), none.headers.end());
  ExpectProblem(Send("GET", "/v1/collections", "", "wrong-key-0123456789"), 401,
                "auth.unauthenticated");
  {
    httplib::Client c = Client();
    c.set_basic_auth("a", "b");
    ExpectProblem(Wrap(c.Get("/v1/collections")), 401, "auth.unauthenticated");
  }
  ExpectProblem(Send("POST", "/mcp", "{}", ""), 401, "auth.unauthenticated");
  // Admin-only operations.
  ExpectProblem(Post("/v1/collections", {{"name", "x"}, {"schema", "preset:notes"}}, kAliceKey),
                403, "auth.forbidden");
  CreateNotes(kAdminKey);
  ExpectProblem(Send("DELETE", "/v1/collections/notes", "", kBobKey), 403, "auth.forbidden");
  ExpectProblem(Send("PUT", "/v1/retrieves/r", json{{"collection", "notes"}}.dump(), kBobKey), 403,
                "auth.forbidden");
  ExpectProblem(Send("PATCH", "/v1/retrieves/r/filter", json{{"filter", ""}}.dump(), kBobKey), 403,
                "auth.forbidden");

  // Each agent writes its own records; nobody writes as someone else.
  ASSERT_EQ(Post("/v1/collections/notes/records",
                 {{"records", {Note("a1", "alice", "agent_private", "alice dragon")}}}, kAliceKey)
                .status,
            200);
  ASSERT_EQ(Post("/v1/collections/notes/records",
                 {{"records",
                   {Note("b1", "bob", "agent_private", "bob dragon private"),
                    Note("b2", "bob", "project_shared", "bob dragon project"),
                    Note("b3", "bob", "org_shared", "bob dragon org")}}},
                 kBobKey)
                .status,
            200);
  Reply forged =
      Post("/v1/collections/notes/records",
           {{"records", {Note("x1", "bob", "agent_private", "forged dragon")}}}, kAliceKey);
  ExpectProblem(forged, 403, "scope.forbidden");
  // Ids are unique per agent: alice writing bob's id writes her own record.
  EXPECT_EQ(Post("/v1/collections/notes/records",
                 {{"records", {Note("b1", "alice", "agent_private", "overwrite")}}}, kAliceKey)
                .status,
            200);

  auto ids = [&](const std::string& key, const json& extra) {
    json body = {{"query", "dragon"}, {"k", 50}};
    body.update(extra);
    Reply r = Post("/v1/collections/notes/search", body, key);
    EXPECT_EQ(r.status, 200) << r.body.dump();
    std::set<std::string> out;
    for (const json& h : r.body["hits"]) out.insert(h["id"].get<std::string>());
    return out;
  };
  using Ids = std::set<std::string>;
  EXPECT_EQ(ids(kAliceKey, json::object()), (Ids{"a1"}));
  EXPECT_EQ(ids(kBobKey, json::object()), (Ids{"b1", "b2", "b3"}));
  EXPECT_EQ(ids(kCarolKey, json::object()), (Ids{"b2", "b3"}));
  EXPECT_EQ(ids(kAdminKey, json::object()), (Ids{"a1", "b1", "b2", "b3"}));
  // No filter widens the scope.
  json widen = {{"filter", {{"$or", {{{"agent_id", "bob"}}, {{"agent_id", "alice"}}}}}},
                {"dialect", "vector_filter"}};
  EXPECT_EQ(ids(kAliceKey, widen), (Ids{"a1"}));
  json bob_only = {{"filter", {{"$or", {{{"agent_id", "bob"}}}}}}, {"dialect", "vector_filter"}};
  EXPECT_EQ(ids(kAliceKey, bob_only), Ids{});
  json expr_or = {{"filter",
                   {{"schema", "search_filter_expr/v1"},
                    {"expr",
                     {{"op", "or"},
                      {"args",
                       {{{"op", "eq"}, {"field", "agent_id"}, {"value", "bob"}},
                        {{"op", "neq"}, {"field", "scope"}, {"value", "zzz"}}}}}}}},
                  {"dialect", "expr_v1"}};
  EXPECT_EQ(ids(kAliceKey, expr_or), (Ids{"a1"}));
  EXPECT_EQ(ids(kCarolKey, expr_or), (Ids{"b2", "b3"}));

  // Reads and deletes by id are scoped too.
  EXPECT_EQ(Send("GET", "/v1/collections/notes/records/b1", "", kAliceKey).body["content"],
            "overwrite");
  ExpectProblem(Send("GET", "/v1/collections/notes/agents/bob/records/b1", "", kAliceKey), 404,
                "not_found");
  EXPECT_EQ(Send("GET", "/v1/collections/notes/records/b1", "", kBobKey).body["content"],
            "bob dragon private");
  EXPECT_EQ(Send("GET", "/v1/collections/notes/records/b3", "", kCarolKey).status, 200);
  EXPECT_EQ(Send("DELETE", "/v1/collections/notes/records/b1", "", kAliceKey).body["deleted"], 1);
  EXPECT_EQ(Send("DELETE", "/v1/collections/notes/records/b3", "", kCarolKey).body["deleted"], 0);
  ExpectProblem(Send("DELETE", "/v1/collections/notes/agents/bob/records/b3", "", kCarolKey), 403,
                "permission_denied");
  Reply wipe = Post("/v1/collections/notes/records:delete",
                    {{"filter", {{"$or", {{{"agent_id", "bob"}}}}}}, {"dialect", "vector_filter"}},
                    kAliceKey);
  EXPECT_EQ(wipe.body["deleted"], 0) << wipe.body.dump();
  EXPECT_EQ(ids(kAdminKey, json::object()).size(), 4u);
  // Probes need no key; /metrics needs an admin key (it names every collection).
  EXPECT_EQ(Send("GET", "/livez", "", "").status, 200);
  ExpectProblem(Send("GET", "/metrics", "", kBobKey), 403, "auth.forbidden");
  EXPECT_EQ(Send("GET", "/metrics", "", kAdminKey).status, 200);
}

TEST(KeyRingTest, RejectsBadKeyFilesWithLocatedErrors) {
  EXPECT_FALSE(KeyRing::Parse("{").ok());
  StatusOr<KeyRing> r = KeyRing::Parse(R"({"keys":[{"key":"short","agent":"a"}]})");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("$.keys[0].key"), std::string::npos);
  r = KeyRing::Parse(R"({"keys":[{"key":"0123456789abcdef","agent":"a","profile":"all"}]})");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("$.keys[0].profile"), std::string::npos);
  r = KeyRing::Parse(R"({"keys":[{"key":"0123456789abcdef"}]})");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("$.keys[0].agent"), std::string::npos);
  r = KeyRing::Parse(
      R"({"keys":[{"key":"0123456789abcdef","admin":true},{"key":"0123456789abcdef","admin":true}]})");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("$.keys[1].key"), std::string::npos);
  EXPECT_TRUE(IsLoopbackHost("127.0.0.1"));
  EXPECT_TRUE(IsLoopbackHost("::1"));
  EXPECT_FALSE(IsLoopbackHost("0.0.0.0"));
}

// A gate the test seam waits on: holds a request in flight until opened.
struct Gate {
  std::mutex mutex;
  std::condition_variable cv;
  bool entered = false;
  bool open = false;
  void Enter() {
    std::unique_lock<std::mutex> lock(mutex);
    entered = true;
    cv.notify_all();
    cv.wait(lock, [this] { return open; });
  }
  void WaitEntered() {
    std::unique_lock<std::mutex> lock(mutex);
    cv.wait(lock, [this] { return entered; });
  }
  void Open() {
    std::lock_guard<std::mutex> lock(mutex);
    open = true;
    cv.notify_all();
  }
};

TEST_F(ServerHttpTest, OverloadAnswers503WithRetryAfter) {
  auto gate = std::make_shared<Gate>();
  ApiOptions options;
  options.before_route = [gate](const std::string& route) {
    if (route == "/v1/collections/{name}/search") gate->Enter();
  };
  ServerOptions server_options;
  server_options.max_in_flight = 1;
  Start(false, options, server_options);
  CreateNotes("");
  auto slow = std::async(std::launch::async, [&] {
    return Post("/v1/collections/notes/search", {{"query", "x"}}, "");
  });
  gate->WaitEntered();
  Reply busy = Send("GET", "/v1/collections", "", "");
  ExpectProblem(busy, 503, "overloaded");
  EXPECT_NE(busy.headers.find("Retry-After"), busy.headers.end());
  EXPECT_EQ(Send("GET", "/livez", "", "").status, 200);  // probes are not limited
  gate->Open();
  EXPECT_EQ(slow.get().status, 200);
  EXPECT_EQ(Send("GET", "/v1/collections", "", "").status, 200);
}

TEST_F(ServerHttpTest, StopFinishesTheRequestInFlight) {
  auto gate = std::make_shared<Gate>();
  ApiOptions options;
  options.before_route = [gate](const std::string& route) {
    if (route == "/v1/collections/{name}/records") gate->Enter();
  };
  Start(false, options);
  CreateNotes("");
  auto write = std::async(std::launch::async, [&] {
    return Post("/v1/collections/notes/records",
                {{"records", {Note("late", "local", "agent_private", "written while stopping")}}},
                "");
  });
  gate->WaitEntered();
  auto stop = std::async(std::launch::async, [&] { server_->Stop(); });
  // Stop must wait for the request: it cannot finish before the gate opens.
  EXPECT_EQ(stop.wait_for(std::chrono::milliseconds(200)), std::future_status::timeout);
  gate->Open();
  stop.get();
  Reply r = write.get();
  EXPECT_EQ(r.status, 200) << r.body.dump();
  EXPECT_FALSE(Client().Get("/livez"));  // no longer accepting
  StatusOr<std::optional<std::string>> stored = engine_->Get("notes", "late");
  ASSERT_TRUE(stored.ok());
  EXPECT_TRUE(stored->has_value());
}

}  // namespace server_http_guard_test
}  // namespace
}  // namespace engram::server::http
