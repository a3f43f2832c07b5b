// RFC 4648 base64 (standard alphabet, padded), for the `=?base64?…?=` form
// of the 2026-07-28 Mcp-Name header: the server decodes it, the stdio bridge
// encodes names that are not plain ASCII.
#ifndef ENGRAM_SERVER_MCP_BASE64_H_
#define ENGRAM_SERVER_MCP_BASE64_H_

#include <optional>
#include <string>
#include <string_view>

namespace engram::server::mcp {

std::string EncodeBase64(std::string_view bytes);
// nullopt when `text` is not such an encoding (bad length, a character
// outside the alphabet, data after padding).
std::optional<std::string> DecodeBase64(std::string_view text);

}  // namespace engram::server::mcp

#endif  // ENGRAM_SERVER_MCP_BASE64_H_
