// The store's contract (store.h), run against every implementation: the
// embedded SQLite store and the PostgreSQL store on a private server started
// by the test (tests/support/store_places.h). Writes here; scans, reads,
// snapshots, reopening and concurrency: store_contract_read_test.cc.
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

INSTANTIATE_TEST_SUITE_P(Stores, StoreContractTest,
                         ::testing::Values(testing::SqliteKind(), testing::PostgresKind()),
                         [](const ::testing::TestParamInfo<StoreKind>& kind) {
                           return kind.param.name;
                         });

}  // namespace
}  // namespace engram::storage
