// libFuzzer target for the MCP server (src/server/mcp): arbitrary bytes as a
// JSON-RPC message through McpServer::HandleMessage, and as the body of a
// Streamable HTTP exchange through HandleHttp, against one store in a
// temporary directory. The first byte picks the path and, for HTTP, the
// Origin (which the HTTP front-end checks, not HandleHttp) and
// MCP-Protocol-Version headers and whether the body's method and
// name are mirrored in Mcp-Method / Mcp-Name. Invariants: never crashes, hangs
// or leaks; a reply is empty or one JSON value; HTTP replies carry a status
// the transport documents, and an empty body only with 202.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>
#include <unistd.h>

#include "engram/engine.h"
#include "server/common/principal.h"
#include "server/mcp/mcp_server.h"

namespace {

using engram::server::Principal;
using engram::server::mcp::HttpExchange;
using engram::server::mcp::HttpReply;
using engram::server::mcp::McpServer;

void Check(bool condition) {
  if (!condition) std::abort();
}

struct Fixture {
  std::unique_ptr<engram::Engine> engine;
  std::unique_ptr<McpServer> server;
  Principal admin{"local", engram::ReadProfile::kPrivateOnly, true};
  Principal agent{"fuzzer", engram::ReadProfile::kPrivatePlusProject, false};
};

std::string& StoreDir() {
  static std::string dir;
  return dir;
}

Fixture& TheFixture() {
  static Fixture* f = [] {
    StoreDir() = (std::filesystem::temp_directory_path() /
                  ("engram_jsonrpc_fuzz_" + std::to_string(getpid())))
                     .string();
    std::filesystem::remove_all(StoreDir());
    std::atexit([] {
      std::error_code ignored;
      std::filesystem::remove_all(StoreDir(), ignored);
    });
    auto* fixture = new Fixture;
    auto engine = engram::Engine::Open(StoreDir());
    if (!engine.ok()) std::abort();
    fixture->engine = std::move(engine).value();
    engram::server::mcp::McpOptions options;
    options.clock = [] {
      return std::chrono::system_clock::time_point(std::chrono::seconds(1740830400));
    };
    fixture->server = std::make_unique<McpServer>(fixture->engine.get(), options);
    return fixture;
  }();
  return *f;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0 || size > 16384) return 0;
  Fixture& f = TheFixture();
  const std::uint8_t mode = data[0];
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  const Principal& principal = (mode & 0x10) ? f.agent : f.admin;
  if ((mode & 1) == 0) {
    const std::string reply = f.server->HandleMessage(text, principal);
    Check(reply.empty() || nlohmann::json::accept(reply));
    return 0;
  }
  HttpExchange exchange;
  static const char* const kMethods[] = {"POST", "POST", "GET", "DELETE"};
  exchange.method = kMethods[(mode >> 1) & 3];
  if (mode & 0x20) exchange.headers.emplace_back("origin", "http://localhost:3000");
  if (mode & 0x40) exchange.headers.emplace_back("origin", "http://evil.example");
  if (mode & 0x80) exchange.headers.emplace_back("mcp-protocol-version", "2026-07-28");
  if (mode & 0x08) {  // the 2026-07-28 mirror headers, taken from the body when it has them
    const nlohmann::json body = nlohmann::json::parse(text, nullptr, false);
    if (body.is_object() && body.contains("method") && body["method"].is_string()) {
      exchange.headers.emplace_back("mcp-method", body["method"].get<std::string>());
      const nlohmann::json params = body.value("params", nlohmann::json());
      if (params.is_object() && params.contains("name") && params["name"].is_string()) {
        exchange.headers.emplace_back("mcp-name", params["name"].get<std::string>());
      }
    }
  }
  exchange.body = std::string(text);
  const HttpReply reply = engram::server::mcp::HandleHttp(*f.server, exchange, principal);
  Check(reply.status == 200 || reply.status == 202 || reply.status == 400 || reply.status == 403 ||
        reply.status == 404 || reply.status == 405);
  Check(reply.body.empty() == (reply.status == 202));
  Check(reply.body.empty() || nlohmann::json::accept(reply.body));
  return 0;
}
