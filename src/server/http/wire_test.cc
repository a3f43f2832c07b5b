#include "server/http/wire.h"

#include <string>

#include <gtest/gtest.h>

namespace engram::server::http {
namespace {

struct HeadCase {
  std::string name;
  std::string head;
  int status;        // 0: accepted
  std::string kind;  // the refusal's kind
};

const WireLimits kLimits{1024, 8, 64};

std::string Fields(int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += "X-" + std::to_string(i) + ": v\r\n";
  return out;
}

class ParseHeadTest : public ::testing::TestWithParam<HeadCase> {};

TEST_P(ParseHeadTest, AcceptsOrRefuses) {
  const HeadCase& c = GetParam();
  ASSERT_EQ(FindHeadEnd(c.head), c.head.size()) << "the case must be one whole head";
  std::variant<RequestHead, Problem> parsed = ParseHead(c.head, kLimits);
  if (c.status == 0) {
    const auto* p = std::get_if<Problem>(&parsed);
    EXPECT_EQ(p, nullptr) << (p ? p->message : "");
    return;
  }
  const Problem* p = std::get_if<Problem>(&parsed);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->status, c.status) << p->message;
  EXPECT_EQ(p->kind, c.kind) << p->message;
  EXPECT_FALSE(p->message.empty());
}

const std::string kHost = "Host: localhost\r\n";

INSTANTIATE_TEST_SUITE_P(
    Heads, ParseHeadTest,
    ::testing::Values(
        HeadCase{"Minimal", "GET /livez HTTP/1.1\r\n" + kHost + "\r\n", 0, ""},
        HeadCase{"Http10NoHost", "GET /livez HTTP/1.0\r\n\r\n", 0, ""},
        HeadCase{"LeadingEmptyLines", "\r\n\r\nGET / HTTP/1.1\r\n" + kHost + "\r\n", 0, ""},
        HeadCase{"Chunked", "POST / HTTP/1.1\r\n" + kHost + "Transfer-Encoding: Chunked\r\n\r\n", 0,
                 ""},
        HeadCase{"MaxFields", "GET / HTTP/1.1\r\n" + kHost + Fields(7) + "\r\n", 0, ""},
        HeadCase{"TooManyFields", "GET / HTTP/1.1\r\n" + kHost + Fields(8) + "\r\n", 431,
                 "request.header_too_large"},
        HeadCase{"HeadTooLarge",
                 "GET / HTTP/1.1\r\n" + kHost + "X: " + std::string(1024, 'a') + "\r\n\r\n", 431,
                 "request.header_too_large"},
        HeadCase{"TargetTooLong", "GET /" + std::string(64, 'a') + " HTTP/1.1\r\n" + kHost + "\r\n",
                 414, "request.target_too_long"},
        HeadCase{"Http2", "GET / HTTP/2.0\r\n" + kHost + "\r\n", 505,
                 "request.unsupported_version"},
        HeadCase{"NotHttp", "GET / FTP/1.1\r\n" + kHost + "\r\n", 400, "request.malformed"},
        HeadCase{"BareLf", "GET / HTTP/1.1\nHost: localhost\n\n", 400, "request.malformed"},
        HeadCase{"BareCr", "GET / HTTP/1.1\r\nHost: local\rhost\r\n\r\n", 400, "request.malformed"},
        HeadCase{"ObsFold", "GET / HTTP/1.1\r\n" + kHost + "X-A: one\r\n  two\r\n\r\n", 400,
                 "request.malformed"},
        HeadCase{"SpaceBeforeColon", "GET / HTTP/1.1\r\n" + kHost + "X-A : one\r\n\r\n", 400,
                 "request.malformed"},
        HeadCase{"NoColon", "GET / HTTP/1.1\r\n" + kHost + "X-A one\r\n\r\n", 400,
                 "request.malformed"},
        HeadCase{"NulInValue", "GET / HTTP/1.1\r\n" + kHost + std::string("X-A: a\0b\r\n\r\n", 12),
                 400, "request.malformed"},
        HeadCase{"TwoSpaces", "GET  / HTTP/1.1\r\n" + kHost + "\r\n", 400, "request.malformed"},
        HeadCase{"AbsoluteForm", "GET http://localhost/ HTTP/1.1\r\n" + kHost + "\r\n", 400,
                 "request.malformed"},
        HeadCase{"Fragment", "GET /a#b HTTP/1.1\r\n" + kHost + "\r\n", 400, "request.malformed"},
        HeadCase{"BadEscape", "GET /a%zz HTTP/1.1\r\n" + kHost + "\r\n", 400, "request.malformed"},
        HeadCase{"ShortEscape", "GET /a%4 HTTP/1.1\r\n" + kHost + "\r\n", 400, "request.malformed"},
        HeadCase{"EscapedNul", "GET /a%00 HTTP/1.1\r\n" + kHost + "\r\n", 400, "request.malformed"},
        HeadCase{"NoHost", "GET / HTTP/1.1\r\n\r\n", 400, "request.malformed"},
        HeadCase{"TwoHosts", "GET / HTTP/1.1\r\n" + kHost + kHost + "\r\n", 400,
                 "request.malformed"},
        HeadCase{"TwoLengths",
                 "POST / HTTP/1.1\r\n" + kHost + "Content-Length: 2\r\nContent-Length: 2\r\n\r\n",
                 400, "request.malformed"},
        HeadCase{"LengthList", "POST / HTTP/1.1\r\n" + kHost + "Content-Length: 2, 2\r\n\r\n", 400,
                 "request.malformed"},
        HeadCase{"LengthGarbage", "POST / HTTP/1.1\r\n" + kHost + "Content-Length: 24abc\r\n\r\n",
                 400, "request.malformed"},
        HeadCase{"LengthSigned", "POST / HTTP/1.1\r\n" + kHost + "Content-Length: +5\r\n\r\n", 400,
                 "request.malformed"},
        HeadCase{"LengthHuge",
                 "POST / HTTP/1.1\r\n" + kHost + "Content-Length: 99999999999999999999\r\n\r\n",
                 400, "request.malformed"},
        HeadCase{"LengthAndChunked",
                 "POST / HTTP/1.1\r\n" + kHost +
                     "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n",
                 400, "request.malformed"},
        HeadCase{"GzipCoding",
                 "POST / HTTP/1.1\r\n" + kHost + "Transfer-Encoding: gzip, chunked\r\n\r\n", 501,
                 "request.unsupported_transfer_encoding"},
        HeadCase{"ChunkedHttp10", "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", 400,
                 "request.malformed"}),
    [](const ::testing::TestParamInfo<HeadCase>& param) { return param.param.name; });

TEST(ParseHeadTest, DecodesThePathAndFraming) {
  std::variant<RequestHead, Problem> parsed = ParseHead(
      "POST /v1/collections/a%20b/records/x%2Fy?q=1 HTTP/1.1\r\nHOST:  localhost:7700 \r\n"
      "Content-Length: 12\r\nConnection: keep-alive, Close\r\nExpect: 100-Continue\r\n\r\n",
      WireLimits{});
  ASSERT_TRUE(std::holds_alternative<RequestHead>(parsed)) << std::get<Problem>(parsed).message;
  const RequestHead& head = std::get<RequestHead>(parsed);
  EXPECT_EQ(head.request.method, "POST");
  EXPECT_EQ(head.request.path, "/v1/collections/a b/records/x/y");
  EXPECT_EQ(head.request.Header("host"), "localhost:7700");
  EXPECT_EQ(head.content_length, 12u);
  EXPECT_TRUE(head.has_body());
  EXPECT_FALSE(head.keep_alive);
  EXPECT_TRUE(head.expect_continue);

  parsed = ParseHead("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", WireLimits{});
  ASSERT_TRUE(std::holds_alternative<RequestHead>(parsed));
  EXPECT_TRUE(std::get<RequestHead>(parsed).keep_alive);
  EXPECT_FALSE(std::get<RequestHead>(parsed).has_body());
  parsed = ParseHead("GET / HTTP/1.0\r\n\r\n", WireLimits{});
  EXPECT_FALSE(std::get<RequestHead>(parsed).keep_alive);
}

TEST(FindHeadEndTest, WaitsForTheEmptyLine) {
  const std::string head = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
  for (std::size_t n = 0; n < head.size(); ++n) {
    EXPECT_EQ(FindHeadEnd(head.substr(0, n)), 0u) << n;
    // Resuming after an incomplete prefix finds the same end.
    EXPECT_EQ(FindHeadEnd(head + "BODY", n), head.size()) << n;
  }
  EXPECT_EQ(FindHeadEnd(head + "BODY"), head.size());
  EXPECT_EQ(FindHeadEnd("\r\n\r\n"), 0u);             // empty lines only: still waiting
  EXPECT_EQ(FindHeadEnd("GET / HTTP/1.1\n\n"), 16u);  // bare LFs: ParseHead refuses
}

}  // namespace
}  // namespace engram::server::http
