// HTTP/1.1 request framing as engram accepts it (RFC 9112), independent of
// the HTTP library. The front-end finds a request head in the bytes received
// (FindHeadEnd), checks it strictly and turns it into an HttpRequest without
// a body (ParseHead) before anything else reads it; the library only reads
// the body that the head announced. Fuzzed by tests/fuzz/http_head_fuzz.cc.
#ifndef ENGRAM_SERVER_HTTP_WIRE_H_
#define ENGRAM_SERVER_HTTP_WIRE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "server/http/message.h"
#include "server/http/problem.h"

namespace engram::server::http {

struct WireLimits {
  std::size_t max_head_bytes = 16 << 10;  // request line and header fields; 431 beyond
  std::size_t max_headers = 100;          // header fields; 431 beyond
  std::size_t max_target_bytes = 4096;    // the request target (path and query); 414 beyond
};

struct RequestHead {
  HttpRequest request;                          // method, decoded path, headers; no body
  int minor_version = 1;                        // HTTP/1.0 or HTTP/1.1
  std::optional<std::uint64_t> content_length;  // the one valid Content-Length, if any
  bool chunked = false;                         // Transfer-Encoding: chunked
  bool keep_alive = true;                       // the connection may carry another request
  bool expect_continue = false;                 // Expect: 100-continue

  // Whether a body follows the head.
  bool has_body() const { return chunked || content_length.value_or(0) > 0; }
};

// The length of the request head at the start of `data`, through the empty
// line that ends it (empty lines before the request line included, as RFC
// 9112 §2.2 allows), or 0 while it is incomplete. A head ending in bare LFs
// counts as complete so that ParseHead can refuse it at once. `scanned`: the
// length of `data` an earlier call found incomplete (it is not read again).
std::size_t FindHeadEnd(std::string_view data, std::size_t scanned = 0);

// Parses a complete head (as FindHeadEnd delimits it). Refuses, with a
// Problem: a head over `max_head_bytes` or `max_headers` (431, kind
// request.header_too_large), a target over `max_target_bytes` (414,
// request.target_too_long), anything but HTTP/1.0 and HTTP/1.1 (505,
// request.unsupported_version), a transfer coding other than chunked (501,
// request.unsupported_transfer_encoding), and with 400 request.malformed:
// lines not ending in CRLF, obs-fold, header names that are not tokens or
// are followed by whitespace, control characters in values, a target that
// is not a path (origin-form) or has a malformed %-escape or decodes to a
// control character, a missing or repeated Host (HTTP/1.1), Content-Length
// repeated or not all digits, Transfer-Encoding with Content-Length or with
// HTTP/1.0.
std::variant<RequestHead, Problem> ParseHead(std::string_view head, const WireLimits& limits);

// ASCII lower case (header names, tokens, hosts compare case-insensitively).
std::string LowerCase(std::string_view s);
// `s` without leading and trailing spaces and tabs (RFC 9110 OWS).
std::string_view TrimOws(std::string_view s);

}  // namespace engram::server::http

#endif  // ENGRAM_SERVER_HTTP_WIRE_H_
