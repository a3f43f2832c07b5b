#include "server/mcp/bridge.h"

#include <cctype>
#include <istream>
#include <ostream>
#include <utility>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "server/mcp/base64.h"
#include "server/mcp/jsonrpc.h"
#include "server/mcp/protocol.h"

namespace engram::server::mcp {
namespace {

using nlohmann::json;

std::optional<std::string> FindHeader(const HeaderList& headers, std::string_view name) {
  for (const auto& [key, value] : headers) {
    if (key == name) return value;
  }
  return std::nullopt;
}

// The content type without parameters, lower-cased.
std::string MediaType(const HeaderList& headers) {
  std::string type = FindHeader(headers, "content-type").value_or("");
  type = type.substr(0, type.find(';'));
  while (!type.empty() && type.back() == ' ') type.pop_back();
  for (char& c : type) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return type;
}

// A header value for a name the body carries: the name itself when it is
// printable ASCII without edge spaces, else the `=?base64?…?=` form.
std::string MirrorValue(const std::string& name) {
  bool plain = !name.empty() && name.front() != ' ' && name.back() != ' ';
  for (const char c : name) plain = plain && c >= 0x20 && c < 0x7F;
  return plain ? name : "=?base64?" + EncodeBase64(name) + "?=";
}

// The JSON-RPC messages of an event stream: each event's data lines joined.
std::vector<std::string> EventData(std::string_view stream) {
  std::vector<std::string> messages;
  std::string data;
  bool has_data = false;
  auto flush = [&] {
    if (has_data && !data.empty()) messages.push_back(data);
    data.clear();
    has_data = false;
  };
  while (!stream.empty()) {
    std::size_t end = stream.find('\n');
    std::string_view line = stream.substr(0, end);
    stream = end == std::string_view::npos ? std::string_view() : stream.substr(end + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) {
      flush();
    } else if (line.substr(0, 5) == "data:") {
      std::string_view value = line.substr(5);
      if (!value.empty() && value[0] == ' ') value.remove_prefix(1);
      if (has_data) data += '\n';
      data += value;
      has_data = true;
    }
  }
  flush();
  return messages;
}

// One line of JSON for stdout (a reply may be pretty-printed), or nullopt
// when `text` is not JSON.
std::optional<std::string> OneLine(std::string_view text) {
  json value = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) return std::nullopt;
  return DumpJson(value);
}

}  // namespace

BridgeSession::BridgeSession(BridgePost post, std::string key, std::string target)
    : post_(std::move(post)), key_(std::move(key)), target_(std::move(target)) {}

BridgeRequest BridgeSession::Outgoing(std::string_view message) const {
  BridgeRequest request;
  request.body = std::string(message);
  request.headers = {{"Content-Type", "application/json"},
                     {"Accept", "application/json, text/event-stream"}};
  if (!key_.empty()) request.headers.emplace_back("Authorization", "Bearer " + key_);
  if (!session_id_.empty()) request.headers.emplace_back("Mcp-Session-Id", session_id_);
  const RpcMessage parsed = ParseRpcMessage(message);
  const bool single = !parsed.error && !parsed.batch && parsed.entries.size() == 1;
  const RpcEntry* entry = single ? &parsed.entries[0] : nullptr;
  std::string version = protocol_version_;
  if (entry != nullptr) {
    const EraChoice era = ChooseEra(*entry);
    if (!era.version.empty()) version = era.version;  // the body names its version
  }
  if (!version.empty()) request.headers.emplace_back("MCP-Protocol-Version", version);
  if (entry == nullptr ||
      (entry->kind != RpcEntry::Kind::kRequest && entry->kind != RpcEntry::Kind::kNotification)) {
    return request;
  }
  // The 2026-07-28 mirrors, so that the server (and any proxy) can route on
  // headers; servers of the handshake era ignore them.
  request.headers.emplace_back("Mcp-Method", entry->method);
  const char* key = entry->method == "tools/call" || entry->method == "prompts/get" ? "name"
                    : entry->method == "resources/read"                             ? "uri"
                                                                                    : nullptr;
  if (key != nullptr && entry->params.is_object()) {
    const auto target = entry->params.find(key);
    if (target != entry->params.end() && target->is_string()) {
      request.headers.emplace_back("Mcp-Name", MirrorValue(target->get<std::string>()));
    }
  }
  return request;
}

// What later requests must carry: the version initialize agreed on and the
// session a server assigned.
void BridgeSession::Learn(std::string_view message, const BridgeReply& reply) {
  if (std::optional<std::string> session = FindHeader(reply.headers, "mcp-session-id")) {
    session_id_ = *session;
  }
  const RpcMessage sent = ParseRpcMessage(message);
  if (sent.error || sent.batch || sent.entries.size() != 1 ||
      sent.entries[0].method != "initialize") {
    return;
  }
  json answer = json::parse(reply.body, nullptr, false);
  if (!answer.is_object()) return;
  const auto result = answer.find("result");
  if (result == answer.end() || !result->is_object()) return;
  const auto version = result->find("protocolVersion");
  if (version != result->end() && version->is_string()) {
    protocol_version_ = version->get<std::string>();
  }
}

std::vector<std::string> BridgeSession::Forward(std::string_view message, std::string* log) {
  const RpcMessage parsed = ParseRpcMessage(message);
  // The id a synthesised error is addressed to (null for a batch or
  // unreadable text); notifications get none.
  json id = nullptr;
  bool wants_reply = true;
  if (!parsed.error && !parsed.batch && parsed.entries.size() == 1) {
    id = parsed.entries[0].id;
    wants_reply = parsed.entries[0].kind == RpcEntry::Kind::kRequest ||
                  parsed.entries[0].kind == RpcEntry::Kind::kInvalid;
  }
  auto fail = [&](const std::string& why, json data) -> std::vector<std::string> {
    *log += "engram mcp --connect: " + why + "\n";
    if (!wants_reply) return {};
    return {
        DumpJson(RpcError(id, kInternalError, "engram mcp --connect: " + why, std::move(data)))};
  };

  StatusOr<BridgeReply> reply = post_(Outgoing(message));
  if (!reply.ok()) {
    return fail("cannot reach " + target_ + ": " + reply.status().message(),
                json{{"server", target_}});
  }
  Learn(message, *reply);
  const std::string type = MediaType(reply->headers);
  std::vector<std::string> lines;
  if (type == "text/event-stream") {
    for (const std::string& data : EventData(reply->body)) {
      if (std::optional<std::string> line = OneLine(data)) lines.push_back(std::move(*line));
    }
    return lines;
  }
  if (reply->body.empty() && reply->status >= 200 && reply->status < 300) return lines;
  if (type == "application/json") {
    if (std::optional<std::string> line = OneLine(reply->body)) {
      lines.push_back(std::move(*line));
      return lines;
    }
  }
  // Not JSON-RPC: an HTTP-level refusal (a bad key, a refused Host, a full
  // server) or something that is not an MCP server at all.
  std::string detail = reply->body.substr(0, 512);
  json problem = json::parse(reply->body, nullptr, false);
  if (problem.is_object() && problem.contains("detail") && problem["detail"].is_string()) {
    detail = problem["detail"].get<std::string>();
  }
  return fail(target_ + " answered HTTP " + std::to_string(reply->status) +
                  (detail.empty() ? "" : ": " + detail),
              json{{"server", target_}, {"httpStatus", reply->status}});
}

std::optional<std::pair<std::string, std::string>> SplitBridgeUrl(std::string_view url,
                                                                  std::string* error) {
  std::string_view rest;
  if (url.substr(0, 7) == "http://") {
    rest = url.substr(7);
  } else if (url.substr(0, 8) == "https://") {
    rest = url.substr(8);
  } else {
    *error = "expected an http:// or https:// URL, got '" + std::string(url) + "'";
    return std::nullopt;
  }
  const std::size_t slash = rest.find('/');
  const std::string_view authority = rest.substr(0, slash);
  if (authority.empty() || authority.find_first_of("?#@ ") != std::string_view::npos) {
    *error = "no host in '" + std::string(url) + "'";
    return std::nullopt;
  }
  std::string path(slash == std::string_view::npos ? "" : rest.substr(slash));
  if (path.find_first_of("?# ") != std::string::npos) {
    *error = "the URL must not have a query or fragment: '" + std::string(url) + "'";
    return std::nullopt;
  }
  while (!path.empty() && path.back() == '/') path.pop_back();
  if (path.size() < 4 || path.substr(path.size() - 4) != "/mcp") path += "/mcp";
  const std::size_t scheme_end = url.size() - rest.size();
  return std::make_pair(std::string(url.substr(0, scheme_end)) + std::string(authority), path);
}

int RunBridge(const BridgeOptions& options, std::istream& in, std::ostream& out,
              std::ostream& log) {
  std::string error;
  const auto split = SplitBridgeUrl(options.url, &error);
  if (!split) {
    log << "engram mcp --connect: " << error << '\n';
    return 2;
  }
  const auto& [origin, path] = *split;
  httplib::Client client(origin);
  client.set_keep_alive(true);
  client.set_connection_timeout(5, 0);
  client.set_read_timeout(options.timeout_seconds, 0);
  client.set_write_timeout(options.timeout_seconds, 0);
  BridgePost post = [&client, &path](const BridgeRequest& request) -> StatusOr<BridgeReply> {
    httplib::Headers headers;
    std::string content_type;
    for (const auto& [name, value] : request.headers) {
      if (name == "Content-Type") {
        content_type = value;
      } else {
        headers.emplace(name, value);
      }
    }
    httplib::Result result = client.Post(path, headers, request.body, content_type);
    if (!result) return Status::IoError(httplib::to_string(result.error()));
    BridgeReply reply;
    reply.status = result->status;
    for (const auto& [name, value] : result->headers) {
      std::string lower = name;
      for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      reply.headers.emplace_back(std::move(lower), value);
    }
    reply.body = std::move(result->body);
    return reply;
  };
  const std::string target = origin + path;
  BridgeSession session(std::move(post), options.key, target);
  log << "engram mcp: forwarding stdio to " << target << '\n';
  std::size_t messages = 0;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    ++messages;
    std::string diagnostics;
    for (const std::string& reply : session.Forward(line, &diagnostics)) out << reply << '\n';
    out.flush();
    if (!diagnostics.empty()) log << diagnostics << std::flush;
    if (!out) {
      log << "engram mcp: cannot write to stdout; stopping\n";
      break;
    }
  }
  log << "engram mcp: end of input after " << messages << " message(s)\n";
  return 0;
}

}  // namespace engram::server::mcp
