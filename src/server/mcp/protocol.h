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
inline constexpr std::string_view kMetaServerInfo = "io.modelcontextprotocol/serverInfo";

// Every version this server speaks, oldest first.
const std::vector<std::string>& SupportedVersions();
bool IsSupportedVersion(std::string_view version);

enum class Era { kHandshake, kStateless };

// How one request or notification is to be served, read from its
// params._meta (the body decides the era) and, over HTTP, checked against its
// MCP-Protocol-Version header, in the order of the official SDK's inbound
// validation ladder (@modelcontextprotocol/server 2.x, classifyInboundRequest;
// the conformance suite's server-stateless scenario):
//   - a `_meta` that claims a version (has io.modelcontextprotocol/
//     protocolVersion) must be a valid envelope: the version a string,
//     clientCapabilities an object, clientInfo an object when given; else
//     -32602 with data {envelope: {key, problem}};
//   - the header, when given, must name the claimed version: else -32020
//     with data {mismatch: {header, body}};
//   - the version must be one this server speaks: else -32022 with data
//     {supported, requested};
//   - without a claim, a request whose header names 2026-07-28 is -32602
//     with data {envelope: {missing: [keys]}} (an initialize, -32020), and
//     a header naming a version this server does not speak is -32022.
// Every such error is answered with HTTP 400 and carries the request's id.
struct EraChoice {
  Era era = Era::kHandshake;
  std::string version;                  // the claimed version, when given
  std::optional<nlohmann::json> error;  // the reply when the request cannot be served
};
EraChoice ChooseEra(const RpcEntry& entry,
                    std::optional<std::string_view> header_version = std::nullopt);

class Protocol {
 public:
  Protocol(Engine* engine, McpOptions options);

  // The reply to one message on stdio (ChooseEra, then Dispatch), or
  // nullopt (notifications and responses get none), its tool calls bounded
  // by `bounds` (McpOptions::Bounds() when the message arrived).
  // Thread-safe.
  std::optional<nlohmann::json> Handle(const RpcEntry& entry, const Principal& principal,
                                       const RequestBounds& bounds) const;
  // The reply to a message whose era is chosen (`era` has no error).
  std::optional<nlohmann::json> Dispatch(const RpcEntry& entry, const EraChoice& era,
                                         const Principal& principal,
                                         const RequestBounds& bounds) const;

  // A message as text; empty when nothing is to be sent back.
  std::string HandleText(std::string_view text, const Principal& principal) const;

  const McpOptions& options() const { return options_; }

 private:
  nlohmann::json Initialize(const RpcEntry& entry) const;
  nlohmann::json Discover(const RpcEntry& entry) const;
  nlohmann::json ListTools(const RpcEntry& entry, Era era) const;
  nlohmann::json CallTool(const RpcEntry& entry, Era era, const Principal& principal,
                          const RequestBounds& bounds) const;

  McpOptions options_;
  mutable MemoryStore store_;
  std::vector<std::unique_ptr<Tool>> tools_;
};

}  // namespace engram::server::mcp

#endif  // ENGRAM_SERVER_MCP_PROTOCOL_H_
