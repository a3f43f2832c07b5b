// API keys (SEARCH.md §6): the `--keys FILE` document, and turning an
// `Authorization: Bearer KEY` header into the Principal a request runs as.
// Without keys every caller is the store's owner, agent "local"; `engram
// serve` allows that only on a loopback address.
#ifndef ENGRAM_SERVER_HTTP_AUTH_H_
#define ENGRAM_SERVER_HTTP_AUTH_H_

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "engram/status.h"
#include "server/common/principal.h"
#include "server/http/problem.h"

namespace engram::server::http {

class KeyRing {
 public:
  // No authentication: everyone is an admin with agent "local".
  KeyRing() = default;

  // Parses {"keys":[{"key":"...","agent":"alice","profile":"private_only"},
  // {"key":"...","admin":true}]}. Keys are at least 16 bytes and unique;
  // agent keys need an agent (profile defaults to private_only). The error
  // names the member (`$.keys[2].profile: ...`).
  static StatusOr<KeyRing> Parse(std::string_view json_text);
  static StatusOr<KeyRing> Load(const std::string& path);

  bool enabled() const { return enabled_; }
  std::size_t size() const { return entries_.size(); }
  // "no authentication (loopback only)" or "API keys: 2 agent, 1 admin".
  std::string Describe() const;

  // The principal for an Authorization header value (empty when absent), or
  // the 401 Problem.
  std::variant<Principal, Problem> Authenticate(std::string_view authorization) const;

 private:
  struct Entry {
    std::string key;
    Principal principal;
  };
  bool enabled_ = false;
  std::vector<Entry> entries_;
};

// Whether `host` is a loopback address (127.0.0.0/8, ::1, localhost).
bool IsLoopbackHost(std::string_view host);

}  // namespace engram::server::http

#endif  // ENGRAM_SERVER_HTTP_AUTH_H_
