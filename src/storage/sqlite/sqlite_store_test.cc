// The SQLite store's own behaviour: its directory, file and layout version.
// The contract it shares with the PostgreSQL store is store_contract_test.cc.
#include "storage/sqlite/sqlite_store.h"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "storage/store.h"
#include "storage/testing/test_dir.h"

namespace engram::storage {
namespace {

using testing::TestDir;

std::unique_ptr<Store> Open(const std::string& dir) {
  auto store = OpenSqliteStore(dir);
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  return store.ok() ? std::move(store).value() : nullptr;
}

TEST(SqliteStoreTest, CreatesNestedDirectoryAndStartsEmpty) {
  TestDir dir;
  auto store = Open(dir.path() + "/a/b");
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->LastSequence().value(), 0u);
  EXPECT_TRUE(store->ListCollections().value().empty());
}

// Rewrites the stored layout version behind the store's back.
void SetLayoutVersion(const std::string& db_path, int version) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_path.c_str(), &db), SQLITE_OK);
  const std::string sql =
      "UPDATE meta SET value = " + std::to_string(version) + " WHERE key = 'schema_version'";
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
}

TEST(SqliteStoreTest, RefusesAFutureLayoutVersion) {
  TestDir dir;
  { ASSERT_NE(Open(dir.path()), nullptr); }
  SetLayoutVersion(dir.db(), kSqliteStoreSchemaVersion + 1);
  auto store = OpenSqliteStore(dir.path());
  EXPECT_EQ(store.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(store.status().message().find("newer"), std::string::npos) << store.status().ToString();
  SetLayoutVersion(dir.db(), 0);
  EXPECT_EQ(OpenSqliteStore(dir.path()).status().code(), StatusCode::kCorruption);
}

TEST(SqliteStoreTest, RefusesAnotherApplicationsDatabase) {
  TestDir dir;
  std::filesystem::create_directories(dir.path());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(dir.db().c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE t(x)", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  auto store = OpenSqliteStore(dir.path());
  EXPECT_EQ(store.status().code(), StatusCode::kFailedPrecondition) << store.status().ToString();
}

TEST(SqliteStoreTest, UnknownVfsIsAnInvalidArgument) {
  TestDir dir;
  EXPECT_EQ(OpenSqliteStoreWithVfs(dir.path(), "no-such-vfs").status().code(),
            StatusCode::kInvalidArgument);
}

// The first column of a query's first row as an integer (-1 when there is
// none), read through a read-only connection of its own.
std::int64_t QueryInt(const std::string& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  std::int64_t value = -1;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) == SQLITE_OK &&
      sqlite3_step(s) == SQLITE_ROW) {
    value = sqlite3_column_int64(s, 0);
  }
  sqlite3_finalize(s);
  sqlite3_close(db);
  return value;
}

std::int64_t Pragma(const std::string& db_path, const std::string& name) {
  return QueryInt(db_path, "PRAGMA " + name);
}

// The bytes the store takes on disk: the database and its write-ahead log.
std::uintmax_t StoreBytes(const TestDir& dir) {
  std::uintmax_t bytes = std::filesystem::file_size(dir.db());
  std::error_code error;
  const std::uintmax_t wal = std::filesystem::file_size(dir.db() + "-wal", error);
  return error ? bytes : bytes + wal;
}

// Snapshots replaced again and again (as checkpoints do), with records
// deleted between them: the file stays the size of what it holds, its free
// pages given back and its write-ahead log reset after each snapshot (the old
// image's parts included).
TEST(SqliteStoreTest, ReplacedSnapshotsAndDeletedRecordsGiveTheirPagesBack) {
  TestDir dir;
  auto store = Open(dir.path());
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->CreateCollection({"c", "{}"}).ok());
  EXPECT_EQ(Pragma(dir.db(), "auto_vacuum"), 2);  // INCREMENTAL
  // Larger than a part: written in three parts, then swapped in.
  constexpr std::size_t kImageBytes = 2 * kSqliteSnapshotPartBytes + 5;
  std::uintmax_t first = 0;
  for (int round = 0; round < 8; ++round) {
    // 200 records of 16 KiB written, then deleted: their pages go free.
    WriteBatch put;
    for (std::uint32_t i = 0; i < 200; ++i) {
      put.puts.push_back({"r" + std::to_string(i), i, std::string(16 << 10, 'a' + round), ""});
    }
    ASSERT_TRUE(store->Apply("c", put).ok());
    WriteBatch remove;
    for (const RecordWrite& r : put.puts) remove.removes.push_back(r.id);
    ASSERT_TRUE(store->Apply("c", remove).ok());
    const Status stored = store->PutSnapshot(
        "c", "text",
        {static_cast<std::uint64_t>(round + 1), std::string(kImageBytes, 'x' + round % 2)});
    ASSERT_TRUE(stored.ok()) << stored.ToString();
    EXPECT_EQ(Pragma(dir.db(), "freelist_count"), 0) << "round " << round;
    // The log was moved into the database and truncated.
    EXPECT_EQ(std::filesystem::file_size(dir.db() + "-wal"), 0u) << "round " << round;
    if (round == 0) first = StoreBytes(dir);
    // One image and the tables' few pages: no image or deleted record kept.
    EXPECT_LE(StoreBytes(dir), first + (256 << 10)) << "round " << round;
    EXPECT_LT(StoreBytes(dir), 2 * kImageBytes) << "round " << round;
  }
  const auto snapshot = store->GetSnapshot("c", "text");
  ASSERT_TRUE(snapshot.ok() && *snapshot);
  EXPECT_EQ((*snapshot)->seq, 8u);
  EXPECT_EQ((*snapshot)->bytes, std::string(kImageBytes, 'y'));
}

// A file made before auto_vacuum keeps working: its free pages are reused
// rather than given back, and snapshots are stored as before.
TEST(SqliteStoreTest, AnOlderFileWithoutAutoVacuumStillStoresSnapshots) {
  TestDir dir;
  { ASSERT_NE(Open(dir.path()), nullptr); }
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(dir.db().c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "PRAGMA auto_vacuum=NONE; VACUUM", nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(db);
  }
  ASSERT_EQ(Pragma(dir.db(), "auto_vacuum"), 0);
  auto store = Open(dir.path());
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->CreateCollection({"c", "{}"}).ok());
  for (std::uint64_t seq = 1; seq <= 3; ++seq) {
    ASSERT_TRUE(store->PutSnapshot("c", "text", {seq, std::string(1 << 20, 'a')}).ok());
  }
  const auto snapshot = store->GetSnapshot("c", "text");
  ASSERT_TRUE(snapshot.ok() && *snapshot);
  EXPECT_EQ((*snapshot)->seq, 3u);
}

void Exec(const std::string& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_path.c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK)
      << (error ? error : "") << " in " << sql;
  sqlite3_free(error);
  sqlite3_close(db);
}

// An image of `n` bytes that no part repeats.
std::string Image(std::size_t n, int salt) {
  std::string bytes(n, '\0');
  for (std::size_t i = 0; i < n; ++i) bytes[i] = static_cast<char>((i * 131 + salt) >> 3);
  return bytes;
}

// Images larger than a part go in as parts and come back whole; one at the
// size of a part, or smaller, stays in its row; replacing either removes the
// other's parts, and so does dropping the collection.
TEST(SqliteStoreTest, LargeSnapshotsAreStoredInPartsAndReadWhole) {
  TestDir dir;
  auto store = Open(dir.path());
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->CreateCollection({"c", "{}"}).ok());
  const std::string parts = "SELECT count(*) FROM snapshot_parts";
  const std::string big = Image(3 * kSqliteSnapshotPartBytes + 1, 1);
  ASSERT_TRUE(store->PutSnapshot("c", "text", {4, big}).ok());
  EXPECT_EQ(QueryInt(dir.db(), parts), 4);
  EXPECT_EQ(store->GetSnapshot("c", "text").value()->bytes, big);
  EXPECT_EQ(store->GetSnapshot("c", "text").value()->seq, 4u);

  const std::string exact = Image(kSqliteSnapshotPartBytes, 2);
  ASSERT_TRUE(store->PutSnapshot("c", "text", {5, exact}).ok());
  EXPECT_EQ(QueryInt(dir.db(), parts), 0);
  EXPECT_EQ(store->GetSnapshot("c", "text").value()->bytes, exact);

  const std::string bigger = Image(kSqliteSnapshotPartBytes + 1, 3);
  ASSERT_TRUE(store->PutSnapshot("c", "text", {6, bigger}).ok());
  ASSERT_TRUE(store->PutSnapshot("c", "vector", {6, big}).ok());
  EXPECT_EQ(QueryInt(dir.db(), parts), 2 + 4);
  store.reset();
  store = Open(dir.path());
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->GetSnapshot("c", "text").value()->bytes, bigger);
  EXPECT_EQ(store->GetSnapshot("c", "vector").value()->bytes, big);
  ASSERT_TRUE(store->DropCollection("c").ok());
  EXPECT_EQ(QueryInt(dir.db(), parts), 0);
}

// Parts left by a snapshot that never got its row (the process died between
// its parts) go with the next snapshot of the name; a missing part is
// Corruption, not a shorter image.
TEST(SqliteStoreTest, LeftOverPartsGoAndAMissingPartIsCorruption) {
  TestDir dir;
  auto store = Open(dir.path());
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->CreateCollection({"c", "{}"}).ok());
  const std::string big = Image(2 * kSqliteSnapshotPartBytes + 7, 4);
  ASSERT_TRUE(store->PutSnapshot("c", "text", {1, big}).ok());
  Exec(dir.db(),
       "INSERT INTO snapshot_parts(coll, name, gen, part, bytes) "
       "SELECT coll, name, gen + 100, part, bytes FROM snapshot_parts");
  EXPECT_EQ(store->GetSnapshot("c", "text").value()->bytes, big);
  ASSERT_TRUE(store->PutSnapshot("c", "text", {2, big}).ok());
  EXPECT_EQ(QueryInt(dir.db(), "SELECT count(*) FROM snapshot_parts"), 3);
  EXPECT_EQ(QueryInt(dir.db(), "SELECT count(DISTINCT gen) FROM snapshot_parts"), 1);

  Exec(dir.db(), "DELETE FROM snapshot_parts WHERE part = 1");
  const auto gap = store->GetSnapshot("c", "text");
  EXPECT_EQ(gap.status().code(), StatusCode::kCorruption) << gap.status().ToString();
  EXPECT_NE(gap.status().message().find("part 1"), std::string::npos) << gap.status().ToString();
  Exec(dir.db(), "DELETE FROM snapshot_parts");
  EXPECT_EQ(store->GetSnapshot("c", "text").status().code(), StatusCode::kCorruption);
}

// A version 1 file (no parts table, no `gen` column) is upgraded when opened
// and keeps its snapshots.
TEST(SqliteStoreTest, AVersionOneFileIsUpgraded) {
  TestDir dir;
  {
    auto store = Open(dir.path());
    ASSERT_NE(store, nullptr);
    ASSERT_TRUE(store->CreateCollection({"c", "{}"}).ok());
    ASSERT_TRUE(store->PutSnapshot("c", "text", {3, "old image"}).ok());
  }
  Exec(dir.db(),
       "DROP TABLE snapshot_parts; ALTER TABLE snapshots DROP COLUMN gen; "
       "UPDATE meta SET value = 1 WHERE key = 'schema_version'");
  auto store = Open(dir.path());
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(QueryInt(dir.db(), "SELECT value FROM meta WHERE key = 'schema_version'"),
            kSqliteStoreSchemaVersion);
  EXPECT_EQ(store->GetSnapshot("c", "text").value()->bytes, "old image");
  const std::string big = Image(kSqliteSnapshotPartBytes + 9, 5);
  ASSERT_TRUE(store->PutSnapshot("c", "text", {4, big}).ok());
  EXPECT_EQ(store->GetSnapshot("c", "text").value()->bytes, big);
}

}  // namespace
}  // namespace engram::storage
