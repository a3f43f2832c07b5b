// libFuzzer target for the HTTP front-end's request framing
// (src/server/http/wire.h) and its browser checks (browser_policy.h): the
// input is the bytes a client sends. Invariants: never crashes, hangs or
// leaks; FindHeadEnd finds the same end however the bytes arrived; a refused
// head is a Problem with a documented status, a kind and a message; an
// accepted one has a token method, a path starting with '/' free of control
// characters, lower-case header names within the bound, and framing that
// cannot be read two ways (not both chunked and a length).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "server/http/browser_policy.h"
#include "server/http/wire.h"

namespace {

using engram::server::http::Problem;
using engram::server::http::RequestHead;

void Check(bool condition) {
  if (!condition) std::abort();
}

void CheckProblem(const Problem& p) {
  Check(p.status == 400 || p.status == 403 || p.status == 414 || p.status == 415 ||
        p.status == 431 || p.status == 501 || p.status == 505);
  Check(!p.kind.empty() && !p.message.empty());
  const nlohmann::json doc = nlohmann::json::parse(p.Body(), nullptr, false);
  Check(doc.is_object() && doc.value("status", 0) == p.status);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 65536) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  engram::server::http::WireLimits limits;
  limits.max_head_bytes = 4096;  // small bounds so the fuzzer reaches them
  limits.max_headers = 16;
  limits.max_target_bytes = 512;
  const std::size_t end = engram::server::http::FindHeadEnd(input);
  Check(end <= input.size());
  // Arriving in two pieces finds the same end.
  const std::size_t cut = size / 2;
  if (engram::server::http::FindHeadEnd(input.substr(0, cut)) == 0) {
    Check(engram::server::http::FindHeadEnd(input, cut) == end);
  }
  const std::string_view head = end == 0 ? input : input.substr(0, end);
  const auto parsed = engram::server::http::ParseHead(head, limits);
  if (const auto* p = std::get_if<Problem>(&parsed)) {
    CheckProblem(*p);
    return 0;
  }
  const RequestHead& r = std::get<RequestHead>(parsed);
  Check(!r.request.method.empty() && !r.request.path.empty() && r.request.path[0] == '/');
  for (char c : r.request.path) Check(static_cast<unsigned char>(c) >= 0x20 && c != 0x7F);
  Check(r.request.headers.size() <= limits.max_headers);
  for (const auto& [name, value] : r.request.headers) {
    Check(!name.empty());
    for (char c : name) Check(!(c >= 'A' && c <= 'Z'));
  }
  Check(!(r.chunked && r.content_length.has_value()));
  Check(r.minor_version == 0 || r.minor_version == 1);
  // The browser checks take any header value.
  static const engram::server::http::BrowserPolicy policy =
      *engram::server::http::BrowserPolicy::Make("127.0.0.1", {"engram.example"},
                                                 {"http://app.example"});
  if (auto p = policy.CheckHost(r.request.Header("host"))) CheckProblem(*p);
  if (auto p = policy.CheckOrigin(r.request.Header("origin"))) CheckProblem(*p);
  if (auto p = engram::server::http::CheckJsonContentType(r.request.Header("content-type"))) {
    CheckProblem(*p);
  }
  return 0;
}
