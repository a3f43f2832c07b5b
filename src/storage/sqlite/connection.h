// The SQLite store's connection: the database handle, its prepared
// statements and the rules every use of them follows. One thread at a time
// (hold mutex() around any use); writes in one transaction each (Write),
// and after an I/O error no write at all until the store is reopened.
// Internal to storage/sqlite.
#ifndef ENGRAM_STORAGE_SQLITE_CONNECTION_H_
#define ENGRAM_STORAGE_SQLITE_CONNECTION_H_

#include <cstdint>
#include <functional>
#include <limits>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <sqlite3.h>

#include "engram/status.h"
#include "storage/sqlite/statements.h"

namespace engram::storage {

// A sequence as SQLite's signed integer (saturating: no sequence reaches it).
inline std::int64_t ToSqlSeq(std::uint64_t seq) {
  constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  return static_cast<std::int64_t>(seq > kMax ? kMax : seq);
}

class Connection {
 public:
  // Takes `db`, open on the file at `path` (named in messages); closes it.
  Connection(sqlite3* db, std::string path) : db_(db), sql_(db), path_(std::move(path)) {}
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Prepares the statements; before any other call.
  Status Prepare() { return sql_.Prepare(); }

  // Held around every use of the calls below and of db() and sql().
  std::mutex& mutex() { return mu_; }
  sqlite3* db() const { return db_; }
  Statements& sql() { return sql_; }
  const std::string& path() const { return path_; }

  // Runs `body` inside BEGIN IMMEDIATE ... COMMIT. On any failure the
  // transaction is rolled back and the error returned with `what` as
  // context. After an I/O error every later Write fails (FailedPrecondition):
  // the operating system may have dropped the dirty pages of a failed write
  // or fsync, and a later fsync can then succeed without them ("fsyncgate",
  // PostgreSQL 2018), so a later acknowledgement could not be trusted.
  Status Write(std::string_view what, const std::function<Status()>& body);

  // The next sequence, stored as the last one (inside a Write).
  StatusOr<std::uint64_t> TakeSequence();
  // The integer stored under `key` in the meta table (Corruption if none).
  StatusOr<std::int64_t> ReadMeta(std::string_view key);
  // The integer value of PRAGMA `name`.
  StatusOr<std::int64_t> PragmaInt(std::string_view name);
  // The number of collection `name`: nullopt, or NotFound (Require...), when
  // there is none.
  StatusOr<std::optional<std::int64_t>> FindCollection(std::string_view name);
  StatusOr<std::int64_t> RequireCollection(std::string_view name);

  // Steps `s` once, expecting it to finish, and resets it.
  Status Done(sqlite3_stmt* s, std::string_view what);
  // Maps a SQLite result code to the store's contract: unreadable contents
  // are Corruption, everything else that fails on the files is IoError.
  Status Error(int rc, std::string_view what) const;

 private:
  sqlite3* db_;
  std::mutex mu_;
  Statements sql_;
  const std::string path_;
  Status broken_;  // the I/O error that stopped writes, or OK
};

}  // namespace engram::storage

#endif  // ENGRAM_STORAGE_SQLITE_CONNECTION_H_
