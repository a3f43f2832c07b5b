// MCP's methods over JSON-RPC, for both eras on one handler:
// - the handshake era (2025-06-18, 2025-11-25): initialize,
//   notifications/initialized, ping, tools/list, tools/call;
// - the stateless revision 2026-07-28: no handshake; every request names its
//   version and client capabilities in params._meta; server/discover; every
//   result carries `resultType`.
// A request is served statelessly when its _meta selects 2026-07-28. The
// server keeps no per-connection state in either era (it never needs any:
// a handshake-era request that skips `initialize` is served anyway).
#ifndef ENGRAM_SERVER_MCP_PROTOCOL_H_
#define ENGRAM_SERVER_MCP_PROTOCOL_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "engram/engine.h"
#include "server/common/principal.h"
#include "server/mcp/jsonrpc.h"
#include "server/mcp/mcp_server.h"
#include "server/mcp/memory_store.h"
#include "server/mcp/tools/tool.h"

namespace engram::server::mcp {

inline constexpr std::string_view kStatelessVersion = "2026-07-28";
inline constexpr std::string_view kLatestHandshakeVersion = "2025-11-25";
inline constexpr std::string_view kMetaProtocolVersion = "io.modelcontextprotocol/protocolVersion";
inline constexpr std::string_view kMetaClientCapabilities =
    "io.modelcontextprotocol/clientCapabilities";
inline constexpr std::string_view kMetaClientInfo = "io.modelcontextprotocol/clientInfo";

// Every version this server speaks, oldest first.
const std::vector<std::string>& SupportedVersions();
bool IsSupportedVersion(std::string_view version);

enum class Era { kHandshake, kStateless };

// How one request is to be served, read from its params._meta.
struct EraChoice {
  Era era = Era::kHandshake;
  std::string version;                  // the _meta version, when given
  std::optional<nlohmann::json> error;  // the reply when _meta is unusable
};
EraChoice ChooseEra(const RpcEntry& entry);

class Protocol {
 public:
  Protocol(Engine* engine, McpOptions options);

  // The reply to one entry of a message, or nullopt (notifications and
  // responses get none), its tool calls bounded by `bounds` (the message's:
  // McpOptions::Bounds() when it arrived). Thread-safe.
  std::optional<nlohmann::json> Handle(const RpcEntry& entry, const Principal& principal,
                                       const RequestBounds& bounds) const;

  // A whole message as text (a batch gets an array of its replies); empty
  // when nothing is to be sent back.
  std::string HandleText(std::string_view text, const Principal& principal) const;

  const McpOptions& options() const { return options_; }

 private:
  nlohmann::json Initialize(const RpcEntry& entry) const;
  nlohmann::json Discover(const RpcEntry& entry) const;
  nlohmann::json ListTools(const RpcEntry& entry, Era era) const;
  nlohmann::json CallTool(const RpcEntry& entry, Era era, const Principal& principal,
                          const RequestBounds& bounds) const;
  nlohmann::json ServerInfo() const;

  McpOptions options_;
  mutable MemoryStore store_;
  std::vector<std::unique_ptr<Tool>> tools_;
};

}  // namespace engram::server::mcp

#endif  // ENGRAM_SERVER_MCP_PROTOCOL_H_
