// The SQLite store's file: its pragmas (page size, WAL, sync, cache), its
// tables, and the upgrade of files of an older layout. Internal to
// storage/sqlite.
#ifndef ENGRAM_STORAGE_SQLITE_FILE_H_
#define ENGRAM_STORAGE_SQLITE_FILE_H_

#include <string>

#include <sqlite3.h>

#include "engram/status.h"

namespace engram::storage {

// Page size for new files. Measured on 64k records of a 1 KiB body and a
// 300-float vector (sqlite_store_benchmark.cc): 32 KiB pages ingest ~1.5x and
// scan ~3x faster than 4 KiB ones, as rows of ~2.3 KiB pack densely and a scan
// makes one read per page. Small commits write a few large pages instead; the
// engine's writes are batches.
inline constexpr int kSqlitePageSize = 32768;

// Sets the connection's pragmas and creates the tables in a new file, or
// checks that an existing one is an engram store this build can read and
// upgrades an older layout in place (one transaction). FailedPrecondition
// for another application's database or a newer layout, Corruption for an
// unknown one.
Status PrepareSqliteFile(sqlite3* db);

// Runs one statement (a PRAGMA) and returns its first column as text;
// Corruption when the file lacks what the statement reads.
StatusOr<std::string> QueryText(sqlite3* db, const char* sql);

}  // namespace engram::storage

#endif  // ENGRAM_STORAGE_SQLITE_FILE_H_
