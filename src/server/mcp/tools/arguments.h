// Server-side validation of tool arguments against the bounds their input
// schemas declare, with located messages (`limit: must be an integer from 1
// to 100`). Each reader returns an empty string when the value is fine (or
// absent and optional: the output keeps its default) and the message
// otherwise.
#ifndef ENGRAM_SERVER_MCP_TOOLS_ARGUMENTS_H_
#define ENGRAM_SERVER_MCP_TOOLS_ARGUMENTS_H_

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace engram::server::mcp {

// `arguments` must be an object (null reads as {}) whose keys are in `allowed`.
std::string CheckArgumentObject(const nlohmann::json& arguments,
                                std::initializer_list<std::string_view> allowed);

struct StringBounds {
  bool required = false;
  std::size_t min_chars = 0;
  std::size_t max_chars = 1000;  // in characters (code points)
};
std::string ReadString(const nlohmann::json& arguments, std::string_view key,
                       const StringBounds& bounds, std::string* out);

std::string ReadInteger(const nlohmann::json& arguments, std::string_view key, std::int64_t min,
                        std::int64_t max, std::int64_t* out);
std::string ReadNumber(const nlohmann::json& arguments, std::string_view key, double min,
                       double max, double* out);
std::string ReadEnum(const nlohmann::json& arguments, std::string_view key,
                     std::initializer_list<std::string_view> values, std::string* out);

// Characters (code points) in valid UTF-8 `text`.
std::size_t CountChars(std::string_view text);

}  // namespace engram::server::mcp

#endif  // ENGRAM_SERVER_MCP_TOOLS_ARGUMENTS_H_
