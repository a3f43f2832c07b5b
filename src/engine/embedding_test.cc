// Collections with an embedder through the public API: records embedded on
// write, a query alone searched hybrid, the identity stored and checked on
// reopen, the default fusion, and Reembed switching models while searches
// and writes go on (the concurrency test runs under TSan in the tsan preset).
#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "engram/embedder.h"
#include "engram/engine.h"

namespace engram {
namespace {

namespace fs = std::filesystem;

// The model2vec test models (src/embed/testdata, MIT): a 2-d float32 model
// and a 64-d vocabulary-quantised one with another tokenizer.
const std::string kModels = "src/embed/testdata/model2vec/";
const std::string kSmall = "model2vec:" + kModels + "test-model-float32";
const std::string kWide = "model2vec:" + kModels + "test-model-vocab-quantized";

const char* const kTexts[] = {
    "the dog barked at the mail carrier",  "fresh bread from the oven",
    "a storm with thunder over the hills", "the compiler found a bug",
    "tickets for the night train",         "a melody on the old piano",
};

class EmbeddingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("engram_embedding_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::unique_ptr<Engine> Open() {
    StatusOr<std::unique_ptr<Engine>> e = Engine::Open(dir_.string());
    EXPECT_TRUE(e.ok()) << e.status().message();
    return e.ok() ? std::move(e).value() : nullptr;
  }

  static CollectionSpec Spec(const std::string& embedder) {
    CollectionSpec spec{
        "notes", SchemaRef::Parse(R"({"fields":[]})").value(), {{"text", 1.0}}, 0, "cosine", "en",
        ""};
    spec.embedder = embedder;
    return spec;
  }

  static std::string Record(std::size_t i, std::string_view text) {
    return nlohmann::json{{"id", "n" + std::to_string(i)}, {"text", text}}.dump();
  }

  static StatusOr<WriteResult> Put(Engine& e, const std::vector<std::string>& records) {
    std::vector<std::string_view> views(records.begin(), records.end());
    return e.Upsert("notes", views);
  }

  static std::vector<float> EmbedWith(const std::string& spec, std::string_view text) {
    auto embedder = OpenEmbedder(ParseEmbedderSpec(spec).value(), 0);
    EXPECT_TRUE(embedder.ok()) << embedder.status().message();
    const std::string_view texts[] = {text};
    return (*embedder)->Embed(texts).value()[0];
  }

  fs::path dir_;
};

TEST_F(EmbeddingTest, RecordsAreEmbeddedOnWriteAndQueriesAlone) {
  auto e = Open();
  ASSERT_NE(e, nullptr);
  ASSERT_TRUE(e->CreateCollection(Spec(kWide)).ok());
  const CollectionInfo info = e->DescribeCollection("notes").value();
  EXPECT_EQ(info.spec.vector_dim, 64u);
  EXPECT_EQ(info.spec.embedder_identity.kind, "model2vec");
  EXPECT_EQ(info.spec.embedder_identity.model, "test-model-vocab-quantized");
  EXPECT_EQ(info.spec.embedder_identity.fingerprint.substr(0, 7), "sha256:");
  // The stored spec names the model by its absolute path.
  EXPECT_EQ(info.spec.embedder.substr(0, 11), "model2vec:/");

  std::vector<std::string> records;
  for (std::size_t i = 0; i < std::size(kTexts); ++i) records.push_back(Record(i, kTexts[i]));
  StatusOr<WriteResult> w = Put(*e, records);
  ASSERT_TRUE(w.ok()) << w.status().message();
  ASSERT_FALSE(w->rejected) << w->rejected->message;

  // Each record's stored vector is the embedder's vector of its text: a
  // search by that vector finds it at distance 0.
  for (std::size_t i = 0; i < std::size(kTexts); ++i) {
    SearchRequest r;
    r.vector = EmbedWith(kWide, kTexts[i]);
    r.k = 1;
    SearchResponse res = e->Search("notes", r).value();
    ASSERT_EQ(res.hits.size(), 1u);
    EXPECT_EQ(res.hits[0].id, "n" + std::to_string(i));
    EXPECT_NEAR(*res.hits[0].distance, 0.0, 1e-5);
  }

  // A query alone runs hybrid with the query embedded, fused by the default
  // for collections with an embedder.
  SearchRequest q;
  q.query = "fresh bread";
  q.explain = true;
  SearchResponse res = e->Search("notes", q).value();
  ASSERT_FALSE(res.hits.empty());
  EXPECT_EQ(res.hits[0].id, "n1");
  const nlohmann::json ex = nlohmann::json::parse(res.explain);
  EXPECT_EQ(ex["mode"], "hybrid");
  EXPECT_EQ(ex["retrievers"], nlohmann::json::array({"text", "vector"}));
  EXPECT_EQ(ex["fusion"]["method"], DefaultEmbedderFusion().method);
  EXPECT_EQ(ex["fusion"]["hits"][0]["id"], "n1");
  // Text mode does not embed.
  q.mode = SearchMode::kText;
  EXPECT_EQ(nlohmann::json::parse(e->Search("notes", q).value().explain)["retrievers"],
            nlohmann::json::array({"text"}));
}

TEST_F(EmbeddingTest, ARecordWhoseTextGivesNoVectorIsRefused) {
  auto e = Open();
  ASSERT_NE(e, nullptr);
  ASSERT_TRUE(e->CreateCollection(Spec(kSmall)).ok());
  StatusOr<WriteResult> w = Put(*e, {Record(0, "hello world"), Record(1, ""), Record(2, "hello")});
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE(w->rejected);
  EXPECT_EQ(w->rejected_index, 1u);
  EXPECT_EQ(w->rejected->path, "vector");
  EXPECT_NE(w->rejected->message.find("the embedder gives no vector"), std::string::npos);
  EXPECT_EQ(e->DescribeCollection("notes").value().records, 0u);  // nothing written
  // A vector given with the record is kept as given.
  w = Put(*e, {R"({"id":"v","text":"","vector":[0.6,0.8]})"});
  ASSERT_TRUE(w.ok());
  EXPECT_FALSE(w->rejected);
}

TEST_F(EmbeddingTest, TheIdentityIsStoredAndAChangedModelRefused) {
  const fs::path model = dir_.string() + "_model";
  fs::remove_all(model);
  fs::create_directories(model);
  for (const char* f : {"model.safetensors", "tokenizer.json", "config.json"}) {
    fs::copy_file(kModels + "test-model-float32/" + f, model / f);
  }
  {
    auto e = Open();
    ASSERT_NE(e, nullptr);
    CollectionSpec spec = Spec("model2vec:" + model.string());
    FusionSpec fusion;
    fusion.method = "weighted_rrf";
    fusion.vector_weight = 2;
    spec.fusion = fusion;
    ASSERT_TRUE(e->CreateCollection(spec).ok());
    ASSERT_FALSE(Put(*e, {Record(0, "hello world")})->rejected);
  }
  {
    auto e = Open();  // the spec, identity and fusion come back
    ASSERT_NE(e, nullptr);
    const CollectionSpec spec = e->DescribeCollection("notes").value().spec;
    EXPECT_EQ(spec.embedder, "model2vec:" + model.string());
    EXPECT_EQ(spec.embedder_identity.dimension, 2u);
    ASSERT_TRUE(spec.fusion);
    EXPECT_EQ(FusionText(*spec.fusion), "weighted_rrf:text=1.0,vector=2.0,k=60");
    SearchRequest q;
    q.query = "hello";
    q.explain = true;
    SearchResponse res = e->Search("notes", q).value();
    EXPECT_EQ(nlohmann::json::parse(res.explain)["fusion"]["method"], "weighted_rrf");
  }
  std::ofstream(model / "config.json") << R"({"normalize": false})";  // another model now
  auto e = Open();
  ASSERT_NE(e, nullptr);
  StatusOr<WriteResult> w = Put(*e, {Record(1, "hello")});
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(w.status().message().find("the model is not the one the collection was built with"),
            std::string::npos)
      << w.status().message();
  SearchRequest q;
  q.query = "hello";
  EXPECT_EQ(e->Search("notes", q).status().code(), StatusCode::kFailedPrecondition);
  q.mode = SearchMode::kText;  // what needs no embedder still works
  EXPECT_EQ(e->Search("notes", q).value().hits.size(), 1u);
  fs::remove_all(model);
}

TEST_F(EmbeddingTest, CreateRefusesWhatDoesNotFit) {
  auto e = Open();
  ASSERT_NE(e, nullptr);
  CollectionSpec spec = Spec(kSmall);
  spec.vector_dim = 3;
  EXPECT_EQ(e->CreateCollection(spec).message(), "vectors: dimension 3 is not the embedder's (2)");
  spec = Spec(kSmall);
  spec.text.clear();
  EXPECT_EQ(e->CreateCollection(spec).message(),
            "embedder: the collection needs text fields to embed");
  spec = Spec("model2vec:/nonexistent");
  EXPECT_EQ(e->CreateCollection(spec).code(), StatusCode::kNotFound);
  spec = Spec("word2vec:x");
  EXPECT_EQ(e->CreateCollection(spec).code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(e->ListCollections().empty());
}

// Reembed from the 2-d model to the 64-d one while searches and writes run:
// every search succeeds (old vectors or new), writes made meanwhile are
// embedded with the new model, and the switch survives a reopen.
TEST_F(EmbeddingTest, ReembedSwitchesModelsUnderConcurrentSearchesAndWrites) {
  {
    auto e = Open();
    ASSERT_NE(e, nullptr);
    ASSERT_TRUE(e->CreateCollection(Spec(kSmall)).ok());
    std::vector<std::string> records;
    for (std::size_t i = 0; i < 300; ++i) {
      records.push_back(
          Record(i, kTexts[i % std::size(kTexts)] + std::string(" number ") + std::to_string(i)));
    }
    ASSERT_FALSE(Put(*e, records)->rejected);

    std::atomic<bool> done{false};
    std::atomic<int> searches{0}, failed{0}, writes{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 3; ++t) {
      threads.emplace_back([&, t] {
        while (!done.load()) {
          SearchRequest q;
          q.query = kTexts[t];
          q.k = 5;
          StatusOr<SearchResponse> r = e->Search("notes", q);
          if (!r.ok() || r->rejected || r->hits.empty()) ++failed;
          ++searches;
        }
      });
    }
    threads.emplace_back([&] {
      for (std::size_t i = 1000; !done.load(); ++i) {
        StatusOr<WriteResult> w =
            Put(*e, {Record(i, "written during the switch " + std::to_string(i))});
        if (!w.ok() || w->rejected) ++failed;
        ++writes;
      }
    });
    std::size_t reported = 0;
    StatusOr<Engine::ReembedReport> report =
        e->Reembed("notes", ParseEmbedderSpec(kWide).value(),
                   [&](std::size_t done_records, std::size_t) { reported = done_records; });
    // Let the readers and the writer run on the new incarnation a while.
    for (int i = 0; i < 50 && searches.load() < 20; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    done = true;
    for (auto& t : threads) t.join();
    ASSERT_TRUE(report.ok()) << report.status().message();
    EXPECT_EQ(failed.load(), 0);
    EXPECT_GT(searches.load(), 0);
    EXPECT_GE(report->records, 300u);
    EXPECT_GT(reported, 0u);
    EXPECT_EQ(report->identity.dimension, 64u);
    const CollectionInfo info = e->DescribeCollection("notes").value();
    EXPECT_EQ(info.spec.vector_dim, 64u);
    EXPECT_EQ(info.spec.embedder_identity.model, "test-model-vocab-quantized");
    EXPECT_EQ(info.records, 300u + static_cast<std::size_t>(writes.load()));
  }
  // After a reopen every record's vector is the new model's.
  auto e = Open();
  ASSERT_NE(e, nullptr);
  const CollectionInfo info = e->DescribeCollection("notes").value();
  EXPECT_EQ(info.spec.vector_dim, 64u);
  for (std::size_t i : {0u, 7u, 299u, 1000u}) {
    const std::optional<std::string> body = e->Get("notes", "n" + std::to_string(i)).value();
    ASSERT_TRUE(body) << i;
    const std::string text = nlohmann::json::parse(*body)["text"];
    SearchRequest r;
    r.vector = EmbedWith(kWide, text);
    r.k = 1;
    SearchResponse res = e->Search("notes", r).value();
    ASSERT_EQ(res.hits.size(), 1u);
    EXPECT_NEAR(*res.hits[0].distance, 0.0, 1e-5) << text;
  }
}

TEST_F(EmbeddingTest, ReembedNeedsTextFieldsAndLeavesNothingOnFailure) {
  auto e = Open();
  ASSERT_NE(e, nullptr);
  CollectionSpec vectors_only{
      "plain", SchemaRef::Parse(R"({"fields":[]})").value(), {}, 2, "cosine", "en", ""};
  ASSERT_TRUE(e->CreateCollection(vectors_only).ok());
  StatusOr<Engine::ReembedReport> r = e->Reembed("plain", ParseEmbedderSpec(kSmall).value());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "collection 'plain' has no text fields to embed");

  // A collection without an embedder gets one; a record whose text the new
  // model knows no word of makes the switch fail, and nothing changes.
  CollectionSpec text_only{
      "texts", SchemaRef::Parse(R"({"fields":[]})").value(), {{"text", 1.0}}, 0, "cosine", "en",
      ""};
  ASSERT_TRUE(e->CreateCollection(text_only).ok());
  std::vector<std::string> records = {R"({"id":"a","text":"hello world"})",
                                      R"({"id":"b","text":"\ud83d\ude42"})"};
  std::vector<std::string_view> views(records.begin(), records.end());
  ASSERT_FALSE(e->Upsert("texts", views)->rejected);
  r = e->Reembed("texts", ParseEmbedderSpec(kSmall).value());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("record 'b'"), std::string::npos) << r.status().message();
  EXPECT_TRUE(e->DescribeCollection("texts").value().spec.embedder.empty());

  ASSERT_TRUE(e->Delete("texts", std::vector<std::string>{"b"}).ok());
  r = e->Reembed("texts", ParseEmbedderSpec(kSmall).value());
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(e->DescribeCollection("texts").value().spec.vector_dim, 2u);
  SearchRequest q;
  q.query = "hello";
  q.explain = true;
  EXPECT_EQ(nlohmann::json::parse(e->Search("texts", q).value().explain)["mode"], "hybrid");
}

}  // namespace
}  // namespace engram
