// Several engines on one PostgreSQL store (engine/follow.h): what one writes
// the others apply in commit order, a write's token makes another engine's
// read wait for it, engines writing one collection at once lose nothing and
// never give two records one number, and an engine opened later loads the
// same state. PostgreSQL 15 runs for the test as an unprivileged user on a
// private socket (tests/support/store_places.h).
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "engram/engine.h"
#include "tests/integration/crash_records.h"
#include "tests/support/store_places.h"

namespace engram {
namespace {
namespace shared_store_test {

using std::chrono::steady_clock;

std::unique_ptr<Engine> OpenEngine(const std::string& url) {
  Engine::Options options;
  options.follow_poll_ms = 50;
  auto engine = Engine::Open(url, options);
  EXPECT_TRUE(engine.ok()) << engine.status().ToString();
  return engine.ok() ? std::move(engine).value() : nullptr;
}

steady_clock::time_point Soon() {
  return steady_clock::now() + std::chrono::seconds(20);
}

// Waits (bounded) until `engine` has the collection.
bool Has(const Engine& engine, const std::string& name) {
  for (const auto until = Soon(); steady_clock::now() < until;) {
    if (engine.DescribeCollection(name).ok()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

std::vector<std::string> Hits(const Engine& engine, const std::string& query) {
  SearchRequest request;
  request.query = query;
  request.k = 50;
  auto found = engine.Search(crash::kCollection, request);
  EXPECT_TRUE(found.ok()) << found.status().ToString();
  std::vector<std::string> ids;
  if (found.ok()) {
    for (const auto& hit : found->hits) ids.push_back(hit.id);
  }
  return ids;
}

std::vector<std::string_view> Views(const std::vector<std::string>& records) {
  return {records.begin(), records.end()};
}

class SharedStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    place_ = storage::testing::PostgresPlace::Make();
    ASSERT_NE(place_, nullptr);
  }
  std::unique_ptr<storage::testing::PostgresPlace> place_;
};

TEST_F(SharedStoreTest, AWriteOnOneEngineIsReadOnAnotherWithItsToken) {
  auto a = OpenEngine(place_->location());
  auto b = OpenEngine(place_->location());
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(a->CreateCollection(crash::Spec()).ok());
  ASSERT_TRUE(Has(*b, crash::kCollection));

  const std::vector<std::string> batch = crash::Batch(1);
  auto written = a->Upsert(crash::kCollection, Views(batch));
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  ASSERT_GT(written->seq, 0u);
  ASSERT_TRUE(b->AwaitWrite(crash::kCollection, written->seq, Soon()).ok());
  // Without a collection, the wait is for every change up to the token.
  ASSERT_TRUE(b->AwaitWrite("", written->seq, Soon()).ok());
  ASSERT_TRUE(b->Followed().has_value());  // what /metrics shows
  EXPECT_GE(*b->Followed(), written->seq);
  EXPECT_EQ(crash::CounterLevel(*b), 1);
  EXPECT_EQ(Hits(*b, crash::Word(1, 7)), std::vector<std::string>{crash::Id(1, 7)});
  EXPECT_EQ(b->DescribeCollection(crash::kCollection)->records, batch.size());

  // A delete on the second engine, read on the first.
  const std::vector<std::string> ids = {crash::Id(1, 7)};
  auto deleted = b->Delete(crash::kCollection, ids);
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  ASSERT_TRUE(a->AwaitWrite(crash::kCollection, deleted->seq, Soon()).ok());
  EXPECT_FALSE(a->Get(crash::kCollection, crash::Id(1, 7)).value().has_value());
  EXPECT_TRUE(Hits(*a, crash::Word(1, 7)).empty());

  // A token the store never handed out is refused at once.
  auto bogus = a->AwaitWrite(crash::kCollection, deleted->seq + 1000, Soon());
  EXPECT_EQ(bogus.code(), StatusCode::kInvalidArgument) << bogus.ToString();

  // A drop reaches the other engine too.
  ASSERT_TRUE(b->DropCollection(crash::kCollection).ok());
  const auto until = Soon();
  while (a->DescribeCollection(crash::kCollection).ok() && steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(a->DescribeCollection(crash::kCollection).status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(a->Health().ok()) << a->Health().ToString();
}

TEST_F(SharedStoreTest, EnginesWritingOneCollectionAtOnceLoseNothing) {
  auto a = OpenEngine(place_->location());
  auto b = OpenEngine(place_->location());
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(a->CreateCollection(crash::Spec()).ok());
  ASSERT_TRUE(Has(*b, crash::kCollection));
  constexpr long kBatches = 12;
  std::vector<std::uint64_t> last(2);
  std::vector<Status> failed(2);
  auto write = [&](Engine& e, int side) {
    // Each engine its own batches (odd or even); both rewrite "counter".
    for (long batch = 1 + side; batch <= kBatches; batch += 2) {
      const std::vector<std::string> records = crash::Batch(batch);
      auto r = e.Upsert(crash::kCollection, Views(records));
      if (!r.ok()) {
        failed[side] = r.status();
        return;
      }
      last[side] = r->seq;
    }
  };
  std::thread ta(write, std::ref(*a), 0), tb(write, std::ref(*b), 1);
  ta.join();
  tb.join();
  ASSERT_TRUE(failed[0].ok()) << failed[0].ToString();
  ASSERT_TRUE(failed[1].ok()) << failed[1].ToString();
  const std::uint64_t token = std::max(last[0], last[1]);
  ASSERT_TRUE(a->AwaitWrite(crash::kCollection, token, Soon()).ok());
  ASSERT_TRUE(b->AwaitWrite(crash::kCollection, token, Soon()).ok());
  auto c = OpenEngine(place_->location());  // loads what the store has
  ASSERT_NE(c, nullptr);
  const std::size_t expected = kBatches * crash::kRecords + 1;
  for (const Engine* e : {a.get(), b.get(), c.get()}) {
    EXPECT_EQ(e->DescribeCollection(crash::kCollection)->records, expected);
    for (long batch = 1; batch <= kBatches; ++batch) {
      for (int i : {0, crash::kRecords - 1}) {
        EXPECT_EQ(Hits(*e, crash::Word(batch, i)), std::vector<std::string>{crash::Id(batch, i)})
            << "batch " << batch << " record " << i;
      }
    }
    EXPECT_EQ(Hits(*e, "common").size(), 50u);
  }
  // Every engine agrees on the counter: the last write of it committed.
  EXPECT_EQ(a->Get(crash::kCollection, "counter").value(),
            b->Get(crash::kCollection, "counter").value());
  EXPECT_EQ(a->Get(crash::kCollection, "counter").value(),
            c->Get(crash::kCollection, "counter").value());
}

TEST_F(SharedStoreTest, ConfigurationsChangedOnOneEngineReachTheOthers) {
  auto a = OpenEngine(place_->location());
  auto b = OpenEngine(place_->location());
  ASSERT_TRUE(a && b);
  // A text-only collection gets an embedder (model2vec test model, MIT,
  // src/embed/testdata): its records are embedded and the configuration
  // replaced in one batch, which the other engine loads afresh.
  CollectionSpec texts{
      "texts", SchemaRef::Parse(R"({"fields":[]})").value(), {{"text", 1.0}}, 0, "cosine", "en",
      ""};
  ASSERT_TRUE(a->CreateCollection(texts).ok());
  std::vector<std::string> records = {R"({"id":"a","text":"hello world"})"};
  auto written = a->Upsert("texts", Views(records));
  ASSERT_TRUE(written.ok());
  ASSERT_TRUE(b->AwaitWrite("texts", written->seq, Soon()).ok());
  const std::string model =
      std::string(ENGRAM_SOURCE_DIR) + "/src/embed/testdata/model2vec/test-model-float32";
  auto switched = a->Reembed("texts", ParseEmbedderSpec("model2vec:" + model).value());
  ASSERT_TRUE(switched.ok()) << switched.status().ToString();
  const auto until = Soon();
  while (b->DescribeCollection("texts")->spec.vector_dim == 0 && steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(b->DescribeCollection("texts")->spec.vector_dim, 2u);
  SearchRequest q;
  q.vector = std::vector<float>{1.0f, 0.0f};
  auto found = b->Search("texts", q);
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  ASSERT_EQ(found->hits.size(), 1u);
  EXPECT_EQ(found->hits[0].id, "a");

  // A retrieve configuration put on one engine is run on the other.
  RetrieveSpec retrieve;
  retrieve.name = "recent";
  retrieve.collection = "texts";
  retrieve.mode = SearchMode::kText;
  auto put = b->PutRetrieve(retrieve);
  ASSERT_TRUE(put.ok() && !put->has_value());
  while (!a->GetRetrieve("recent").ok() && steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(a->GetRetrieve("recent").ok());
}

TEST_F(SharedStoreTest, AnEngineBehindTheTrimmedFeedLoadsTheStoreAfresh) {
  auto a = OpenEngine(place_->location());
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(a->CreateCollection(crash::Spec()).ok());
  ASSERT_TRUE(
      a->CreateCollection({"other", crash::Spec().schema, {{"text", 1.0}}, 0, "cosine", "none", ""})
          .ok());
  const std::vector<std::string> batch = crash::Batch(1);
  ASSERT_TRUE(a->Upsert(crash::kCollection, Views(batch)).ok());
  // Behind the engine's back, in one transaction: `crash` is dropped and
  // the two changes before the drop are gone from the feed, as if trimmed.
  ASSERT_EQ(place_->Admin("BEGIN; "
                          "UPDATE engram_meta SET value = value + 3 WHERE key = 'last_seq'; "
                          "INSERT INTO engram_changes(seq, kind, collection) SELECT value, 2, "
                          "'crash'::bytea FROM engram_meta WHERE key = 'last_seq'; "
                          "DELETE FROM engram_collections WHERE name = 'crash'::bytea; "
                          "NOTIFY engram_changes; COMMIT"),
            "");
  const auto until = Soon();
  while (a->DescribeCollection(crash::kCollection).ok() && steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(a->DescribeCollection(crash::kCollection).status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(a->DescribeCollection("other").ok());  // loaded again, still there
  EXPECT_TRUE(a->Health().ok()) << a->Health().ToString();
}

}  // namespace shared_store_test
}  // namespace
}  // namespace engram
