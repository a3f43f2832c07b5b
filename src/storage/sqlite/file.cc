#include "storage/sqlite/file.h"

#include <cstdint>
#include <string>

#include <fmt/format.h>

#include "base/status.h"
#include "storage/sqlite/sqlite_store.h"
#include "storage/sqlite/statements.h"

namespace engram::storage {
namespace {

// 'engr' in the database header (PRAGMA application_id): tells an engram
// store from any other SQLite file before reading its tables.
constexpr std::int32_t kApplicationId = 0x656e6772;

// 64 MiB of page cache: the (collection, id) index of a 64k-record ingest
// stays resident, so upserts never wait on reads.
constexpr int kCacheKib = 64 * 1024;
// Checkpoint the WAL into the database every ~64 MiB instead of SQLite's
// 1000 pages: fewer database fsyncs during a bulk ingest, and a bounded WAL
// to replay when a crashed store reopens.
constexpr int kWalAutocheckpointPages = (64 << 20) / kSqlitePageSize;
// A checkpoint that resets the WAL truncates the file to this size. Without
// a limit the WAL keeps its largest size ever (SQLite's default): one commit
// of a collection's snapshots (tens of MiB) left a 200 MiB WAL for good in
// the churn benchmark, 1.7x the store's size fresh.
constexpr std::int64_t kWalSizeLimitBytes = std::int64_t{64} << 20;

// mmap stays off (SQLite's default) although it would speed scans: a failed
// read of a mapped page is a SIGBUS, not an error code the store can report.

// The tables of layout version 1. A new file is created with them and then
// upgraded as an older file is (kUpgradeFrom1), so that there is one
// definition of each table.
constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta(
  key TEXT PRIMARY KEY,
  value INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS collections(
  num INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  config TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS records(
  key INTEGER PRIMARY KEY,
  coll INTEGER NOT NULL REFERENCES collections(num),
  id BLOB NOT NULL,
  seq INTEGER NOT NULL,
  body BLOB NOT NULL,
  vector BLOB);
CREATE UNIQUE INDEX IF NOT EXISTS records_by_id ON records(coll, id);
CREATE TABLE IF NOT EXISTS snapshots(
  coll INTEGER NOT NULL REFERENCES collections(num),
  name TEXT NOT NULL,
  seq INTEGER NOT NULL,
  bytes BLOB NOT NULL,
  PRIMARY KEY(coll, name));
INSERT OR IGNORE INTO meta(key, value) VALUES ('schema_version', 1), ('last_seq', 0);
)sql";

// Version 1 to 2: snapshots may be stored in parts (a snapshot row with a
// `gen` names the parts that hold its image; NULL: the image is `bytes`).
constexpr const char* kUpgradeFrom1 = R"sql(
ALTER TABLE snapshots ADD COLUMN gen INTEGER;
CREATE TABLE snapshot_parts(
  coll INTEGER NOT NULL REFERENCES collections(num),
  name TEXT NOT NULL,
  gen INTEGER NOT NULL,
  part INTEGER NOT NULL,
  bytes BLOB NOT NULL,
  PRIMARY KEY(coll, name, gen, part));
UPDATE meta SET value = 2 WHERE key = 'schema_version';
)sql";

Status Exec(sqlite3* db, const char* sql) {
  return QueryText(db, sql).status();
}

// Runs `script` (statements separated by semicolons); on a failure rolls
// back the transaction it may have begun and returns IoError.
Status ExecScript(sqlite3* db, const std::string& script) {
  char* error = nullptr;
  const int rc = sqlite3_exec(db, script.c_str(), nullptr, nullptr, &error);
  if (rc == SQLITE_OK) return Status::Ok();
  std::string message = error ? error : sqlite3_errstr(rc);
  sqlite3_free(error);
  if (!sqlite3_get_autocommit(db)) sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
  return Status::IoError(fmt::format("{} (sqlite code {})", message, rc));
}

// Upgrades a version 1 file in one IMMEDIATE transaction (all of it or
// nothing), unless another opener upgraded it first.
Status UpgradeFrom1(sqlite3* db) {
  RETURN_IF_ERROR(ExecScript(db, "BEGIN IMMEDIATE"));
  auto version = QueryText(db, "SELECT value FROM meta WHERE key = 'schema_version'");
  if (!version.ok()) {
    sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    return version.status();
  }
  return ExecScript(db, fmt::format("{} COMMIT;", *version == "1" ? kUpgradeFrom1 : ""));
}

}  // namespace

// Runs one statement (a PRAGMA) and returns its first column as text.
StatusOr<std::string> QueryText(sqlite3* db, const char* sql) {
  sqlite3_stmt* s = nullptr;
  int rc = sqlite3_prepare_v2(db, sql, -1, &s, nullptr);
  std::string out;
  if (rc == SQLITE_OK) {
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
      out = ColumnBytes(s, 0);
      rc = SQLITE_DONE;
    }
  }
  const std::string message = sqlite3_errmsg(db);
  sqlite3_finalize(s);
  if (rc == SQLITE_DONE) return out;
  std::string full = fmt::format("{}: {} (sqlite code {})", sql, message, rc);
  // SQLITE_ERROR here is a SQL error such as a missing table: a file that
  // claims to be a store but lacks its tables.
  if ((rc & 0xff) == SQLITE_CORRUPT || (rc & 0xff) == SQLITE_NOTADB || rc == SQLITE_ERROR) {
    return Status::Corruption(std::move(full));
  }
  return Status::IoError(std::move(full));
}

// Creates the schema in a new file, or checks that an existing one is an
// engram store this build can read.
Status PrepareSqliteFile(sqlite3* db) {
  ASSIGN_OR_RETURN(std::string tables, QueryText(db, "SELECT count(*) FROM sqlite_schema"));
  ASSIGN_OR_RETURN(std::string app_id, QueryText(db, "PRAGMA application_id"));
  const bool fresh = tables == "0";
  if (!fresh && app_id != std::to_string(kApplicationId)) {
    return Status::FailedPrecondition("the file is a SQLite database but not an engram store");
  }
  if (fresh) {
    RETURN_IF_ERROR(Exec(db, fmt::format("PRAGMA page_size={}", kSqlitePageSize).c_str()));
    // Before the first table: SqliteStore::Reclaim gives free pages back.
    RETURN_IF_ERROR(Exec(db, "PRAGMA auto_vacuum=INCREMENTAL"));
  }
  ASSIGN_OR_RETURN(std::string mode, QueryText(db, "PRAGMA journal_mode=WAL"));
  if (mode != "wal") {
    return Status::IoError(fmt::format("cannot switch to WAL mode (journal mode is '{}')", mode));
  }
  RETURN_IF_ERROR(Exec(db, "PRAGMA synchronous=FULL"));
  RETURN_IF_ERROR(Exec(db, "PRAGMA foreign_keys=ON"));
  RETURN_IF_ERROR(Exec(db, fmt::format("PRAGMA cache_size=-{}", kCacheKib).c_str()));
  RETURN_IF_ERROR(
      Exec(db, fmt::format("PRAGMA wal_autocheckpoint={}", kWalAutocheckpointPages).c_str()));
  RETURN_IF_ERROR(
      Exec(db, fmt::format("PRAGMA journal_size_limit={}", kWalSizeLimitBytes).c_str()));
  if (fresh) {
    // Another process may be creating the same file: the IMMEDIATE lock and
    // IF NOT EXISTS make both succeed with one schema.
    RETURN_IF_ERROR(ExecScript(db, fmt::format("BEGIN IMMEDIATE; {} PRAGMA application_id={}; "
                                               "COMMIT;",
                                               kSchema, kApplicationId))
                        .WithContext("create the schema"));
  }
  auto version = QueryText(db, "SELECT value FROM meta WHERE key = 'schema_version'");
  if (!version.ok()) return version.status().WithContext("read the layout version");
  if (version->empty()) return Status::Corruption("the store has no layout version");
  if (*version == "1") {
    RETURN_IF_ERROR(UpgradeFrom1(db).WithContext("upgrade the layout from version 1"));
    version = std::to_string(kSqliteStoreSchemaVersion);
  }
  if (*version != std::to_string(kSqliteStoreSchemaVersion)) {
    std::int64_t v = 0;
    try {
      v = std::stoll(*version);
    } catch (...) {
      v = 0;
    }
    if (v > kSqliteStoreSchemaVersion) {
      return Status::FailedPrecondition(fmt::format(
          "the store has layout version {}, newer than this build reads ({}); use a newer "
          "engram",
          v, kSqliteStoreSchemaVersion));
    }
    return Status::Corruption(fmt::format("unknown layout version '{}'", *version));
  }
  return Status::Ok();
}

}  // namespace engram::storage
