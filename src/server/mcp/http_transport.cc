// The Streamable HTTP transport of /mcp (MCP 2025-06-18 "Transports", and
// the 2026-07-28 revision's header rules): JSON replies only, no server
// stream, no sessions.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "server/mcp/base64.h"
#include "server/mcp/jsonrpc.h"
#include "server/mcp/mcp_server.h"
#include "server/mcp/protocol.h"
#include "server/mcp/server_state.h"

namespace engram::server::mcp {
namespace {

using nlohmann::json;

std::optional<std::string> Header(const HttpExchange& exchange, std::string_view name) {
  for (const auto& [key, value] : exchange.headers) {
    if (key == name) return value;
  }
  return std::nullopt;
}

// A mirror header's value: `=?base64?<base64>?=` carries a name that is not
// plain ASCII; anything else is the name itself.
std::string HeaderValue(std::string_view value) {
  constexpr std::string_view kOpen = "=?base64?", kClose = "?=";
  if (value.size() >= kOpen.size() + kClose.size() && value.substr(0, kOpen.size()) == kOpen &&
      value.substr(value.size() - kClose.size()) == kClose) {
    const auto decoded =
        DecodeBase64(value.substr(kOpen.size(), value.size() - kOpen.size() - kClose.size()));
    if (decoded) return *decoded;
  }
  return std::string(value);
}

HttpReply Reply(int status, const json& body) {
  return HttpReply{status, "application/json", {}, DumpJson(body)};
}

bool IsPort(std::string_view text) {
  if (text.empty() || text.size() > 5) return false;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// The transport spec: "Servers MUST validate the Origin header on all
// incoming connections to prevent DNS rebinding attacks". Only the loopback
// hosts are accepted: a browser page served from anywhere else must not
// reach a local memory store.
bool IsLoopbackOrigin(std::string_view origin) {
  for (std::string_view scheme : {"http://", "https://"}) {
    if (origin.substr(0, scheme.size()) != scheme) continue;
    std::string_view rest = origin.substr(scheme.size());
    if (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);
    for (std::string_view host : {"localhost", "127.0.0.1", "[::1]"}) {
      if (rest.substr(0, host.size()) != host) continue;
      const std::string_view after = rest.substr(host.size());
      if (after.empty() || (after[0] == ':' && IsPort(after.substr(1)))) return true;
    }
  }
  return false;
}

// The HTTP status a single reply travels with: malformed messages and the
// 2026-07-28 admission errors are 400, a method the stateless revision does
// not have is 404 (its conformance rules); everything else, tool errors
// included, is 200 with the JSON-RPC reply.
int StatusFor(const json& reply, Era era) {
  const auto error = reply.find("error");
  if (error == reply.end()) return 200;
  const int code = error->value("code", 0);
  switch (code) {
    case kParseError:
    case kInvalidRequest:
    case kHeaderMismatch:
    case kMissingClientCapability:
    case kUnsupportedProtocolVersion:
      return 400;
    case kMethodNotFound:
      return era == Era::kStateless ? 404 : 200;
    default:
      return 200;
  }
}

// 2026-07-28: the MCP-Protocol-Version header mirrors _meta's version,
// Mcp-Method the method (required on every request), and Mcp-Name the name
// a tools/call or prompts/get carries, or the uri of a resources/read
// (required when the body has one), so that proxies can route on headers
// alone; a missing or disagreeing header is rejected.
std::optional<json> CheckHeaders(const HttpExchange& exchange, const RpcEntry& entry,
                                 const EraChoice& era) {
  const std::optional<std::string> header = Header(exchange, "mcp-protocol-version");
  auto mismatch = [&](const std::string& what) {
    return RpcError(entry.id, kHeaderMismatch, "Header mismatch: " + what);
  };
  if (era.era == Era::kStateless) {
    if (!header) return mismatch("MCP-Protocol-Version is required with protocol 2026-07-28");
    if (*header != era.version) {
      return mismatch("MCP-Protocol-Version is " + *header + " but _meta says " + era.version);
    }
    const std::optional<std::string> method = Header(exchange, "mcp-method");
    if (!method || method->empty()) {
      return mismatch("Mcp-Method is required with protocol 2026-07-28");
    }
    if (*method != entry.method) {
      return mismatch("Mcp-Method is " + *method + " but the body's method is " + entry.method);
    }
    const char* key = entry.method == "tools/call" || entry.method == "prompts/get" ? "name"
                      : entry.method == "resources/read"                            ? "uri"
                                                                                    : nullptr;
    const auto target =
        key != nullptr && entry.params.is_object() ? entry.params.find(key) : entry.params.end();
    if (key != nullptr && target != entry.params.end() && target->is_string()) {
      const std::optional<std::string> name = Header(exchange, "mcp-name");
      if (!name || name->empty()) return mismatch("Mcp-Name is required for " + entry.method);
      const std::string decoded = HeaderValue(*name);
      if (decoded != target->get_ref<const std::string&>()) {
        return mismatch("Mcp-Name is " + decoded + " but the body's " + key + " is " +
                        target->get_ref<const std::string&>());
      }
    }
  } else if (header && *header == kStatelessVersion && entry.kind == RpcEntry::Kind::kRequest) {
    return mismatch("MCP-Protocol-Version is 2026-07-28 but the request has no _meta." +
                    std::string(kMetaProtocolVersion));
  }
  return std::nullopt;
}

}  // namespace

HttpReply HandleHttp(McpServer& server, const HttpExchange& exchange, const Principal& principal) {
  if (auto origin = Header(exchange, "origin"); origin && !IsLoopbackOrigin(*origin)) {
    return Reply(403, RpcError(nullptr, kInvalidRequest,
                               "Forbidden: Origin " + *origin + " is not allowed"));
  }
  if (exchange.method != "POST") {
    // No server-initiated stream (GET) and no sessions to end (DELETE).
    HttpReply reply =
        Reply(405, RpcError(nullptr, kInvalidRequest, "Method Not Allowed: /mcp takes POST only"));
    reply.headers.emplace_back("Allow", "POST");
    return reply;
  }
  const std::optional<std::string> header = Header(exchange, "mcp-protocol-version");
  if (header && !IsSupportedVersion(*header)) {
    json supported = SupportedVersions();
    return Reply(400, RpcError(nullptr, kUnsupportedProtocolVersion,
                               "Bad Request: unsupported MCP-Protocol-Version " + *header,
                               json{{"supportedVersions", std::move(supported)}}));
  }
  const RpcMessage message = ParseRpcMessage(exchange.body);
  if (message.error) return Reply(400, *message.error);
  const Protocol& protocol = HttpAccess::protocol(server);
  json replies = json::array();
  Era last_era = Era::kHandshake;
  for (const RpcEntry& entry : message.entries) {
    std::optional<json> reply;
    if (entry.kind == RpcEntry::Kind::kRequest || entry.kind == RpcEntry::Kind::kNotification) {
      const EraChoice era = ChooseEra(entry);
      last_era = era.era;
      if (!era.error) {
        if (std::optional<json> bad = CheckHeaders(exchange, entry, era)) {
          if (!message.batch) return Reply(400, *bad);
          if (entry.kind == RpcEntry::Kind::kRequest) reply = std::move(bad);
        }
      }
    }
    if (!reply) reply = protocol.Handle(entry, principal);
    if (reply) replies.push_back(std::move(*reply));
  }
  // Only notifications and responses: "202 Accepted with no body".
  if (replies.empty()) return HttpReply{202, "", {}, ""};
  if (message.batch) return Reply(200, replies);
  return Reply(StatusFor(replies[0], last_era), replies[0]);
}

}  // namespace engram::server::mcp
