#include "server/mcp/protocol.h"

#include <algorithm>
#include <utility>

#include "server/mcp/errors.h"

namespace engram::server::mcp {
namespace {

using nlohmann::json;

constexpr std::string_view kServerName = "engram";
constexpr std::string_view kServerVersion = "0.1.0";
constexpr std::string_view kInstructions =
    "engram keeps your memories. StoreMemory saves one; SearchMemory finds them (basic, "
    "filtered or by memory id, at the detail you choose); ForgetMemory deletes one; Retrieve "
    "runs a named retrieve configuration over a knowledge collection.";
// tools/list and server/discover answers do not depend on the caller and
// change only with a new binary (cache hints of the 2026-07-28 revision).
constexpr int kCacheTtlMs = 3600000;

json Stamp(json result, Era era) {
  if (era == Era::kStateless) result["resultType"] = "complete";
  return result;
}

json UnsupportedVersion(const json& id, const std::string& version) {
  return RpcError(id, kUnsupportedProtocolVersion,
                  "Unsupported protocol version: \"" + version + "\"",
                  json{{"supportedVersions", SupportedVersions()}, {"requested", version}});
}

}  // namespace

const std::vector<std::string>& SupportedVersions() {
  static const std::vector<std::string> versions = {"2025-06-18", "2025-11-25",
                                                    std::string(kStatelessVersion)};
  return versions;
}

bool IsSupportedVersion(std::string_view version) {
  const auto& all = SupportedVersions();
  return std::find(all.begin(), all.end(), version) != all.end();
}

EraChoice ChooseEra(const RpcEntry& entry) {
  EraChoice choice;
  const auto meta = entry.params.find("_meta");
  if (meta == entry.params.end()) return choice;
  if (!meta->is_object()) {
    choice.error = RpcError(entry.id, kInvalidParams, "Invalid params: _meta must be an object");
    return choice;
  }
  const auto version = meta->find(kMetaProtocolVersion);
  if (version == meta->end()) return choice;  // a handshake-era _meta (progressToken, ...)
  if (!version->is_string()) {
    choice.error = RpcError(
        entry.id, kInvalidParams,
        "Invalid params: _meta." + std::string(kMetaProtocolVersion) + " must be a string");
    return choice;
  }
  choice.version = version->get<std::string>();
  if (!IsSupportedVersion(choice.version)) {
    choice.error = UnsupportedVersion(entry.id, choice.version);
    return choice;
  }
  if (choice.version != kStatelessVersion) return choice;
  choice.era = Era::kStateless;
  const auto capabilities = meta->find(kMetaClientCapabilities);
  if (capabilities == meta->end() || !capabilities->is_object()) {
    choice.error = RpcError(
        entry.id, kInvalidParams,
        "Invalid params: _meta." + std::string(kMetaClientCapabilities) + " must be an object");
    return choice;
  }
  const auto info = meta->find(kMetaClientInfo);
  if (info != meta->end() && !info->is_object()) {
    choice.error =
        RpcError(entry.id, kInvalidParams,
                 "Invalid params: _meta." + std::string(kMetaClientInfo) + " must be an object");
  }
  return choice;
}

Protocol::Protocol(Engine* engine, McpOptions options)
    : options_(std::move(options)), store_(engine, options_.collection, options_.embedder) {
  tools_.push_back(MakeSearchMemoryTool());
  tools_.push_back(MakeStoreMemoryTool());
  tools_.push_back(MakeForgetMemoryTool());
  tools_.push_back(MakeRetrieveTool());
}

std::optional<json> Protocol::Handle(const RpcEntry& entry, const Principal& principal) const {
  switch (entry.kind) {
    case RpcEntry::Kind::kInvalid:
      return entry.error;
    case RpcEntry::Kind::kResponse:
    case RpcEntry::Kind::kNotification:
      // notifications/initialized, notifications/cancelled, ...: nothing to
      // do for a server that keeps no session and answers synchronously.
      return std::nullopt;
    case RpcEntry::Kind::kRequest:
      break;
  }
  const EraChoice era = ChooseEra(entry);
  if (era.error) return era.error;
  const std::string& method = entry.method;
  if (method == "tools/list") return ListTools(entry, era.era);
  if (method == "tools/call") return CallTool(entry, era.era, principal);
  // Answered in both eras, even without _meta: on stdio a dual-era client
  // probes with it, and an error tells it "handshake-era server".
  if (method == "server/discover") return Discover(entry);
  if (era.era == Era::kHandshake) {
    if (method == "initialize") return Initialize(entry);
    if (method == "ping") return RpcResult(entry.id, json::object());
  }
  // 2026-07-28 removed initialize and ping along with the session.
  return RpcError(entry.id, kMethodNotFound, "Method not found: " + method);
}

std::string Protocol::HandleText(std::string_view text, const Principal& principal) const {
  RpcMessage message = ParseRpcMessage(text);
  if (message.error) return DumpJson(*message.error);
  json replies = json::array();
  for (const RpcEntry& entry : message.entries) {
    std::optional<json> reply = Handle(entry, principal);
    if (reply) replies.push_back(std::move(*reply));
  }
  if (replies.empty()) return "";
  return DumpJson(message.batch ? replies : replies[0]);
}

json Protocol::ServerInfo() const {
  return json{{"name", kServerName}, {"title", "engram memory"}, {"version", kServerVersion}};
}

json Protocol::Initialize(const RpcEntry& entry) const {
  const auto requested = entry.params.find("protocolVersion");
  if (requested == entry.params.end() || !requested->is_string()) {
    return RpcError(entry.id, kInvalidParams,
                    "Invalid params: initialize needs a string protocolVersion");
  }
  // Negotiation (2025-06-18 lifecycle): echo a version we speak, else offer
  // our latest and let the client decide. 2026-07-28 has no handshake, so an
  // initialize asking for it gets the latest handshake version too.
  std::string version = requested->get<std::string>();
  if (!IsSupportedVersion(version) || version == kStatelessVersion) {
    version = std::string(kLatestHandshakeVersion);
  }
  return RpcResult(entry.id, json{{"protocolVersion", version},
                                  {"capabilities", {{"tools", {{"listChanged", false}}}}},
                                  {"serverInfo", ServerInfo()},
                                  {"instructions", kInstructions}});
}

json Protocol::Discover(const RpcEntry& entry) const {
  return RpcResult(entry.id, json{{"resultType", "complete"},
                                  {"supportedVersions", SupportedVersions()},
                                  {"capabilities", {{"tools", {{"listChanged", false}}}}},
                                  {"serverInfo", ServerInfo()},
                                  {"instructions", kInstructions},
                                  {"ttlMs", kCacheTtlMs},
                                  {"cacheScope", "public"}});
}

json Protocol::ListTools(const RpcEntry& entry, Era era) const {
  json tools = json::array();
  for (const auto& tool : tools_) tools.push_back(tool->descriptor());
  json result{{"tools", std::move(tools)}};
  if (era == Era::kStateless) {
    result["ttlMs"] = kCacheTtlMs;
    result["cacheScope"] = "public";
  }
  return RpcResult(entry.id, Stamp(std::move(result), era));
}

json Protocol::CallTool(const RpcEntry& entry, Era era, const Principal& principal) const {
  const auto name = entry.params.find("name");
  if (name == entry.params.end() || !name->is_string()) {
    return RpcError(entry.id, kInvalidParams, "Invalid params: tools/call needs a string name");
  }
  const Tool* tool = nullptr;
  for (const auto& t : tools_) {
    if (t->name() == *name) tool = t.get();
  }
  if (tool == nullptr) {
    return RpcError(entry.id, kInvalidParams, "Unknown tool: " + name->get<std::string>());
  }
  const auto arguments = entry.params.find("arguments");
  const json args = arguments == entry.params.end() ? json(nullptr) : *arguments;
  const ToolContext context{&store_, &principal, &options_};
  StatusOr<ToolResult> result = tool->Call(args, context);
  if (!result.ok()) {
    json reply = ToolFailureReply(entry.id, result.status());
    if (reply.contains("result")) reply["result"] = Stamp(std::move(reply["result"]), era);
    return reply;
  }
  if (!result->error.empty())
    return RpcResult(entry.id, Stamp(ToolErrorResult(result->error), era));
  json content = json::array({json{{"type", "text"}, {"text", DumpJson(result->structured)}}});
  return RpcResult(entry.id, Stamp(json{{"content", std::move(content)},
                                        {"structuredContent", std::move(result->structured)},
                                        {"isError", false}},
                                   era));
}

}  // namespace engram::server::mcp
