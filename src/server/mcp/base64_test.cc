#include "server/mcp/base64.h"

#include <string>

#include <gtest/gtest.h>

namespace engram::server::mcp {
namespace {

// RFC 4648 §10's test vectors, both ways.
TEST(Base64, Rfc4648Vectors) {
  const std::pair<std::string, std::string> vectors[] = {{"", ""},
                                                         {"f", "Zg=="},
                                                         {"fo", "Zm8="},
                                                         {"foo", "Zm9v"},
                                                         {"foob", "Zm9vYg=="},
                                                         {"fooba", "Zm9vYmE="},
                                                         {"foobar", "Zm9vYmFy"}};
  for (const auto& [bytes, text] : vectors) {
    EXPECT_EQ(EncodeBase64(bytes), text);
    EXPECT_EQ(DecodeBase64(text), bytes);
  }
}

TEST(Base64, BinaryRoundTrips) {
  std::string bytes;
  for (int i = 0; i < 256; ++i) bytes += static_cast<char>(i);
  for (std::size_t n = 0; n <= bytes.size(); n += 37) {
    EXPECT_EQ(DecodeBase64(EncodeBase64(bytes.substr(0, n))), bytes.substr(0, n));
  }
  EXPECT_EQ(DecodeBase64(EncodeBase64("zoekgeheugen·é")), "zoekgeheugen·é");
}

TEST(Base64, MalformedTextIsRefused) {
  for (const char* bad : {"Zg=", "Zg==Zg==", "Z===", "Zm9v!", "Zm=v"}) {
    EXPECT_FALSE(DecodeBase64(bad).has_value()) << bad;
  }
}

}  // namespace
}  // namespace engram::server::mcp
