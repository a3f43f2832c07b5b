// The fixture of the MCP tools' end-to-end tests (mcp_tools_test.cc,
// mcp_memory_tools_test.cc): McpTest (mcp_test_support.h) with two sessions
// of stored memories and helpers that read SearchMemory's results.
#ifndef ENGRAM_TESTS_INTEGRATION_MCP_TOOLS_FIXTURE_H_
#define ENGRAM_TESTS_INTEGRATION_MCP_TOOLS_FIXTURE_H_

#include <chrono>
#include <set>
#include <string>
#include <vector>

#include "tests/integration/mcp_test_support.h"

namespace engram::server::mcp {

class McpToolsTest : public McpTest {
 protected:
  // Two sessions: s1 (three memories, a minute apart) and s2 (two).
  void StoreSessions() {
    struct Item {
      const char* session;
      const char* tool;
      const char* title;
      const char* content;
    };
    const Item items[] = {
        {"s1", "Bash", "Pin cmake", "Fixed the flaky build by pinning cmake to 3.27"},
        {"s1", "Read", "Read the logs", "Read the compiler logs; the linker ran out of memory"},
        {"s2", "Edit", "Rename module", "Renamed the parser module and updated the imports"},
        {"s1", "Bash", "Rebuild", "Rebuilt everything with two jobs to save memory"},
        {"s2", "Bash", "Run tests", "Ran the parser tests: all green after the rename"},
    };
    for (const Item& item : items) {
      *now_ += std::chrono::minutes(1);
      const Json out = ToolOk("StoreMemory", {{"content", item.content},
                                              {"session_id", item.session},
                                              {"tool", item.tool},
                                              {"title", item.title},
                                              {"context", "project engram"},
                                              {"archetype_title", "Build Setup"}});
      ids_.push_back(out["memory_id"]);
    }
  }

  Json Search(Json arguments) { return ToolOk("SearchMemory", arguments)["results"]; }
  std::set<std::string> Ids(const Json& results) {
    std::set<std::string> out;
    for (const Json& r : results) out.insert(r["memory_id"].get<std::string>());
    return out;
  }
  std::set<std::string> Filtered(const Json& filters) {
    return Ids(
        Search({{"query", ""}, {"search_type", "filtered"}, {"limit", 100}, {"filters", filters}}));
  }

  std::vector<std::string> ids_;
};

}  // namespace engram::server::mcp

#endif  // ENGRAM_TESTS_INTEGRATION_MCP_TOOLS_FIXTURE_H_
