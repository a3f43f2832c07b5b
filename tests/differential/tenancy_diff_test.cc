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
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/differential/tenancy_fixture.h"

namespace engram::server::http::tenancy {
namespace {

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
}  // namespace engram::server::http::tenancy
