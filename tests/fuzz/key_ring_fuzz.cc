// libFuzzer target for the `--keys FILE` document (KeyRing::Parse,
// src/server/http/auth.h). Invariants: never crashes, hangs or leaks; a
// refused document has a message naming where (`$...`) or saying it is not
// JSON; an accepted one is an object whose `keys` are all unique and at
// least 16 bytes, and each of them authenticates as its entry's principal
// (its agent and admin flag), while a key not in it, a missing header and
// another scheme get a 401 Problem.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <variant>

#include <nlohmann/json.hpp>

#include "server/http/auth.h"

namespace {

using engram::server::Principal;
using engram::server::http::KeyRing;
using engram::server::http::Problem;

void Check(bool condition) {
  if (!condition) std::abort();
}

void CheckRefused(const KeyRing& ring, std::string_view header) {
  const auto got = ring.Authenticate(header);
  Check(std::holds_alternative<Problem>(got) && std::get<Problem>(got).status == 401);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 16384) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  engram::StatusOr<KeyRing> ring = KeyRing::Parse(text);
  if (!ring.ok()) {
    const std::string m = ring.status().message();
    Check(!m.empty() && (m[0] == '$' || m.rfind("not valid JSON", 0) == 0));
    return 0;
  }
  Check(ring->enabled());
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  Check(doc.is_object() && doc.contains("keys") && doc["keys"].is_array());
  const nlohmann::json& keys = doc["keys"];
  Check(ring->size() == keys.size() && !keys.empty());
  std::string longest;
  for (const nlohmann::json& k : keys) {
    const std::string key = k.at("key").get<std::string>();
    Check(key.size() >= 16);
    if (key.size() > longest.size()) longest = key;
    const auto got = ring->Authenticate("Bearer " + key);
    Check(std::holds_alternative<Principal>(got));
    const Principal& p = std::get<Principal>(got);
    const bool admin = k.value("admin", false);
    Check(p.admin == admin);
    Check(p.agent == k.value("agent", admin ? std::string("admin") : std::string()));
    Check(!p.agent.empty());
  }
  CheckRefused(*ring, "");
  CheckRefused(*ring, "Basic " + longest);
  CheckRefused(*ring, "Bearer " + longest + "x");
  return 0;
}
