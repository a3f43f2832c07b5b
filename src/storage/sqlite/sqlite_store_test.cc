// The SQLite store's own behaviour: its directory, file and layout version.
// The contract it shares with the PostgreSQL store is store_contract_test.cc.
#include "storage/sqlite/sqlite_store.h"

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
  SetLayoutVersion(dir.db(), 2);
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

}  // namespace
}  // namespace engram::storage
