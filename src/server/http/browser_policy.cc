#include "server/http/browser_policy.h"

#include <algorithm>

#include "server/http/wire.h"

namespace engram::server::http {
namespace {

bool IsPort(std::string_view s) {
  if (s.empty() || s.size() > 5) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// A host name, IPv4 address or bracketed IPv6 address: letters, digits and
// `-._~`, or `[` hex digits, `:` and `.` `]`.
bool IsHostName(std::string_view s) {
  if (s.empty()) return false;
  if (s.front() == '[') {
    if (s.size() < 3 || s.back() != ']') return false;
    for (char c : s.substr(1, s.size() - 2)) {
      const bool ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') ||
                      c == ':' || c == '.';
      if (!ok) return false;
    }
    return true;
  }
  for (char c : s) {
    const bool ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                    c == '-' || c == '.' || c == '_' || c == '~';
    if (!ok) return false;
  }
  return true;
}

// "name[:port]" split in two (the port may be empty); false when malformed.
bool SplitHost(std::string_view text, std::string* name, std::string* port) {
  std::size_t end = 0;
  if (!text.empty() && text.front() == '[') {
    end = text.find(']');
    if (end == std::string_view::npos) return false;
    ++end;
  } else {
    end = std::min(text.find(':'), text.size());
  }
  const std::string_view host = text.substr(0, end);
  const std::string_view rest = text.substr(end);
  if (!IsHostName(host)) return false;
  if (!rest.empty() && (rest[0] != ':' || !IsPort(rest.substr(1)))) return false;
  *name = LowerCase(host);
  *port = rest.empty() ? "" : std::string(rest.substr(1));
  return true;
}

// An origin as browsers send it: scheme "://" host [":" port], no path.
bool IsOrigin(std::string_view text) {
  for (std::string_view scheme : {"http://", "https://"}) {
    if (text.substr(0, scheme.size()) != scheme) continue;
    std::string name, port;
    return SplitHost(text.substr(scheme.size()), &name, &port);
  }
  return false;
}

}  // namespace

BrowserPolicy::BrowserPolicy() {
  for (const char* name : {"localhost", "127.0.0.1", "[::1]"}) hosts_.push_back({name, ""});
}

StatusOr<BrowserPolicy> BrowserPolicy::Make(std::string_view listen_host,
                                            const std::vector<std::string>& hosts,
                                            const std::vector<std::string>& origins) {
  BrowserPolicy policy;
  if (!listen_host.empty()) {
    const std::string name = listen_host.find(':') != std::string_view::npos
                                 ? "[" + std::string(listen_host) + "]"
                                 : std::string(listen_host);
    if (IsHostName(name)) policy.hosts_.push_back({LowerCase(name), ""});
  }
  for (const std::string& host : hosts) {
    if (host == "*") {
      policy.any_host_ = true;
      continue;
    }
    HostEntry entry;
    if (!SplitHost(host, &entry.name, &entry.port)) {
      return Status::InvalidArgument("--allowed-hosts: '" + host +
                                     "' is not a host (name, name:port or [v6]:port, or *)");
    }
    policy.hosts_.push_back(std::move(entry));
  }
  for (const std::string& origin : origins) {
    std::string_view o = origin;
    if (!o.empty() && o.back() == '/') o.remove_suffix(1);
    if (!IsOrigin(o)) {
      return Status::InvalidArgument("--allowed-origins: '" + origin +
                                     "' is not an origin (http://host[:port] or https://...)");
    }
    policy.origins_.push_back(LowerCase(o));
  }
  return policy;
}

std::optional<Problem> BrowserPolicy::CheckHost(std::string_view host) const {
  if (any_host_) return std::nullopt;
  std::string name, port;
  if (SplitHost(host, &name, &port)) {
    for (const HostEntry& e : hosts_) {
      if (e.name == name && (e.port.empty() || e.port == port)) return std::nullopt;
    }
  }
  const std::string shown(host.substr(0, 256));
  return MakeProblem(
      403, "request.forbidden_host",
      host.empty()
          ? "the request has no Host header"
          : "the Host '" + shown + "' is not one this server answers to (see --allowed-hosts)");
}

std::optional<Problem> BrowserPolicy::CheckOrigin(std::string_view origin) const {
  if (origin.empty()) return std::nullopt;
  const std::string lower = LowerCase(origin);
  for (const std::string& allowed : origins_) {
    if (allowed == lower) return std::nullopt;
  }
  return MakeProblem(403, "request.forbidden_origin",
                     "requests from the origin '" + std::string(origin.substr(0, 256)) +
                         "' are not allowed (see --allowed-origins)");
}

std::optional<Problem> CheckJsonContentType(std::string_view content_type) {
  const std::size_t semi = content_type.find(';');
  bool ok = LowerCase(TrimOws(content_type.substr(0, semi))) == "application/json";
  for (std::string_view params = semi == std::string_view::npos ? ""
                                                                : content_type.substr(semi + 1);
       ok && !params.empty();) {
    const std::size_t next = params.find(';');
    const std::string param = LowerCase(TrimOws(params.substr(0, next)));
    if (param.rfind("charset=", 0) == 0) {
      const std::string_view value = std::string_view(param).substr(8);
      ok = value == "utf-8" || value == "\"utf-8\"";
    }
    params = next == std::string_view::npos ? "" : params.substr(next + 1);
  }
  if (ok) return std::nullopt;
  return MakeProblem(415, "request.unsupported_media_type",
                     content_type.empty()
                         ? "the request body needs Content-Type: application/json"
                         : "the request body must be application/json (UTF-8), not '" +
                               std::string(content_type.substr(0, 256)) + "'");
}

}  // namespace engram::server::http
