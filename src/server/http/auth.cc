#include "server/http/auth.h"

#include <fstream>
#include <set>
#include <sstream>

#include "server/common/json_input.h"
#include "server/http/json_reader.h"

namespace engram::server::http {

StatusOr<KeyRing> KeyRing::Parse(std::string_view json_text) {
  JsonInput in = ParseJsonInput(json_text);
  if (!in.ok()) return Status::InvalidArgument("not valid JSON: " + in.error);
  ObjectReader r(in.value, "$");
  KeyRing ring;
  ring.enabled_ = true;
  std::set<std::string> seen;
  if (const nlohmann::json* keys = r.Require("keys"); keys != nullptr) {
    if (!keys->is_array() || keys->empty()) r.Fail("keys", "expected a non-empty array of keys");
    for (std::size_t i = 0; r.ok() && i < keys->size(); ++i) {
      ObjectReader k((*keys)[i], JsonPathIndex(r.PathOf("keys"), i));
      Entry e;
      if (k.Require("key") && k.String("key", &e.key, 4096) && e.key.size() < 16) {
        k.Fail("key", "must be at least 16 bytes long");
      }
      if (k.ok() && !seen.insert(e.key).second) k.Fail("key", "repeats an earlier key");
      k.Bool("admin", &e.principal.admin);
      if (!e.principal.admin) k.Require("agent");
      if (k.String("agent", &e.principal.agent, 256) && e.principal.agent.empty()) {
        k.Fail("agent", "must not be empty");
      }
      if (e.principal.agent.empty()) e.principal.agent = "admin";
      std::string profile;
      if (k.Enum("profile", &profile, {"private_only", "private_plus_project", "all_scopes"})) {
        e.principal.profile = *ReadProfileFromName(profile);
      }
      if (!k.Finish()) r.Fail(k.problem());
      ring.entries_.push_back(std::move(e));
    }
  }
  if (!r.Finish()) return Status::InvalidArgument(r.problem().message);
  return ring;
}

StatusOr<KeyRing> KeyRing::Load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound("cannot read the keys file " + path);
  std::ostringstream text;
  text << in.rdbuf();
  StatusOr<KeyRing> ring = Parse(text.str());
  if (!ring.ok()) return ring.status().WithContext(path);
  return ring;
}

std::string KeyRing::Describe() const {
  if (!enabled_)
    return "no authentication (loopback only; every caller is the owner, agent 'local')";
  std::size_t admins = 0;
  for (const Entry& e : entries_) admins += e.principal.admin ? 1 : 0;
  return "API keys (" + std::to_string(entries_.size() - admins) + " agent, " +
         std::to_string(admins) + " admin)";
}

std::variant<Principal, Problem> KeyRing::Authenticate(std::string_view authorization) const {
  if (!enabled_) return Principal{"local", ReadProfile::kAllScopes, true};
  constexpr std::string_view kBearer = "Bearer ";
  if (authorization.empty())
    return Unauthorized("an API key is required (Authorization: Bearer KEY)");
  if (authorization.size() <= kBearer.size() ||
      authorization.substr(0, kBearer.size()) != kBearer) {
    return Unauthorized("the Authorization header must be 'Bearer KEY'");
  }
  const std::string_view key = authorization.substr(kBearer.size());
  // Compare against every key in full so timing says little about which matched.
  const Principal* found = nullptr;
  for (const Entry& e : entries_) {
    unsigned diff = e.key.size() == key.size() ? 0 : 1;
    for (std::size_t i = 0; i < e.key.size(); ++i) {
      diff |= static_cast<unsigned char>(e.key[i]) ^
              static_cast<unsigned char>(i < key.size() ? key[i] : 0);
    }
    if (diff == 0) found = &e.principal;
  }
  if (found == nullptr) return Unauthorized("unknown API key");
  return *found;
}

bool IsLoopbackHost(std::string_view host) {
  return host == "localhost" || host == "::1" || host == "[::1]" || host.rfind("127.", 0) == 0;
}

}  // namespace engram::server::http
