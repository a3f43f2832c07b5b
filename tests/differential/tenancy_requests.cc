// The tenancy fixture's random requests (tenancy_fixture.h): searches with
// random text, vector, mode and filter, and one random request of any
// endpoint or MCP tool, every answer compared between the two stores.
#include <string>
#include <vector>

#include "tests/differential/tenancy_fixture.h"

namespace engram::server::http::tenancy {

json TenancyDiff::RandomSearch(Rng& rng) {
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
    if ((mode != "vector" || body.contains("vector")) && (mode != "text" || body.contains("query")))
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

void TenancyDiff::RandomRequest(Rng& rng, const std::string& agent) {
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
           "/v1/collections/notes/" + (owner.empty() ? "" : "agents/" + owner + "/") + "records/" +
               id);
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
      json record =
          Note(copy, id, rng.Below(4) == 0 ? "bob" : agent, "agent_private", rng.Words(kWords, 3));
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

}  // namespace engram::server::http::tenancy
