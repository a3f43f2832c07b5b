#include "server/http/browser_policy.h"

#include <gtest/gtest.h>

namespace engram::server::http {
namespace {

TEST(BrowserPolicyTest, HostsDefaultToLoopbackAndTheListenAddress) {
  StatusOr<BrowserPolicy> policy = BrowserPolicy::Make("10.1.2.3", {}, {});
  ASSERT_TRUE(policy.ok()) << policy.status().ToString();
  for (const char* host : {"localhost", "localhost:7700", "LOCALHOST:1", "127.0.0.1",
                           "127.0.0.1:80", "[::1]", "[::1]:7700", "10.1.2.3", "10.1.2.3:7700"}) {
    EXPECT_FALSE(policy->CheckHost(host)) << host;
  }
  for (const char* host :
       {"", "evil.example", "localhost.evil.example", "127.0.0.1.nip.io", "localhost:abc",
        "localhost:", "::1", "[::1", "localhost:7700:1", "10.1.2.4", "user@localhost"}) {
    const std::optional<Problem> p = policy->CheckHost(host);
    ASSERT_TRUE(p) << host;
    EXPECT_EQ(p->status, 403);
    EXPECT_EQ(p->kind, "request.forbidden_host");
  }
  StatusOr<BrowserPolicy> v6 = BrowserPolicy::Make("::1", {}, {});
  ASSERT_TRUE(v6.ok());
  EXPECT_FALSE(v6->CheckHost("[::1]:9"));
}

TEST(BrowserPolicyTest, MoreHostsAndAnyHost) {
  StatusOr<BrowserPolicy> policy =
      BrowserPolicy::Make("127.0.0.1", {"engram.internal", "api.example:8443"}, {});
  ASSERT_TRUE(policy.ok());
  EXPECT_FALSE(policy->CheckHost("engram.internal:7700"));
  EXPECT_FALSE(policy->CheckHost("API.example:8443"));
  EXPECT_TRUE(policy->CheckHost("api.example:443"));
  EXPECT_TRUE(policy->CheckHost("api.example"));
  StatusOr<BrowserPolicy> any = BrowserPolicy::Make("127.0.0.1", {"*"}, {});
  ASSERT_TRUE(any.ok());
  EXPECT_FALSE(any->CheckHost("whatever.example"));
  StatusOr<BrowserPolicy> bad = BrowserPolicy::Make("127.0.0.1", {"a b"}, {});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("--allowed-hosts: 'a b'"), std::string::npos);
}

TEST(BrowserPolicyTest, OriginsNoneByDefault) {
  const BrowserPolicy none;
  EXPECT_FALSE(none.CheckOrigin(""));  // no Origin header: not a browser's cross-site call
  for (const char* origin :
       {"http://localhost", "http://localhost:5173", "http://127.0.0.1:80", "http://[::1]:8080",
        "https://localhost", "http://evil.example", "null"}) {
    const std::optional<Problem> p = none.CheckOrigin(origin);
    ASSERT_TRUE(p) << origin;
    EXPECT_EQ(p->status, 403);
    EXPECT_EQ(p->kind, "request.forbidden_origin");
  }
  StatusOr<BrowserPolicy> some =
      BrowserPolicy::Make("127.0.0.1", {}, {"http://localhost:5173", "https://App.example/"});
  ASSERT_TRUE(some.ok()) << some.status().ToString();
  EXPECT_FALSE(some->CheckOrigin("http://localhost:5173"));
  EXPECT_FALSE(some->CheckOrigin("https://app.example"));
  for (const char* origin : {"http://localhost", "http://localhost:5174", "https://localhost:5173",
                             "http://app.example", "https://app.example.evil", "null"}) {
    EXPECT_TRUE(some->CheckOrigin(origin)) << origin;
  }
  for (const char* origin : {"localhost:5173", "ftp://x", "http://", "http://a/b", "*"}) {
    EXPECT_FALSE(BrowserPolicy::Make("127.0.0.1", {}, {origin}).ok()) << origin;
  }
}

TEST(BrowserPolicyTest, BodiesMustBeJson) {
  for (const char* type :
       {"application/json", "Application/JSON", "application/json; charset=utf-8",
        "application/json;charset=UTF-8", "application/json; charset=\"utf-8\""}) {
    EXPECT_FALSE(CheckJsonContentType(type)) << type;
  }
  for (const char* type :
       {"", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
        "application/json-seq", "application/json; charset=latin1", "text/json"}) {
    const std::optional<Problem> p = CheckJsonContentType(type);
    ASSERT_TRUE(p) << type;
    EXPECT_EQ(p->status, 415);
    EXPECT_EQ(p->kind, "request.unsupported_media_type");
  }
}

}  // namespace
}  // namespace engram::server::http
