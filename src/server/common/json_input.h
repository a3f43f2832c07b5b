// Reading JSON that arrives over the wire (HTTP bodies, JSON-RPC messages):
// bounded in size and nesting, strict (no duplicate keys, no trailing
// content, valid UTF-8), and rejected with a located message. Front-ends use
// nlohmann::json values after this; engram's own filter compiler re-reads the
// filter text it is given.
#ifndef ENGRAM_SERVER_COMMON_JSON_INPUT_H_
#define ENGRAM_SERVER_COMMON_JSON_INPUT_H_

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace engram::server {

struct JsonLimits {
  std::size_t max_bytes = 8 << 20;
  std::size_t max_depth = 64;
};

struct JsonInput {
  nlohmann::json value;
  std::string error;       // empty on success; else "line L, column C: what is wrong"
  std::size_t offset = 0;  // the byte offset of the error
  bool ok() const { return error.empty(); }
};

// Parses `text` within `limits`. Never throws.
JsonInput ParseJsonInput(std::string_view text, const JsonLimits& limits = {});

// "$.a.b[2]" style path building for located request errors.
std::string JsonPathChild(const std::string& parent, std::string_view key);
std::string JsonPathIndex(const std::string& parent, std::size_t index);

}  // namespace engram::server

#endif  // ENGRAM_SERVER_COMMON_JSON_INPUT_H_
