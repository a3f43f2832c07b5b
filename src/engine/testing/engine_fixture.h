// The fixture of the engine's tests through its public API (engine_test.cc,
// recovery_test.cc, checkpoint_test.cc): a store directory of its own per test, the "lore"
// collection (text, metadata, 8-d vectors), generated records, and probes
// that compare two engines' answers. Tests only.
#ifndef ENGRAM_ENGINE_TESTING_ENGINE_FIXTURE_H_
#define ENGRAM_ENGINE_TESTING_ENGINE_FIXTURE_H_

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engram/engine.h"
#include "storage/store.h"

namespace engram::testing {

namespace fs = std::filesystem;

inline constexpr const char* kSchema = R"({"fields":[
  {"name":"region","type":"string","default":"anywhere"},
  {"name":"level","type":"int","default":0},
  {"name":"tags","type":"set<string>","optional":true},
  {"name":"written","type":"datetime","optional":true}]})";

inline const char* const kWords[] = {"wolf",  "mill",   "river", "amulet", "bridge", "mage",
                                     "sword", "winter", "trade", "salt",   "tower",  "storm"};
inline const char* const kRegions[] = {"valley", "keep", "river", "coast"};

class EngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        fs::temp_directory_path() /
        ("engram_engine_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
         "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::unique_ptr<Engine> Open() {
    StatusOr<std::unique_ptr<Engine>> e = Engine::Open(dir_.string());
    EXPECT_TRUE(e.ok()) << e.status().message();
    return e.ok() ? std::move(e).value() : nullptr;
  }

  static CollectionSpec Spec(std::size_t dim = 8) {
    Checked<SchemaRef> schema = SchemaRef::Parse(kSchema);
    CollectionSpec spec{"lore", schema.value(), {{"title", 2.0}, {"text", 1.0}}, dim, "cosine",
                        "en",   "written"};
    return spec;
  }

  // A record with generated text, metadata and an 8-dim vector.
  static std::string Record(int i, std::mt19937& rng, std::size_t dim = 8) {
    std::uniform_int_distribution<int> w(0, 11);
    std::string text;
    for (int j = 0; j < 6; ++j) text += std::string(j ? " " : "") + kWords[w(rng)];
    std::string vec = "[";
    std::normal_distribution<float> g;
    for (std::size_t d = 0; d < dim; ++d) vec += (d ? "," : "") + std::to_string(g(rng));
    vec += "]";
    return R"({"id":"r)" + std::to_string(i) + R"(","title":")" + kWords[i % 12] + R"(","text":")" +
           text + R"(","region":")" + kRegions[i % 4] + R"(","level":)" + std::to_string(i % 20) +
           R"(,"tags":["t)" + std::to_string(i % 3) + R"("],"written":"2025-0)" +
           std::to_string(1 + i % 9) + R"(-1)" + std::to_string(i % 10) + R"(","vector":)" + vec +
           "}";
  }

  static Status Ingest(Engine& e, const std::vector<std::string>& records) {
    std::vector<std::string_view> views(records.begin(), records.end());
    StatusOr<WriteResult> r = e.Upsert("lore", views);
    if (!r.ok()) return r.status();
    if (r->rejected) return Status::InvalidArgument(r->rejected->message);
    return Status::Ok();
  }

  // The ids a set of searches return, as one string per search.
  static std::vector<std::string> Probe(const Engine& e) {
    std::vector<std::string> out;
    const std::vector<float> q = {0.5f, -0.2f, 0.1f, 0.9f, -0.4f, 0.3f, 0.0f, 0.2f};
    std::vector<SearchRequest> requests(4);
    requests[0].query = "wolf river";
    requests[1].query = "amulet OR storm";
    requests[1].dialect = FilterDialect::kVectorFilter;
    requests[1].filter = R"({"region":{"$in":["valley","coast"]}})";
    requests[2].vector = q;
    requests[2].dialect = FilterDialect::kRetrieve;
    requests[2].filter = R"({"op":"ge","lhs":{"knowledge":"level"},"rhs":{"value":15}})";
    requests[3].query = "mage tower";
    requests[3].vector = q;
    for (SearchRequest& r : requests) {
      r.k = 10;
      StatusOr<SearchResponse> s = e.Search("lore", r);
      EXPECT_TRUE(s.ok()) << s.status().message();
      if (!s.ok()) continue;
      EXPECT_FALSE(s->rejected) << s->rejected->message;
      std::string ids;
      for (const SearchHit& h : s->hits) ids += h.id + " ";
      out.push_back(ids);
    }
    return out;
  }

  // The bodies of records `ids` ("(none)" for one not found).
  static std::vector<std::string> Bodies(const Engine& e, const std::vector<std::string>& ids) {
    std::vector<std::string> out;
    for (const std::string& id : ids) {
      StatusOr<std::optional<std::string>> got = e.Get("lore", id);
      out.push_back(got.ok() && got->has_value() ? **got : "(none)");
    }
    return out;
  }

  // The record numbers the store holds for "lore", by id (the engine closed).
  std::map<std::string, std::uint32_t> StoredDocs() {
    std::map<std::string, std::uint32_t> docs;
    StatusOr<std::unique_ptr<storage::Store>> store = storage::OpenSqliteStore(dir_.string());
    EXPECT_TRUE(store.ok());
    if (!store.ok()) return docs;
    EXPECT_TRUE((*store)
                    ->ScanRecords("lore", UINT64_MAX,
                                  [&](const storage::RecordRow& r) {
                                    docs[std::string(r.id)] = r.doc;
                                    return Status::Ok();
                                  })
                    .ok());
    return docs;
  }

  // Every record id, through a listing (no query, no vector).
  static std::set<std::string> ListedIds(const Engine& e) {
    SearchRequest r;
    r.k = 10000;
    StatusOr<SearchResponse> s = e.Search("lore", r);
    std::set<std::string> ids;
    if (!s.ok()) return ids;
    for (const SearchHit& h : s->hits) ids.insert(h.id);
    return ids;
  }

  fs::path dir_;
};

}  // namespace engram::testing

#endif  // ENGRAM_ENGINE_TESTING_ENGINE_FIXTURE_H_
