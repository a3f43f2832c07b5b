// Hostile connections against the real `engram serve` binary over loopback
// (issue 17): slow and idle connections beside a client that searches, the
// connection cap, SIGTERM with slow clients, a burst of simultaneous
// connects. The only times asserted are generous deadlines (seconds) that a
// stalled or crashed server misses, never speed.
#include <atomic>
#include <chrono>
#include <csignal>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <nlohmann/json.hpp>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "integration/server_attack_fixture.h"

namespace engram::testing {
namespace {

// Opens `n` connections (fewer if the process runs out of descriptors).
std::vector<std::unique_ptr<RawConnection>> Open(int port, std::size_t n) {
  std::vector<std::unique_ptr<RawConnection>> out;
  for (std::size_t i = 0; i < n; ++i) {
    auto c = std::make_unique<RawConnection>(port);
    if (!c->ok()) break;
    out.push_back(std::move(c));
  }
  return out;
}

TEST_F(ServerAttackTest, SlowAndIdleClientsDoNotStopOthers) {
  const std::size_t files = RaiseFileLimit();
  const std::size_t idle_count = std::min<std::size_t>(1000, files > 300 ? files - 200 : 100);
  Start({"--max-connections", "2000", "--receive-timeout", "4", "--idle-timeout", "6"});
  Seed();
  const std::size_t rss = server_->RssKib();
  std::vector<std::unique_ptr<RawConnection>> idle = Open(port(), idle_count);
  std::vector<std::unique_ptr<RawConnection>> slow = Open(port(), 70);
  ASSERT_EQ(slow.size(), 70u);
  ASSERT_GE(idle.size(), std::min<std::size_t>(idle_count, 100));
  // Slowloris: each slow socket sends one byte of a head that never ends,
  // every 100 ms (a per-read timeout would never fire).
  const std::string endless =
      "POST /v1/collections/notes/search HTTP/1.1\r\nHost: localhost\r\n"
      "X-Slow: " +
      std::string(10000, 's');
  std::atomic<bool> done{false};
  std::thread dripper([&] {
    for (std::size_t i = 0; !done && i < endless.size(); ++i) {
      for (auto& c : slow) c->Send(std::string_view(&endless[i], 1));
      std::this_thread::sleep_for(Millis(100));
    }
  });
  // Meanwhile another client searches on one keep-alive connection.
  RawConnection searcher(port());
  ASSERT_TRUE(searcher.ok());
  std::vector<long> waits;  // µs
  const auto until = Clock::now() + std::chrono::seconds(3);
  while (Clock::now() < until) {
    const RawReply r = searcher.Exchange(
        Request("POST", "/v1/collections/notes/search", R"({"query":"dragon","k":5})"));
    ASSERT_EQ(r.status, 200) << r.head << r.body;
    waits.push_back(static_cast<long>(r.elapsed.count()));
  }
  std::sort(waits.begin(), waits.end());
  std::printf(
      "searches while %zu idle and 70 slow sockets hang: %zu, p50 %.2f ms, p99 %.2f ms, "
      "max %.2f ms\n",
      idle.size(), waits.size(), waits[waits.size() / 2] / 1e3,
      waits[waits.size() * 99 / 100] / 1e3, waits.back() / 1e3);
  EXPECT_LT(waits.back(), 2000000) << "a search waited behind the hanging sockets (µs)";
  // The whole-request deadline (4 s from the first byte) closes the slow
  // sockets although each keeps sending; the idle deadline the idle ones.
  for (auto& c : slow) EXPECT_TRUE(c->WaitClosed(Millis(15000)));
  done = true;
  dripper.join();
  for (std::size_t i = 0; i < idle.size(); i += 50) EXPECT_TRUE(idle[i]->WaitClosed(Millis(15000)));
  ExpectAlive();
  ExpectRssBounded(rss);
}

TEST_F(ServerAttackTest, ConnectionCapAnswers503) {
  Start({"--max-connections", "20"});
  std::vector<std::unique_ptr<RawConnection>> held = Open(port(), 20);
  ASSERT_EQ(held.size(), 20u);
  // Each held connection has been accepted once it answers.
  for (auto& c : held) ASSERT_EQ(c->Exchange(Request("GET", "/livez")).status, 200);
  RawConnection extra(port());
  const RawReply r = extra.Read(Millis(5000));
  ExpectRefused(r, 503, "overloaded");
  EXPECT_TRUE(r.closed);
  held.pop_back();
  // Once the server has seen that close, a new connection is served.
  int status = 0;
  for (int i = 0; i < 100 && status != 200; ++i) {
    std::this_thread::sleep_for(Millis(100));
    RawConnection again(port());
    status = again.Exchange(Request("GET", "/livez")).status;
  }
  EXPECT_EQ(status, 200);
}

TEST_F(ServerAttackTest, SigtermWithSlowClientsExitsWithinTheGrace) {
  Start({"--shutdown-grace", "3"});
  Seed();
  std::vector<std::unique_ptr<RawConnection>> slow = Open(port(), 5);
  for (auto& c : slow) c->Send("POST /v1/collections/notes/search HTTP/1.1\r\nHost: loc");
  std::vector<std::unique_ptr<RawConnection>> idle = Open(port(), 20);
  // A client that asks for much and reads nothing: its replies fill the
  // socket buffers and the server's write waits.
  RawConnection sink(port());
  std::string pipelined;
  for (int i = 0; i < 400; ++i) pipelined += Request("GET", "/openapi.json");
  sink.Send(pipelined);
  std::this_thread::sleep_for(Millis(500));
  const auto start = Clock::now();
  server_->Signal(SIGTERM);
  const std::optional<int> code = server_->WaitExit(Millis(3000 + 10000));
  ASSERT_TRUE(code.has_value()) << "still running after the grace period\n" << server_->Log();
  EXPECT_EQ(*code, 0) << server_->Log();
  std::printf(
      "exited %lld ms after SIGTERM\n",
      static_cast<long long>(std::chrono::duration_cast<Millis>(Clock::now() - start).count()));
  // The reader that never reads was still being written to.
  EXPECT_NE(server_->Log().find("the grace period ended; closed 1 connection"), std::string::npos)
      << server_->Log();
  for (auto& c : slow) EXPECT_TRUE(c->WaitClosed(Millis(1000)));
}

TEST_F(ServerAttackTest, SimultaneousConnectsAreAllTakenAtOnce) {
  Start();
  RaiseFileLimit();
  // With the server stopped, the kernel alone completes the handshakes the
  // listen backlog has room for; a small backlog (cpp-httplib's 5) left the
  // rest to retry a second later.
  server_->Signal(SIGSTOP);
  constexpr int kConnects = 64;
  std::vector<int> fds;
  for (int i = 0; i < kConnects; ++i) {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port()));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    fds.push_back(fd);
  }
  int connected = 0;
  for (int fd : fds) {
    pollfd p{fd, POLLOUT, 0};
    int error = -1;
    socklen_t len = sizeof error;
    if (poll(&p, 1, 2000) == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len) == 0 &&
        error == 0) {
      ++connected;
    }
  }
  server_->Signal(SIGCONT);
  EXPECT_EQ(connected, kConnects) << "handshakes completed with the server stopped";
  const std::string probe = Request("GET", "/livez");
  int answered = 0;
  for (int fd : fds) {
    fcntl(fd, F_SETFL, 0);  // blocking again
    if (send(fd, probe.data(), probe.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(probe.size())) {
      char buf[512];
      pollfd p{fd, POLLIN, 0};
      if (poll(&p, 1, 10000) == 1 && recv(fd, buf, sizeof buf, 0) > 12 &&
          std::string_view(buf, 12) == "HTTP/1.1 200") {
        ++answered;
      }
    }
    close(fd);
  }
  EXPECT_EQ(answered, kConnects);
}

}  // namespace
}  // namespace engram::testing
