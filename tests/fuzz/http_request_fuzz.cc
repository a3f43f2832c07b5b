// libFuzzer target for the HTTP API's request decoding
// (src/server/http/request_decode.h): routing, JSON body parsing and the
// per-route decoders, everything before the engine. The input is
// "METHOD PATH\n" then the body. Invariants: never crashes, hangs or leaks;
// a refused request is a Problem with a 4xx status, a kind, a message, and a
// problem+json body that parses back with the same status.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "server/http/request_decode.h"

namespace {

void Check(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 65536) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t eol = input.find('\n');
  const std::string_view line = input.substr(0, eol);
  const std::string_view body = eol == std::string_view::npos ? "" : input.substr(eol + 1);
  const std::size_t space = line.find(' ');
  if (space == std::string_view::npos) return 0;
  const std::string_view method = line.substr(0, space);
  const std::string_view path = line.substr(space + 1);

  engram::server::http::Limits limits;
  limits.max_body_bytes = 32768;  // small bounds so the fuzzer reaches them
  limits.max_batch = 8;
  limits.max_query_bytes = 256;
  limits.max_filter_bytes = 4096;
  limits.max_k = 100;
  limits.max_json_depth = 32;
  const std::optional<engram::server::http::Problem> problem =
      engram::server::http::CheckRequest(method, path, body, limits);
  if (!problem) return 0;
  Check(problem->status >= 400 && problem->status < 500);
  Check(!problem->kind.empty() && !problem->message.empty());
  const nlohmann::json doc = nlohmann::json::parse(problem->Body(), nullptr, false);
  Check(doc.is_object() && doc.value("status", 0) == problem->status);
  Check(doc.value("kind", "") == problem->kind);
  return 0;
}
