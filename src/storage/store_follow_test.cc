// The contract of stores that several engines share (store.h): a batch
// decided on a stale view is refused on both stores (WriteBatch::after), and
// the PostgreSQL store's change feed yields every change in sequence order
// with its records, and announces commits to other openers.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "storage/store.h"
#include "storage/testing/test_dir.h"
#include "tests/support/store_places.h"

namespace engram::storage {
namespace {

using testing::StoreKind;
using testing::TestRecord;

class StoreAfterTest : public ::testing::TestWithParam<StoreKind> {};

TEST_P(StoreAfterTest, ABatchDecidedBeforeAnotherOfItsCollectionIsRefused) {
  auto place = GetParam().make();
  ASSERT_NE(place, nullptr);
  auto store = place->Open().value();
  const std::uint64_t created = store->CreateCollection({"c", "{}"}).value();
  ASSERT_TRUE(store->CreateCollection({"d", "{}"}).ok());
  WriteBatch batch;
  batch.puts = {TestRecord(0)};
  batch.after = created;
  const std::uint64_t first = store->Apply("c", batch).value();

  // Decided knowing `c` up to its creation only: `first` came since.
  WriteBatch stale;
  stale.puts = {TestRecord(1)};
  stale.after = created;
  auto refused = store->Apply("c", stale);
  EXPECT_EQ(refused.status().code(), StatusCode::kAborted) << refused.status().ToString();
  EXPECT_EQ(store->LastSequence().value(), first);
  EXPECT_FALSE(store->GetRecord("c", "id-1").value().has_value());

  // Another collection's batches do not make a view of `c` stale.
  WriteBatch elsewhere;
  elsewhere.puts = {TestRecord(5)};
  ASSERT_TRUE(store->Apply("d", elsewhere).ok());
  stale.after = first;
  EXPECT_TRUE(store->Apply("c", stale).ok());
  // Without `after`, nothing is checked.
  stale.after.reset();
  EXPECT_TRUE(store->Apply("c", stale).ok());
}

INSTANTIATE_TEST_SUITE_P(Stores, StoreAfterTest,
                         ::testing::Values(testing::SqliteKind(), testing::PostgresKind()),
                         [](const ::testing::TestParamInfo<StoreKind>& kind) {
                           return kind.param.name;
                         });

TEST(StoreFollowTest, ASqliteStoreHasOneOwnerAndNoFeed) {
  auto place = testing::SqliteKind().make();
  auto store = place->Open().value();
  EXPECT_FALSE(store->shared());
  EXPECT_EQ(store->ReadChanges(0, 10).status().code(), StatusCode::kUnimplemented);
}

TEST(StoreFollowTest, ChangesComeInOrderWithTheRecordsTheyStillHold) {
  auto place = testing::PostgresPlace::Make();
  ASSERT_NE(place, nullptr);
  auto store = place->Open().value();
  EXPECT_TRUE(store->shared());
  ASSERT_TRUE(store->CreateCollection({"c", "{}"}).ok());  // 1
  WriteBatch a;                                            // 2
  a.puts = {TestRecord(0), TestRecord(1), TestRecord(2)};
  ASSERT_TRUE(store->Apply("c", a).ok());
  WriteBatch b;  // 3: rewrites id-1, removes id-2, touches id-0
  b.puts = {TestRecord(1, "again")};
  b.removes = {"id-2"};
  b.touches = {{"id-0", "{\"touched\":true}"}};
  ASSERT_TRUE(store->Apply("c", b).ok());
  ASSERT_TRUE(store->PutSnapshot("c", "retrieves", {0, "[]"}).ok());  // 4
  WriteBatch config;                                                  // 5
  config.config = "{\"v\":2}";
  ASSERT_TRUE(store->Apply("c", config).ok());
  ASSERT_TRUE(store->DropCollection("c").ok());                   // 6
  ASSERT_TRUE(store->CreateCollection({"c", "{\"v\":3}"}).ok());  // 7

  using Kind = Change::Kind;
  std::vector<Change> all = store->ReadChanges(0, 100).value();
  ASSERT_EQ(all.size(), 7u);
  for (std::size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(all[i].seq, i + 1);
    EXPECT_EQ(all[i].collection, "c");
  }
  EXPECT_EQ(all[0].kind, Kind::kCreate);
  EXPECT_EQ(all[1].kind, Kind::kBatch);
  // The records of batch 2 went with the drop of their collection.
  EXPECT_TRUE(all[1].puts.empty());
  EXPECT_EQ(all[2].removes, std::vector<std::string>{"id-2"});
  ASSERT_EQ(all[2].touches.size(), 1u);
  EXPECT_EQ(all[2].touches[0].id, "id-0");
  EXPECT_EQ(all[2].touches[0].body, "{\"touched\":true}");
  EXPECT_EQ(all[3].kind, Kind::kSnapshot);
  EXPECT_EQ(all[3].snapshot, "retrieves");
  EXPECT_EQ(all[4].kind, Kind::kBatch);
  EXPECT_TRUE(all[4].config);
  EXPECT_FALSE(all[2].config);
  EXPECT_EQ(all[5].kind, Kind::kDrop);
  EXPECT_EQ(all[6].kind, Kind::kCreate);

  // Pages of two, from where the last ended; a record's latest write only.
  WriteBatch c;  // 8
  c.puts = {TestRecord(0), TestRecord(1)};
  ASSERT_TRUE(store->Apply("c", c).ok());
  WriteBatch d;  // 9
  d.puts = {TestRecord(1, "latest")};
  ASSERT_TRUE(store->Apply("c", d).ok());
  std::vector<Change> page = store->ReadChanges(7, 1).value();
  ASSERT_EQ(page.size(), 1u);
  EXPECT_EQ(page[0].seq, 8u);
  ASSERT_EQ(page[0].puts.size(), 1u);
  EXPECT_EQ(page[0].puts[0].id, "id-0");
  EXPECT_EQ(page[0].puts[0].doc, 0u);
  EXPECT_EQ(page[0].puts[0].body, TestRecord(0).body);
  EXPECT_EQ(page[0].puts[0].vector, TestRecord(0).vector);
  page = store->ReadChanges(8, 2).value();
  ASSERT_EQ(page.size(), 1u);
  ASSERT_EQ(page[0].puts.size(), 1u);
  EXPECT_EQ(page[0].puts[0].body, TestRecord(1, "latest").body);
  EXPECT_TRUE(store->ReadChanges(9, 2).value().empty());

  // Trimmed: what is kept reads as before; asking from before it is NotFound.
  ASSERT_TRUE(store->TrimChanges(6).ok());
  EXPECT_EQ(store->ReadChanges(6, 10).value().size(), 3u);
  EXPECT_EQ(store->ReadChanges(5, 10).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store->ReadChanges(0, 10).status().code(), StatusCode::kNotFound);
}

TEST(StoreFollowTest, ACommitIsAnnouncedToOtherOpeners) {
  auto place = testing::PostgresPlace::Make();
  ASSERT_NE(place, nullptr);
  auto writer = place->Open().value();
  auto follower = place->Open().value();
  using std::chrono::milliseconds;
  // The first wait connects the listener: changes before it were not
  // announced, so it answers "look".
  EXPECT_TRUE(follower->WaitForChange(milliseconds(10)).value());
  EXPECT_FALSE(follower->WaitForChange(milliseconds(50)).value());
  ASSERT_TRUE(writer->CreateCollection({"c", "{}"}).ok());
  EXPECT_TRUE(follower->WaitForChange(milliseconds(5000)).value());
  EXPECT_FALSE(follower->WaitForChange(milliseconds(50)).value());
  EXPECT_EQ(follower->ReadChanges(0, 10).value().size(), 1u);
}

}  // namespace
}  // namespace engram::storage
