#include "server/http/wire.h"

#include <algorithm>

namespace engram::server::http {
namespace {

constexpr std::string_view kCrlf = "\r\n";

Problem Malformed(std::string message) {
  return MakeProblem(400, "request.malformed", std::move(message));
}

// RFC 9110 §5.6.2: tchar.
bool IsTokenChar(char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool IsToken(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!IsTokenChar(c)) return false;
  }
  return true;
}

char Lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

// The leading empty lines (CRLF) before a request line.
std::size_t LeadingEmptyLines(std::string_view data) {
  std::size_t i = 0;
  while (data.substr(i, 2) == kCrlf) i += 2;
  return i;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = Lower(c);
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// The origin-form target's path, %-decoded; a Problem when it is not one.
std::variant<std::string, Problem> DecodePath(std::string_view target) {
  if (target.empty() || target[0] != '/') {
    return Malformed("the request target must be a path starting with '/' (origin-form)");
  }
  for (char c : target) {
    const auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u >= 0x7F || c == '#') {
      return Malformed("the request target holds a character that must be %-encoded");
    }
  }
  const std::string_view raw = target.substr(0, target.find('?'));
  std::string path;
  path.reserve(raw.size());
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] != '%') {
      path += raw[i];
      continue;
    }
    const int hi = i + 2 < raw.size() ? HexValue(raw[i + 1]) : -1;
    const int lo = hi >= 0 ? HexValue(raw[i + 2]) : -1;
    if (lo < 0)
      return Malformed("the request path has a malformed %-escape at byte " + std::to_string(i));
    const int byte = hi * 16 + lo;
    if (byte < 0x20 || byte == 0x7F) {
      return Malformed("the request path decodes to a control character at byte " +
                       std::to_string(i));
    }
    path += static_cast<char>(byte);
    i += 2;
  }
  return path;
}

// Whether a comma-separated header value lists `token` (case-insensitive).
bool ListHas(std::string_view value, std::string_view token) {
  while (!value.empty()) {
    const std::size_t comma = value.find(',');
    if (LowerCase(TrimOws(value.substr(0, comma))) == token) return true;
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
  return false;
}

// The request line: method SP request-target SP HTTP-version.
std::optional<Problem> ParseRequestLine(std::string_view line, const WireLimits& limits,
                                        RequestHead* out) {
  const std::size_t sp1 = line.find(' ');
  const std::size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos) {
    return Malformed("the request line must be 'METHOD TARGET HTTP/1.1'");
  }
  const std::string_view method = line.substr(0, sp1);
  const std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  const std::string_view version = line.substr(sp2 + 1);
  if (!IsToken(method)) return Malformed("the request method is not a token");
  if (target.size() > limits.max_target_bytes) {
    return MakeProblem(414, "request.target_too_long",
                       "the request target exceeds the limit of " +
                           std::to_string(limits.max_target_bytes) + " bytes");
  }
  if (version == "HTTP/1.1" || version == "HTTP/1.0") {
    out->minor_version = version.back() - '0';
  } else if (version.size() == 8 && version.substr(0, 5) == "HTTP/" && version[6] == '.') {
    return MakeProblem(505, "request.unsupported_version",
                       "HTTP version " + std::string(version.substr(5)) +
                           " is not supported (HTTP/1.1 and HTTP/1.0 are)");
  } else {
    return Malformed("the request line does not end in an HTTP version");
  }
  std::variant<std::string, Problem> path = DecodePath(target);
  if (auto* p = std::get_if<Problem>(&path)) return *p;
  out->request.method = std::string(method);
  out->request.path = std::move(std::get<std::string>(path));
  return std::nullopt;
}

// One header field line: name ":" OWS value OWS.
std::optional<Problem> ParseField(std::string_view line, RequestHead* out) {
  if (line[0] == ' ' || line[0] == '\t') {
    return Malformed("a header line starts with whitespace (obs-fold is not accepted)");
  }
  const std::size_t colon = line.find(':');
  if (colon == std::string_view::npos) return Malformed("a header line has no ':'");
  const std::string_view name = line.substr(0, colon);
  if (!IsToken(name)) {
    return Malformed("the header name '" + std::string(name.substr(0, 64)) +
                     "' is not a token (no whitespace before ':')");
  }
  const std::string_view value = TrimOws(line.substr(colon + 1));
  for (char c : value) {
    const auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\t') || u == 0x7F) {
      return Malformed("the header " + std::string(name) + " holds a control character");
    }
  }
  out->request.headers.emplace_back(LowerCase(name), std::string(value));
  return std::nullopt;
}

// Content-Length, Transfer-Encoding, Host, Connection and Expect.
std::optional<Problem> CheckFraming(RequestHead* out) {
  const HttpRequest& r = out->request;
  const bool http11 = out->minor_version == 1;
  if (r.HeaderCount("host") > 1) return Malformed("the request has more than one Host header");
  if (http11 && r.HeaderCount("host") == 0) return Malformed("an HTTP/1.1 request needs a Host");
  const std::size_t lengths = r.HeaderCount("content-length");
  const std::size_t codings = r.HeaderCount("transfer-encoding");
  if (lengths > 1) return Malformed("the request has more than one Content-Length header");
  if (codings > 1) return Malformed("the request has more than one Transfer-Encoding header");
  if (lengths == 1 && codings == 1) {
    return Malformed("the request has both Transfer-Encoding and Content-Length");
  }
  if (lengths == 1) {
    const std::string_view v = r.Header("content-length");
    if (v.empty() || v.size() > 18) return Malformed("Content-Length must be 1 to 18 digits");
    std::uint64_t n = 0;
    for (char c : v) {
      if (c < '0' || c > '9') return Malformed("Content-Length must be digits only");
      n = n * 10 + static_cast<std::uint64_t>(c - '0');
    }
    out->content_length = n;
  }
  if (codings == 1) {
    if (!http11) return Malformed("Transfer-Encoding is not allowed in an HTTP/1.0 request");
    if (LowerCase(r.Header("transfer-encoding")) != "chunked") {
      return MakeProblem(501, "request.unsupported_transfer_encoding",
                         "the transfer coding '" + std::string(r.Header("transfer-encoding")) +
                             "' is not supported (only chunked is)");
    }
    out->chunked = true;
  }
  const std::string_view connection = r.Header("connection");
  out->keep_alive = http11 ? !ListHas(connection, "close") : ListHas(connection, "keep-alive");
  out->expect_continue = LowerCase(r.Header("expect")) == "100-continue";
  return std::nullopt;
}

}  // namespace

std::string LowerCase(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = Lower(c);
  return out;
}

std::string_view TrimOws(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::size_t FindHeadEnd(std::string_view data, std::size_t scanned) {
  // The end is LF CR LF or LF LF: up to 2 bytes of it may lie in `scanned`.
  const std::size_t start = std::max(LeadingEmptyLines(data), scanned < 2 ? 0 : scanned - 2);
  for (std::size_t i = data.find('\n', start); i != std::string_view::npos;
       i = data.find('\n', i + 1)) {
    if (i + 1 < data.size() && data[i + 1] == '\n') return i + 2;
    if (i + 2 < data.size() && data[i + 1] == '\r' && data[i + 2] == '\n') return i + 3;
  }
  return 0;
}

std::variant<RequestHead, Problem> ParseHead(std::string_view head, const WireLimits& limits) {
  if (head.size() > limits.max_head_bytes) {
    return MakeProblem(431, "request.header_too_large",
                       "the request head exceeds the limit of " +
                           std::to_string(limits.max_head_bytes) + " bytes");
  }
  head.remove_prefix(LeadingEmptyLines(head));
  if (head.size() < 4 || head.substr(head.size() - 4) != "\r\n\r\n") {
    return Malformed("the request head must end with an empty line (CRLF CRLF)");
  }
  head.remove_suffix(2);  // each line now ends in CRLF
  RequestHead out;
  std::size_t fields = 0;
  for (std::size_t line_no = 0; !head.empty(); ++line_no) {
    const std::size_t eol = head.find(kCrlf);
    const std::string_view line = head.substr(0, eol);
    head.remove_prefix(eol + 2);
    if (line.find_first_of("\r\n") != std::string_view::npos) {
      return Malformed("a line of the request head ends in a bare CR or LF");
    }
    if (line.empty()) return Malformed("an empty line inside the request head");
    std::optional<Problem> problem;
    if (line_no == 0) {
      problem = ParseRequestLine(line, limits, &out);
    } else if (++fields > limits.max_headers) {
      problem = MakeProblem(
          431, "request.header_too_large",
          "the request has more than " + std::to_string(limits.max_headers) + " header fields");
    } else {
      problem = ParseField(line, &out);
    }
    if (problem) return *problem;
  }
  if (std::optional<Problem> problem = CheckFraming(&out)) return *problem;
  return out;
}

}  // namespace engram::server::http
