// The bounds on each request's work through the front-ends: the deadline
// (503 deadline_exceeded over HTTP, JSON-RPC -32001 over MCP, the in-flight
// slot freed), one agent's share of the slots, the prefix-expansion cap
// (422 at $.query), and the reply budget (HTTP and MCP: at it and one byte
// under, truncation reported). A real Server on a loopback port where a slot
// or a deadline is involved; the reply writer and McpServer directly elsewhere.
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "engram/engine.h"
#include "server/http/api.h"
#include "server/http/auth.h"
#include "server/http/server.h"
#include "server/mcp/mcp_server.h"
#include "tests/integration/loopback_server.h"

namespace engram::server::http {
namespace {
namespace server_bounds_test {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr char kAliceKey[] = "alice-key-0123456789";
constexpr char kBobKey[] = "bob-key-0123456789ab";

// Holds the first request at a route until opened (ApiOptions::before_route);
// later ones pass.
struct Gate {
  std::mutex m;
  std::condition_variable cv;
  bool entered = false, open = false;
  void HoldFirst() {
    std::unique_lock<std::mutex> lock(m);
    if (entered) return;
    entered = true;
    cv.notify_all();
    cv.wait(lock, [&] { return open; });
  }
  void WaitEntered() {
    std::unique_lock<std::mutex> lock(m);
    cv.wait(lock, [&] { return entered; });
  }
  void Open() {
    std::lock_guard<std::mutex> lock(m);
    open = true;
    cv.notify_all();
  }
};

class ServerBoundsTest : public LoopbackServerTest {
 protected:
  void Start(ApiOptions options, bool with_keys = false) {
    KeyRing keys;
    if (with_keys) {
      StatusOr<KeyRing> parsed = KeyRing::Parse(
          json{{"keys",
                {{{"key", kAliceKey}, {"agent", "alice"}, {"profile", "private_only"}},
                 {{"key", kBobKey}, {"agent", "bob"}, {"profile", "private_only"}}}}}
              .dump());
      ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
      keys = *parsed;
    }
    StartServer("engram-bounds-", std::move(keys), std::move(options), server_options_);
    // The notes collection with a few records of agent alice.
    StatusOr<SchemaRef> schema = SchemaRef::Load("preset:notes");
    ASSERT_TRUE(schema.ok());
    ASSERT_TRUE(
        engine_
            ->CreateCollection(
                {"notes", schema.value(), {{"content", 1.0}}, 0, "cosine", "en", "updated_at"})
            .ok());
    std::vector<std::string> records;
    for (int i = 0; i < 10; ++i) {
      records.push_back(
          json{{"id", "n" + std::to_string(i)},
               {"content", "winter garden note " + std::to_string(i) + " " + std::string(900, 'x')},
               {"type", "fact"},
               {"scope", "agent_private"},
               {"agent_id", "alice"},
               {"importance", 0.5},
               {"confidence", 0.9},
               {"updated_at", "2024-05-01T10:00:00Z"}}
              .dump());
    }
    std::vector<std::string_view> views(records.begin(), records.end());
    StatusOr<WriteResult> w = engine_->Upsert("notes", views);
    ASSERT_TRUE(w.ok() && !w->rejected);
  }

  struct Reply {
    int status = 0;
    json body;
    std::size_t bytes = 0;
    bool retry_after = false;
  };
  Reply Post(const std::string& path, const json& body, const std::string& key = "",
             const httplib::Headers& headers = {}) {
    httplib::Client c("127.0.0.1", port_);
    c.set_read_timeout(30, 0);
    if (!key.empty()) c.set_bearer_token_auth(key);
    httplib::Result r = c.Post(path, headers, body.dump(), "application/json");
    Reply out;
    if (!r) return out;
    out.status = r->status;
    out.body = json::parse(r->body, nullptr, false);
    out.bytes = r->body.size();
    out.retry_after = r->has_header("Retry-After");
    return out;
  }
  static json McpCall(const std::string& tool, const json& arguments) {
    return {{"jsonrpc", "2.0"},
            {"id", 1},
            {"method", "tools/call"},
            {"params", {{"name", tool}, {"arguments", arguments}}}};
  }

  // Options whose deadline is 1 s and whose first request at `route` waits
  // at `gate`, on a server with one engine slot.
  ApiOptions Held(std::shared_ptr<Gate> gate, const std::string& route) {
    server_options_.max_in_flight = 1;
    ApiOptions options;
    options.limits.request_timeout = std::chrono::milliseconds(1000);
    options.before_route = [gate, route](const std::string& r) {
      if (r == route) gate->HoldFirst();
    };
    return options;
  }
  // Sends `send` at the gate, keeps it there past its 1 s deadline, and
  // returns its reply.
  template <typename Send>
  static Reply PastTheDeadline(Gate& gate, Send send) {
    auto held = std::async(std::launch::async, send);
    gate.WaitEntered();
    std::this_thread::sleep_for(std::chrono::milliseconds(1200));
    gate.Open();
    return held.get();
  }

  ServerOptions server_options_;
};

// A request held past its deadline gets 503 deadline_exceeded, and its slot
// is free again at once.
TEST_F(ServerBoundsTest, DeadlineAnswers503AndFreesTheSlot) {
  auto gate = std::make_shared<Gate>();
  Start(Held(gate, "/v1/collections/{name}/search"));
  const Reply late = PastTheDeadline(*gate, [&] {
    return Post("/v1/collections/notes/search", {{"query", "winter"}});
  });
  EXPECT_EQ(late.status, 503) << late.body.dump();
  EXPECT_EQ(late.body.value("kind", ""), "deadline_exceeded") << late.body.dump();
  EXPECT_TRUE(late.retry_after);
  // The one slot is free: the next search (well within its second) runs.
  const Reply next = Post("/v1/collections/notes/search", {{"query", "winter"}});
  EXPECT_EQ(next.status, 200) << next.body.dump();
  EXPECT_EQ(next.body["hits"].size(), 10u);
}

// MCP over HTTP: the HTTP request's deadline, as the JSON-RPC error -32001.
TEST_F(ServerBoundsTest, DeadlineOverMcpIsAJsonRpcError) {
  auto gate = std::make_shared<Gate>();
  Start(Held(gate, "/mcp"));
  const Reply rpc = PastTheDeadline(*gate, [&] {
    return Post("/mcp", McpCall("SearchMemory", {{"query", "winter"}}), "",
                {{"Accept", "application/json, text/event-stream"}});
  });
  ASSERT_EQ(rpc.status, 200) << rpc.body.dump();
  EXPECT_EQ(rpc.body["error"].value("code", 0), -32001) << rpc.body.dump();
  EXPECT_EQ(rpc.body["error"]["data"].value("status", ""), "deadline_exceeded");
  const Reply next = Post("/mcp", McpCall("SearchMemory", {{"query", "winter"}}), "",
                          {{"Accept", "application/json, text/event-stream"}});
  EXPECT_TRUE(next.body.contains("result")) << next.body.dump();
}

// With keys, one agent cannot take every slot: its own excess gets 503 while
// another agent is served.
TEST_F(ServerBoundsTest, OneAgentCannotTakeEverySlot) {
  auto gate = std::make_shared<Gate>();
  server_options_.max_in_flight = 4;
  ApiOptions options;
  options.max_in_flight_per_agent = 1;
  options.before_route = [gate](const std::string& route) {
    if (route == "/v1/collections/{name}/search") gate->HoldFirst();
  };
  Start(options, /*with_keys=*/true);
  auto held = std::async(std::launch::async, [&] {
    return Post("/v1/collections/notes/search", {{"query", "winter"}}, kAliceKey);
  });
  gate->WaitEntered();
  const Reply more = Post("/v1/collections/notes/search", {{"query", "winter"}}, kAliceKey);
  EXPECT_EQ(more.status, 503);
  EXPECT_EQ(more.body.value("kind", ""), "overloaded");
  EXPECT_NE(more.body.value("message", "").find("agent 'alice'"), std::string::npos)
      << more.body.dump();
  const Reply bob = Post("/v1/collections/notes/search", {{"query", "winter"}}, kBobKey);
  EXPECT_EQ(bob.status, 200) << bob.body.dump();
  gate->Open();
  EXPECT_EQ(held.get().status, 200);
  // Alice's slot came back.
  EXPECT_EQ(Post("/v1/collections/notes/search", {{"query", "winter"}}, kAliceKey).status, 200);
}

TEST_F(ServerBoundsTest, ExpansionCapIs422AtTheQuery) {
  ApiOptions options;
  options.limits.max_expansions = 1;
  Start(options);
  const Reply one = Post("/v1/collections/notes/search", {{"query", "wint*"}});
  EXPECT_EQ(one.status, 200) << one.body.dump();
  const Reply two = Post("/v1/collections/notes/search", {{"query", "wint* OR gard*"}});
  EXPECT_EQ(two.status, 422) << two.body.dump();
  EXPECT_EQ(two.body.value("kind", ""), "query.too_many_expansions");
  EXPECT_EQ(two.body.value("path", ""), "$.query");
}

TEST_F(ServerBoundsTest, ReplyBudgetOverHttp) {
  ApiOptions options;
  options.limits.max_reply_bytes = 4096;
  Start(options);
  const Reply r = Post("/v1/collections/notes/search", {{"query", "winter"}, {"k", 10}});
  ASSERT_EQ(r.status, 200) << r.body.dump();
  EXPECT_LE(r.bytes, 4096u);
  EXPECT_TRUE(r.body.value("truncated", false));
  EXPECT_GE(r.body["hits"].size(), 1u);
  EXPECT_EQ(r.body["hits"].size() + r.body.value("omitted", 0u), 10u);
}

TEST(SearchReplyTest, BudgetAtTheBoundAndOneByteUnder) {
  SearchResponse response;
  for (int i = 0; i < 3; ++i) {
    SearchHit h;
    h.id = "id\n" + std::to_string(i);  // escaped in the reply: the writer counts the JSON
    h.score = 1.5;
    h.relevance = 0.5;
    h.bm25 = 1.5;
    h.record = R"({"text":")" + std::string(100, 'a') + "\"}";
    response.hits.push_back(h);
  }
  response.explain = R"({"mode":"text"})";
  const std::string all = SearchReply(response).body;
  EXPECT_EQ(json::parse(all).value("truncated", true), false);
  EXPECT_EQ(json::parse(all).value("omitted", 1), 0);
  // The smallest budget that keeps every hit (the writer keeps room for the
  // tail: the truncation report and explain).
  std::size_t fits = 1;
  while (json::parse(SearchReply(response, fits).body)["hits"].size() < 3) ++fits;
  EXPECT_GE(fits, all.size());
  const json at = json::parse(SearchReply(response, fits).body);
  EXPECT_EQ(at["hits"].size(), 3u);
  EXPECT_FALSE(at.value("truncated", true));
  const std::string under = SearchReply(response, fits - 1).body;
  const json cut = json::parse(under);
  EXPECT_EQ(cut["hits"].size(), 2u);
  EXPECT_TRUE(cut.value("truncated", false));
  EXPECT_EQ(cut.value("omitted", 0), 1);
  EXPECT_LE(under.size(), fits - 1);
  EXPECT_EQ(cut["explain"], json::parse(response.explain));
  // The engine's own cut adds to the count.
  response.truncated = true;
  response.omitted = 5;
  EXPECT_EQ(json::parse(SearchReply(response, fits - 1).body).value("omitted", 0), 6);
}

// SearchMemory and Retrieve keep their results within half of the budget
// (the reply carries them twice) and report what they left out.
TEST(McpBoundsTest, ToolResultsStayWithinTheBudget) {
  const fs::path dir =
      fs::temp_directory_path() / ("engram-mcp-bounds-" + std::to_string(getpid()));
  fs::remove_all(dir);
  StatusOr<std::unique_ptr<Engine>> engine = Engine::Open(dir.string());
  ASSERT_TRUE(engine.ok());
  mcp::McpOptions options;
  options.max_reply_bytes = 8192;
  mcp::McpServer server(engine->get(), options);
  Principal local{"local", ReadProfile::kAllScopes, true};
  auto call = [&](const std::string& tool, const json& arguments) {
    const std::string reply =
        server.HandleMessage(json{{"jsonrpc", "2.0"},
                                  {"id", 1},
                                  {"method", "tools/call"},
                                  {"params", {{"name", tool}, {"arguments", arguments}}}}
                                 .dump(),
                             local);
    return std::make_pair(json::parse(reply), reply.size());
  };
  for (int i = 0; i < 20; ++i) {
    auto [stored, bytes] = call("StoreMemory", {{"content", "winter " + std::string(1000, 'w')},
                                                {"session_id", "s"},
                                                {"tool", "Bash"},
                                                {"title", "t" + std::to_string(i)},
                                                {"archetype_title", "a"}});
    ASSERT_FALSE(stored["result"].value("isError", true)) << stored.dump();
  }
  auto [found, bytes] =
      call("SearchMemory",
           {{"query", "winter"}, {"limit", 20}, {"detail", "full"}, {"score_threshold", 0}});
  const json& result = found["result"]["structuredContent"];
  EXPECT_LE(bytes, 8192u);
  EXPECT_TRUE(result.value("truncated", false)) << result.dump();
  EXPECT_GE(result["results"].size(), 1u);
  EXPECT_EQ(result["results"].size() + result.value("omitted", 0u), 20u);
  auto [compact, compact_bytes] =
      call("SearchMemory", {{"query", "winter"}, {"limit", 3}, {"detail", "compact"}});
  EXPECT_FALSE(compact["result"]["structuredContent"].value("truncated", true)) << compact.dump();
  // A message whose deadline has passed: the JSON-RPC error, no result.
  RequestBounds passed;
  passed.deadline = std::chrono::steady_clock::now() - std::chrono::milliseconds(1);
  mcp::HttpExchange exchange;
  exchange.method = "POST";
  exchange.headers = {{"accept", "application/json, text/event-stream"}};
  exchange.body = json{{"jsonrpc", "2.0"},
                       {"id", 2},
                       {"method", "tools/call"},
                       {"params", {{"name", "SearchMemory"}, {"arguments", {{"query", "w"}}}}}}
                      .dump();
  const mcp::HttpReply reply = mcp::HandleHttp(server, exchange, local, &passed);
  const json timed_out = json::parse(reply.body);
  EXPECT_EQ(timed_out["error"].value("code", 0), -32001) << reply.body;
  engine->reset();
  fs::remove_all(dir);
}

}  // namespace server_bounds_test
}  // namespace
}  // namespace engram::server::http
