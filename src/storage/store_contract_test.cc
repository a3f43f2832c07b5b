// The store's contract (store.h), run against every implementation: the
// embedded SQLite store and the PostgreSQL store on a private server started
// by the test (tests/support/store_places.h).
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
#include "storage/testing/test_dir.h"
#include "tests/support/store_places.h"

namespace engram::storage {
namespace {

using testing::StoreKind;
using testing::StorePlace;
using testing::TestRecord;
using testing::TestVector;

class StoreContractTest : public ::testing::TestWithParam<StoreKind> {
 protected:
  void SetUp() override {
    place_ = GetParam().make();
    ASSERT_NE(place_, nullptr);
  }
  std::unique_ptr<Store> Open() {
    auto store = place_->Open();
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    return store.ok() ? std::move(store).value() : nullptr;
  }

 private:
  std::unique_ptr<StorePlace> place_;
};

struct Row {
  std::string id;
  std::uint32_t doc;
  std::uint64_t seq;
  std::string body;
  std::string vector;
  bool operator==(const Row&) const = default;
};

std::vector<Row> Scan(Store& store, std::string_view collection, std::uint64_t vectors_after = 0) {
  std::vector<Row> rows;
  Status status = store.ScanRecords(collection, vectors_after, [&](const RecordRow& r) {
    rows.push_back({std::string(r.id), r.doc, r.seq, std::string(r.body), std::string(r.vector)});
    return Status::Ok();
  });
  EXPECT_TRUE(status.ok()) << status.ToString();
  return rows;
}

std::vector<std::string> Ids(const std::vector<Row>& rows) {
  std::vector<std::string> ids;
  for (const Row& r : rows) ids.push_back(r.id);
  return ids;
}

TEST_P(StoreContractTest, StartsEmpty) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->LastSequence().value(), 0u);
  EXPECT_TRUE(store->ListCollections().value().empty());
}

TEST_P(StoreContractTest, CollectionsCreateListDrop) {
  auto store = Open();
  ASSERT_TRUE(store->CreateCollection({"beta", "{\"b\":1}"}).ok());
  ASSERT_TRUE(store->CreateCollection({"alpha", "{\"a\":1}"}).ok());
  EXPECT_EQ(store->CreateCollection({"alpha", "other"}).status().code(),
            StatusCode::kAlreadyExists);
  auto list = store->ListCollections().value();
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0].name, "alpha");
  EXPECT_EQ(list[0].config, "{\"a\":1}");  // the failed create changed nothing
  EXPECT_EQ(list[1].name, "beta");

  WriteBatch batch;
  batch.puts = {TestRecord(0), TestRecord(1)};
  ASSERT_TRUE(store->Apply("alpha", batch).ok());
  ASSERT_TRUE(store->PutSnapshot("alpha", "text", {1, "snap"}).ok());
  ASSERT_TRUE(store->DropCollection("alpha").ok());
  EXPECT_EQ(store->DropCollection("alpha").code(), StatusCode::kNotFound);
  EXPECT_EQ(store->Apply("alpha", batch).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store->GetRecord("alpha", "id-0").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store->RecordLimit("alpha").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store->GetSnapshot("alpha", "text").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store->PutSnapshot("alpha", "text", {}).code(), StatusCode::kNotFound);
  EXPECT_EQ(store->ScanRecords("alpha", 0, [](const RecordRow&) { return Status::Ok(); }).code(),
            StatusCode::kNotFound);
  ASSERT_EQ(store->ListCollections().value().size(), 1u);

  // A new collection of the same name starts empty.
  ASSERT_TRUE(store->CreateCollection({"alpha", "{}"}).ok());
  EXPECT_TRUE(Scan(*store, "alpha").empty());
  EXPECT_FALSE(store->GetSnapshot("alpha", "text").value().has_value());
}

TEST_P(StoreContractTest, ApplyUpsertsReplacesAndRemoves) {
  auto store = Open();
  ASSERT_TRUE(store->CreateCollection({"c", "{}"}).ok());
  WriteBatch first;
  for (std::uint32_t d = 0; d < 5; ++d) first.puts.push_back(TestRecord(d));
  // The creation took sequence 1.
  EXPECT_EQ(store->Apply("c", first).value(), 2u);

  WriteBatch second;
  second.puts = {TestRecord(2, "new")};
  EXPECT_EQ(store->Apply("c", second).value(), 3u);

  WriteBatch third;
  third.removes = {"id-3", "absent"};
  EXPECT_EQ(store->Apply("c", third).value(), 4u);

  auto rows = Scan(*store, "c");
  EXPECT_EQ(Ids(rows), (std::vector<std::string>{"id-0", "id-1", "id-2", "id-4"}));
  EXPECT_EQ(rows[2].body, TestRecord(2, "new").body);
  EXPECT_EQ(rows[2].seq, 3u);
  EXPECT_EQ(rows[0].seq, 2u);
  EXPECT_EQ(rows[3].seq, 2u);
  EXPECT_FALSE(store->GetRecord("c", "id-3").value().has_value());
  EXPECT_EQ(store->LastSequence().value(), 4u);
}

TEST_P(StoreContractTest, RecordLimitIsOnePastTheLargestRecordNumberOfTheCollection) {
  auto store = Open();
  EXPECT_EQ(store->RecordLimit("c").status().code(), StatusCode::kNotFound);
  ASSERT_TRUE(store->CreateCollection({"c", "{}"}).ok());
  ASSERT_TRUE(store->CreateCollection({"other", "{}"}).ok());
  EXPECT_EQ(store->RecordLimit("c").value(), 0u);
  WriteBatch batch;
  for (const std::uint32_t d : {3u, 0u, 7u}) batch.puts.push_back(TestRecord(d));
  ASSERT_TRUE(store->Apply("c", batch).ok());
  WriteBatch elsewhere;
  elsewhere.puts = {TestRecord(100)};
  ASSERT_TRUE(store->Apply("other", elsewhere).ok());
  EXPECT_EQ(store->RecordLimit("c").value(), 8u);
  EXPECT_EQ(store->RecordLimit("other").value(), 101u);
  WriteBatch remove;
  remove.removes = {"id-7"};
  ASSERT_TRUE(store->Apply("c", remove).ok());
  EXPECT_EQ(store->RecordLimit("c").value(), 4u);
  // The largest number there is: its limit does not wrap.
  WriteBatch last;
  last.puts = {TestRecord(UINT32_MAX)};
  ASSERT_TRUE(store->Apply("c", last).ok());
  EXPECT_EQ(store->RecordLimit("c").value(), std::uint64_t{UINT32_MAX} + 1);
}

TEST_P(StoreContractTest, ABatchMayReplaceTheConfigurationWithItsRecords) {
  auto store = Open();
  ASSERT_TRUE(store->CreateCollection({"c", "{\"v\":1}"}).ok());
  ASSERT_TRUE(store->CreateCollection({"d", "{\"v\":9}"}).ok());
  WriteBatch batch;
  batch.puts = {TestRecord(0, "re-embedded")};
  batch.config = "{\"v\":2}";
  ASSERT_TRUE(store->Apply("c", batch).ok());
  const auto rows = store->ListCollections().value();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].config, "{\"v\":2}");
  EXPECT_EQ(rows[1].config, "{\"v\":9}");  // only the batch's collection
  EXPECT_EQ(Scan(*store, "c")[0].body, TestRecord(0, "re-embedded").body);
}

TEST_P(StoreContractTest, ReplacingMayMoveARecordToANewDoc) {
  auto store = Open();
  ASSERT_TRUE(store->CreateCollection({"c", "{}"}).ok());
  WriteBatch a;
  a.puts = {TestRecord(5), TestRecord(6)};
  ASSERT_TRUE(store->Apply("c", a).ok());
  RecordWrite moved = TestRecord(5, "moved");
  moved.doc = 9;
  WriteBatch b;
  b.puts = {moved};
  ASSERT_TRUE(store->Apply("c", b).ok());
  auto rows = Scan(*store, "c");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].id, "id-6");
  EXPECT_EQ(rows[1].id, "id-5");
  EXPECT_EQ(rows[1].doc, 9u);
}

TEST_P(StoreContractTest, DocTakenByAnotherIdRejectsTheWholeBatch) {
  auto store = Open();
  ASSERT_TRUE(store->CreateCollection({"c", "{}"}).ok());
  WriteBatch a;
  a.puts = {TestRecord(1)};
  ASSERT_TRUE(store->Apply("c", a).ok());
  WriteBatch bad;
  bad.puts = {TestRecord(2), TestRecord(1)};
  bad.puts[1].id = "intruder";
  bad.removes = {"id-1"};  // removes run first, so doc 1 is free here...
  bad.puts.push_back(TestRecord(2));
  bad.puts.back().id = "twin";  // ...but doc 2 is taken by the first put
  auto seq = store->Apply("c", bad);
  EXPECT_EQ(seq.status().code(), StatusCode::kInvalidArgument) << seq.status().ToString();
  EXPECT_NE(seq.status().message().find("twin"), std::string::npos);
  EXPECT_EQ(Ids(Scan(*store, "c")), std::vector<std::string>{"id-1"});
  EXPECT_EQ(store->LastSequence().value(), 2u);  // the creation and `a`
  // Not an I/O error: the store keeps accepting writes.
  EXPECT_EQ(store->Apply("c", a).value(), 3u);
}

TEST_P(StoreContractTest, RemovesApplyBeforePuts) {
  auto store = Open();
  ASSERT_TRUE(store->CreateCollection({"c", "{}"}).ok());
  WriteBatch a;
  a.puts = {TestRecord(1), TestRecord(2)};
  ASSERT_TRUE(store->Apply("c", a).ok());
  WriteBatch b;
  b.removes = {"id-1", "id-2"};
  b.puts = {TestRecord(1, "again")};
  b.puts[0].id = "reuses-doc-1";
  b.puts.push_back(TestRecord(2, "kept"));
  ASSERT_TRUE(store->Apply("c", b).ok());
  auto rows = Scan(*store, "c");
  EXPECT_EQ(Ids(rows), (std::vector<std::string>{"reuses-doc-1", "id-2"}));
}

TEST_P(StoreContractTest, TouchesReplaceBodiesKeepingNumberVectorAndSequence) {
  auto store = Open();
  ASSERT_TRUE(store->CreateCollection({"c", "{}"}).ok());
  WriteBatch first;
  first.puts = {TestRecord(0), TestRecord(1)};
  const std::uint64_t seq = store->Apply("c", first).value();
  WriteBatch touch;
  touch.touches = {{"id-1", "{\"n\":1,\"hits\":3}"}, {"absent", "{}"}};
  const std::uint64_t later = store->Apply("c", touch).value();
  EXPECT_GT(later, seq);  // the batch takes a sequence, the record keeps its own
  const std::vector<Row> rows = Scan(*store, "c");
  ASSERT_EQ(rows.size(), 2u) << "a touch of an absent id is ignored";
  EXPECT_EQ(rows[0], (Row{"id-0", 0, seq, TestRecord(0).body, TestVector(0, 4)}));
  EXPECT_EQ(rows[1], (Row{"id-1", 1, seq, "{\"n\":1,\"hits\":3}", TestVector(1, 4)}));
  // Removes and puts apply before the touches of the same batch.
  WriteBatch mixed;
  mixed.removes = {"id-0"};
  mixed.touches = {{"id-0", "{}"}};
  ASSERT_TRUE(store->Apply("c", mixed).ok());
  EXPECT_EQ(Ids(Scan(*store, "c")), std::vector<std::string>{"id-1"});
}

TEST_P(StoreContractTest, SequencesIncreaseAcrossCollectionsAndTagRecords) {
  auto store = Open();
  ASSERT_TRUE(store->CreateCollection({"a", "{}"}).ok());
  ASSERT_TRUE(store->CreateCollection({"b", "{}"}).ok());
  std::uint64_t last = 0;
  for (std::uint32_t i = 0; i < 6; ++i) {
    WriteBatch batch;
    if (i != 3) batch.puts = {TestRecord(i)};  // an empty batch takes a sequence too
    auto seq = store->Apply(i % 2 ? "a" : "b", batch);
    ASSERT_TRUE(seq.ok());
    EXPECT_GT(*seq, last);
    last = *seq;
    if (i != 3) {
      auto found = store->GetRecord(i % 2 ? "a" : "b", "id-" + std::to_string(i)).value();
      ASSERT_TRUE(found.has_value());
      EXPECT_EQ(found->seq, *seq);
    }
  }
  EXPECT_EQ(store->LastSequence().value(), last);
  for (const Row& r : Scan(*store, "a")) EXPECT_EQ(r.seq, r.doc + 3u);  // after two creations
}

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

INSTANTIATE_TEST_SUITE_P(Stores, StoreContractTest,
                         ::testing::Values(testing::SqliteKind(), testing::PostgresKind()),
                         [](const ::testing::TestParamInfo<StoreKind>& kind) {
                           return kind.param.name;
                         });

}  // namespace
}  // namespace engram::storage
