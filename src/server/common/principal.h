// Who a server request runs as (SEARCH.md §6): an agent with a read profile,
// or the store's owner (an admin key, or no authentication on loopback).
// Both front-ends (HTTP and MCP) pass it to the engine as an engram::Scope.
#ifndef ENGRAM_SERVER_COMMON_PRINCIPAL_H_
#define ENGRAM_SERVER_COMMON_PRINCIPAL_H_

#include <optional>
#include <string>

#include "engram/engine.h"

namespace engram::server {

struct Principal {
  std::string agent;  // the caller's agent id; for an admin, the agent it writes as
  ReadProfile profile = ReadProfile::kPrivateOnly;
  bool admin = false;  // unscoped: reads and writes every record

  // What the engine scopes reads and writes with (nullopt for an admin).
  std::optional<Scope> scope() const {
    if (admin) return std::nullopt;
    return Scope{agent, profile};
  }
};

}  // namespace engram::server

#endif  // ENGRAM_SERVER_COMMON_PRINCIPAL_H_
