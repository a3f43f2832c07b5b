// A real engram Server on 127.0.0.1:0 over a fresh store, for the HTTP
// front-end's end-to-end tests (server_http_fixture.h, server_bounds_test.cc):
// the store in a directory named after the test, the Engine, the McpServer,
// the Api and the Server, torn down in that order's reverse.
#ifndef ENGRAM_TESTS_INTEGRATION_LOOPBACK_SERVER_H_
#define ENGRAM_TESTS_INTEGRATION_LOOPBACK_SERVER_H_

#include <filesystem>
#include <memory>
#include <string>
#include <utility>

#include <gtest/gtest.h>
#include <unistd.h>

#include "engram/engine.h"
#include "server/http/api.h"
#include "server/http/auth.h"
#include "server/http/server.h"
#include "server/mcp/mcp_server.h"

namespace engram::server::http {

class LoopbackServerTest : public ::testing::Test {
 protected:
  // Opens a store under the temporary directory (`prefix`, the process and
  // the test's name) and serves it with `keys` on a loopback port (port_).
  void StartServer(const std::string& prefix, KeyRing keys, ApiOptions options,
                   const ServerOptions& server_options) {
    dir_ = std::filesystem::temp_directory_path() /
           (prefix + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    StatusOr<std::unique_ptr<Engine>> engine = Engine::Open(dir_.string());
    ASSERT_TRUE(engine.ok()) << engine.status().ToString();
    engine_ = std::move(*engine);
    mcp_ = std::make_unique<mcp::McpServer>(engine_.get(), mcp::McpOptions{});
    api_ = std::make_unique<Api>(engine_.get(), mcp_.get(), std::move(keys), std::move(options));
    server_ = std::make_unique<Server>(api_.get(), server_options);
    StatusOr<int> port = server_->Bind("127.0.0.1", 0);
    ASSERT_TRUE(port.ok()) << port.status().ToString();
    port_ = *port;
    server_->Start();
  }

  void TearDown() override {
    if (server_) server_->Stop();
    server_.reset();
    api_.reset();
    mcp_.reset();
    engine_.reset();
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  std::filesystem::path dir_;
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<mcp::McpServer> mcp_;
  std::unique_ptr<Api> api_;
  std::unique_ptr<Server> server_;
  int port_ = 0;
};

}  // namespace engram::server::http

#endif  // ENGRAM_TESTS_INTEGRATION_LOOPBACK_SERVER_H_
