// The fixture of the deduplication tests through the engine (dedup_test.cc,
// dedup_refresh_test.cc; tests only): a store of its own per test, an
// engine on a test clock, collections of the notes-like schema below.
#ifndef ENGRAM_ENGINE_TESTING_DEDUP_FIXTURE_H_
#define ENGRAM_ENGINE_TESTING_DEDUP_FIXTURE_H_

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/testing/test_clock.h"
#include "engram/embedder.h"
#include "engram/engine.h"

namespace engram::testing {

namespace fs = std::filesystem;

inline constexpr const char* kDedupSchema = R"({"fields":[
  {"name":"agent_id","type":"string","optional":true},
  {"name":"scope","type":"string","default":"agent_private"},
  {"name":"expires_at","type":"datetime","optional":true},
  {"name":"updated_at","type":"datetime","optional":true}]})";

class DedupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("engram_dedup_test_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::unique_ptr<Engine> Open() {
    StatusOr<std::unique_ptr<Engine>> e = Engine::Open(dir_.string(), clock_.Options());
    EXPECT_TRUE(e.ok()) << e.status().message();
    return e.ok() ? std::move(e).value() : nullptr;
  }

  static CollectionSpec Spec(const char* dedup, std::size_t dim = 0) {
    CollectionSpec spec{
        "mem", SchemaRef::Parse(kDedupSchema).value(), {{"content", 1.0}}, dim, "cosine", "none",
        ""};
    spec.dedup = ParseDedup(dedup).value();
    return spec;
  }

  static WriteResult Put(Engine& e, const std::vector<std::string>& records,
                         const std::optional<Scope>& scope = std::nullopt) {
    std::vector<std::string_view> views(records.begin(), records.end());
    StatusOr<WriteResult> w = e.Upsert("mem", views, {}, scope);
    EXPECT_TRUE(w.ok()) << w.status().message();
    if (!w.ok()) return {};
    EXPECT_FALSE(w->rejected) << w->rejected->message;
    return *w;
  }

  static std::string Note(const std::string& id, const std::string& agent,
                          const std::string& content) {
    return R"({"id":")" + id + R"(","agent_id":")" + agent + R"(","content":")" + content + "\"}";
  }
  static std::string Vec(const std::string& id, const std::string& agent, const char* v) {
    return R"({"id":")" + id + R"(","agent_id":")" + agent + R"(","content":"x","vector":)" + v +
           "}";
  }

  static std::string Expiring(const std::string& id, const std::string& content,
                              const std::string& expires_at, const char* vector = "[1,0,0]") {
    return R"({"id":")" + id + R"(","agent_id":"alice","content":")" + content +
           R"(","expires_at":")" + expires_at + R"(","vector":)" + vector + "}";
  }

  static std::size_t Count(const Engine& e) { return e.DescribeCollection("mem")->records; }

  fs::path dir_;
  testing::TestClock clock_;  // the engine's clock
};

}  // namespace engram::testing

#endif  // ENGRAM_ENGINE_TESTING_DEDUP_FIXTURE_H_
