// The stdio bridge's protocol work (server/mcp/bridge.h), against the real
// /mcp transport in process: what it adds to each request (the protocol
// version after a handshake, the 2026-07-28 mirror headers, the key, the
// session), how it relays replies (JSON, event streams, nothing for
// notifications), and the JSON-RPC errors it gives a client when the server
// cannot be reached or refuses at the HTTP level. The real binary over real
// sockets is tested in store_owner_test.cc and tests/client.
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "mcp_test_support.h"
#include "server/mcp/bridge.h"

namespace engram::server::mcp {
namespace {
namespace mcp_bridge_test {

std::optional<std::string> Find(const HeaderList& headers, const std::string& name) {
  for (const auto& [key, value] : headers) {
    if (key == name) return value;
  }
  return std::nullopt;
}

class BridgeTest : public McpTest {
 protected:
  // A session whose POSTs reach HandleHttp on this test's server; every
  // request it sent is kept.
  BridgeSession Session(std::string key = "") {
    BridgePost post = [this](const BridgeRequest& request) -> StatusOr<BridgeReply> {
      sent_.push_back(request);
      HttpExchange exchange{"POST", {}, request.body};
      for (const auto& [name, value] : request.headers) {
        std::string lower = name;
        for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        exchange.headers.emplace_back(lower, value);
      }
      const HttpReply reply = HandleHttp(*server_, exchange, local_);
      BridgeReply out{reply.status, {{"content-type", reply.content_type}}, reply.body};
      for (const auto& [name, value] : reply.headers) out.headers.emplace_back(name, value);
      return out;
    };
    return BridgeSession(post, std::move(key), "http://127.0.0.1:1/mcp");
  }
  // Forwards one message; its reply parsed (null when none).
  Json Forward(BridgeSession& session, const Json& message) {
    std::string log;
    const std::vector<std::string> lines = session.Forward(message.dump(), &log);
    EXPECT_LE(lines.size(), 1u);
    if (lines.empty()) return nullptr;
    EXPECT_EQ(lines[0].find('\n'), std::string::npos);
    return Json::parse(lines[0]);
  }
  std::vector<BridgeRequest> sent_;
};

TEST_F(BridgeTest, AHandshakeSessionCarriesTheNegotiatedVersion) {
  BridgeSession session = Session();
  Json init = Forward(session, {{"jsonrpc", "2.0"},
                                {"id", 1},
                                {"method", "initialize"},
                                {"params",
                                 {{"protocolVersion", "2025-06-18"},
                                  {"capabilities", Json::object()},
                                  {"clientInfo", {{"name", "t"}, {"version", "1"}}}}}});
  EXPECT_EQ(init["result"]["protocolVersion"], "2025-06-18");
  EXPECT_FALSE(Find(sent_.back().headers, "MCP-Protocol-Version"));
  EXPECT_EQ(Forward(session, {{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}),
            nullptr);
  Json tools = Forward(session, {{"jsonrpc", "2.0"}, {"id", 2}, {"method", "tools/list"}});
  EXPECT_EQ(tools["result"]["tools"].size(), 8u) << tools.dump();
  EXPECT_EQ(Find(sent_.back().headers, "MCP-Protocol-Version"), "2025-06-18");
  EXPECT_EQ(Find(sent_.back().headers, "Mcp-Method"), "tools/list");
  EXPECT_EQ(Find(sent_.back().headers, "Accept"), "application/json, text/event-stream");
}

// 2026-07-28 requests are refused by the transport without their mirror
// headers; through the bridge they pass, a non-ASCII tool name included.
TEST_F(BridgeTest, StatelessRequestsGetTheirMirrorHeaders) {
  BridgeSession session = Session();
  const Json meta = Json::parse(kStatelessMeta);
  Json stored = Forward(session, {{"jsonrpc", "2.0"},
                                  {"id", 7},
                                  {"method", "tools/call"},
                                  {"params",
                                   {{"name", "StoreMemory"},
                                    {"arguments", {{"content", "the dog is called Brindle"}}},
                                    {"_meta", meta}}}});
  ASSERT_TRUE(stored.contains("result")) << stored.dump();
  EXPECT_EQ(stored["result"].value("isError", false), false) << stored.dump();
  EXPECT_EQ(Find(sent_.back().headers, "MCP-Protocol-Version"), "2026-07-28");
  EXPECT_EQ(Find(sent_.back().headers, "Mcp-Method"), "tools/call");
  EXPECT_EQ(Find(sent_.back().headers, "Mcp-Name"), "StoreMemory");

  Json unknown = Forward(session, {{"jsonrpc", "2.0"},
                                   {"id", 8},
                                   {"method", "tools/call"},
                                   {"params", {{"name", "Zoek·geheugen"}, {"_meta", meta}}}});
  EXPECT_EQ(Find(sent_.back().headers, "Mcp-Name"), "=?base64?Wm9la8K3Z2VoZXVnZW4=?=");
  // The transport accepted the headers: the error is about the tool, not them.
  ASSERT_TRUE(unknown.contains("error")) << unknown.dump();
  EXPECT_NE(unknown["error"]["code"], -32020) << unknown.dump();
  EXPECT_EQ(unknown["id"], 8);
}

TEST_F(BridgeTest, TheKeyAndAnAssignedSessionAreSent) {
  BridgeReply canned{200,
                     {{"content-type", "application/json"}, {"mcp-session-id", "s-42"}},
                     R"({"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-03-26"}})"};
  std::vector<BridgeRequest> sent;
  BridgeSession session(
      [&](const BridgeRequest& r) -> StatusOr<BridgeReply> {
        sent.push_back(r);
        return canned;
      },
      "k-123", "http://x/mcp");
  std::string log;
  session.Forward(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}})", &log);
  session.Forward(R"({"jsonrpc":"2.0","id":2,"method":"ping"})", &log);
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(Find(sent[0].headers, "Authorization"), "Bearer k-123");
  EXPECT_FALSE(Find(sent[0].headers, "Mcp-Session-Id"));
  EXPECT_EQ(Find(sent[1].headers, "Mcp-Session-Id"), "s-42");
  EXPECT_EQ(Find(sent[1].headers, "MCP-Protocol-Version"), "2025-03-26");
}

TEST_F(BridgeTest, EventStreamRepliesAreRelayedAsLines) {
  BridgeSession session(
      [](const BridgeRequest&) -> StatusOr<BridgeReply> {
        return BridgeReply{200,
                           {{"content-type", "text/event-stream"}},
                           "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/"
                           "progress\",\"params\":{}}\n\n: keep-alive\n\ndata: "
                           "{\"jsonrpc\":\"2.0\",\r\ndata: \"id\":3,\"result\":{}}\r\n\r\n"};
      },
      "", "http://x/mcp");
  std::string log;
  const std::vector<std::string> lines =
      session.Forward(R"({"jsonrpc":"2.0","id":3,"method":"ping"})", &log);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(Json::parse(lines[0])["method"], "notifications/progress");
  EXPECT_EQ(Json::parse(lines[1])["id"], 3);
}

// An unreachable server or an HTTP-level refusal becomes a JSON-RPC error
// addressed to the request (a client waits for its id), logged; a
// notification gets no reply, only the log line.
TEST_F(BridgeTest, FailuresBecomeErrorsForTheRequest) {
  BridgeSession down(
      [](const BridgeRequest&) -> StatusOr<BridgeReply> {
        return Status::IoError("Could not establish connection");
      },
      "", "http://127.0.0.1:1/mcp");
  std::string log;
  std::vector<std::string> lines =
      down.Forward(R"({"jsonrpc":"2.0","id":"a","method":"tools/list"})", &log);
  ASSERT_EQ(lines.size(), 1u);
  Json error = Json::parse(lines[0]);
  EXPECT_EQ(error["id"], "a");
  EXPECT_EQ(error["error"]["code"], -32603);
  EXPECT_EQ(error["error"]["message"],
            "engram mcp --connect: cannot reach http://127.0.0.1:1/mcp: Could not establish "
            "connection");
  EXPECT_NE(log.find("cannot reach"), std::string::npos);
  log.clear();
  EXPECT_TRUE(
      down.Forward(R"({"jsonrpc":"2.0","method":"notifications/initialized"})", &log).empty());
  EXPECT_NE(log.find("cannot reach"), std::string::npos);

  BridgeSession refused(
      [](const BridgeRequest&) -> StatusOr<BridgeReply> {
        return BridgeReply{401,
                           {{"content-type", "application/problem+json"}},
                           R"({"status":401,"detail":"a valid API key is required"})"};
      },
      "", "http://h/mcp");
  lines = refused.Forward(R"({"jsonrpc":"2.0","id":5,"method":"tools/list"})", &log);
  ASSERT_EQ(lines.size(), 1u);
  error = Json::parse(lines[0]);
  EXPECT_EQ(error["id"], 5);
  EXPECT_EQ(error["error"]["message"],
            "engram mcp --connect: http://h/mcp answered HTTP 401: a valid API key is required");
  EXPECT_EQ(error["error"]["data"]["httpStatus"], 401);
}

TEST(BridgeUrl, SplitsOriginAndPath) {
  std::string error;
  using Split = std::pair<std::string, std::string>;
  EXPECT_EQ(SplitBridgeUrl("http://127.0.0.1:7700", &error),
            Split("http://127.0.0.1:7700", "/mcp"));
  EXPECT_EQ(SplitBridgeUrl("http://127.0.0.1:7700/", &error),
            Split("http://127.0.0.1:7700", "/mcp"));
  EXPECT_EQ(SplitBridgeUrl("https://mem.example/engram/mcp", &error),
            Split("https://mem.example", "/engram/mcp"));
  EXPECT_EQ(SplitBridgeUrl("http://[::1]:7700/base", &error),
            Split("http://[::1]:7700", "/base/mcp"));
  EXPECT_FALSE(SplitBridgeUrl("127.0.0.1:7700", &error));
  EXPECT_EQ(error, "expected an http:// or https:// URL, got '127.0.0.1:7700'");
  EXPECT_FALSE(SplitBridgeUrl("http:///mcp", &error));
  EXPECT_FALSE(SplitBridgeUrl("http://h/mcp?x=1", &error));
}

}  // namespace mcp_bridge_test
}  // namespace
}  // namespace engram::server::mcp
