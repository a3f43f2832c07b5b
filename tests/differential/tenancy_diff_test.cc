// Tenancy, differentially (issue 17, SEARCH.md §6): what an agent observes
// never depends on records it may not read. Two stores differ only in bob's
// private records (other texts, secret words, ids that collide with the
// other agents' and with ids they write later); every request alice, carol
// and dave make, over every HTTP endpoint and every MCP tool (both eras, and
// the stdio transport), must get the same answer from both, scores and
// timings aside, with k large enough to return every match: status, problem
// text, hits, counts, filter impact, explain, every page of a listing (its
// tokens included), counts and facets. Requests are random (seeded)
// plus the concrete attacks of the issue. The same comparison for the owner
// and for bob must see the difference, so the comparison can fail.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "engram/engine.h"
#include "server/http/api.h"
#include "server/http/auth.h"
#include "server/mcp/mcp_server.h"

namespace engram::server::http {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr char kAdmin[] = "admin-key-0123456789";
// agent -> key; alice private_plus_project, carol all_scopes, dave
// private_only; bob is the agent whose private records differ.
const std::map<std::string, std::string> kKeys = {{"alice", "alice-key-0123456789"},
                                                  {"carol", "carol-key-0123456789"},
                                                  {"dave", "dave-key-01234567890"},
                                                  {"bob", "bob-key-0123456789ab"}};
const std::vector<std::string> kReaders = {"alice", "carol", "dave"};
const std::vector<std::string> kWords = {"river",  "mill",   "dawn",   "stone", "bridge",
                                         "copper", "meadow", "falcon", "harbor"};
// Only bob's private records have these.
const std::vector<std::string> kSecrets = {"zebrapassword42", "orchid77", "quasar"};
constexpr int kDim = 4;

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

// A memory id for seeded memories: UUID-shaped, never random (the
// normaliser maps only ids StoreMemory makes up).
std::string SeedUuid(int n) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "00000000-0000-4000-8000-%012d", n);
  return buf;
}

class Rng {
 public:
  explicit Rng(unsigned seed) : gen_(seed) {}
  std::size_t Below(std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n - 1)(gen_);
  }
  bool Coin() { return Below(2) == 0; }
  template <typename T>
  const T& Pick(const std::vector<T>& v) {
    return v[Below(v.size())];
  }
  double Unit() { return std::uniform_real_distribution<double>(0, 1)(gen_); }
  std::string Words(const std::vector<std::string>& pool, std::size_t n) {
    std::string out;
    for (std::size_t i = 0; i < n; ++i) out += (i ? " " : "") + Pick(pool);
    return out;
  }
  json Vector() {
    json v = json::array();
    for (int i = 0; i < kDim; ++i) v.push_back(Unit() * 2 - 1 + (i == 0 ? 0.01 : 0));
    return v;
  }

 private:
  std::mt19937 gen_;
};

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

// One store with its API and MCP server.
struct Side {
  fs::path dir;
  std::unique_ptr<Engine> engine;
  std::unique_ptr<mcp::McpServer> mcp;
  std::unique_ptr<Api> api;
  std::map<std::string, std::string> uuids;  // StoreMemory's random ids -> "uuid#n"
};

struct Reply {
  int status = 0;
  json body;
};

class TenancyDiff : public ::testing::Test {
 protected:
  void SetUp() override {
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
      Send(sides_[side], "POST", "/v1/collections/memories/records",
           {{"records", private_memories}}, kAdmin);
    }
  }

  void TearDown() override {
    for (Side& s : sides_) {
      s.api.reset();
      s.mcp.reset();
      s.engine.reset();
      fs::remove_all(s.dir);
    }
  }

  static Reply Send(Side& s, const std::string& method, const std::string& path, const json& body,
                    const std::string& key,
                    std::vector<std::pair<std::string, std::string>> headers = {}) {
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

  void Both(const std::string& method, const std::string& path, const json& body) {
    for (Side& s : sides_) {
      const Reply r = Send(s, method, path, body, kAdmin);
      ASSERT_LT(r.status, 300) << method << " " << path << ": " << r.body.dump();
    }
  }

  // A tools/call through /mcp, in the 2026-07-28 era or the handshake era.
  static Reply ToolOn(Side& s, const std::string& key, const std::string& tool, const json& args,
                      bool stateless) {
    json params = {{"name", tool}, {"arguments", args}};
    std::vector<std::pair<std::string, std::string>> headers = {
        {"accept", "application/json, text/event-stream"}};
    if (stateless) {
      params["_meta"] = {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                         {"io.modelcontextprotocol/clientCapabilities", json::object()}};
      headers.insert(headers.end(), {{"mcp-protocol-version", "2026-07-28"},
                                     {"mcp-method", "tools/call"},
                                     {"mcp-name", tool}});
    }
    return Send(s, "POST", "/mcp",
                {{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/call"}, {"params", params}}, key,
                headers);
  }

  // The same request to both sides, answers compared after Normalize.
  // Returns side 0's answer.
  json Compare(const std::string& what, const std::function<Reply(Side&)>& send, bool ranked) {
    json seen[2];
    for (int i = 0; i < 2; ++i) {
      const Reply r = send(sides_[i]);
      seen[i] = {{"status", r.status}, {"body", Normalize(sides_[i], r.body, ranked)}};
    }
    EXPECT_EQ(seen[0].dump(1), seen[1].dump(1)) << what;
    ++compared_;
    return seen[0];
  }
  json Http(const std::string& agent, const std::string& method, const std::string& path,
            const json& body = nullptr, bool ranked = false) {
    const std::string key = agent == "admin" ? kAdmin : kKeys.at(agent);
    return Compare(
        agent + " " + method + " " + path + " " + body.dump(),
        [&](Side& s) { return Send(s, method, path, body, key); }, ranked);
  }
  json Tool(const std::string& agent, const std::string& tool, const json& args, bool stateless,
            bool ranked) {
    return Compare(
        agent + " " + tool + " " + args.dump(),
        [&](Side& s) { return ToolOn(s, kKeys.at(agent), tool, args, stateless); }, ranked);
  }

  // Scores and timings aside; ranked hit lists as sets; the ids StoreMemory
  // makes up as the order they first appeared in on that side.
  json Normalize(Side& s, json v, bool ranked) {
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
      if (text.size() == 36 && text[8] == '-' && text.rfind("00000000-", 0) != 0 &&
          text[14] == '4') {
        auto [it, added] = s.uuids.emplace(text, "uuid#" + std::to_string(s.uuids.size()));
        return it->second;
      }
    }
    return v;
  }

  json RandomSearch(Rng& rng) {
    json body = {{"k", 1000}, {"candidate_k", 1000}, {"explain", true}, {"impact", true}};
    const std::size_t words = rng.Below(4);
    if (words > 0) {
      std::vector<std::string> pool = kWords;
      pool.insert(pool.end(), kSecrets.begin(), kSecrets.end());
      std::string q = rng.Words(pool, words);
      if (rng.Below(5) == 0) q = "\"" + q + "\"";
      if (rng.Below(5) == 0) q = rng.Pick(pool).substr(0, 3) + "*";
      if (rng.Below(6) == 0) q += " OR " + rng.Pick(kSecrets);
      body["query"] = q;
    }
    if (rng.Coin()) body["vector"] = rng.Vector();
    if (body.contains("query") || body.contains("vector")) {
      const std::vector<std::string> modes = {"text", "vector", "hybrid"};
      const std::string mode = rng.Pick(modes);
      if ((mode != "vector" || body.contains("vector")) &&
          (mode != "text" || body.contains("query")))
        body["mode"] = mode;
      body["filter_mode"] = rng.Pick(std::vector<std::string>{"auto", "pre", "post"});
    } else {
      body.erase("explain");
      body.erase("impact");
    }
    if (rng.Below(3) != 0) {
      const std::vector<json> filters = {
          {{"type", "fact"}},
          {{"importance", {{"$gte", 0.3}}}},
          {{"agent_id", "bob"}},
          {{"scope", "agent_private"}},
          {{"$or", {{{"agent_id", "bob"}}, {{"type", {{"$ne", "decision"}}}}}}},
          {{"agent_id", {{"$nin", {"alice"}}}}}};
      body["dialect"] = "vector_filter";
      body["filter"] = rng.Pick(filters);
    }
    return body;
  }

  // One random request by `agent`, over HTTP or MCP.
  void RandomRequest(Rng& rng, const std::string& agent) {
    std::vector<std::string> ids = ids_;
    ids.insert(ids.end(), bob_ids_.begin(), bob_ids_.end());
    ids.insert(ids.end(), {"bx1", "nope", "bob-2000"});
    std::vector<std::string> uuids = uuids_;
    uuids.insert(uuids.end(), bob_uuids_.begin(), bob_uuids_.end());
    const std::string id = rng.Pick(ids);
    switch (rng.Below(14)) {
      case 0:
      case 1:
      case 2: {
        const json body = RandomSearch(rng);
        Http(agent, "POST", "/v1/collections/notes/search", body,
             body.contains("query") || body.contains("vector"));
        break;
      }
      case 3:
        Http(agent, "GET", "/v1/collections");
        Http(agent, "GET",
             "/v1/collections/" + rng.Pick(std::vector<std::string>{"notes", "memories", "plain"}));
        break;
      case 4: {
        const std::string owner = rng.Pick(std::vector<std::string>{"", "bob", "alice", agent});
        Http(agent, "GET",
             "/v1/collections/notes/" + (owner.empty() ? "" : "agents/" + owner + "/") +
                 "records/" + id);
        break;
      }
      case 5:
        if (rng.Coin()) {
          Http(agent, "DELETE", "/v1/collections/notes/records/" + id);
        } else {
          json body = {{"ids", {id, rng.Pick(ids)}}};
          if (rng.Coin()) body["agent"] = rng.Pick(std::vector<std::string>{"bob", agent});
          if (rng.Below(3) == 0)
            body = {{"dialect", "vector_filter"}, {"filter", {{"type", "fact"}}}};
          Http(agent, "POST", "/v1/collections/notes/records:delete", body);
        }
        break;
      case 6: {
        Rng copy(static_cast<unsigned>(rng.Below(1000)));
        json record = Note(copy, id, rng.Below(4) == 0 ? "bob" : agent, "agent_private",
                           rng.Words(kWords, 3));
        Http(agent, "POST", "/v1/collections/notes/records", {{"records", {record}}});
        break;
      }
      case 7:
        Http(agent, "POST", "/v1/collections/notes/filters/check",
             {{"dialect", "vector_filter"}, {"filter", {{"agent_id", "bob"}}}});
        Http(agent, "POST", "/v1/retrieves/facts/run", {{"query", rng.Words(kWords, 2)}}, true);
        Http(agent, "GET", "/v1/retrieves");
        break;
      case 8:
      case 9: {
        const std::string type =
            rng.Pick(std::vector<std::string>{"basic", "filtered", "by_memory_id"});
        json args = {
            {"search_type", type},
            {"limit", 100},
            {"score_threshold", 0},
            {"detail", rng.Pick(std::vector<std::string>{"compact", "summary", "graph", "full"})}};
        if (type == "by_memory_id") {
          std::string u = rng.Pick(uuids);
          if (rng.Coin()) std::transform(u.begin(), u.end(), u.begin(), ::toupper);
          args["query"] = u;
        } else {
          std::vector<std::string> pool = kWords;
          pool.insert(pool.end(), kSecrets.begin(), kSecrets.end());
          args["query"] = rng.Coin() ? "" : rng.Words(pool, 1 + rng.Below(2));
          if (rng.Coin()) {
            args["filters"] = {
                {{"field", rng.Pick(std::vector<std::string>{"session_id", "agent_id"})},
                 {"operator", "is"},
                 {"value", rng.Pick(std::vector<std::string>{"s1", "bob", agent})}}};
          }
        }
        const bool ranked = args["query"] != "" && type != "by_memory_id";
        Tool(agent, "SearchMemory", args, rng.Coin(), ranked);
        break;
      }
      case 10: {
        std::string u = rng.Pick(uuids);
        if (rng.Coin()) std::transform(u.begin(), u.end(), u.begin(), ::toupper);
        Tool(agent, "ForgetMemory", {{"memory_id", u}}, rng.Coin(), false);
        break;
      }
      case 12: {
        // list (every page), count and facets, filtered or not.
        json selection = json::object();
        if (rng.Coin()) selection = RandomSearch(rng);
        for (const char* key :
             {"k", "candidate_k", "explain", "impact", "query", "vector", "mode", "filter_mode"}) {
          selection.erase(key);
        }
        json list = selection;
        list["page_size"] = 1 + rng.Below(6);
        if (rng.Coin())
          list["order_by"] =
              rng.Pick(std::vector<std::string>{"importance:desc", "type", "updated_at:asc"});
        for (int page = 0; page < 40; ++page) {
          const json got = Http(agent, "POST", "/v1/collections/notes/records:list", list);
          if (!got["body"].contains("next_page_token")) break;
          list["page_token"] = got["body"]["next_page_token"];
        }
        Http(agent, "POST", "/v1/collections/notes/records:count", selection);
        json facets = selection;
        facets["field"] = rng.Pick(std::vector<std::string>{"agent_id", "type", "scope"});
        facets["top"] = 1 + rng.Below(5);
        Http(agent, "POST", "/v1/collections/notes/records:facets", facets);
        facets.erase("top");
        facets["field"] = "updated_at";
        facets["ranges"] = {{{"to", "2026-01-15"}},
                            {{"from", "2026-01-15"}, {"to", "2026-01-20"}},
                            {{"from", "2026-01-20"}}};
        Http(agent, "POST", "/v1/collections/notes/records:facets", facets);
        break;
      }
      case 13: {
        json filters = json::array();
        if (rng.Coin()) {
          filters = {{{"field", rng.Pick(std::vector<std::string>{"session_id", "agent_id"})},
                      {"operator", "is"},
                      {"value", rng.Pick(std::vector<std::string>{"s1", "bob", agent})}}};
        }
        // Every page on each side, compared as one set: StoreMemory's ids
        // are random, so ties in the order (and the cursors, which hold the
        // last key) differ between the sides.
        const json args = {{"page_size", 1 + rng.Below(5)}, {"filters", filters}};
        const bool stateless = rng.Coin();
        Compare(
            agent + " ListMemories " + args.dump(),
            [&](Side& s) {
              Reply all{200, {{"memories", json::array()}}};
              json page_args = args;
              for (int page = 0; page < 40; ++page) {
                const Reply r = ToolOn(s, kKeys.at(agent), "ListMemories", page_args, stateless);
                const json& result = r.body["result"]["structuredContent"];
                if (r.status != 200 || !result.is_object()) return r;
                for (const json& m : result["memories"]) all.body["memories"].push_back(m);
                if (!result.contains("next_cursor")) break;
                page_args["cursor"] = result["next_cursor"];
              }
              return all;
            },
            true);
        Tool(agent, "MemoryStats",
             {{"filters", filters},
              {"field", rng.Pick(std::vector<std::string>{"session_id", "tool", "agent_id"})}},
             rng.Coin(), false);
        break;
      }
      default:
        if (rng.Coin()) {
          Tool(agent, "StoreMemory",
               {{"content", rng.Words(kWords, 4)}, {"session_id", rng.Coin() ? "s1" : "s2"}},
               rng.Coin(), false);
        } else {
          Tool(agent, "Retrieve", {{"name", "facts"}, {"query", rng.Words(kWords, 2)}}, rng.Coin(),
               true);
        }
    }
  }

  Side sides_[2];
  std::vector<std::string> ids_, uuids_, bob_uuids_;
  std::set<std::string> bob_ids_;
  int compared_ = 0;
};

TEST_F(TenancyDiff, RandomRequestsAnswerTheSameWhateverBobKeepsPrivate) {
  for (unsigned seed : {1u, 2u, 3u}) {
    Rng rng(seed);
    for (int i = 0; i < 60; ++i) RandomRequest(rng, rng.Pick(kReaders));
  }
  EXPECT_GE(compared_, 180);
}

// The comparison sees a difference where there is one: the owner's and
// bob's own views differ between the sides.
TEST_F(TenancyDiff, TheComparisonCanFail) {
  const json describe[2] = {Send(sides_[0], "GET", "/v1/collections/notes", nullptr, kAdmin).body,
                            Send(sides_[1], "GET", "/v1/collections/notes", nullptr, kAdmin).body};
  EXPECT_NE(describe[0]["records"], describe[1]["records"]);
  const json count[2] = {
      Send(sides_[0], "POST", "/v1/collections/notes/records:count", json::object(), kAdmin).body,
      Send(sides_[1], "POST", "/v1/collections/notes/records:count", json::object(), kAdmin).body};
  EXPECT_NE(count[0]["count"], count[1]["count"]);
  const json search = {{"query", "zebrapassword42 OR orchid77 OR quasar"}, {"k", 1000}};
  const Reply bob[2] = {
      Send(sides_[0], "POST", "/v1/collections/notes/search", search, kKeys.at("bob")),
      Send(sides_[1], "POST", "/v1/collections/notes/search", search, kKeys.at("bob"))};
  EXPECT_FALSE(bob[0].body["hits"].empty());
  EXPECT_TRUE(bob[1].body["hits"].empty());
}

// zebrapassword42 is a word of bob's private record only: alice's answer
// is the one for a word nobody has, impact and explain included.
TEST_F(TenancyDiff, ASecretWordLeavesNoTrace) {
  for (const std::string mode : {"auto", "post"}) {
    json body = {{"query", "zebrapassword42"},
                 {"k", 1000},
                 {"candidate_k", 1000},
                 {"explain", true},
                 {"impact", true},
                 {"filter_mode", mode},
                 {"dialect", "vector_filter"},
                 {"filter", {{"type", {{"$ne", "x"}}}}}};
    json secret = Http("alice", "POST", "/v1/collections/notes/search", body, true);
    body["query"] = "quokka99";
    json absent = Http("alice", "POST", "/v1/collections/notes/search", body, true);
    for (json* answer : {&secret, &absent})
      (*answer)["body"]["explain"].erase("query");  // its echo
    EXPECT_EQ(secret, absent);
    const Reply raw = Send(sides_[0], "POST", "/v1/collections/notes/search",
                           {{"query", "zebrapassword42"},
                            {"explain", true},
                            {"impact", true},
                            {"dialect", "vector_filter"},
                            {"filter", {{"type", {{"$ne", "x"}}}}}},
                           kKeys.at("alice"));
    EXPECT_EQ(raw.body["filter_impact"]["candidate_count_pre"], 0);
    EXPECT_EQ(raw.body["filter_impact"]["top_drop_reasons"], json::array());
    EXPECT_EQ(raw.body["explain"]["text"]["max_bm25"], 0.0);
  }
}

// bob-2000 is bob's on side 0 and nobody's on side 1: alice takes it the
// same way on both, and bob keeps (or can still write) his own.
TEST_F(TenancyDiff, AnIdCannotBeProbedOrTaken) {
  json record = {{"id", "bob-2000"},      {"content", "mine now"},
                 {"type", "fact"},        {"scope", "agent_private"},
                 {"agent_id", "alice"},   {"importance", 0.5},
                 {"confidence", 0.5},     {"updated_at", "2026-02-01T00:00:00Z"},
                 {"vector", {1, 0, 0, 0}}};
  const json wrote =
      Http("alice", "POST", "/v1/collections/notes/records", {{"records", {record}}});
  EXPECT_EQ(wrote["status"], 200);
  EXPECT_EQ(Http("alice", "GET", "/v1/collections/notes/records/bob-2000")["body"]["agent_id"],
            "alice");
  EXPECT_EQ(Http("alice", "GET", "/v1/collections/notes/agents/bob/records/bob-2000")["status"],
            404);
  EXPECT_EQ(Http("alice", "DELETE", "/v1/collections/notes/agents/bob/records/bob-2000")["status"],
            403);
  record["agent_id"] = "bob";
  record["content"] = "still mine";
  for (Side& s : sides_) {
    EXPECT_EQ(
        Send(s, "POST", "/v1/collections/notes/records", {{"records", {record}}}, kKeys.at("bob"))
            .status,
        200);
    const Reply got =
        Send(s, "GET", "/v1/collections/notes/records/bob-2000", nullptr, kKeys.at("bob"));
    EXPECT_EQ(got.body["content"], "still mine");
  }
  // The owner must name the agent now that two hold the id.
  const Reply ambiguous =
      Send(sides_[0], "GET", "/v1/collections/notes/records/bob-2000", nullptr, kAdmin);
  EXPECT_EQ(ambiguous.status, 409) << ambiguous.body.dump();
  EXPECT_EQ(
      Send(sides_[0], "GET", "/v1/collections/notes/agents/alice/records/bob-2000", nullptr, kAdmin)
          .body["content"],
      "mine now");
}

// Collection listings and descriptions count what the caller can read.
TEST_F(TenancyDiff, DescriptionsCountPerCaller) {
  for (const std::string& agent : kReaders) {
    const json list = Http(agent, "GET", "/v1/collections");
    ASSERT_EQ(list["status"], 200);
    for (const json& c : list["body"]["collections"]) EXPECT_NE(c["name"], "plain") << agent;
    Http(agent, "GET", "/v1/collections/notes");
    Http(agent, "GET", "/v1/collections/memories");
    EXPECT_EQ(Http(agent, "GET", "/v1/collections/plain")["status"], 403);
  }
  EXPECT_EQ(Http("dave", "GET", "/v1/collections/notes")["body"]["records"], 10);
}

// The stdio transport scopes as HTTP does (engram mcp runs as the local
// owner, so a scoped principal is given here directly).
TEST_F(TenancyDiff, StdioToolsAnswerTheSame) {
  const Principal alice{"alice", ReadProfile::kPrivatePlusProject, false};
  for (const std::string& query :
       {std::string("zebrapassword42"), std::string("river"), std::string("")}) {
    const json request = {
        {"jsonrpc", "2.0"},
        {"id", 3},
        {"method", "tools/call"},
        {"params",
         {{"name", "SearchMemory"},
          {"arguments",
           {{"query", query}, {"limit", 100}, {"score_threshold", 0}, {"detail", "full"}}}}}};
    Compare(
        "stdio SearchMemory " + query,
        [&](Side& s) {
          return Reply{200, json::parse(s.mcp->HandleMessage(request.dump(), alice))};
        },
        true);
  }
}

}  // namespace
}  // namespace engram::server::http
