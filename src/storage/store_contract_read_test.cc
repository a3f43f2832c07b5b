// The store's contract (store.h), reads: scans in record-number order,
// lookups, snapshots replaced whole, reopening, odd ids and bodies, and
// concurrent writers and readers, against every implementation (the suite
// is instantiated in store_contract_test.cc).
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "storage/store.h"
#include "storage/test_store_contract.h"
#include "storage/testing/test_dir.h"
#include "tests/support/store_places.h"

namespace engram::storage {
namespace {

using contract::Ids;
using contract::Row;
using contract::Scan;
using contract::StoreContractTest;
using testing::StoreKind;
using testing::TestRecord;
using testing::TestVector;

TEST_P(StoreContractTest, ScanIsInDocOrderAndHonoursVectorsAfter) {
  auto store = Open();
  ASSERT_TRUE(store->CreateCollection({"c", "{}"}).ok());
  ASSERT_TRUE(store->CreateCollection({"other", "{}"}).ok());
  WriteBatch a;  // written out of doc order
  for (std::uint32_t d : {7u, 3u, 0xffffffffu, 0u, 5u}) a.puts.push_back(TestRecord(d));
  a.puts.push_back(TestRecord(4, "", 0));  // no vector
  ASSERT_TRUE(store->Apply("c", a).ok());
  WriteBatch b;  // a new doc and a replacement
  b.puts = {TestRecord(9), TestRecord(3, "v2")};
  ASSERT_TRUE(store->Apply("c", b).ok());
  WriteBatch c;  // the same docs in another collection stay apart
  c.puts = {TestRecord(3, "elsewhere")};
  ASSERT_TRUE(store->Apply("other", c).ok());

  auto all = Scan(*store, "c", 0);
  std::vector<std::uint32_t> docs;
  for (const Row& r : all) docs.push_back(r.doc);
  EXPECT_EQ(docs, (std::vector<std::uint32_t>{0, 3, 4, 5, 7, 9, 0xffffffffu}));
  for (const Row& r : all) {
    EXPECT_EQ(r.vector, r.doc == 4 ? "" : TestVector(r.doc, 4)) << r.doc;
  }
  for (const Row& r : Scan(*store, "c", 3)) {  // `a` has sequence 3, after two creations
    EXPECT_EQ(r.vector.empty(), r.seq <= 3) << r.doc;
  }
  for (const Row& r : Scan(*store, "c", std::numeric_limits<std::uint64_t>::max())) {
    EXPECT_TRUE(r.vector.empty());
    EXPECT_FALSE(r.body.empty());
  }
  EXPECT_EQ(Scan(*store, "other").size(), 1u);
}

TEST_P(StoreContractTest, GetRecordReturnsEverything) {
  auto store = Open();
  ASSERT_TRUE(store->CreateCollection({"c", "{}"}).ok());
  WriteBatch a;
  a.puts = {TestRecord(42, "x", 300)};
  ASSERT_TRUE(store->Apply("c", a).ok());
  auto found = store->GetRecord("c", "id-42").value();
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->doc, 42u);
  EXPECT_EQ(found->seq, 2u);  // after the creation
  EXPECT_EQ(found->body, a.puts[0].body);
  EXPECT_EQ(found->vector, TestVector(42, 300));
  EXPECT_FALSE(store->GetRecord("c", "id-43").value().has_value());
}

TEST_P(StoreContractTest, SnapshotsAreReplacedWhole) {
  auto store = Open();
  ASSERT_TRUE(store->CreateCollection({"c", "{}"}).ok());
  ASSERT_TRUE(store->CreateCollection({"d", "{}"}).ok());
  EXPECT_FALSE(store->GetSnapshot("c", "text").value().has_value());
  std::string big(3 << 20, '\0');
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 7);
  ASSERT_TRUE(store->PutSnapshot("c", "vector", {7, big}).ok());
  ASSERT_TRUE(store->PutSnapshot("c", "text", {3, "first"}).ok());
  ASSERT_TRUE(store->PutSnapshot("c", "text", {5, "second"}).ok());
  ASSERT_TRUE(store->PutSnapshot("d", "text", {6, ""}).ok());
  auto text = store->GetSnapshot("c", "text").value();
  ASSERT_TRUE(text.has_value());
  EXPECT_EQ(text->seq, 5u);
  EXPECT_EQ(text->bytes, "second");
  EXPECT_EQ(store->GetSnapshot("c", "vector").value()->bytes, big);
  EXPECT_EQ(store->GetSnapshot("d", "text").value()->bytes, "");
  EXPECT_EQ(store->GetSnapshot("d", "text").value()->seq, 6u);
}

TEST_P(StoreContractTest, ReopenKeepsEverything) {
  std::vector<Row> before;
  {
    auto store = Open();
    ASSERT_TRUE(store->CreateCollection({"c", "{\"dim\":8}"}).ok());
    for (std::uint32_t b = 0; b < 3; ++b) {
      WriteBatch batch;
      for (std::uint32_t d = b * 10; d < b * 10 + 10; ++d) batch.puts.push_back(TestRecord(d));
      batch.removes = {"id-" + std::to_string(b)};
      ASSERT_TRUE(store->Apply("c", batch).ok());
    }
    ASSERT_TRUE(store->PutSnapshot("c", "text", {3, "snap"}).ok());
    before = Scan(*store, "c");
  }
  auto store = Open();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->LastSequence().value(), 5u);  // a creation, three batches, a snapshot
  EXPECT_EQ(Scan(*store, "c"), before);
  EXPECT_EQ(store->ListCollections().value()[0].config, "{\"dim\":8}");
  EXPECT_EQ(store->GetSnapshot("c", "text").value()->bytes, "snap");
  WriteBatch more;
  more.puts = {TestRecord(100)};
  EXPECT_EQ(store->Apply("c", more).value(), 6u);
}

TEST_P(StoreContractTest, CallbackErrorStopsTheScan) {
  auto store = Open();
  ASSERT_TRUE(store->CreateCollection({"c", "{}"}).ok());
  WriteBatch batch;
  for (std::uint32_t d = 0; d < 10; ++d) batch.puts.push_back(TestRecord(d));
  ASSERT_TRUE(store->Apply("c", batch).ok());
  int calls = 0;
  Status status = store->ScanRecords("c", 0, [&](const RecordRow&) {
    return ++calls == 3 ? Status::Corruption("bad body") : Status::Ok();
  });
  EXPECT_EQ(status.code(), StatusCode::kCorruption);
  EXPECT_EQ(status.message(), "bad body");
  EXPECT_EQ(calls, 3);
  // The interrupted scan left no transaction open: writes and scans go on.
  EXPECT_TRUE(store->Apply("c", batch).ok());
  EXPECT_EQ(Scan(*store, "c").size(), 10u);
}

TEST_P(StoreContractTest, OddIdsNamesAndBodiesRoundTrip) {
  const std::string name = "x'); DROP TABLE collections; --";
  const std::vector<std::string> ids = {
      "'; DROP TABLE records; --", "",    std::string("a\0b", 3), "\xff\xfe\x80", "\"quoted\"",
      std::string(10000, 'L'),     "%_*?"};
  std::vector<std::string> bodies = {
      "", std::string("\0\0\0", 3), "plain", "\xc3\x28", std::string(1 << 16, '\x01'), "{}", "x"};
  {
    auto store = Open();
    ASSERT_TRUE(store->CreateCollection({name, std::string("cfg\0x", 5)}).ok());
    WriteBatch batch;
    for (std::size_t i = 0; i < ids.size(); ++i) {
      batch.puts.push_back({ids[i], static_cast<std::uint32_t>(i), bodies[i], ""});
    }
    ASSERT_TRUE(store->Apply(name, batch).ok());
  }
  auto store = Open();
  auto list = store->ListCollections().value();
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0].name, name);
  EXPECT_EQ(list[0].config, std::string("cfg\0x", 5));
  auto rows = Scan(*store, name);
  ASSERT_EQ(rows.size(), ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    EXPECT_EQ(rows[i].id, ids[i]);
    EXPECT_EQ(rows[i].body, bodies[i]);
    auto found = store->GetRecord(name, ids[i]).value();
    ASSERT_TRUE(found.has_value()) << i;
    EXPECT_EQ(found->doc, i);
    EXPECT_EQ(found->body, bodies[i]);
  }
  // "a" is not "a\0b": ids compare as whole byte strings.
  EXPECT_FALSE(store->GetRecord(name, "a").value().has_value());
  WriteBatch remove;
  remove.removes = {"'; DROP TABLE records; --"};
  ASSERT_TRUE(store->Apply(name, remove).ok());
  EXPECT_EQ(Scan(*store, name).size(), ids.size() - 1);
}

TEST_P(StoreContractTest, ConcurrentWritersAndReadersSerialise) {
  auto store = Open();
  ASSERT_TRUE(store->CreateCollection({"c", "{}"}).ok());
  std::vector<std::thread> threads;
  std::vector<std::vector<std::uint64_t>> seqs(2);
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      for (std::uint32_t i = 0; i < 20; ++i) {
        WriteBatch batch;
        batch.puts = {TestRecord(t * 1000 + i)};
        auto seq = store->Apply("c", batch);
        if (seq.ok()) seqs[t].push_back(*seq);
        (void)store->ScanRecords("c", 0, [](const RecordRow&) { return Status::Ok(); });
      }
    });
  }
  for (auto& t : threads) t.join();
  std::map<std::uint64_t, int> seen;
  for (const auto& s : seqs) {
    EXPECT_EQ(s.size(), 20u);
    for (std::uint64_t q : s) ++seen[q];
  }
  EXPECT_EQ(seen.size(), 40u);  // every batch got its own sequence
  EXPECT_EQ(Scan(*store, "c").size(), 40u);
}

}  // namespace
}  // namespace engram::storage
