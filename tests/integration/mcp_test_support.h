// A fixture for the MCP server tests: a fresh store in a temporary directory,
// an McpServer over it with an injected clock, and helpers that send one
// JSON-RPC request and return the parsed reply.
#ifndef ENGRAM_TESTS_INTEGRATION_MCP_TEST_SUPPORT_H_
#define ENGRAM_TESTS_INTEGRATION_MCP_TEST_SUPPORT_H_

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "engram/engine.h"
#include "server/common/principal.h"
#include "server/mcp/mcp_server.h"

namespace engram::server::mcp {

using Json = nlohmann::json;

inline const std::string kStatelessMeta =
    R"({"io.modelcontextprotocol/protocolVersion":"2026-07-28",)"
    R"("io.modelcontextprotocol/clientCapabilities":{}})";

// A JSON-RPC error reply's code.
inline int ErrorCode(const Json& reply) {
  return reply.at("error").at("code").get<int>();
}

// A request of the stateless revision (2026-07-28), its _meta given.
inline Json Stateless(const std::string& method, Json params = Json::object()) {
  params["_meta"] = Json::parse(kStatelessMeta);
  return Json{{"jsonrpc", "2.0"}, {"id", "s1"}, {"method", method}, {"params", params}};
}

class McpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ =
        std::filesystem::temp_directory_path() / ("engram_mcp_" + std::to_string(getpid()) + "_" +
                                                  info->test_suite_name() + "_" + info->name());
    std::filesystem::remove_all(dir_);
    auto engine = Engine::Open(dir_.string());
    ASSERT_TRUE(engine.ok()) << engine.status().ToString();
    engine_ = std::move(engine).value();
    now_ = std::make_shared<std::chrono::system_clock::time_point>(
        std::chrono::sys_days{std::chrono::year(2025) / 3 / 1} + std::chrono::hours(12));
    McpOptions options;
    auto now = now_;
    options.clock = [now] { return *now; };
    server_ = std::make_unique<McpServer>(engine_.get(), options);
    local_.agent = "local";
    local_.admin = true;
  }
  void TearDown() override {
    server_.reset();
    engine_.reset();
    std::filesystem::remove_all(dir_);
  }

  // Sends `text`; the parsed reply (null when there is none).
  Json Send(const std::string& text, const Principal* principal = nullptr) {
    const std::string reply = server_->HandleMessage(text, principal ? *principal : local_);
    if (reply.empty()) return nullptr;
    return Json::parse(reply);
  }
  Json Request(const std::string& method, const Json& params, const Principal* p = nullptr) {
    return Send(
        Json{{"jsonrpc", "2.0"}, {"id", ++id_}, {"method", method}, {"params", params}}.dump(), p);
  }
  // tools/call; the `result` member (a tool result), failing the test on a
  // JSON-RPC error.
  Json Tool(const std::string& name, const Json& arguments, const Principal* p = nullptr) {
    Json reply = Request("tools/call", {{"name", name}, {"arguments", arguments}}, p);
    EXPECT_TRUE(reply.contains("result")) << reply.dump();
    return reply.value("result", Json::object());
  }
  // A successful tool call's structuredContent (checked against its text).
  Json ToolOk(const std::string& name, const Json& arguments, const Principal* p = nullptr) {
    Json result = Tool(name, arguments, p);
    EXPECT_EQ(result.value("isError", true), false) << result.dump();
    if (!result.contains("structuredContent")) return Json::object();
    EXPECT_EQ(Json::parse(result["content"][0]["text"].get<std::string>()),
              result["structuredContent"]);
    return result["structuredContent"];
  }
  // A tool error's text.
  std::string ToolError(const std::string& name, const Json& arguments,
                        const Principal* p = nullptr) {
    Json result = Tool(name, arguments, p);
    EXPECT_EQ(result.value("isError", false), true) << result.dump();
    EXPECT_FALSE(result.contains("structuredContent"));
    return result.contains("content") ? result["content"][0].value("text", "") : "";
  }

  std::filesystem::path dir_;
  std::unique_ptr<Engine> engine_;
  std::shared_ptr<std::chrono::system_clock::time_point> now_;
  std::unique_ptr<McpServer> server_;
  Principal local_;
  int id_ = 0;
};

}  // namespace engram::server::mcp

#endif  // ENGRAM_TESTS_INTEGRATION_MCP_TEST_SUPPORT_H_
