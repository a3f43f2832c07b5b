// Keeping web browsers out of the API (docs/security.md): the Host header
// must name this server (the loopback names, the listen address, and
// `--allowed-hosts`), which defeats DNS rebinding; a request that carries an
// Origin must come from `--allowed-origins` (none by default), which keeps
// other sites' pages out; and request bodies must be JSON, which no HTML
// form or CORS-free "simple request" can send. The REST routes and /mcp go
// through the same checks (Api::Admit).
#ifndef ENGRAM_SERVER_HTTP_BROWSER_POLICY_H_
#define ENGRAM_SERVER_HTTP_BROWSER_POLICY_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"
#include "server/http/problem.h"

namespace engram::server::http {

class BrowserPolicy {
 public:
  // Hosts `localhost`, `127.0.0.1` and `[::1]` (any port); no origins.
  BrowserPolicy();

  // The loopback names, `listen_host` (an address or name, IPv6 without
  // brackets) and `hosts`: "name" (any port) or "name:port" ("[::1]:7700"
  // for IPv6), or "*" for any Host (the DNS-rebinding check off). `origins`:
  // "http://name[:port]" or "https://...", compared case-insensitively and
  // exactly (a browser omits default ports). InvalidArgument naming the
  // flag and the entry when one is malformed.
  static StatusOr<BrowserPolicy> Make(std::string_view listen_host,
                                      const std::vector<std::string>& hosts,
                                      const std::vector<std::string>& origins);

  // nullopt when the Host header value names an allowed host, else the 403
  // Problem (kind request.forbidden_host). An absent Host is refused.
  std::optional<Problem> CheckHost(std::string_view host) const;
  // nullopt when `origin` is empty (no Origin header) or allowed, else the
  // 403 Problem (kind request.forbidden_origin).
  std::optional<Problem> CheckOrigin(std::string_view origin) const;

 private:
  struct HostEntry {
    std::string name;  // lower-case; IPv6 in brackets
    std::string port;  // empty: any port
  };
  bool any_host_ = false;
  std::vector<HostEntry> hosts_;
  std::vector<std::string> origins_;  // lower-case
};

// nullopt when `content_type` is application/json (any case, with
// parameters; a charset, if given, must be utf-8), else the 415 Problem
// (kind request.unsupported_media_type).
std::optional<Problem> CheckJsonContentType(std::string_view content_type);

}  // namespace engram::server::http

#endif  // ENGRAM_SERVER_HTTP_BROWSER_POLICY_H_
