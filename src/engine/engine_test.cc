// The engine through its public API: collections, durable writes, search
// and its bad input, retrieve configurations, concurrent searches, writes and
// drops, one owner per store (recovery_test.cc: reopening).
#include "engram/engine.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "engine/testing/engine_fixture.h"

namespace engram {
namespace {

using testing::EngineTest;
using testing::kWords;

TEST_F(EngineTest, CreateValidatesAndPersists) {
  auto e = Open();
  ASSERT_TRUE(e);
  CollectionSpec bad = Spec();
  bad.name = "no spaces";
  EXPECT_EQ(e->CreateCollection(bad).code(), StatusCode::kInvalidArgument);
  bad = Spec();
  bad.text.clear();
  bad.vector_dim = 0;
  EXPECT_EQ(e->CreateCollection(bad).code(), StatusCode::kInvalidArgument);
  bad = Spec();
  bad.time_field = "region";
  Status s = e->CreateCollection(bad);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("time_field"), std::string::npos) << s.message();
  bad = Spec();
  bad.metric = "hamming";
  EXPECT_EQ(e->CreateCollection(bad).code(), StatusCode::kInvalidArgument);
  ASSERT_TRUE(e->CreateCollection(Spec()).ok());
  EXPECT_EQ(e->CreateCollection(Spec()).code(), StatusCode::kAlreadyExists);
  e.reset();
  e = Open();
  ASSERT_TRUE(e);
  StatusOr<CollectionInfo> info = e->DescribeCollection("lore");
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->spec.vector_dim, 8u);
  EXPECT_EQ(info->spec.text.size(), 2u);
  EXPECT_EQ(info->spec.time_field, "written");
  EXPECT_EQ(e->DescribeCollection("nope").status().code(), StatusCode::kNotFound);
}

TEST_F(EngineTest, RejectedBatchWritesNothing) {
  auto e = Open();
  ASSERT_TRUE(e->CreateCollection(Spec()).ok());
  std::mt19937 rng(1);
  std::vector<std::string> records = {
      Record(0, rng), Record(1, rng),
      R"({"id":"bad","title":"x","level":"high","vector":[1,2,3,4,5,6,7,8]})"};
  std::vector<std::string_view> views(records.begin(), records.end());
  StatusOr<WriteResult> r = e->Upsert("lore", views);
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->rejected);
  EXPECT_EQ(r->rejected_index, 2u);
  EXPECT_NE(r->rejected->message.find("level"), std::string::npos) << r->rejected->message;
  EXPECT_EQ(e->DescribeCollection("lore")->records, 0u);
  // A wrong-sized vector, and a vector component that is not a number.
  records = {R"({"id":"v","title":"x","vector":[1,2]})"};
  views.assign(records.begin(), records.end());
  r = e->Upsert("lore", views);
  ASSERT_TRUE(r.ok() && r->rejected);
  EXPECT_EQ(r->rejected->path, "vector");
  records = {R"({"id":"v","title":"x","vector":[1,2,3,"4",5,6,7,8]})"};
  views.assign(records.begin(), records.end());
  r = e->Upsert("lore", views);
  ASSERT_TRUE(r.ok() && r->rejected);
  EXPECT_EQ(r->rejected->path, "vector[3]");
  records = {R"({"id":"v","title":7,"vector":[1,2,3,4,5,6,7,8]})"};
  views.assign(records.begin(), records.end());
  r = e->Upsert("lore", views);
  ASSERT_TRUE(r.ok() && r->rejected);
  EXPECT_EQ(r->rejected->path, "title");
}

TEST_F(EngineTest, UpsertReplacesGetAndDelete) {
  auto e = Open();
  ASSERT_TRUE(e->CreateCollection(Spec()).ok());
  std::mt19937 rng(2);
  std::vector<std::string> records;
  for (int i = 0; i < 50; ++i) records.push_back(Record(i, rng));
  ASSERT_TRUE(Ingest(*e, records).ok());
  EXPECT_EQ(e->DescribeCollection("lore")->records, 50u);
  // Replace r3 (twice in one batch: the later wins).
  ASSERT_TRUE(Ingest(*e, {R"({"id":"r3","title":"first","vector":[1,0,0,0,0,0,0,0]})",
                          R"({"id":"r3","title":"zeppelin","vector":[1,0,0,0,0,0,0,0]})"})
                  .ok());
  EXPECT_EQ(e->DescribeCollection("lore")->records, 50u);
  StatusOr<std::optional<std::string>> got = e->Get("lore", "r3");
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_NE((*got)->find("zeppelin"), std::string::npos);
  EXPECT_EQ((*got)->find("vector"), std::string::npos) << "vectors are not part of the body";
  SearchRequest q;
  q.query = "zeppelin";
  StatusOr<SearchResponse> s = e->Search("lore", q);
  ASSERT_TRUE(s.ok());
  ASSERT_EQ(s->hits.size(), 1u);
  EXPECT_EQ(s->hits[0].id, "r3");

  const std::vector<std::string> ids = {"r3", "r4", "missing"};
  StatusOr<WriteResult> d = e->Delete("lore", ids);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->written, 2u);
  d = e->DeleteWhere("lore", FilterDialect::kVectorFilter, R"({"region":"keep"})");
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(d->rejected);
  EXPECT_EQ(d->written, 13u);  // region keep: i % 4 == 1, r1 .. r49
  d = e->DeleteWhere("lore", FilterDialect::kVectorFilter, R"({"nosuchfield":1})");
  ASSERT_TRUE(d.ok());
  ASSERT_TRUE(d->rejected);
  EXPECT_EQ(e->DescribeCollection("lore")->records, 50u - 2 - 13);
  e.reset();
  e = Open();
  EXPECT_EQ(e->DescribeCollection("lore")->records, 50u - 2 - 13);
  EXPECT_FALSE(e->Get("lore", "r4")->has_value());
  EXPECT_FALSE(e->Get("lore", "r1")->has_value());
  EXPECT_TRUE(e->Get("lore", "r2")->has_value());
}

TEST_F(EngineTest, SearchRejectsBadInputWithLocation) {
  auto e = Open();
  ASSERT_TRUE(e->CreateCollection(Spec()).ok());
  SearchRequest r;
  r.query = "wolf";
  r.dialect = FilterDialect::kRetrieve;
  r.filter = R"({"op":"ge","lhs":{"knowledge":"level"},"rhs":{"value":"high"}})";
  StatusOr<SearchResponse> s = e->Search("lore", r);
  ASSERT_TRUE(s.ok());
  ASSERT_TRUE(s->rejected);
  EXPECT_EQ(s->rejected->code, 3007);
  EXPECT_NE(s->rejected->message.find("rhs"), std::string::npos) << s->rejected->message;
  r = SearchRequest{};
  r.vector = std::vector<float>{1, 2, 3};
  s = e->Search("lore", r);
  ASSERT_TRUE(s.ok());
  ASSERT_TRUE(s->rejected);
  EXPECT_NE(s->rejected->message.find("vector"), std::string::npos) << s->rejected->message;
  EXPECT_EQ(e->Search("nope", r).status().code(), StatusCode::kNotFound);
  r = SearchRequest{};
  r.query = "wolf last friday";
  r.anchor = "2025-02-30";
  s = e->Search("lore", r);
  ASSERT_TRUE(s.ok());
  ASSERT_TRUE(s->rejected);
  EXPECT_EQ(s->rejected->kind, "query.invalid_anchor");
  EXPECT_EQ(s->rejected->path, "anchor");
}

// FILTERS.md §1.6: a retrieve configuration's filter is replaced atomically
// while searches run; a bad filter keeps the old one (3007); blank clears.
TEST_F(EngineTest, RetrieveConfigurationsSurviveReopenAndGoWithTheirCollection) {
  const std::string filter = R"({"op":"ge","lhs":{"knowledge":"level"},"rhs":{"value":3}})";
  {
    std::unique_ptr<Engine> e = Open();
    ASSERT_TRUE(e->CreateCollection(Spec()).ok());
    RetrieveSpec spec{"npc", "lore", FilterDialect::kRetrieve, "", 7, 0.25, SearchMode::kText};
    ASSERT_FALSE(e->PutRetrieve(spec).value());
    spec.name = "other";
    ASSERT_FALSE(e->PutRetrieve(spec).value());
    ASSERT_FALSE(e->SetRetrieveFilter("npc", FilterDialect::kRetrieve, filter).value());
  }
  std::unique_ptr<Engine> e = Open();
  StatusOr<RetrieveSpec> npc = e->GetRetrieve("npc");
  ASSERT_TRUE(npc.ok()) << npc.status().message();
  EXPECT_EQ(npc->filter, filter);
  EXPECT_EQ(npc->top_k, 7u);
  EXPECT_EQ(npc->threshold, 0.25);
  EXPECT_EQ(npc->mode, SearchMode::kText);
  EXPECT_EQ(e->ListRetrieves().size(), 2u);
  ASSERT_TRUE(e->DropCollection("lore").ok());
  EXPECT_TRUE(e->ListRetrieves().empty());
  ASSERT_TRUE(e->CreateCollection(Spec()).ok());
  e.reset();
  e = Open();
  EXPECT_TRUE(e->ListRetrieves().empty()) << "dropping a collection drops its configurations";
}

TEST_F(EngineTest, RetrieveFilterSwapsAtomically) {
  auto e = Open();
  ASSERT_TRUE(e->CreateCollection(Spec()).ok());
  std::mt19937 rng(4);
  std::vector<std::string> records;
  for (int i = 0; i < 200; ++i) records.push_back(Record(i, rng));
  ASSERT_TRUE(Ingest(*e, records).ok());
  const std::string low = R"({"op":"lt","lhs":{"knowledge":"level"},"rhs":{"value":5}})";
  const std::string high = R"({"op":"ge","lhs":{"knowledge":"level"},"rhs":{"value":15}})";
  RetrieveSpec spec{"npc", "lore", FilterDialect::kRetrieve, low, 20, 0.5, SearchMode::kText};
  StatusOr<std::optional<Diagnostic>> put = e->PutRetrieve(spec);
  ASSERT_TRUE(put.ok() && !put->has_value());

  StatusOr<std::optional<Diagnostic>> bad =
      e->SetRetrieveFilter("npc", FilterDialect::kRetrieve,
                           R"({"op":"ge","lhs":{"knowledge":"nope"},"rhs":{"value":1}})");
  ASSERT_TRUE(bad.ok() && bad->has_value());
  EXPECT_EQ((*bad)->code, 3007);
  EXPECT_EQ(e->GetRetrieve("npc")->filter, low) << "a bad filter keeps the old one";

  // The level of each hit, read back from its record.
  auto levels = [](const SearchResponse& r) {
    std::vector<int> out;
    for (const SearchHit& h : r.hits) {
      const std::size_t at = h.record.find("\"level\":");
      out.push_back(at == std::string::npos ? 0 : std::stoi(h.record.substr(at + 8)));
    }
    return out;
  };
  std::atomic<bool> stop{false};
  std::atomic<int> mixed{0}, runs{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 3; ++t) {
    readers.emplace_back([&] {
      while (!stop.load()) {
        StatusOr<SearchResponse> r = e->Retrieve("npc", "wolf OR river OR mage OR salt");
        if (!r.ok() || r->rejected) {
          ++mixed;
          continue;
        }
        bool all_low = true, all_high = true;
        for (int level : levels(*r)) {
          all_low = all_low && level < 5;
          all_high = all_high && level >= 15;
        }
        if (!r->hits.empty() && !all_low && !all_high) ++mixed;
        ++runs;
      }
    });
  }
  for (int i = 0; i < 200; ++i) {
    ASSERT_TRUE(e->SetRetrieveFilter("npc", FilterDialect::kRetrieve, i % 2 ? low : high).ok());
    StatusOr<std::optional<Diagnostic>> b =
        e->SetRetrieveFilter("npc", FilterDialect::kRetrieve, "{\"op\":");
    ASSERT_TRUE(b.ok() && b->has_value());
  }
  while (runs.load() < 50) std::this_thread::yield();
  stop = true;
  for (std::thread& t : readers) t.join();
  EXPECT_EQ(mixed.load(), 0) << "a search saw a mix of two filters";

  ASSERT_TRUE(e->SetRetrieveFilter("npc", FilterDialect::kRetrieve, "  ").ok());
  EXPECT_EQ(e->GetRetrieve("npc")->filter, "");
  StatusOr<SearchResponse> all = e->Retrieve("npc", "wolf OR river OR mage OR salt");
  ASSERT_TRUE(all.ok());
  std::vector<int> seen = levels(*all);
  EXPECT_TRUE(std::any_of(seen.begin(), seen.end(), [](int l) { return l >= 5 && l < 15; }))
      << "a cleared filter keeps everything";
}

// Searches, gets and checkpoints while another thread writes and deletes:
// every search sees a whole batch or none of it (TSan runs this in CI).
TEST_F(EngineTest, ConcurrentSearchesDuringWrites) {
  auto e = Open();
  ASSERT_TRUE(e->CreateCollection(Spec()).ok());
  std::mt19937 rng(5);
  std::vector<std::vector<std::string>> batches(12);
  for (int b = 0; b < 12; ++b) {
    for (int i = 0; i < 20; ++i) batches[b].push_back(Record(b * 20 + i, rng));
  }
  std::atomic<bool> stop{false};
  std::atomic<int> errors{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 2; ++t) {
    readers.emplace_back([&, t] {
      std::mt19937 local(static_cast<unsigned>(t));
      while (!stop.load()) {
        SearchRequest r;
        r.query = kWords[local() % 12];
        r.vector = std::vector<float>(8, 0.25f);
        r.k = 50;
        r.dialect = FilterDialect::kVectorFilter;
        r.filter = R"({"level":{"$lt":10}})";
        StatusOr<SearchResponse> s = e->Search("lore", r);
        if (!s.ok() || s->rejected) ++errors;
        // Batches are written whole: the count of records is a multiple of 20.
        StatusOr<CollectionInfo> info = e->DescribeCollection("lore");
        if (!info.ok() || info->records % 20 != 0) ++errors;
        (void)e->Get("lore", "r7");
      }
    });
  }
  for (int b = 0; b < 12; ++b) {
    ASSERT_TRUE(Ingest(*e, batches[b]).ok());
    if (b % 4 == 3) {
      std::vector<std::string> ids;
      for (int i = 0; i < 20; ++i) ids.push_back("r" + std::to_string((b - 2) * 20 + i));
      ASSERT_TRUE(e->Delete("lore", ids).ok());
      ASSERT_TRUE(e->Checkpoint("lore").ok());
    }
  }
  stop = true;
  for (std::thread& t : readers) t.join();
  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(e->DescribeCollection("lore")->records, 12u * 20 - 3 * 20);
}

TEST_F(EngineTest, ASecondOpenOfTheStoreIsRefused) {
  auto e = Open();
  StatusOr<std::unique_ptr<Engine>> second = Engine::Open(dir_.string());
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(second.status().message(),
            "store " + dir_.string() + " is already open in this process (engram)");
  e.reset();
  EXPECT_TRUE(Engine::Open(dir_.string()).ok());
}

// A write that resolved a collection before it was dropped fails (NotFound)
// and never lands in a later collection of the same name: what every
// incarnation holds in memory is what the store holds, and a reopen agrees.
TEST_F(EngineTest, ConcurrentDropsNeverTakeAnotherIncarnationsWrites) {
  auto e = Open();
  ASSERT_TRUE(e->CreateCollection(Spec()).ok());
  std::atomic<bool> stop{false};
  std::atomic<int> unexpected{0}, written{0};
  std::vector<std::thread> writers;
  for (int t = 0; t < 2; ++t) {
    writers.emplace_back([&, t] {
      std::mt19937 local(static_cast<unsigned>(100 + t));
      for (int n = 0; !stop.load(); ++n) {
        std::vector<std::string> batch;
        for (int i = 0; i < 5; ++i) batch.push_back(Record(t * 1000000 + n * 5 + i, local));
        std::vector<std::string_view> views(batch.begin(), batch.end());
        StatusOr<WriteResult> r = e->Upsert("lore", views);
        if (r.ok() && !r->rejected) {
          ++written;
        } else if (!r.ok() && r.status().code() != StatusCode::kNotFound) {
          ++unexpected;
        }
      }
    });
  }
  for (int round = 0; round < 20; ++round) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ASSERT_TRUE(e->DropCollection("lore").ok());
    ASSERT_TRUE(e->CreateCollection(Spec()).ok());
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  stop = true;
  for (std::thread& t : writers) t.join();
  EXPECT_EQ(unexpected.load(), 0);
  EXPECT_GT(written.load(), 0);
  const std::set<std::string> in_memory = ListedIds(*e);
  e.reset();
  std::set<std::string> stored;
  for (const auto& [id, doc] : StoredDocs()) stored.insert(id);
  EXPECT_EQ(in_memory, stored);
  auto reopened = Open();
  EXPECT_EQ(ListedIds(*reopened), stored);
}

}  // namespace
}  // namespace engram
