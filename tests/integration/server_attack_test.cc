// Hostile requests against the real `engram serve` binary over loopback
// (issue 17): long paths and headers, header floods, bodies past the limits
// (chunked, no length, compressed), unauthenticated bodies, browsers
// (foreign Host and Origin, forms) and lenient framing. Connections (slow,
// idle, capped, simultaneous; SIGTERM): server_connections_test.cc. Each
// test asserts the refusal, that the server still answers, and that its
// memory (VmRSS) stays bounded. Counts and times are bounded; the only
// times asserted are generous deadlines (seconds) that a stalled or crashed
// server misses, never speed.
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

TEST_F(ServerAttackTest, LongPathsAndHeaders) {
  Start();
  const std::size_t rss = server_->RssKib();
  // Issue 17's crash: a 7,000-byte path (std::regex recursion in the old server).
  for (std::size_t length : {6050u, 7000u, 100000u}) {
    RawConnection c(port());
    const RawReply r = c.Exchange(Request("GET", "/" + std::string(length, 'a')));
    if (length < 16000) {
      ExpectRefused(r, 414, "request.target_too_long");
    } else {
      ExpectRefused(r, 431, "request.header_too_large");  // past the whole head's bound first
    }
    EXPECT_TRUE(r.closed);
  }
  ExpectAlive();
  {
    RawConnection c(port());
    ExpectRefused(
        c.Exchange(Request("GET", "/livez", "", "X-Long: " + std::string(20000, 'b') + "\r\n")),
        431, "request.header_too_large");
  }
  {
    std::string fields;
    for (int i = 0; i < 101; ++i) fields += "X-" + std::to_string(i) + ": v\r\n";
    RawConnection c(port());
    ExpectRefused(c.Exchange(Request("GET", "/livez", "", fields)), 431,
                  "request.header_too_large");
  }
  // 100,000 header lines, from 16 clients at once.
  std::string flood = "GET /livez HTTP/1.1\r\nHost: localhost\r\n";
  for (int i = 0; i < 100000; ++i) flood += "X-a: b\r\n";
  flood += "\r\n";
  std::vector<std::thread> clients;
  std::atomic<int> refused{0};
  for (int t = 0; t < 16; ++t) {
    clients.emplace_back([&] {
      RawConnection c(port());
      const RawReply r = c.SendBodyUntilAnswered("", flood, flood.size(), Millis(20000));
      refused += r.status == 431 ? 1 : 0;
    });
  }
  for (std::thread& t : clients) t.join();
  EXPECT_EQ(refused.load(), 16);
  ExpectAlive();
  ExpectRssBounded(rss);
}

TEST_F(ServerAttackTest, BodiesPastTheLimits) {
  Start({"--max-body-bytes", "1048576"});
  Seed();
  const std::size_t rss = server_->RssKib();
  const std::string search = "/v1/collections/notes/search";
  const std::string piece(65536, ' ');
  {  // chunked: 64 MiB in 64 KiB chunks, refused once past 1 MiB
    std::string chunk = "10000\r\n" + piece + "\r\n";
    RawConnection c(port());
    const RawReply r = c.SendBodyUntilAnswered(
        "POST " + search +
            " HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
            "Transfer-Encoding: chunked\r\n\r\n",
        chunk, 1024 * chunk.size(), Millis(30000));
    ExpectRefused(r, 413, "request.too_large");
  }
  {  // a declared length past the limit: refused before any body byte is sent
    RawConnection c(port());
    const RawReply r = c.Exchange(Request("POST", search, "", "Content-Length: 1000000000\r\n"));
    ExpectRefused(r, 413, "request.too_large");
    EXPECT_TRUE(r.closed);
  }
  {  // no length: the request has no body, and what follows is no request
    RawConnection c(port());
    c.Send("POST " + search +
           " HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\r\n");
    c.Send("{\"query\":\"" + std::string(1 << 20, 'x'));  // may fail once the server closes
    ExpectRefused(c.Read(Millis(10000)), 400, "request.invalid");
    const RawReply next = c.Read(Millis(10000));
    EXPECT_TRUE(next.closed) << next.head;
    if (next.status != 0) ExpectRefused(next, 431, "request.header_too_large");
  }
  {  // compressed bodies are never inflated: 415 before reading, three at once
    std::vector<std::unique_ptr<RawConnection>> conns;
    for (int i = 0; i < 3; ++i) {
      conns.push_back(std::make_unique<RawConnection>(port()));
      const RawReply r = conns.back()->Exchange(
          Request("POST", search, "", "Content-Encoding: gzip\r\nContent-Length: 1000000\r\n"));
      ExpectRefused(r, 415, "request.unsupported_encoding");
      EXPECT_EQ(r.Header("accept-encoding"), "identity");
    }
    RawConnection c(port());
    ExpectRefused(c.Exchange("POST " + search +
                             " HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                             "Transfer-Encoding: gzip, chunked\r\n\r\n"),
                  501, "request.unsupported_transfer_encoding");
  }
  ExpectAlive();
  ExpectRssBounded(rss);
}

TEST_F(ServerAttackTest, BodiesTogetherStayWithinTheirBudget) {
  Start({"--max-body-bytes", "1048576", "--max-body-memory", "2097152"});
  Seed();
  const std::string search = "/v1/collections/notes/search";
  // Two uploads that announce 1 MiB and trickle hold the whole budget...
  std::vector<std::unique_ptr<RawConnection>> holders;
  for (int i = 0; i < 2; ++i) {
    holders.push_back(std::make_unique<RawConnection>(port()));
    ASSERT_TRUE(holders.back()->Send(Request("POST", search, "", "Content-Length: 1048576\r\n") +
                                     "{\"query\":"));
  }
  // ...so that a third body is refused before it is read (the budget is
  // taken when the server reads a head: poll until both are in).
  RawReply refused;
  for (int i = 0; i < 100 && refused.status != 503; ++i) {
    std::this_thread::sleep_for(Millis(50));
    RawConnection c(port());
    refused = c.Exchange(Request("POST", search, R"({"query":"dragon"})"));
  }
  ExpectRefused(refused, 503, "overloaded");
  EXPECT_FALSE(refused.Header("retry-after").empty());
  {
    RawConnection c(port());
    EXPECT_EQ(c.Exchange(Request("GET", "/livez")).status, 200);  // bodiless requests go on
  }
  holders.clear();  // the server sees them close and frees their share
  int status = 0;
  for (int i = 0; i < 100 && status != 200; ++i) {
    std::this_thread::sleep_for(Millis(50));
    RawConnection c(port());
    status = c.Exchange(Request("POST", search, R"({"query":"dragon"})")).status;
  }
  EXPECT_EQ(status, 200);
}

TEST_F(ServerAttackTest, UnauthenticatedBodiesAreRefusedBeforeReading) {
  const std::string keys = ::testing::TempDir() + "/engram-attack-keys.json";
  {
    std::FILE* f = std::fopen(keys.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs(R"({"keys":[{"key":"admin-key-0123456789","admin":true}]})", f);
    std::fclose(f);
  }
  Start({"--keys", keys});
  const std::size_t rss = server_->RssKib();
  // The head announces 8 MB; the server answers 401 with no body byte sent.
  for (const char* auth : {"", "Authorization: Bearer wrong-key-0123456789\r\n"}) {
    RawConnection c(port());
    const RawReply r = c.Exchange(Request("POST", "/v1/collections/notes/records", "",
                                          std::string(auth) + "Content-Length: 8000000\r\n"));
    ExpectRefused(r, 401, "auth.unauthenticated");
    EXPECT_TRUE(r.closed);
  }
  // /metrics needs a key once keys are configured.
  RawConnection c(port());
  ExpectRefused(c.Exchange(Request("GET", "/metrics")), 401, "auth.unauthenticated");
  EXPECT_EQ(c.Exchange(Request("GET", "/metrics", "",
                               std::string("Authorization: Bearer ") + kAdminKey + "\r\n"))
                .status,
            200);
  ExpectRssBounded(rss);
}

TEST_F(ServerAttackTest, BrowsersAreKeptOut) {
  Start({"--allowed-origins", "http://app.example"});
  const std::string collections = "/v1/collections";
  const std::string create = R"({"name":"evil","schema":"preset:notes","text":["content"]})";
  // DNS rebinding: the browser sends the attacker's name as Host.
  auto foreign_host = [&](const std::string& method, const std::string& path,
                          const std::string& body) {
    std::string r = Request(method, path, body);
    r.replace(r.find("Host: localhost"), 15, "Host: rebind.example:" + std::to_string(port()));
    return r;
  };
  // A refusal before the body closes the connection: one connection each.
  auto ask = [&](const std::string& request) { return RawConnection(port()).Exchange(request); };
  ExpectRefused(ask(foreign_host("POST", collections, create)), 403, "request.forbidden_host");
  ExpectRefused(ask(foreign_host("GET", "/livez", "")), 403, "request.forbidden_host");
  // Another site's page: its Origin.
  for (const std::string& path : {collections, std::string("/mcp")}) {
    ExpectRefused(ask(Request("POST", path, create, "Origin: http://evil.example\r\n")), 403,
                  "request.forbidden_origin");
  }
  ExpectRefused(ask(Request("OPTIONS", collections, "",
                            "Origin: http://evil.example\r\n"
                            "Access-Control-Request-Method: POST\r\n")),
                403, "request.forbidden_origin");
  // A form or text/plain POST (no CORS preflight), without an Origin.
  for (const char* type :
       {"text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"}) {
    ExpectRefused(
        ask(Request("POST", collections, create, std::string("Content-Type: ") + type + "\r\n")),
        415, "request.unsupported_media_type");
  }
  RawConnection c(port());
  // None of them created anything.
  RawReply list = c.Exchange(Request("GET", collections));
  ASSERT_EQ(list.status, 200);
  EXPECT_EQ(json::parse(list.body)["collections"].size(), 0u) << list.body;
  // The allowed origin gets a preflight and its answers carry CORS headers.
  const RawReply pre = c.Exchange(Request("OPTIONS", collections, "",
                                          "Origin: http://app.example\r\n"
                                          "Access-Control-Request-Method: POST\r\n"));
  EXPECT_EQ(pre.status, 204) << pre.head << pre.body;
  EXPECT_EQ(pre.Header("access-control-allow-origin"), "http://app.example");
  EXPECT_EQ(pre.Header("access-control-allow-methods"), "POST");
  const RawReply allowed =
      c.Exchange(Request("POST", collections, create, "Origin: http://app.example\r\n"));
  EXPECT_EQ(allowed.status, 201) << allowed.body;
  EXPECT_EQ(allowed.Header("access-control-allow-origin"), "http://app.example");
  EXPECT_EQ(allowed.Header("vary"), "Origin");
}

TEST_F(ServerAttackTest, MalformedBrowserFlagsStopTheStart) {
  std::string error;
  EXPECT_EQ(ServeProcess::Start({"--allowed-origins", "app.example"}, &error), nullptr);
  EXPECT_NE(error.find("--allowed-origins: 'app.example' is not an origin"), std::string::npos)
      << error;
  EXPECT_EQ(ServeProcess::Start({"--allowed-hosts", "a/b"}, &error), nullptr);
  EXPECT_NE(error.find("--allowed-hosts: 'a/b' is not a host"), std::string::npos) << error;
}

TEST_F(ServerAttackTest, LenientFramingIsRefused) {
  Start();
  const std::string path = "/v1/collections/notes/search";
  const std::string body = R"({"query":"x"})";
  const std::string len = std::to_string(body.size());
  const std::vector<std::string> requests = {
      "POST " + path +
          " HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
          "Content-Length: " +
          len + "\r\nContent-Length: " + len + "\r\n\r\n" + body,
      "POST " + path +
          " HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
          "Content-Length: 24abc\r\n\r\n" +
          body,
      "POST " + path +
          " HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
          "Content-Length: " +
          len + ", " + len + "\r\n\r\n" + body,
      "POST " + path +
          " HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
          "X-Folded: a\r\n b\r\nContent-Length: " +
          len + "\r\n\r\n" + body,
      "POST " + path +
          " HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
          "Transfer-Encoding: chunked\r\nContent-Length: " +
          len + "\r\n\r\n" + body,
      "GET /livez HTTP/1.1\nHost: localhost\n\n",
      "GET http://localhost/livez HTTP/1.1\r\nHost: localhost\r\n\r\n",
      "GET /livez HTTP/1.1\r\nHost: localhost\r\nHost: localhost\r\n\r\n",
      "GET /livez HTTP/1.1\r\n\r\n",
  };
  for (const std::string& request : requests) {
    RawConnection c(port());
    const RawReply r = c.Exchange(request);
    ExpectRefused(r, 400, "request.malformed");
    EXPECT_TRUE(r.closed) << request;
  }
  RawConnection c(port());
  ExpectRefused(c.Exchange("GET /livez HTTP/2.0\r\nHost: localhost\r\n\r\n"), 505,
                "request.unsupported_version");
  ExpectAlive();
}

}  // namespace
}  // namespace engram::testing
