// The Streamable HTTP transport of /mcp (MCP 2025-06-18 "Transports", and
// the 2026-07-28 revision's header rules): JSON replies only, no server
// stream, no sessions. The transport's "Servers MUST validate the Origin
// header" is the HTTP front-end's (server/http/browser_policy.h), which
// checks Host and Origin for /mcp as for every route.
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
