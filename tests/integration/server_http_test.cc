// The HTTP API end to end: a real Server on a loopback port over a real
// store, driven with httplib::Client: probes, metrics and OpenAPI,
// collections, records, search and filters, retrieve configurations,
// supersession, embedder collections. Errors, auth, overload and stop:
// server_http_guard_test.cc.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <ctime>
#include <future>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "tests/integration/server_http_fixture.h"

namespace engram::server::http {
namespace {
namespace server_http_test {

TEST_F(ServerHttpTest, ProbesMetricsAndOpenApi) {
  Start(true);
  EXPECT_EQ(Send("GET", "/livez", "", "").status, 200);
  Reply ready = Send("GET", "/readyz", "", "");
  EXPECT_EQ(ready.status, 200);
  EXPECT_EQ(ready.body["status"], "ready");
  Reply spec = Send("GET", "/openapi.json", "", "");
  EXPECT_EQ(spec.status, 200);
  EXPECT_EQ(spec.body.value("openapi", ""), "3.1.0");
  {
    // HEAD: GET's headers without the body, and the connection stays in step.
    httplib::Client h = Client();
    httplib::Result get = h.Get("/openapi.json");
    httplib::Result head = h.Head("/openapi.json");
    ASSERT_TRUE(get && head);
    EXPECT_EQ(head->status, 200);
    EXPECT_TRUE(head->body.empty());
    EXPECT_EQ(head->get_header_value("Content-Length"), std::to_string(get->body.size()));
    httplib::Result after = h.Get("/livez");
    ASSERT_TRUE(after);
    EXPECT_EQ(after->status, 200);
  }
  CreateNotes();
  ExpectProblem(Send("GET", "/metrics", "", ""), 401, "auth.unauthenticated");
  ExpectProblem(Send("GET", "/metrics", "", kAliceKey), 403, "auth.forbidden");
  httplib::Client c = Client(kAdminKey);
  httplib::Result m = c.Get("/metrics");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->status, 200);
  EXPECT_NE(m->get_header_value("Content-Type").find("text/plain"), std::string::npos);
  for (const char* name :
       {"engram_http_requests_total{route=\"/v1/collections\",method=\"POST\",status=\"201\"} 1",
        "engram_http_request_duration_seconds_bucket{route=\"/livez\",le=\"+Inf\"} 2",
        "engram_http_requests_total{route=\"/openapi.json\",method=\"HEAD\",status=\"200\"} 1",
        "engram_http_in_flight", "engram_http_connections",
        "engram_http_errors_total{kind=\"auth.unauthenticated\"} 1",
        "engram_collection_records{collection=\"notes\"} 0",
        "engram_hits_tallied_total{collection=\"notes\"} 0",
        "engram_hits_dropped_total{collection=\"notes\"} 0"}) {
    EXPECT_NE(m->body.find(name), std::string::npos) << name << "\n" << m->body;
  }
  api_->SetDraining();
  ExpectProblem(Send("GET", "/readyz", "", ""), 503, "not_ready");
}

TEST_F(ServerHttpTest, CollectionsLifecycle) {
  Start(false);
  CreateNotes("");
  Reply dup = Post("/v1/collections",
                   {{"name", "notes"}, {"schema", "preset:notes"}, {"text", {"content"}}}, "");
  ExpectProblem(dup, 409, "already_exists");
  Reply inline_schema =
      Post("/v1/collections",
           {{"name", "lore"},
            {"schema", {{"fields", {{{"name", "level"}, {"type", "int"}, {"optional", true}}}}}},
            {"text", {{{"name", "text"}, {"weight", 2}}}},
            {"vector", {{"dim", 4}, {"metric", "l2"}, {"quantization", "int8"}}},
            {"language", "none"}},
           "");
  ASSERT_EQ(inline_schema.status, 201) << inline_schema.body.dump();
  EXPECT_EQ(inline_schema.body["vector"]["dim"], 4);
  EXPECT_EQ(inline_schema.body["vector"]["quantization"], "int8");
  ExpectProblem(Post("/v1/collections",
                     {{"name", "x"},
                      {"schema", "preset:notes"},
                      {"vector", {{"dim", 4}, {"quantization", "int4"}}}},
                     ""),
                400, "request.invalid", "$.vector.quantization");
  EXPECT_EQ(inline_schema.body["text"][0]["weight"], 2.0);
  Reply bad_schema = Post("/v1/collections",
                          {{"name", "x"},
                           {"schema", {{"fields", {{{"name", "a"}, {"type", "bogus"}}}}}},
                           {"text", {"t"}}},
                          "");
  EXPECT_EQ(bad_schema.status, 422) << bad_schema.body.dump();
  EXPECT_EQ(bad_schema.body.value("path", "").rfind("$.schema", 0), 0u) << bad_schema.body.dump();
  ExpectProblem(Post("/v1/collections", {{"name", "x"}, {"schema", "/etc/passwd"}}, ""), 400,
                "request.invalid", "$.schema");
  ExpectProblem(
      Post("/v1/collections", {{"name", "x"}, {"schema", "preset:notes"}, {"txt", 1}}, ""), 400,
      "request.invalid", "$.txt");

  Reply list = Send("GET", "/v1/collections", "", "");
  ASSERT_EQ(list.status, 200);
  EXPECT_EQ(list.body["collections"].size(), 2u);
  Reply one = Send("GET", "/v1/collections/notes", "", "");
  EXPECT_EQ(one.status, 200);
  EXPECT_EQ(one.body["name"], "notes");
  EXPECT_TRUE(one.body["schema"].is_object());
  ExpectProblem(Send("GET", "/v1/collections/nope", "", ""), 404, "not_found");
  EXPECT_EQ(Send("DELETE", "/v1/collections/lore", "", "").status, 200);
  ExpectProblem(Send("DELETE", "/v1/collections/lore", "", ""), 404, "not_found");
}

TEST_F(ServerHttpTest, RecordsSearchAndFilters) {
  Start(false);
  CreateNotes("");
  json records = json::array({Note("n1", "local", "agent_private", "the dragon sleeps"),
                              Note("n2", "local", "project_shared", "the dragon wakes"),
                              Note("n3", "local", "org_shared", "a quiet river")});
  Reply up = Post("/v1/collections/notes/records", {{"records", records}}, "");
  ASSERT_EQ(up.status, 200) << up.body.dump();
  EXPECT_EQ(up.body["written"], 3);

  json bad = records;
  bad[1].erase("importance");
  Reply rejected = Post("/v1/collections/notes/records", {{"records", bad}}, "");
  ExpectProblem(rejected, 422, "record.invalid");
  EXPECT_EQ(rejected.body.value("path", "").rfind("$.records[1]", 0), 0u) << rejected.body.dump();

  Reply got = Send("GET", "/v1/collections/notes/records/n1", "", "");
  ASSERT_EQ(got.status, 200);
  EXPECT_EQ(got.body["content"], "the dragon sleeps");
  ExpectProblem(Send("GET", "/v1/collections/notes/records/zz", "", ""), 404, "not_found");
  ExpectProblem(Send("GET", "/v1/collections/nope/records/zz", "", ""), 404, "not_found");

  Reply hits = Post("/v1/collections/notes/search", {{"query", "dragon"}, {"k", 5}}, "");
  ASSERT_EQ(hits.status, 200) << hits.body.dump();
  ASSERT_EQ(hits.body["hits"].size(), 2u);
  EXPECT_TRUE(hits.body["hits"][0].contains("bm25"));
  EXPECT_TRUE(hits.body["hits"][0]["record"].is_object());

  json expr = {{"schema", "search_filter_expr/v1"},
               {"expr", {{"op", "eq"}, {"field", "scope"}, {"value", "project_shared"}}}};
  Reply filtered = Post("/v1/collections/notes/search",
                        {{"query", "dragon"},
                         {"filter", expr},
                         {"dialect", "expr_v1"},
                         {"impact", true},
                         {"explain", true}},
                        "");
  ASSERT_EQ(filtered.status, 200) << filtered.body.dump();
  ASSERT_EQ(filtered.body["hits"].size(), 1u);
  EXPECT_EQ(filtered.body["hits"][0]["id"], "n2");
  EXPECT_EQ(filtered.body["filter_impact"]["schema"], "search_filter_impact/v1");
  EXPECT_TRUE(filtered.body.contains("explain"));

  json bad_expr = {{"schema", "search_filter_expr/v1"},
                   {"expr", {{"op", "eq"}, {"field", "colour"}, {"value", "x"}}}};
  Reply bad_filter = Post("/v1/collections/notes/search",
                          {{"query", "dragon"}, {"filter", bad_expr}, {"dialect", "expr_v1"}}, "");
  ExpectProblem(bad_filter, 422, "filter.unknown_field", "$.filter.expr.field");
  EXPECT_EQ(bad_filter.body["error_code"], "INVALID_REQUEST");
  EXPECT_EQ(bad_filter.body["code"], 400);
  ExpectProblem(Post("/v1/collections/notes/search", {{"filter", expr}}, ""), 400,
                "request.invalid", "$.dialect");

  Reply check = Post("/v1/collections/notes/filters/check",
                     {{"filter", {{"scope", "org_shared"}}}, {"dialect", "vector_filter"}}, "");
  ASSERT_EQ(check.status, 200) << check.body.dump();
  EXPECT_TRUE(check.body["ok"].get<bool>());
  EXPECT_TRUE(check.body["ir_sexpr"].is_string());
  Reply check_bad =
      Post("/v1/collections/notes/filters/check",
           {{"filter", {{"op", "eq"}, {"args", json::array()}}}, {"dialect", "retrieve"}}, "");
  EXPECT_EQ(check_bad.status, 422) << check_bad.body.dump();
  EXPECT_EQ(check_bad.body["code"], 3007);
  Reply sql = Post("/v1/collections/notes/filters/translate",
                   {{"filter", expr}, {"dialect", "expr_v1"}, {"target", "sqlite"}}, "");
  ASSERT_EQ(sql.status, 200) << sql.body.dump();
  EXPECT_EQ(sql.body["target"], "sqlite");
  EXPECT_TRUE(sql.body["params"].is_array());
  ExpectProblem(Post("/v1/collections/notes/filters/translate",
                     {{"filter", expr}, {"dialect", "expr_v1"}, {"target", "nosuch"}}, ""),
                422, "filter.unsupported", "$.target");

  Reply del_one = Send("DELETE", "/v1/collections/notes/records/n3", "", "");
  EXPECT_EQ(del_one.status, 200);
  EXPECT_EQ(del_one.body["deleted"], 1);
  Reply del_ids = Post("/v1/collections/notes/records:delete", {{"ids", {"n1", "zz"}}}, "");
  EXPECT_EQ(del_ids.body["deleted"], 1) << del_ids.body.dump();
  Reply del_filter =
      Post("/v1/collections/notes/records/delete", {{"filter", expr}, {"dialect", "expr_v1"}}, "");
  EXPECT_EQ(del_filter.body["deleted"], 1) << del_filter.body.dump();
  Reply empty = Send("GET", "/v1/collections/notes", "", "");
  EXPECT_EQ(empty.body["records"], 0);
}

TEST_F(ServerHttpTest, RetrieveConfigurations) {
  Start(false);
  CreateNotes("");
  ASSERT_EQ(Post("/v1/collections/notes/records",
                 {{"records",
                   {Note("n1", "local", "org_shared", "dragon lore"),
                    Note("n2", "local", "agent_private", "dragon eggs")}}},
                 "")
                .status,
            200);
  json filter = {
      {"op", "eq"}, {"lhs", {{"knowledge", "scope"}}}, {"rhs", {{"value", "org_shared"}}}};
  Reply put = Send("PUT", "/v1/retrieves/lore",
                   json{{"collection", "notes"},
                        {"filter", filter},
                        {"top_k", 5},
                        {"threshold", 0},
                        {"mode", "text"}}
                       .dump(),
                   "");
  ASSERT_EQ(put.status, 201) << put.body.dump();
  EXPECT_EQ(put.body["dialect"], "retrieve");
  Reply run = Post("/v1/retrieves/lore:run", {{"query", "dragon"}}, "");
  ASSERT_EQ(run.status, 200) << run.body.dump();
  ASSERT_EQ(run.body["hits"].size(), 1u);
  EXPECT_EQ(run.body["hits"][0]["id"], "n1");

  json bad = {{"op", "eq"}, {"lhs", {{"knowledge", "scope"}}}, {"rhs", {{"value", 3}}}};
  Reply patch = Send("PATCH", "/v1/retrieves/lore/filter", json{{"filter", bad}}.dump(), "");
  ExpectProblem(patch, 422, "filter.type_mismatch");
  EXPECT_EQ(patch.body["code"], 3007);
  Reply still = Send("GET", "/v1/retrieves/lore", "", "");
  EXPECT_EQ(still.body["filter"], filter);  // the old filter stays
  Reply cleared = Send("PATCH", "/v1/retrieves/lore/filter", json{{"filter", "  "}}.dump(), "");
  ASSERT_EQ(cleared.status, 200) << cleared.body.dump();
  EXPECT_TRUE(cleared.body["filter"].is_null());
  Reply all = Post("/v1/retrieves/lore/run", {{"query", "dragon"}}, "");
  EXPECT_EQ(all.body["hits"].size(), 2u) << all.body.dump();
  Reply list = Send("GET", "/v1/retrieves", "", "");
  EXPECT_EQ(list.body["retrieves"].size(), 1u);
  ExpectProblem(Send("GET", "/v1/retrieves/nope", "", ""), 404, "not_found");
  ExpectProblem(Send("PUT", "/v1/retrieves/x", json{{"collection", "nope"}}.dump(), ""), 404,
                "not_found");
}

// An RFC 3339 text of now (microseconds), for as_of between two writes.
std::string NowText() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t secs = std::chrono::system_clock::to_time_t(now);
  const auto micros =
      std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count() %
      1000000;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char text[64];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &tm);
  return std::string(text) + "." + std::to_string(1000000 + micros).substr(1) + "Z";
}

TEST_F(ServerHttpTest, SupersessionAndAsOf) {
  Start(true);
  CreateNotes();
  const std::string records = "/v1/collections/notes/records";
  ASSERT_EQ(Post(records, {{"records", {Note("a1", "alice", "agent_private", "the ferry at six")}}},
                 kAliceKey)
                .status,
            200);
  const std::string between = NowText();
  json revised = Note("a2", "alice", "agent_private", "the ferry at seven");
  revised["supersedes"] = {"a1"};
  Reply w = Post(records, {{"records", {revised}}}, kAliceKey);
  ASSERT_EQ(w.status, 200) << w.body.dump();
  EXPECT_EQ(w.body["superseded"], json::parse(R"([{"index":0,"id":"a2","superseded":"a1"}])"));
  // bob names alice's record, then an id nobody has: one answer.
  json other = Note("b1", "bob", "agent_private", "the ferry at eight");
  other["supersedes"] = {"a2"};
  Reply theirs = Post(records, {{"records", {other}}}, kBobKey);
  ExpectProblem(theirs, 422, "record.supersedes_unknown", "$.records[0].supersedes[0]");
  other["supersedes"] = {"zz"};
  ExpectProblem(Post(records, {{"records", {other}}}, kBobKey), 422, "record.supersedes_unknown",
                "$.records[0].supersedes[0]");

  auto hits = [&](const json& extra) {
    json body = {{"query", "ferry"}, {"k", 10}};
    body.update(extra);
    Reply r = Post("/v1/collections/notes/search", body, kAliceKey);
    EXPECT_EQ(r.status, 200) << r.body.dump();
    std::set<std::string> out;
    for (const json& h : r.body["hits"]) out.insert(h["id"].get<std::string>());
    return out;
  };
  EXPECT_EQ(hits(json::object()), std::set<std::string>{"a2"});
  EXPECT_EQ(hits({{"as_of", between}}), std::set<std::string>{"a1"});
  Reply listed = Post("/v1/collections/notes/records:list", {{"as_of", between}}, kAliceKey);
  ASSERT_EQ(listed.status, 200) << listed.body.dump();
  ASSERT_EQ(listed.body["records"].size(), 1u);
  EXPECT_EQ(listed.body["records"][0]["id"], "a1");
  EXPECT_EQ(Post("/v1/collections/notes/records:count", {{"as_of", between}}).body["count"], 1);
  EXPECT_EQ(Post("/v1/collections/notes/records:count", json::object()).body["count"], 1);
  EXPECT_EQ(Post("/v1/collections/notes/records:count", {{"as_of", "2000-01-01"}}).body["count"],
            0);

  // records:get: the version and its history.
  const std::string get = "/v1/collections/notes/records:get";
  Reply current = Post(get, {{"id", "a2"}, {"include_history", true}}, kAliceKey);
  ASSERT_EQ(current.status, 200) << current.body.dump();
  EXPECT_EQ(current.body["record"]["supersedes"], json::array({"a1"}));
  EXPECT_TRUE(current.body.contains("written_at"));
  EXPECT_FALSE(current.body.contains("superseded_at"));
  ASSERT_EQ(current.body["history"].size(), 1u);
  EXPECT_EQ(current.body["history"][0]["id"], "a1");
  EXPECT_EQ(current.body["history"][0]["superseded_at"], current.body["written_at"]);
  EXPECT_EQ(current.body["history_truncated"], false);
  ExpectProblem(Post(get, {{"id", "a1"}}, kAliceKey), 404, "not_found");
  Reply then = Post(get, {{"id", "a1"}, {"as_of", between}}, kAliceKey);
  ASSERT_EQ(then.status, 200) << then.body.dump();
  EXPECT_FALSE(then.body.contains("history"));
  // bob cannot read alice's private history; the answer is a plain 404.
  ExpectProblem(Post(get, {{"id", "a2"}, {"include_history", true}}, kBobKey), 404, "not_found");
  // The plain GET sees current records only.
  EXPECT_EQ(Send("GET", records + "/a1", "", kAliceKey).status, 404);
  EXPECT_EQ(Send("GET", records + "/a2", "", kAliceKey).status, 200);

  // Bad input, located.
  ExpectProblem(Post("/v1/collections/notes/records:count", {{"as_of", "soon"}}), 400,
                "request.invalid", "$.as_of");
  ExpectProblem(Post(get, {{"id", "a2"}, {"as_of", "soon"}}), 400, "request.invalid", "$.as_of");
  ExpectProblem(Post("/v1/collections/notes/search", {{"query", "ferry"}, {"as_of", "soon"}}), 422,
                "request.invalid", "$.as_of");
  ExpectProblem(Post(get, {{"id", ""}}), 400, "request.invalid", "$.id");
  ExpectProblem(Post(get, {{"id", "a2"}, {"history", true}}), 400, "request.invalid");
  json self = Note("a3", "alice", "agent_private", "x");
  self["supersedes"] = {"a3"};
  ExpectProblem(Post(records, {{"records", {self}}}, kAliceKey), 422, "record.invalid",
                "$.records[0].supersedes[0]");
  // Forgetting still deletes: the superseded version goes.
  EXPECT_EQ(
      Post("/v1/collections/notes/records:delete", {{"ids", {"a1"}}}, kAliceKey).body["deleted"],
      1);
  Reply after = Post(get, {{"id", "a2"}, {"include_history", true}}, kAliceKey);
  EXPECT_EQ(after.body["history"], json::array());
}

// Collections with an embedder over HTTP: the spec as a string or an object,
// a query alone searched hybrid, fusion per search (string or object) and as
// the collection's default, located errors, and the reembed route.
TEST_F(ServerHttpTest, EmbedderCollectionsFusionAndReembed) {
  Start(false);
  const std::string models = std::string(ENGRAM_SOURCE_DIR) + "/src/embed/testdata/model2vec/";
  Reply created =
      Post("/v1/collections",
           {{"name", "docs"},
            {"schema", {{"fields", json::array()}}},
            {"text", {"text"}},
            {"embedder", {{"kind", "model2vec"}, {"path", models + "test-model-float32"}}},
            {"fusion", {{"method", "convex"}, {"alpha", 0.7}}}},
           "");
  ASSERT_EQ(created.status, 201) << created.body.dump();
  EXPECT_EQ(created.body["vector"]["dim"], 2);
  EXPECT_EQ(created.body["embedder"]["kind"], "model2vec");
  EXPECT_EQ(created.body["fusion"], "convex:alpha=0.7,normalization=min_max");
  ASSERT_EQ(Post("/v1/collections/docs/records",
                 {{"records",
                   {{{"id", "a"}, {"text", "hello world"}},
                    {{"id", "b"}, {"text", "tokenization of text"}}}}},
                 "")
                .status,
            200);
  Reply hybrid = Post("/v1/collections/docs/search", {{"query", "hello"}, {"explain", true}}, "");
  ASSERT_EQ(hybrid.status, 200) << hybrid.body.dump();
  EXPECT_EQ(hybrid.body["explain"]["mode"], "hybrid");
  EXPECT_EQ(hybrid.body["explain"]["fusion"]["alpha"], 0.7);
  Reply weighted = Post("/v1/collections/docs/search",
                        {{"query", "hello"},
                         {"explain", true},
                         {"fusion", {{"method", "weighted_rrf"}, {"weights", {{"vector", 2}}}}}},
                        "");
  ASSERT_EQ(weighted.status, 200) << weighted.body.dump();
  EXPECT_EQ(weighted.body["explain"]["fusion"]["weights"]["vector"], 2.0);
  ExpectProblem(Post("/v1/collections/docs/search",
                     {{"query", "x"}, {"fusion", {{"method", "convex"}, {"alpha", 2}}}}, ""),
                400, "request.invalid", "$.fusion.alpha");
  ExpectProblem(Post("/v1/collections/docs/search", {{"query", "x"}, {"fusion", "max"}}, ""), 400,
                "request.invalid", "$.fusion");
  ExpectProblem(Post("/v1/collections",
                     {{"name", "e"},
                      {"schema", "preset:notes"},
                      {"text", {"content"}},
                      {"embedder", "onnx:/m"}},
                     ""),
                400, "request.invalid", "$.embedder");

  // Switch to the 64-d model; the reply describes the collection after it.
  Reply switched = Post("/v1/collections/docs/reembed",
                        {{"embedder", "model2vec:" + models + "test-model-vocab-quantized"}}, "");
  ASSERT_EQ(switched.status, 200) << switched.body.dump();
  EXPECT_EQ(switched.body["vector"]["dim"], 64);
  EXPECT_EQ(switched.body["reembedded"]["records"], 2);
  EXPECT_EQ(Post("/v1/collections/docs/search", {{"query", "hello"}}, "").body["hits"][0]["id"],
            "a");
  ExpectProblem(Post("/v1/collections/docs/reembed", {{"embedder", "model2vec:/nonexistent"}}, ""),
                404, "not_found");
}

}  // namespace server_http_test
}  // namespace
}  // namespace engram::server::http
