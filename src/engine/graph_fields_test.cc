// Graph fields through the engine: a collection whose team, agent_id and
// topics values get their own vector graphs answers filtered and scoped
// vector searches from them (explain names the plan) with the exact
// filtered top-k, and keeps doing so after records move between values, are
// deleted, and after a clean reopen (snapshots) and a crash's replay.
#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/testing/store_dir.h"
#include "engram/engine.h"

namespace engram {
namespace {
namespace graph_fields_test {

constexpr std::size_t kDim = 8;
constexpr int kPerAgent = 4000;
constexpr const char* kSchema = R"({"fields":[
  {"name":"agent_id","type":"string","required":true},
  {"name":"team","type":"string","required":true},
  {"name":"topics","type":"set<string>","optional":true},
  {"name":"level","type":"int","default":0}]})";

struct Stored {
  std::string agent, team;
  std::vector<float> vector;
};

class GraphFieldsTest : public testing::StoreDirTest {
 protected:
  static CollectionSpec Spec() {
    CollectionSpec spec{"mem", SchemaRef::Parse(kSchema).value(), {}, kDim, "l2", "en", ""};
    spec.graph_fields = {"team", "agent_id", "topics"};
    spec.graph_min_records = 64;
    return spec;
  }

  // Record `id` of agent a<agent> in team t<team>, around centre `team`,
  // written at the next Flush.
  void Write(const std::string& id, int agent, int team, std::mt19937& rng) {
    std::normal_distribution<float> noise(0, 0.3f);
    Stored s{"a" + std::to_string(agent), "t" + std::to_string(team), {}};
    std::string vec = "[";
    for (std::size_t d = 0; d < kDim; ++d) {
      const std::string x =
          std::to_string((d == static_cast<std::size_t>(team) ? 4.0f : 0.0f) + noise(rng));
      vec += (d ? "," : "") + x;
      s.vector.push_back(std::stof(x));  // what the engine reads back
    }
    const std::string body = R"({"id":")" + id + R"(","agent_id":")" + s.agent + R"(","team":")" +
                             s.team + R"(","topics":["p)" + std::to_string(rng() % 2) +
                             R"("],"vector":)" + vec + "]}";
    pending_.push_back(body);
    records_[id] = s;
  }
  void Flush(Engine& e) {
    std::vector<std::string_view> views(pending_.begin(), pending_.end());
    StatusOr<WriteResult> w = e.Upsert("mem", views);
    EXPECT_TRUE(w.ok() && !w->rejected);
    pending_.clear();
  }

  // The exact 10 nearest records to q of agent a0 (scoped) or team t0.
  std::vector<std::string> Truth(const std::vector<float>& q, bool scoped) const {
    std::vector<std::pair<float, std::string>> all;
    for (const auto& [id, s] : records_) {
      if ((scoped ? s.agent : s.team) != (scoped ? "a0" : "t0")) continue;
      float d = 0;
      for (std::size_t i = 0; i < kDim; ++i) d += (q[i] - s.vector[i]) * (q[i] - s.vector[i]);
      all.emplace_back(d, id);
    }
    std::sort(all.begin(), all.end());
    std::vector<std::string> out;
    for (std::size_t i = 0; i < all.size() && i < 10; ++i) out.push_back(all[i].second);
    return out;
  }

  // Searches near team 1's centre for team t0's records (a filter far from
  // the query; explain names the value graphs) or, scoped, for agent a0's;
  // returns the mean recall@10 against the exact answer.
  double FarSearches(const Engine& e, bool scoped) const {
    std::mt19937 rng(3);
    std::normal_distribution<float> noise(0, 0.3f);
    double recall = 0;
    constexpr int kQueries = 10;
    for (int qi = 0; qi < kQueries; ++qi) {
      std::vector<float> q(kDim);
      // Near team 1's centre, leaning towards team 0's: every nearest record
      // overall is team 1's.
      for (std::size_t d = 0; d < kDim; ++d) {
        q[d] = (d == 1 ? 4.0f : d == 0 ? 1.5f : 0.0f) + noise(rng);
      }
      SearchRequest r;
      r.vector = q;
      r.k = 10;
      r.candidate_k = 10;
      r.explain = true;
      if (scoped) {
        r.scope = Scope{"a0", ReadProfile::kPrivateOnly};
      } else {
        r.dialect = FilterDialect::kVectorFilter;
        r.filter = R"({"team":"t0"})";
      }
      StatusOr<SearchResponse> s = e.Search("mem", r);
      EXPECT_TRUE(s.ok() && !s->rejected);
      if (!s.ok() || s->rejected) return 0;
      if (!scoped) {
        EXPECT_NE(s->explain.find("\"value_graphs\""), std::string::npos) << s->explain;
      }
      const std::vector<std::string> truth = Truth(q, scoped);
      std::size_t hit = 0;
      for (const SearchHit& h : s->hits) {
        EXPECT_EQ(scoped ? records_.at(h.id).agent : records_.at(h.id).team, scoped ? "a0" : "t0");
        hit += std::count(truth.begin(), truth.end(), h.id);
      }
      recall += static_cast<double>(hit) / static_cast<double>(truth.size());
    }
    return recall / kQueries;
  }

  std::map<std::string, Stored> records_;
  std::vector<std::string> pending_;
};

TEST_F(GraphFieldsTest, SpecsAreChecked) {
  StatusOr<std::unique_ptr<Engine>> e = Engine::Open(dir_.string(), Quiet());
  ASSERT_TRUE(e.ok());
  CollectionSpec spec = Spec();
  spec.graph_fields = {"level"};
  EXPECT_EQ((*e)->CreateCollection(spec).message(),
            "graph_fields[0]: 'level' is a int field; graph fields are string, bool or "
            "set<string>");
  spec.graph_fields = {"nope"};
  EXPECT_EQ((*e)->CreateCollection(spec).message(),
            "graph_fields[0]: 'nope' is not a field of the schema");
  spec.graph_fields = {"agent_id", "agent_id"};
  EXPECT_EQ((*e)->CreateCollection(spec).message(), "graph_fields[1]: 'agent_id' is named twice");
  spec = Spec();
  spec.graph_min_records = 8;
  EXPECT_EQ((*e)->CreateCollection(spec).message(),
            "graph_min_records: expected 16 to 2^31, got 8");
  spec = Spec();
  spec.vector_dim = 0;
  spec.text = {{"note", 1.0}};
  EXPECT_EQ((*e)->CreateCollection(spec).message(), "graph_fields: the collection has no vectors");
}

TEST_F(GraphFieldsTest, FarFiltersSurviveMovesDeletesReopenAndReplay) {
  std::mt19937 rng(7);
  {
    StatusOr<std::unique_ptr<Engine>> opened = Engine::Open(dir_.string(), Quiet());
    ASSERT_TRUE(opened.ok());
    Engine& e = **opened;
    ASSERT_TRUE(e.CreateCollection(Spec()).ok());
    for (int agent = 0; agent < 2; ++agent) {
      for (int i = 0; i < kPerAgent; ++i) {
        Write("a" + std::to_string(agent) + "-" + std::to_string(i), agent, agent, rng);
      }
    }
    Flush(e);
    ASSERT_TRUE(e.Checkpoint("mem").ok());  // links every staged vector
    EXPECT_GE(FarSearches(e, false), 0.95);
    EXPECT_GE(FarSearches(e, true), 0.95);

    // Records move to the other team (their vectors too), others go.
    for (int i = 0; i < 300; ++i) Write("a0-" + std::to_string(i), 0, 1, rng);
    Flush(e);
    for (int i = 300; i < 500; ++i) {
      const std::string id = "a0-" + std::to_string(i);
      ASSERT_TRUE(e.Delete("mem", std::vector<std::string>{id}).ok());
      records_.erase(id);
    }
    ASSERT_TRUE(e.Checkpoint("mem").ok());
    EXPECT_GE(FarSearches(e, false), 0.95);
  }
  {
    // A clean reopen loads the value graphs from the snapshot.
    StatusOr<std::unique_ptr<Engine>> opened = Engine::Open(dir_.string(), Quiet());
    ASSERT_TRUE(opened.ok());
    Engine& e = **opened;
    EXPECT_EQ(e.recovery().replayed, 0u);
    EXPECT_GE(FarSearches(e, false), 0.95);
    // Writes after the last checkpoint, then a crash: the store is copied
    // as it is (acknowledged writes durable, no checkpoint for them).
    for (int i = 500; i < 700; ++i) Write("a0-" + std::to_string(i), 0, 1, rng);
    for (int i = 0; i < 100; ++i) Write("new-" + std::to_string(i), 0, 0, rng);
    Flush(e);
    CopyAsCrashed();
  }
  StatusOr<std::unique_ptr<Engine>> replayed = Engine::Open(copy().string(), Quiet());
  ASSERT_TRUE(replayed.ok()) << replayed.status().message();
  EXPECT_EQ((*replayed)->recovery().replayed, 300u);
  EXPECT_GE(FarSearches(**replayed, false), 0.95);
  EXPECT_GE(FarSearches(**replayed, true), 0.95);
}

}  // namespace graph_fields_test
}  // namespace
}  // namespace engram
