// The MCP server's Streamable HTTP transport through McpServer::HandleHttp:
// JSON replies and 202 for notifications, no stream and no sessions, the
// protocol version header and the stateless revision's mirror headers, tool
// calls as the request's principal.
#include <string>
#include <utility>
#include <vector>

#include "tests/integration/mcp_test_support.h"

namespace engram::server::mcp {
namespace {
namespace mcp_http_test {

// ---------------------------------------------------------------- HTTP

HttpExchange Post(const Json& body, std::vector<std::pair<std::string, std::string>> headers = {}) {
  return HttpExchange{"POST", std::move(headers), body.dump()};
}

TEST_F(McpTest, HttpPostGetsJsonAndNotificationsGet202) {
  HttpReply reply =
      HandleHttp(*server_, Post(Json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "ping"}}), local_);
  EXPECT_EQ(reply.status, 200);
  EXPECT_EQ(reply.content_type, "application/json");
  EXPECT_EQ(Json::parse(reply.body)["result"], Json::object());
  reply = HandleHttp(
      *server_, Post(Json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}), local_);
  EXPECT_EQ(reply.status, 202);
  EXPECT_TRUE(reply.body.empty());
  reply = HandleHttp(*server_, HttpExchange{"POST", {}, "{nope"}, local_);
  EXPECT_EQ(reply.status, 400);
  EXPECT_EQ(ErrorCode(Json::parse(reply.body)), -32700);
}

TEST_F(McpTest, HttpHasNoStreamAndNoSessions) {
  for (const char* method : {"GET", "DELETE", "PUT"}) {
    const HttpReply reply = HandleHttp(*server_, HttpExchange{method, {}, ""}, local_);
    EXPECT_EQ(reply.status, 405) << method;
  }
}

TEST_F(McpTest, HttpChecksTheProtocolVersionHeader) {
  const Json ping{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "ping"}};
  HttpReply reply;
  EXPECT_EQ(
      HandleHttp(*server_, Post(ping, {{"mcp-protocol-version", "2025-11-25"}}), local_).status,
      200);
  reply = HandleHttp(*server_, Post(ping, {{"mcp-protocol-version", "2099-01-01"}}), local_);
  EXPECT_EQ(reply.status, 400);
  EXPECT_EQ(Json::parse(reply.body)["id"], 1);  // every refusal names the request
  EXPECT_EQ(Json::parse(reply.body)["error"]["data"]["requested"], "2099-01-01");
  EXPECT_EQ(HandleHttp(*server_, Post(ping, {{"mcp-protocol-version", "bogus"}}), local_).status,
            400);
  // 2026-07-28: the header must be there and agree with _meta.
  const Json list = Stateless("tools/list");
  EXPECT_EQ(
      HandleHttp(*server_,
                 Post(list, {{"mcp-protocol-version", "2026-07-28"}, {"mcp-method", "tools/list"}}),
                 local_)
          .status,
      200);
  reply = HandleHttp(*server_, Post(list), local_);
  EXPECT_EQ(reply.status, 400);
  EXPECT_EQ(ErrorCode(Json::parse(reply.body)), -32020);
  // The header disagrees with the body: -32020 with both, whatever the body names.
  for (const char* body_version : {"2026-07-28", "v999.0.0"}) {
    Json other = Stateless("server/discover");
    other["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = body_version;
    reply = HandleHttp(
        *server_,
        Post(other, {{"mcp-protocol-version",
                      body_version == std::string("v999.0.0") ? "2026-07-28" : "2025-11-25"},
                     {"mcp-method", "server/discover"}}),
        local_);
    EXPECT_EQ(reply.status, 400);
    EXPECT_EQ(ErrorCode(Json::parse(reply.body)), -32020) << body_version;
    EXPECT_EQ(Json::parse(reply.body)["id"], "s1");
  }
  // The header names 2026-07-28 but the body has no envelope: -32602, 400.
  reply = HandleHttp(*server_, Post(ping, {{"mcp-protocol-version", "2026-07-28"}}), local_);
  EXPECT_EQ(reply.status, 400);
  EXPECT_EQ(ErrorCode(Json::parse(reply.body)), -32602);
  EXPECT_EQ(Json::parse(reply.body)["error"]["data"]["envelope"]["missing"], Json{"_meta"});
  Json no_caps = Stateless("tools/list");
  no_caps["params"]["_meta"].erase("io.modelcontextprotocol/clientCapabilities");
  reply = HandleHttp(
      *server_,
      Post(no_caps, {{"mcp-protocol-version", "2026-07-28"}, {"mcp-method", "tools/list"}}),
      local_);
  EXPECT_EQ(reply.status, 400);
  EXPECT_EQ(ErrorCode(Json::parse(reply.body)), -32602);
  // An invalid-params error from a method itself stays in-band (200).
  reply = HandleHttp(
      *server_,
      Post(Stateless("tools/call", {{"name", "Nope"}}), {{"mcp-protocol-version", "2026-07-28"},
                                                         {"mcp-method", "tools/call"},
                                                         {"mcp-name", "Nope"}}),
      local_);
  EXPECT_EQ(reply.status, 200);
  EXPECT_EQ(ErrorCode(Json::parse(reply.body)), -32602);
  EXPECT_EQ(
      HandleHttp(*server_,
                 Post(list, {{"mcp-protocol-version", "2026-07-28"}, {"mcp-method", "tools/call"}}),
                 local_)
          .status,
      400);
  // Unknown methods of the stateless revision are 404; unknown versions 400.
  EXPECT_EQ(HandleHttp(*server_,
                       Post(Stateless("ping"),
                            {{"mcp-protocol-version", "2026-07-28"}, {"mcp-method", "ping"}}),
                       local_)
                .status,
            404);
  Json unknown = Stateless("tools/list");
  unknown["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = "2027-01-01";
  EXPECT_EQ(HandleHttp(*server_, Post(unknown), local_).status, 400);
}

// 2026-07-28 mirrors the method (always) and a tool's name (on tools/call)
// in headers for proxies to route on; missing or disagreeing: -32020, 400.
TEST_F(McpTest, HttpRequiresTheMirrorHeadersOfTheStatelessRevision) {
  const Json call =
      Stateless("tools/call", {{"name", "SearchMemory"}, {"arguments", {{"query", "anything"}}}});
  auto status_and_message = [&](std::vector<std::pair<std::string, std::string>> headers) {
    headers.emplace_back("mcp-protocol-version", "2026-07-28");
    const HttpReply reply = HandleHttp(*server_, Post(call, headers), local_);
    const Json body = Json::parse(reply.body);
    return std::make_pair(
        reply.status, body.contains("error") ? body["error"]["message"].get<std::string>() : "");
  };
  EXPECT_EQ(status_and_message({{"mcp-method", "tools/call"}, {"mcp-name", "SearchMemory"}}),
            std::make_pair(200, std::string()));
  // A name that is not plain ASCII travels as =?base64?...?=; ASCII may too.
  EXPECT_EQ(status_and_message(
                {{"mcp-method", "tools/call"}, {"mcp-name", "=?base64?U2VhcmNoTWVtb3J5?="}}),
            std::make_pair(200, std::string()));
  EXPECT_EQ(status_and_message({}),
            std::make_pair(400, std::string("Header mismatch: Mcp-Method is required with protocol "
                                            "2026-07-28")));
  EXPECT_EQ(
      status_and_message({{"mcp-method", "tools/call"}}),
      std::make_pair(400, std::string("Header mismatch: Mcp-Name is required for tools/call")));
  EXPECT_EQ(status_and_message({{"mcp-method", "tools/call"}, {"mcp-name", "StoreMemory"}}),
            std::make_pair(400, std::string("Header mismatch: Mcp-Name is StoreMemory but the "
                                            "body's name is SearchMemory")));
  EXPECT_EQ(status_and_message(
                {{"mcp-method", "tools/call"}, {"mcp-name", "=?base64?U3RvcmVNZW1vcnk=?="}})
                .first,
            400);  // "StoreMemory"
  EXPECT_EQ(status_and_message({{"mcp-method", "tools/list"}, {"mcp-name", "SearchMemory"}}),
            std::make_pair(400, std::string("Header mismatch: Mcp-Method is tools/list but the "
                                            "body's method is tools/call")));
  // Not a base64 wrapping: the value is taken as the name itself.
  EXPECT_EQ(
      status_and_message({{"mcp-method", "tools/call"}, {"mcp-name", "=?base64?%%%?="}}).first,
      400);
  const HttpReply reply =
      HandleHttp(*server_, Post(call, {{"mcp-protocol-version", "2026-07-28"}}), local_);
  EXPECT_EQ(ErrorCode(Json::parse(reply.body)), -32020);
}

TEST_F(McpTest, HttpToolCallsRunAsThePrincipal) {
  Principal alice{"alice", ReadProfile::kPrivateOnly, false};
  Principal bob{"bob", ReadProfile::kPrivateOnly, false};
  const Json store{{"jsonrpc", "2.0"},
                   {"id", 1},
                   {"method", "tools/call"},
                   {"params", {{"name", "StoreMemory"}, {"arguments", {{"content", "alpha"}}}}}};
  HttpReply reply = HandleHttp(*server_, Post(store), alice);
  ASSERT_EQ(reply.status, 200);
  EXPECT_EQ(Json::parse(reply.body)["result"]["structuredContent"]["agent_id"], "alice");
  const Json search{
      {"jsonrpc", "2.0"},
      {"id", 2},
      {"method", "tools/call"},
      {"params",
       {{"name", "SearchMemory"}, {"arguments", {{"query", ""}, {"search_type", "filtered"}}}}}};
  EXPECT_EQ(
      Json::parse(
          HandleHttp(*server_, Post(search), alice).body)["result"]["structuredContent"]["results"]
          .size(),
      1u);
  EXPECT_EQ(
      Json::parse(
          HandleHttp(*server_, Post(search), bob).body)["result"]["structuredContent"]["results"]
          .size(),
      0u);
}

// ---------------------------------------------------------------- stdio

}  // namespace mcp_http_test
}  // namespace
}  // namespace engram::server::mcp
