#include "server/mcp/jsonrpc.h"

#include <utility>

#include "server/common/json_input.h"

namespace engram::server::mcp {
namespace {

using nlohmann::json;

// JSON-RPC 2.0 §4: "An identifier ... MUST contain a String, Number, or NULL
// value"; MCP further forbids null for requests.
bool IsValidId(const json& id) {
  return id.is_string() || id.is_number();
}

RpcEntry Invalid(const json& id, std::string message) {
  RpcEntry entry;
  entry.kind = RpcEntry::Kind::kInvalid;
  entry.error = RpcError(id, kInvalidRequest, "Invalid Request: " + std::move(message));
  return entry;
}

}  // namespace

RpcEntry ParseRpcEntry(const json& value) {
  if (!value.is_object()) return Invalid(nullptr, "a message must be a JSON object");
  const auto id_it = value.find("id");
  const bool has_id = id_it != value.end();
  const json id = has_id && IsValidId(*id_it) ? *id_it : json(nullptr);
  const auto version = value.find("jsonrpc");
  if (version == value.end() || !version->is_string() || *version != "2.0") {
    return Invalid(id, "\"jsonrpc\" must be \"2.0\"");
  }
  if (has_id && !IsValidId(*id_it)) {
    return Invalid(nullptr, "\"id\" must be a string or a number");
  }
  const auto method = value.find("method");
  if (method == value.end()) {
    // A response to a request we never send; MCP clients may still send one.
    if (has_id && (value.contains("result") || value.contains("error"))) {
      RpcEntry entry;
      entry.kind = RpcEntry::Kind::kResponse;
      entry.id = id;
      return entry;
    }
    return Invalid(id, "\"method\" is missing");
  }
  if (!method->is_string()) return Invalid(id, "\"method\" must be a string");
  RpcEntry entry;
  entry.kind = has_id ? RpcEntry::Kind::kRequest : RpcEntry::Kind::kNotification;
  entry.id = id;
  entry.method = method->get<std::string>();
  const auto params = value.find("params");
  if (params == value.end()) {
    entry.params = json::object();
  } else if (params->is_object()) {
    entry.params = *params;
  } else if (params->is_array()) {
    // Allowed by JSON-RPC, but every MCP method takes named parameters.
    entry.params = json::object();
    entry.kind = RpcEntry::Kind::kInvalid;
    entry.error = RpcError(id, kInvalidParams, "Invalid params: \"params\" must be an object");
    if (!has_id) entry.kind = RpcEntry::Kind::kNotification;  // never answered
  } else {
    return Invalid(id, "\"params\" must be an object or an array");
  }
  return entry;
}

RpcMessage ParseRpcMessage(std::string_view text) {
  RpcMessage message;
  JsonInput input = ParseJsonInput(text);
  if (!input.ok()) {
    message.error = RpcError(nullptr, kParseError, "Parse error: " + input.error);
    return message;
  }
  if (input.value.is_array()) {
    message.error =
        RpcError(nullptr, kInvalidRequest,
                 "Invalid Request: JSON-RPC batches are not supported (MCP removed them in "
                 "2025-06-18); send one message at a time");
    return message;
  }
  message.entry = ParseRpcEntry(input.value);
  return message;
}

json RpcResult(const json& id, json result) {
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

json RpcError(const json& id, int code, std::string message, std::optional<json> data) {
  json error{{"code", code}, {"message", std::move(message)}};
  if (data) error["data"] = std::move(*data);
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(error)}};
}

std::string DumpJson(const json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace engram::server::mcp
