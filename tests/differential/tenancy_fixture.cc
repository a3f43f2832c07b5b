// The tenancy fixture's set-up and its comparison of two stores' answers
// (tenancy_fixture.h).
#include "tests/differential/tenancy_fixture.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include <unistd.h>

namespace engram::server::http::tenancy {

std::string KeysJson() {
  json keys = json::array({{{"key", kAdmin}, {"admin", true}}});
  const std::map<std::string, std::string> profile = {{"alice", "private_plus_project"},
                                                      {"carol", "all_scopes"},
                                                      {"dave", "private_only"},
                                                      {"bob", "private_only"}};
  for (const auto& [agent, key] : kKeys) {
    keys.push_back({{"key", key}, {"agent", agent}, {"profile", profile.at(agent)}});
  }
  return json{{"keys", keys}}.dump();
}

std::string SeedUuid(int n) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "00000000-0000-4000-8000-%012d", n);
  return buf;
}

json Note(Rng& rng, const std::string& id, const std::string& agent, const std::string& scope,
          const std::string& content) {
  return {{"id", id},
          {"content", content},
          {"type", rng.Pick(std::vector<std::string>{"fact", "preference", "decision"})},
          {"scope", scope},
          {"agent_id", agent},
          {"importance", static_cast<int>(rng.Below(10)) / 10.0},
          {"confidence", 0.9},
          {"updated_at", "2026-01-" + std::to_string(10 + rng.Below(18)) + "T10:00:00Z"},
          {"vector", rng.Vector()}};
}

json Memory(Rng& rng, int n, const std::string& agent, const std::string& content) {
  return {{"memory_id", SeedUuid(n)},
          {"content", content},
          {"session_id", rng.Coin() ? "s1" : "s2"},
          {"tool", rng.Coin() ? "editor" : "shell"},
          {"agent_id", agent},
          {"title", rng.Words(kWords, 2)},
          {"context", ""},
          {"sequence_order", n},
          {"timestamp", "2025-02-" + std::to_string(10 + n % 18) + "T09:00:00Z"},
          {"archetype_title", "general"},
          {"schema_version", "1.0"}};
}

void TenancyDiff::SetUp() {
  for (int i = 0; i < 2; ++i) {
    Side& s = sides_[i];
    s.dir = fs::temp_directory_path() /
            ("engram_tenancy_" + std::to_string(getpid()) + "_" + std::to_string(i));
    fs::remove_all(s.dir);
    // A fixed now for expiry: explain shows the instant the visible filter uses.
    Engine::Options engine_options;
    engine_options.clock = [] {
      return std::chrono::sys_days{std::chrono::year(2026) / 3 / 1} + std::chrono::hours(12);
    };
    StatusOr<std::unique_ptr<Engine>> e = Engine::Open(s.dir.string(), engine_options);
    ASSERT_TRUE(e.ok()) << e.status().ToString();
    s.engine = std::move(e).value();
    mcp::McpOptions options;
    options.clock = [] {
      return std::chrono::sys_days{std::chrono::year(2025) / 3 / 1} + std::chrono::hours(12);
    };
    s.mcp = std::make_unique<mcp::McpServer>(s.engine.get(), options);
    StatusOr<KeyRing> keys = KeyRing::Parse(KeysJson());
    ASSERT_TRUE(keys.ok()) << keys.status().ToString();
    s.api = std::make_unique<Api>(s.engine.get(), s.mcp.get(), *keys, ApiOptions{});
  }
  // The same collections, records, memories and retrieve configuration on both sides.
  Both("POST", "/v1/collections",
       {{"name", "notes"},
        {"schema", "preset:notes"},
        {"text", {"content"}},
        {"vector", {{"dim", kDim}}},
        {"time_field", "updated_at"},
        // Recall statistics off: hit counts record which searches ran
        // (a shared record's owner's, shaped by its private records).
        {"hit_count_field", ""},
        {"last_hit_field", ""}});
  Both("POST", "/v1/collections",
       {{"name", "plain"},
        {"schema", {{"fields", {{{"name", "region"}, {"type", "string"}, {"required", true}}}}}},
        {"text", {"content"}}});
  Rng rng(7);
  json notes = json::array(), memories = json::array();
  const std::vector<std::string> agents = {"alice", "carol", "dave", "bob"};
  const std::vector<std::string> scopes = {"agent_private", "project_shared", "org_shared"};
  for (int i = 0; i < 40; ++i) {
    const std::string agent = agents[i % 4];
    // bob's shared records are the same on both sides; his private ones differ.
    const std::string scope = agent == "bob" ? scopes[1 + i % 2] : rng.Pick(scopes);
    notes.push_back(Note(rng, "n" + std::to_string(i), agent, scope, rng.Words(kWords, 4)));
    ids_.push_back("n" + std::to_string(i));
  }
  for (int i = 0; i < 12; ++i) {
    const std::string agent = agents[i % 3];  // no bob: his memories differ
    memories.push_back(Memory(rng, i + 1, agent, rng.Words(kWords, 5)));
    uuids_.push_back(SeedUuid(i + 1));
  }
  Both("POST", "/v1/collections/notes/records", {{"records", notes}});
  Both("POST", "/v1/collections/plain/records",
       {{"records", {{{"id", "p1"}, {"content", "river"}, {"region", "eu"}}}}});
  Both("PUT", "/v1/retrieves/facts",
       {{"collection", "notes"},
        {"dialect", "vector_filter"},
        {"filter", {{"type", "fact"}}},
        {"top_k", 1000},
        {"threshold", 0}});
  // StoreMemory creates the memories collection; then the seeded ones go in.
  for (Side& s : sides_) {
    ToolOn(s, kKeys.at("alice"), "StoreMemory", {{"content", "first light on the river"}}, true);
  }
  Both("POST", "/v1/collections/memories/records", {{"records", memories}});

  // bob's private records: different on the two sides. Side 0 has more,
  // with the secret words and ids the others use or will write.
  for (int side = 0; side < 2; ++side) {
    Rng bob(100 + side);
    json private_notes = json::array(), private_memories = json::array();
    const int count = side == 0 ? 14 : 5;
    for (int i = 0; i < count; ++i) {
      // n0-n2 are alice's, carol's and dave's ids (n3 is bob's shared record).
      std::string id = side == 0
                           ? (i < 3 ? "n" + std::to_string(i) : "bob-" + std::to_string(1996 + i))
                           : "bx" + std::to_string(i);
      if (side == 0 && i == 4) id = "bob-2000";
      const std::string content =
          bob.Words(kWords, 3) + " " + (side == 0 ? bob.Pick(kSecrets) : bob.Pick(kWords));
      private_notes.push_back(Note(bob, id, "bob", "agent_private", content));
      bob_ids_.insert(id);
      private_memories.push_back(Memory(bob, 50 + 10 * side + i, "bob", content));
      bob_uuids_.push_back(SeedUuid(50 + 10 * side + i));
    }
    Send(sides_[side], "POST", "/v1/collections/notes/records", {{"records", private_notes}},
         kAdmin);
    Send(sides_[side], "POST", "/v1/collections/memories/records", {{"records", private_memories}},
         kAdmin);
  }
}

void TenancyDiff::TearDown() {
  for (Side& s : sides_) {
    s.api.reset();
    s.mcp.reset();
    s.engine.reset();
    fs::remove_all(s.dir);
  }
}

Reply TenancyDiff::Send(Side& s, const std::string& method, const std::string& path,
                        const json& body, const std::string& key,
                        std::vector<std::pair<std::string, std::string>> headers) {
  HttpRequest request;
  request.method = method;
  request.path = path;
  headers.emplace_back("authorization", "Bearer " + key);
  headers.emplace_back("host", "127.0.0.1");
  if (!body.is_null()) {
    headers.emplace_back("content-type", "application/json");
    request.body = body.dump();
  }
  request.headers = std::move(headers);
  const HttpResponse response = s.api->Handle(request);
  Reply r{response.status, json::parse(response.body, nullptr, false)};
  if (r.body.is_discarded()) r.body = response.body;
  return r;
}

void TenancyDiff::Both(const std::string& method, const std::string& path, const json& body) {
  for (Side& s : sides_) {
    const Reply r = Send(s, method, path, body, kAdmin);
    ASSERT_LT(r.status, 300) << method << " " << path << ": " << r.body.dump();
  }
}

Reply TenancyDiff::ToolOn(Side& s, const std::string& key, const std::string& tool,
                          const json& args, bool stateless) {
  json params = {{"name", tool}, {"arguments", args}};
  std::vector<std::pair<std::string, std::string>> headers = {
      {"accept", "application/json, text/event-stream"}};
  if (stateless) {
    params["_meta"] = {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                       {"io.modelcontextprotocol/clientCapabilities", json::object()}};
    headers.insert(
        headers.end(),
        {{"mcp-protocol-version", "2026-07-28"}, {"mcp-method", "tools/call"}, {"mcp-name", tool}});
  }
  return Send(s, "POST", "/mcp",
              {{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/call"}, {"params", params}}, key,
              headers);
}

json TenancyDiff::Compare(const std::string& what, const std::function<Reply(Side&)>& send,
                          bool ranked) {
  json seen[2];
  for (int i = 0; i < 2; ++i) {
    const Reply r = send(sides_[i]);
    seen[i] = {{"status", r.status}, {"body", Normalize(sides_[i], r.body, ranked)}};
  }
  EXPECT_EQ(seen[0].dump(1), seen[1].dump(1)) << what;
  ++compared_;
  return seen[0];
}

json TenancyDiff::Http(const std::string& agent, const std::string& method, const std::string& path,
                       const json& body, bool ranked) {
  const std::string key = agent == "admin" ? kAdmin : kKeys.at(agent);
  return Compare(
      agent + " " + method + " " + path + " " + body.dump(),
      [&](Side& s) { return Send(s, method, path, body, key); }, ranked);
}

json TenancyDiff::Tool(const std::string& agent, const std::string& tool, const json& args,
                       bool stateless, bool ranked) {
  return Compare(
      agent + " " + tool + " " + args.dump(),
      [&](Side& s) { return ToolOn(s, kKeys.at(agent), tool, args, stateless); }, ranked);
}

json TenancyDiff::Normalize(Side& s, json v, bool ranked) {
  if (v.is_object()) {
    for (const char* key :
         {"score", "relevance", "bm25", "distance", "timings_us", "micros", "max_bm25"}) {
      v.erase(key);
    }
    if (v.contains("text_rank")) {
      // A fused hit's ranks and text component follow BM25's order, whose
      // statistics are collection-wide, as its scores are.
      for (const char* key : {"rank", "text_rank", "text"}) v.erase(key);
    }
    if (v.contains("content") && v.contains("structuredContent")) v.erase("content");
    for (auto& [key, child] : v.items()) child = Normalize(s, child, ranked);
    for (const char* list : {"hits", "results", "chunks", "memories"}) {
      if (ranked && v.contains(list) && v[list].is_array()) {
        std::vector<std::string> items;
        for (const json& h : v[list]) items.push_back(h.dump());
        std::sort(items.begin(), items.end());
        v[list] = json::array();
        for (const std::string& h : items) v[list].push_back(json::parse(h));
      }
    }
  } else if (v.is_array()) {
    for (json& child : v) child = Normalize(s, child, ranked);
  } else if (v.is_string()) {
    const std::string& text = v.get_ref<const std::string&>();
    if (text.size() == 36 && text[8] == '-' && text.rfind("00000000-", 0) != 0 && text[14] == '4') {
      auto [it, added] = s.uuids.emplace(text, "uuid#" + std::to_string(s.uuids.size()));
      return it->second;
    }
  }
  return v;
}

}  // namespace engram::server::http::tenancy
