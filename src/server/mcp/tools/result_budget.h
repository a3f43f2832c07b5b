// ResultBudget: how the search tools keep their results within the reply's
// byte budget (ToolContext::bounds.max_reply_bytes): results go in, best
// first, while they fit as the reply carries them (their JSON text in
// structuredContent, and again escaped in the text content); the first that
// does not ends the list, and the result reports `truncated` and how many
// were `omitted`, never a silent cut.
#ifndef ENGRAM_SERVER_MCP_TOOLS_RESULT_BUDGET_H_
#define ENGRAM_SERVER_MCP_TOOLS_RESULT_BUDGET_H_

#include <algorithm>
#include <cstddef>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "engram/engine.h"

namespace engram::server::mcp {

class ResultBudget {
 public:
  // `budget` 0: no budget. kReserve of it is kept for the reply's envelope
  // and the result's other members (names, the truncation report).
  explicit ResultBudget(std::size_t budget) : left_(budget), limited_(budget > 0) {
    left_ -= std::min(left_, kReserve);
  }

  // Appends `item` to the array `out` when it fits and nothing was left out
  // before it; else counts it.
  void Add(nlohmann::json item, nlohmann::json* out) {
    if (omitted_ > 0) {
      ++omitted_;
      return;
    }
    if (limited_) {
      const std::string text = item.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      // Twice, with a comma each time; the text copy escapes '"' and '\\'.
      std::size_t size = 2 * (text.size() + 1);
      for (char c : text) size += c == '"' || c == '\\' ? 1 : 0;
      if (size > left_) {
        omitted_ = 1;
        return;
      }
      left_ -= size;
    }
    out->push_back(std::move(item));
  }

  // Adds `truncated` and `omitted` (these, and the hits the engine left out
  // of `response`) to the result object.
  void Report(const SearchResponse& response, nlohmann::json* result) const {
    const std::size_t omitted = omitted_ + response.omitted;
    (*result)["truncated"] = response.truncated || omitted > 0;
    (*result)["omitted"] = omitted;
  }

 private:
  static constexpr std::size_t kReserve = 1024;
  std::size_t left_;
  bool limited_;
  std::size_t omitted_ = 0;
};

}  // namespace engram::server::mcp

#endif  // ENGRAM_SERVER_MCP_TOOLS_RESULT_BUDGET_H_
