#include "integration/node_ops.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>
#include <thread>

namespace engram::testing {
namespace {

const std::vector<std::string> kWords = {"amber", "birch",  "cedar", "delta",   "ember", "fjord",
                                         "grove", "harbor", "iris",  "juniper", "kelp",  "lumen"};
const std::vector<std::string> kTypes = {"fact", "event", "decision"};
const std::vector<std::string> kScopes = {"agent_private", "project_shared", "org_shared"};
constexpr int kPool = 40;     // ids r0 .. r39
constexpr int kAllHits = 50;  // k past the pool: no search is cut
// A request carrying a token the node has not reached within the server's
// bound (10 s) is answered 503; on a loaded machine the test asks again.
constexpr int kTokenTries = 6;

json Leaf(const std::string& op, const std::string& field, const json& value) {
  return {{"op", op}, {"field", field}, {"value", value}};
}

json Expr(const json& expr) {
  return {{"schema", "search_filter_expr/v1"}, {"expr", expr}};
}

bool Near(double a, double b) {
  return std::abs(a - b) <= 1e-6 * std::max(1.0, std::abs(a));
}

// A search's hits as id -> (score, record), and their scores in order;
// "" or what is wrong.
std::string Hits(const json& body, std::map<std::string, std::pair<double, json>>* out,
                 std::vector<double>* scores) {
  if (!body.is_object() || !body.contains("hits") || !body["hits"].is_array()) {
    return "no hits in " + body.dump();
  }
  for (const json& hit : body["hits"]) {
    const std::string id = hit.value("id", "");
    scores->push_back(hit.value("score", 0.0));
    if (!out->emplace(id, std::make_pair(scores->back(), hit.value("record", json()))).second) {
      return "hit '" + id + "' twice in " + body.dump();
    }
  }
  return "";
}

}  // namespace

json NotesCollection() {
  // No recall statistics: a search on one node would change what the others read.
  return {{"name", kNotes},
          {"schema", "preset:notes"},
          {"text", {{{"name", "content"}}}},
          {"hit_count_field", ""},
          {"last_hit_field", ""}};
}

Answer Call(int port, std::string_view method, const std::string& path, const json& body,
            const std::string& token, Millis timeout) {
  Answer answer;
  for (int tries = 0; tries < kTokenTries; ++tries) {
    RawConnection connection(port);
    if (!connection.ok()) return answer;
    const std::string headers = token.empty() ? "" : "Engram-Token: " + token + "\r\n";
    const RawReply reply = connection.Exchange(
        Request(method, path, body.is_null() ? "" : body.dump(), headers), timeout);
    answer.status = reply.status;
    answer.body = json::parse(reply.body, nullptr, false);
    answer.token = reply.Header("Engram-Token");
    if (!(answer.status == 503 && answer.body.is_object() &&
          answer.body.value("path", "") == "Engram-Token")) {
      break;
    }
  }
  return answer;
}

json Note(const std::string& id, const std::string& words, const std::string& type,
          const std::string& scope, double importance) {
  return {{"id", id},          {"content", words},
          {"type", type},      {"scope", scope},
          {"agent_id", "a1"},  {"importance", importance},
          {"confidence", 0.9}, {"updated_at", "2024-05-01T10:00:00Z"}};
}

std::string RandomOps::Pick(const std::vector<std::string>& from) {
  return from[std::uniform_int_distribution<std::size_t>(0, from.size() - 1)(rng_)];
}

json RandomOps::Filter() {
  switch (std::uniform_int_distribution<int>(0, 2)(rng_)) {
    case 0:
      return Expr(Leaf("eq", "scope", Pick(kScopes)));
    case 1:
      return Expr(Leaf("gte", "importance", std::uniform_int_distribution<int>(1, 9)(rng_) / 10.0));
    default:
      return Expr(
          {{"op", "and"},
           {"args", {Leaf("eq", "type", Pick(kTypes)), Leaf("neq", "scope", Pick(kScopes))}}});
  }
}

Op RandomOps::Write() {
  const std::string records = std::string("/v1/collections/") + kNotes + "/records";
  auto id = [&] {
    return "r" + std::to_string(std::uniform_int_distribution<int>(0, kPool - 1)(rng_));
  };
  const int kind = std::uniform_int_distribution<int>(0, 9)(rng_);
  if (kind < 5) {
    std::set<std::string> ids;
    for (int n = std::uniform_int_distribution<int>(1, 4)(rng_); n > 0; --n) ids.insert(id());
    json notes = json::array();
    for (const std::string& i : ids) {
      std::string words;
      for (int w = std::uniform_int_distribution<int>(2, 6)(rng_); w > 0; --w) {
        words += (words.empty() ? "" : " ") + Pick(kWords);
      }
      notes.push_back(Note(i, words, Pick(kTypes), Pick(kScopes),
                           std::uniform_int_distribution<int>(0, 10)(rng_) / 10.0));
    }
    return {"POST", records, {{"records", notes}}, "upsert " + notes.dump()};
  }
  if (kind < 8) {
    std::set<std::string> ids;
    for (int n = std::uniform_int_distribution<int>(1, 3)(rng_); n > 0; --n) ids.insert(id());
    const json body = {{"ids", ids}};
    return {"POST", records + ":delete", body, "delete " + body.dump()};
  }
  const json body = {
      {"filter",
       Expr({{"op", "and"},
             {"args", {Leaf("eq", "type", Pick(kTypes)), Leaf("eq", "scope", Pick(kScopes))}}})},
      {"dialect", "expr_v1"}};
  return {"POST", records + ":delete", body, "delete where " + body.dump()};
}

Op RandomOps::Read() {
  const std::string base = std::string("/v1/collections/") + kNotes;
  const int kind = std::uniform_int_distribution<int>(0, 9)(rng_);
  if (kind < 6) {
    json body = {{"query", Pick(kWords) + (kind % 2 == 0 ? " " + Pick(kWords) : "")},
                 {"k", kAllHits}};
    if (kind >= 3) {
      body["filter"] = Filter();
      body["dialect"] = "expr_v1";
    }
    return {"POST", base + "/search", body, "search " + body.dump()};
  }
  if (kind < 8) {
    json body = {{"filter", Filter()}, {"dialect", "expr_v1"}};
    if (kind == 6) body = json::object();
    return {"POST", base + "/records:count", body, "count " + body.dump()};
  }
  const std::string id =
      "r" + std::to_string(std::uniform_int_distribution<int>(0, kPool - 1)(rng_));
  return {"GET", base + "/records/" + id, nullptr, "get " + id};
}

bool CreateNotes(const std::vector<int>& ports) {
  const Answer created = Call(ports[0], "POST", "/v1/collections", NotesCollection());
  if (created.status != 201 || created.token.empty()) return false;
  // With the creation's token every node answers only once it has the collection.
  for (int port : ports) {
    if (Call(port, "GET", std::string("/v1/collections/") + kNotes, nullptr, created.token)
            .status != 200) {
      return false;
    }
  }
  return true;
}

bool AwaitReady(int port, int status, int seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (std::chrono::steady_clock::now() < until) {
    if (Call(port, "GET", "/readyz", nullptr, "", Millis(2000)).status == status) return true;
    std::this_thread::sleep_for(Millis(50));
  }
  return false;
}

std::map<std::string, json> Listing(int port, const std::string& token, std::string* error) {
  std::map<std::string, json> out;
  json body = {{"page_size", 1000}};
  const std::string path = std::string("/v1/collections/") + kNotes + "/records:list";
  for (int page = 0; page < 100; ++page) {
    const Answer a = Call(port, "POST", path, body, token);
    if (a.status != 200 || !a.body.contains("records")) {
      *error = "records:list answered " + std::to_string(a.status) + " " + a.body.dump();
      return out;
    }
    for (const json& record : a.body["records"]) {
      const std::string id = record.value("id", "");
      if (!out.emplace(id, record).second) {
        *error = "record '" + id + "' listed twice";
        return out;
      }
    }
    if (!a.body.contains("next_page_token")) return out;
    body["page_token"] = a.body["next_page_token"];
  }
  *error = "records:list did not end";
  return out;
}

std::string Differs(const Op& op, const Answer& a, const Answer& b) {
  if (a.status != b.status) {
    return "status " + std::to_string(a.status) + " against " + std::to_string(b.status) + ": " +
           a.body.dump() + " against " + b.body.dump();
  }
  if (op.path.ends_with("/search") && a.status == 200) {
    // The same hits, each with the same record and score, and the same
    // scores in order: the same order but among equal scores.
    std::map<std::string, std::pair<double, json>> ha, hb;
    std::vector<double> sa, sb;
    for (const std::string& wrong : {Hits(a.body, &ha, &sa), Hits(b.body, &hb, &sb)}) {
      if (!wrong.empty()) return wrong;
    }
    bool same = sa.size() == sb.size();
    for (std::size_t i = 0; same && i < sa.size(); ++i) same = Near(sa[i], sb[i]);
    for (auto ia = ha.begin(), ib = hb.begin(); same && ia != ha.end(); ++ia, ++ib) {
      same = ia->first == ib->first && Near(ia->second.first, ib->second.first) &&
             ia->second.second == ib->second.second;
    }
    if (!same) return "hits " + a.body.dump() + " against " + b.body.dump();
    return "";
  }
  if (a.body != b.body) return a.body.dump() + " against " + b.body.dump();
  return "";
}

std::string MaxToken(const std::string& a, const std::string& b) {
  auto value = [](const std::string& t) { return t.empty() ? 0 : std::stoull(t); };
  return value(a) >= value(b) ? a : b;
}

}  // namespace engram::testing
