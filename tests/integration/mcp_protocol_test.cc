// The MCP server's JSON-RPC framing and both protocol eras, through
// McpServer::HandleMessage, and `engram mcp` on stdio through cli::Run. The
// Streamable HTTP transport: mcp_http_test.cc.
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "tests/integration/mcp_test_support.h"

namespace engram::server::mcp {
namespace {
namespace mcp_protocol_test {

// ---------------------------------------------------------------- JSON-RPC

TEST_F(McpTest, NotJsonIsAParseErrorWithNullId) {
  const Json reply = Send("{\"jsonrpc\":\"2.0\",");
  EXPECT_EQ(ErrorCode(reply), -32700);
  EXPECT_TRUE(reply["id"].is_null());
  EXPECT_EQ(ErrorCode(Send("{\"a\":1,\"a\":2}")), -32700);  // duplicate keys are not accepted
}

TEST_F(McpTest, MalformedRequestsAreInvalidRequest) {
  EXPECT_EQ(ErrorCode(Send(R"({"id":1,"method":"ping"})")), -32600);
  EXPECT_EQ(ErrorCode(Send(R"({"jsonrpc":"1.0","id":1,"method":"ping"})")), -32600);
  EXPECT_EQ(ErrorCode(Send(R"({"jsonrpc":"2.0","id":1,"method":7})")), -32600);
  EXPECT_EQ(ErrorCode(Send(R"({"jsonrpc":"2.0","id":1})")), -32600);
  EXPECT_EQ(ErrorCode(Send(R"({"jsonrpc":"2.0","id":1,"method":"ping","params":"x"})")), -32600);
  EXPECT_EQ(ErrorCode(Send("[]")), -32600);
  EXPECT_EQ(ErrorCode(Send("42")), -32600);
  const Json bad_id = Send(R"({"jsonrpc":"2.0","id":true,"method":"ping"})");
  EXPECT_EQ(ErrorCode(bad_id), -32600);
  EXPECT_TRUE(bad_id["id"].is_null());
  // The id is kept when it could be read.
  EXPECT_EQ(Send(R"({"jsonrpc":"2.0","id":"x","method":7})")["id"], "x");
}

TEST_F(McpTest, PositionalParamsAreInvalidParams) {
  EXPECT_EQ(ErrorCode(Send(R"({"jsonrpc":"2.0","id":1,"method":"ping","params":[1]})")), -32602);
}

TEST_F(McpTest, UnknownMethodIsMethodNotFound) {
  const Json reply = Request("resources/list", Json::object());
  EXPECT_EQ(ErrorCode(reply), -32601);
  EXPECT_EQ(reply["id"], id_);
}

TEST_F(McpTest, NotificationsAndResponsesGetNoReply) {
  EXPECT_EQ(
      server_->HandleMessage(R"({"jsonrpc":"2.0","method":"notifications/initialized"})", local_),
      "");
  EXPECT_EQ(server_->HandleMessage(R"({"jsonrpc":"2.0","method":"no/such"})", local_), "");
  EXPECT_EQ(server_->HandleMessage(R"({"jsonrpc":"2.0","id":5,"result":{}})", local_), "");
}

// MCP removed JSON-RPC batches in 2025-06-18: one message per request keeps
// every request's work bounded (issue 17: a 7 KB batch of 40 searches once
// made a 455 MB reply). Any array is refused whole, nothing in it runs.
TEST_F(McpTest, BatchesAreRefused) {
  for (const char* batch :
       {R"([{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"StoreMemory",
            "arguments":{"content":"x"}}},{"jsonrpc":"2.0","id":2,"method":"ping"}])",
        R"([{"jsonrpc":"2.0","method":"notifications/initialized"}])", "[]", "[17]"}) {
    const Json reply = Send(batch);
    EXPECT_EQ(ErrorCode(reply), -32600) << batch;
    EXPECT_TRUE(reply["id"].is_null());
    EXPECT_NE(reply["error"]["message"].get<std::string>().find("batches are not supported"),
              std::string::npos);
    const HttpReply http = HandleHttp(*server_, HttpExchange{"POST", {}, batch}, local_);
    EXPECT_EQ(http.status, 400) << batch;
    EXPECT_EQ(ErrorCode(Json::parse(http.body)), -32600);
  }
  // Nothing ran: no memory was stored.
  const Json found = ToolOk("SearchMemory", {{"query", ""}, {"search_type", "filtered"}});
  EXPECT_TRUE(found["results"].empty());
}

TEST_F(McpTest, AnUnknownToolIsInvalidParams) {
  EXPECT_EQ(ErrorCode(Request("tools/call", {{"name", "Nope"}})), -32602);
  EXPECT_EQ(ErrorCode(Request("tools/call", {{"arguments", Json::object()}})), -32602);
}

// ---------------------------------------------------------- handshake era

TEST_F(McpTest, InitializeNegotiatesTheVersion) {
  for (const char* version : {"2025-06-18", "2025-11-25"}) {
    const Json reply = Request("initialize", {{"protocolVersion", version},
                                              {"capabilities", Json::object()},
                                              {"clientInfo", {{"name", "t"}, {"version", "1"}}}});
    EXPECT_EQ(reply["result"]["protocolVersion"], version);
    EXPECT_TRUE(reply["result"]["capabilities"].contains("tools"));
    EXPECT_EQ(reply["result"]["serverInfo"]["name"], "engram");
    EXPECT_FALSE(reply["result"].contains("resultType"));
  }
  for (const char* version : {"2024-11-05", "1999-01-01", "2026-07-28"}) {
    const Json reply = Request("initialize", {{"protocolVersion", version}});
    EXPECT_EQ(reply["result"]["protocolVersion"], "2025-11-25") << version;
  }
  EXPECT_EQ(ErrorCode(Request("initialize", Json::object())), -32602);
}

TEST_F(McpTest, PingAndToolsListWork) {
  EXPECT_EQ(Request("ping", Json::object())["result"], Json::object());
  const Json tools = Request("tools/list", Json::object())["result"]["tools"];
  std::vector<std::string> names;
  for (const Json& tool : tools) {
    names.push_back(tool["name"]);
    EXPECT_TRUE(tool["inputSchema"].is_object());
    EXPECT_EQ(tool["outputSchema"]["type"], "object");
  }
  EXPECT_EQ(names, (std::vector<std::string>{"SearchMemory", "StoreMemory", "ForgetMemory",
                                             "Retrieve", "ListMemories", "MemoryStats",
                                             "ReviseMemory", "MemoryHistory"}));
}

// The seed's inputSchema, exactly (seed 001; SEARCH.md §5).
TEST_F(McpTest, SearchMemoryKeepsTheSeedsInputSchema) {
  const Json expected = Json::parse(R"({
    "type": "object",
    "properties": {
      "query": {"type": "string", "description": "Query or a memory UUID.", "maxLength": 1000},
      "limit": {"type": "integer", "description": "Number of memories to show", "default": 3,
                "minimum": 1, "maximum": 100},
      "search_type": {"type": "string", "enum": ["basic", "filtered", "by_memory_id"],
                      "description": "Recall strategy.", "default": "basic"},
      "filters": {"type": "array", "description": "One or more query filters.",
        "items": {"type": "object",
          "properties": {
            "field": {"type": "string", "enum": ["session_id", "tool", "agent_id", "title",
              "context", "sequence_order", "memory_id", "timestamp", "preceding_memory_id",
              "archetype_title", "archetype_version", "schema_version"],
              "description": "Which field to filter on."},
            "operator": {"type": "string",
              "enum": ["is", "is_not", "before", "after", "between", "contains", "any_of"],
              "description": "How to match the field: 'is' for exact match, 'is_not' to exclude, 'before/after' for time/order, 'between' for ranges, 'contains' for text search, 'any_of' for multiple options."},
            "value": {"description": "Value to match against. Use array [min,max] for 'between', array [item1,item2] for 'any_of', single value for others.",
              "oneOf": [{"type": "string"}, {"type": "number"}, {"type": "array"},
                {"type": "object", "properties": {"from": {}, "to": {}},
                 "required": ["from", "to"], "additionalProperties": false}]}},
          "required": ["field", "operator", "value"], "additionalProperties": false}},
      "detail": {"type": "string", "enum": ["compact", "summary", "graph", "full"],
        "description": "How you want to explore your memories: compact (basics only), summary (with context), graph (with relationship meta-data), full (complete detail).",
        "default": "summary"},
      "score_threshold": {"type": "number",
        "description": "Minimum relevance score (0.0-1.0). Higher values return only more relevant results. Use 0.0 for broad exploration, 0.4+ for precise matches.",
        "default": 0.4, "minimum": 0.0, "maximum": 1.0}},
    "required": ["query"], "additionalProperties": false})");
  const Json tools = Request("tools/list", Json::object())["result"]["tools"];
  ASSERT_EQ(tools[0]["name"], "SearchMemory");
  EXPECT_EQ(tools[0]["inputSchema"], expected);
  EXPECT_EQ(tools[0]["description"].get<std::string>().rfind("Search your stored memories.", 0),
            0u);
}

// ---------------------------------------------------------- 2026-07-28

TEST_F(McpTest, StatelessRequestsNeedNoHandshakeAndCarryResultType) {
  const Json discover = Send(Stateless("server/discover").dump());
  EXPECT_EQ(discover["result"]["resultType"], "complete");
  EXPECT_EQ(discover["result"]["supportedVersions"],
            (Json{"2025-06-18", "2025-11-25", "2026-07-28"}));
  EXPECT_TRUE(discover["result"]["capabilities"].contains("tools"));
  // The server names itself in every 2026-07-28 result's _meta (PR #3002).
  EXPECT_EQ(discover["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "engram");
  EXPECT_FALSE(discover["result"].contains("serverInfo"));

  const Json list = Send(Stateless("tools/list").dump());
  EXPECT_EQ(list["result"]["resultType"], "complete");
  EXPECT_EQ(list["result"]["tools"].size(), 8u);
  EXPECT_TRUE(list["result"].contains("ttlMs"));
  EXPECT_EQ(list["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["version"], "0.1.0");

  const Json stored =
      Send(Stateless("tools/call", {{"name", "StoreMemory"}, {"arguments", {{"content", "hello"}}}})
               .dump());
  EXPECT_EQ(stored["result"]["resultType"], "complete");
  EXPECT_EQ(stored["result"]["isError"], false);
  const Json bad = Send(
      Stateless("tools/call", {{"name", "SearchMemory"}, {"arguments", {{"limit", 0}}}}).dump());
  EXPECT_EQ(bad["result"]["resultType"], "complete");
  EXPECT_EQ(bad["result"]["isError"], true);
}

TEST_F(McpTest, StatelessRevisionDropsTheHandshakeMethods) {
  EXPECT_EQ(ErrorCode(Send(Stateless("ping").dump())), -32601);
  EXPECT_EQ(ErrorCode(Send(Stateless("initialize", {{"protocolVersion", "2026-07-28"}}).dump())),
            -32601);
  // server/discover is answered without _meta too (the stdio probe).
  EXPECT_EQ(Request("server/discover", Json::object())["result"]["resultType"], "complete");
}

TEST_F(McpTest, StatelessMetaIsValidated) {
  Json missing_caps = Stateless("tools/list");
  missing_caps["params"]["_meta"].erase("io.modelcontextprotocol/clientCapabilities");
  const Json no_caps = Send(missing_caps.dump());
  EXPECT_EQ(ErrorCode(no_caps), -32602);
  EXPECT_EQ(no_caps["id"], "s1");
  EXPECT_EQ(no_caps["error"]["data"]["envelope"],
            (Json{{"key", "io.modelcontextprotocol/clientCapabilities"}, {"problem", "missing"}}));
  Json bad_info = Stateless("tools/list");
  bad_info["params"]["_meta"]["io.modelcontextprotocol/clientInfo"] = "me";
  EXPECT_EQ(ErrorCode(Send(bad_info.dump())), -32602);
  Json not_string = Stateless("tools/list");
  not_string["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = 2026;
  EXPECT_EQ(ErrorCode(Send(not_string.dump())), -32602);
  EXPECT_EQ(ErrorCode(Send(R"({"jsonrpc":"2.0","id":1,"method":"tools/list",
                               "params":{"_meta":[]}})")),
            -32602);
  Json unknown = Stateless("tools/list");
  unknown["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = "2027-01-01";
  const Json reply = Send(unknown.dump());
  EXPECT_EQ(ErrorCode(reply), -32022);
  EXPECT_EQ(reply["id"], "s1");
  // The official SDK's UnsupportedProtocolVersionError data.
  EXPECT_EQ(reply["error"]["data"]["supported"], (Json{"2025-06-18", "2025-11-25", "2026-07-28"}));
  EXPECT_EQ(reply["error"]["data"]["requested"], "2027-01-01");
  // A handshake-era _meta (a progress token) changes nothing.
  EXPECT_TRUE(Request("tools/list", {{"_meta", {{"progressToken", 3}}}})["result"].is_object());
}

TEST_F(McpTest, EngramMcpServesLinesUntilEof) {
  TearDown();  // `engram mcp` opens the store itself
  std::istringstream in(
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
      "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{}}}\r\n"
      "\n"
      "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
      "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":"
      "\"StoreMemory\",\"arguments\":{\"content\":\"from stdio\"}}}\n"
      "not json\n");
  std::ostringstream out, err;
  const std::string db = dir_.string();
  const char* argv[] = {"engram", "mcp", "--db", db.c_str()};
  EXPECT_EQ(cli::Run(4, argv, in, out, err), 0) << err.str();
  std::istringstream lines(out.str());
  std::vector<Json> replies;
  for (std::string line; std::getline(lines, line);) replies.push_back(Json::parse(line));
  ASSERT_EQ(replies.size(), 3u) << out.str();
  EXPECT_EQ(replies[0]["result"]["protocolVersion"], "2025-06-18");
  EXPECT_EQ(replies[1]["result"]["structuredContent"]["agent_id"], "local");
  EXPECT_EQ(ErrorCode(replies[2]), -32700);
  EXPECT_NE(err.str().find("end of input"), std::string::npos);
  std::filesystem::remove_all(dir_);
}

TEST(McpCommandTest, AStoreThatCannotBeOpenedExitsNonZero) {
  std::istringstream in;
  std::ostringstream out, err;
  const char* argv[] = {"engram", "mcp", "--db", "/proc/engram-cannot-create-this"};
  EXPECT_NE(cli::Run(4, argv, in, out, err), 0);
  EXPECT_TRUE(out.str().empty());
}

}  // namespace mcp_protocol_test
}  // namespace
}  // namespace engram::server::mcp
