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

json ServerIdentity() {
  return json{{"name", kServerName}, {"title", "engram memory"}, {"version", kServerVersion}};
}

// 2026-07-28 results carry `resultType` and name the server in
// `_meta["io.modelcontextprotocol/serverInfo"]` (modelcontextprotocol PR
// #3002, as the official SDK stamps every result).
json Stamp(json result, Era era) {
  if (era != Era::kStateless) return result;
  result["resultType"] = "complete";
  result["_meta"][std::string(kMetaServerInfo)] = ServerIdentity();
  return result;
}

json EnvelopeError(const json& id, const std::string& key, const std::string& problem) {
  return RpcError(id, kInvalidParams,
                  "Invalid params: _meta envelope for protocol revision " +
                      std::string(kStatelessVersion) + ": " + key + ": " + problem,
                  json{{"envelope", {{"key", key}, {"problem", problem}}}});
}

json UnsupportedVersion(const json& id, const std::string& version) {
  return RpcError(id, kUnsupportedProtocolVersion, "Unsupported protocol version: " + version,
                  json{{"supported", SupportedVersions()}, {"requested", version}});
}

json VersionMismatch(const json& id, const std::string& header, const std::string& body) {
  return RpcError(
      id, kHeaderMismatch,
      "Header mismatch: the MCP-Protocol-Version header names " + header + " but " + body,
      json{{"mismatch", {{"header", header}, {"body", body}}}});
}

// The first problem (key, problem) of an envelope that claims a version
// (`meta` has the protocolVersion key), or nullopt.
std::optional<std::pair<std::string, std::string>> EnvelopeProblem(const json& meta) {
  const auto version = meta.find(kMetaProtocolVersion);
  if (!version->is_string()) return {{std::string(kMetaProtocolVersion), "expected a string"}};
  const auto capabilities = meta.find(kMetaClientCapabilities);
  if (capabilities == meta.end()) return {{std::string(kMetaClientCapabilities), "missing"}};
  if (!capabilities->is_object()) {
    return {{std::string(kMetaClientCapabilities), "expected an object"}};
  }
  const auto info = meta.find(kMetaClientInfo);
  if (info != meta.end() && !info->is_object()) {
    return {{std::string(kMetaClientInfo), "expected an object"}};
  }
  return std::nullopt;
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

EraChoice ChooseEra(const RpcEntry& entry, std::optional<std::string_view> header_version) {
  EraChoice choice;
  const auto meta = entry.params.find("_meta");
  if (meta != entry.params.end() && !meta->is_object()) {
    choice.error = EnvelopeError(entry.id, "_meta", "expected an object");
    return choice;
  }
  const bool claim = meta != entry.params.end() && meta->contains(kMetaProtocolVersion);
  if (!claim) {
    // A handshake-era message (its _meta, if any, carries progressToken and the like).
    if (!header_version) return choice;
    const std::string header(*header_version);
    if (header == kStatelessVersion && entry.kind == RpcEntry::Kind::kRequest) {
      if (entry.method == "initialize") {
        choice.error = VersionMismatch(entry.id, header, "the body is an initialize handshake");
        return choice;
      }
      json missing = json::array();
      if (meta == entry.params.end()) {
        missing.push_back("_meta");
      } else {
        missing.push_back(kMetaProtocolVersion);
        if (!meta->contains(kMetaClientCapabilities)) missing.push_back(kMetaClientCapabilities);
      }
      choice.error =
          RpcError(entry.id, kInvalidParams,
                   "Invalid params: the MCP-Protocol-Version header names " + header +
                       " but the request lacks the per-request envelope: " + missing.dump(),
                   json{{"envelope", {{"missing", missing}}}});
    } else if (!IsSupportedVersion(header)) {
      choice.error = UnsupportedVersion(entry.id, header);
    }
    return choice;
  }
  if (std::optional<std::pair<std::string, std::string>> problem = EnvelopeProblem(*meta)) {
    choice.error = EnvelopeError(entry.id, problem->first, problem->second);
    return choice;
  }
  choice.version = meta->at(kMetaProtocolVersion).get<std::string>();
  if (header_version && *header_version != choice.version) {
    choice.error = VersionMismatch(entry.id, std::string(*header_version),
                                   "the body's _meta names " + choice.version);
    return choice;
  }
  if (!IsSupportedVersion(choice.version)) {
    choice.error = UnsupportedVersion(entry.id, choice.version);
    return choice;
  }
  if (choice.version == kStatelessVersion) choice.era = Era::kStateless;
  return choice;
}

Protocol::Protocol(Engine* engine, McpOptions options)
    : options_(std::move(options)), store_(engine, options_.collection, options_.embedder) {
  tools_.push_back(MakeSearchMemoryTool());
  tools_.push_back(MakeStoreMemoryTool());
  tools_.push_back(MakeForgetMemoryTool());
  tools_.push_back(MakeRetrieveTool());
  tools_.push_back(MakeListMemoriesTool());
  tools_.push_back(MakeMemoryStatsTool());
  tools_.push_back(MakeReviseMemoryTool());
  tools_.push_back(MakeMemoryHistoryTool());
}

std::optional<json> Protocol::Handle(const RpcEntry& entry, const Principal& principal,
                                     const RequestBounds& bounds) const {
  if (entry.kind != RpcEntry::Kind::kRequest) {
    return Dispatch(entry, EraChoice{}, principal, bounds);
  }
  const EraChoice era = ChooseEra(entry);
  if (era.error) return era.error;
  return Dispatch(entry, era, principal, bounds);
}

std::optional<json> Protocol::Dispatch(const RpcEntry& entry, const EraChoice& era,
                                       const Principal& principal,
                                       const RequestBounds& bounds) const {
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
  const std::string& method = entry.method;
  if (method == "tools/list") return ListTools(entry, era.era);
  if (method == "tools/call") return CallTool(entry, era.era, principal, bounds);
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
  const RpcMessage message = ParseRpcMessage(text);
  if (message.error) return DumpJson(*message.error);
  std::optional<json> reply = Handle(message.entry, principal, options_.Bounds());
  return reply ? DumpJson(*reply) : "";
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
                                  {"serverInfo", ServerIdentity()},
                                  {"instructions", kInstructions}});
}

json Protocol::Discover(const RpcEntry& entry) const {
  return RpcResult(entry.id, Stamp(json{{"supportedVersions", SupportedVersions()},
                                        {"capabilities", {{"tools", {{"listChanged", false}}}}},
                                        {"instructions", kInstructions},
                                        {"ttlMs", kCacheTtlMs},
                                        {"cacheScope", "public"}},
                                   Era::kStateless));
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

json Protocol::CallTool(const RpcEntry& entry, Era era, const Principal& principal,
                        const RequestBounds& bounds) const {
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
  const ToolContext context{&store_, &principal, &options_, bounds};
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
