// Quantised vectors through the engine (CollectionSpec::quantization): the
// setting is checked, stored and described; graph searches report it in
// explain and keep their recall; a clean reopen (the vector snapshot, which
// holds only the floats) and a crash's replay both come back quantised with
// the same answers.
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
namespace quantization_test {

constexpr std::size_t kDim = 16;
constexpr const char* kSchema = R"({"fields":[{"name":"kind","type":"string","optional":true}]})";

class QuantizationTest : public testing::StoreDirTest {
 protected:
  static CollectionSpec Spec() {
    CollectionSpec spec{"mem", SchemaRef::Parse(kSchema).value(), {}, kDim, "l2", "en", ""};
    spec.quantization = "int8";
    return spec;
  }

  // Records `from` to `to` - 1 around 20 centres, written in one batch.
  void Write(Engine& e, int from, int to) {
    std::normal_distribution<float> noise(0, 0.2f);
    std::vector<std::string> bodies;
    for (int i = from; i < to; ++i) {
      const std::string id = "r" + std::to_string(i);
      std::vector<float> v(kDim);
      std::string vec = "[";
      for (std::size_t d = 0; d < kDim; ++d) {
        const std::string x =
            std::to_string(static_cast<float>((i * 7 + d * 3) % 20) / 10 + noise(rng_));
        vec += (d ? "," : "") + x;
        v[d] = std::stof(x);  // what the engine reads back
      }
      vectors_[id] = v;
      bodies.push_back(R"({"id":")" + id + R"(","vector":)" + vec + "]}");
    }
    std::vector<std::string_view> views(bodies.begin(), bodies.end());
    StatusOr<WriteResult> w = e.Upsert("mem", views);
    ASSERT_TRUE(w.ok() && !w->rejected);
  }

  // The k = 10 hits of query i (near a record's vector), with explain.
  SearchResponse Search(const Engine& e, int i) const {
    SearchRequest r;
    r.vector = vectors_.at("r" + std::to_string(i * 37 % 1000));
    for (float& x : *r.vector) x += 0.05f;
    r.k = 10;
    r.candidate_k = 10;
    r.explain = true;
    StatusOr<SearchResponse> s = e.Search("mem", r);
    EXPECT_TRUE(s.ok() && !s->rejected);
    return s.ok() ? *s : SearchResponse{};
  }

  // Mean recall@10 of 20 searches against the exact answer; each explain
  // says the walk was quantised.
  double Recall(const Engine& e) const {
    double recall = 0;
    for (int i = 0; i < 20; ++i) {
      const SearchResponse s = Search(e, i);
      EXPECT_NE(s.explain.find("\"quantized\":true"), std::string::npos) << s.explain;
      std::vector<std::pair<float, std::string>> all;
      const std::vector<float>& q = vectors_.at("r" + std::to_string(i * 37 % 1000));
      for (const auto& [id, v] : vectors_) {
        float d = 0;
        for (std::size_t k = 0; k < kDim; ++k) {
          d += (q[k] + 0.05f - v[k]) * (q[k] + 0.05f - v[k]);
        }
        all.emplace_back(d, id);
      }
      std::partial_sort(all.begin(), all.begin() + 10, all.end());
      std::size_t hit = 0;
      for (const SearchHit& h : s.hits) {
        for (int k = 0; k < 10; ++k) hit += all[k].second == h.id ? 1 : 0;
      }
      recall += static_cast<double>(hit) / 10;
    }
    return recall / 20;
  }

  std::mt19937 rng_{5};
  std::map<std::string, std::vector<float>> vectors_;
};

TEST_F(QuantizationTest, SpecsAreChecked) {
  StatusOr<std::unique_ptr<Engine>> e = Engine::Open(dir_.string(), Quiet());
  ASSERT_TRUE(e.ok());
  CollectionSpec spec = Spec();
  spec.quantization = "int4";
  EXPECT_EQ((*e)->CreateCollection(spec).message(),
            "vectors: unknown quantization 'int4' (none, int8)");
  spec = Spec();
  spec.vector_dim = 0;
  spec.text = {{"note", 1.0}};
  EXPECT_EQ((*e)->CreateCollection(spec).message(),
            "vectors: quantization 'int8' in a collection without vectors");
  ASSERT_TRUE((*e)->CreateCollection(Spec()).ok());
  EXPECT_EQ((*e)->ListCollections().at(0).spec.quantization, "int8");
}

TEST_F(QuantizationTest, SurvivesReopenAndReplay) {
  std::vector<SearchResponse> before;
  {
    StatusOr<std::unique_ptr<Engine>> opened = Engine::Open(dir_.string(), Quiet());
    ASSERT_TRUE(opened.ok());
    Engine& e = **opened;
    ASSERT_TRUE(e.CreateCollection(Spec()).ok());
    Write(e, 0, 3000);
    ASSERT_TRUE(e.Checkpoint("mem").ok());  // links every staged vector
    EXPECT_GE(Recall(e), 0.95);
    for (int i = 0; i < 20; ++i) before.push_back(Search(e, i));
  }
  {
    // A clean reopen loads the floats from the snapshot and quantises them
    // again: the same answers.
    StatusOr<std::unique_ptr<Engine>> opened = Engine::Open(dir_.string(), Quiet());
    ASSERT_TRUE(opened.ok());
    Engine& e = **opened;
    EXPECT_EQ(e.recovery().replayed, 0u);
    EXPECT_EQ(e.ListCollections().at(0).spec.quantization, "int8");
    for (int i = 0; i < 20; ++i) {
      const SearchResponse s = Search(e, i);
      ASSERT_EQ(s.hits.size(), before[i].hits.size());
      for (std::size_t h = 0; h < s.hits.size(); ++h) {
        EXPECT_EQ(s.hits[h].id, before[i].hits[h].id) << "query " << i << " hit " << h;
      }
    }
    // Writes after the last checkpoint, then a crash: the store is copied
    // as it is.
    Write(e, 3000, 3500);
    CopyAsCrashed();
  }
  StatusOr<std::unique_ptr<Engine>> replayed = Engine::Open(copy().string(), Quiet());
  ASSERT_TRUE(replayed.ok()) << replayed.status().message();
  EXPECT_EQ((*replayed)->recovery().replayed, 500u);
  EXPECT_GE(Recall(**replayed), 0.95);
}

}  // namespace quantization_test
}  // namespace
}  // namespace engram
