// One libpq connection of the PostgreSQL store, with its prepared statements.
// Internal to storage/postgres: every value travels as a bound parameter in
// binary format (bytea as raw bytes, bigint as 8 big-endian bytes), never as
// text spliced into a statement, and results come back in binary too.
#ifndef ENGRAM_STORAGE_POSTGRES_CONNECTION_H_
#define ENGRAM_STORAGE_POSTGRES_CONNECTION_H_

#include <array>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <libpq-fe.h>

#include "engram/status.h"

namespace engram::storage::postgres {

// The statements the store prepares on every connection (statements.cc).
enum class Sql {
  kFindCollection,
  kInsertCollection,
  kSetCollectionConfig,
  kDeleteCollection,
  kListCollections,
  kNextSequence,
  kLastSequence,
  kDeleteRecord,
  kUpsertRecord,
  kTouchRecord,
  kScan,
  kGetRecord,
  kRecordLimit,
  kPutSnapshot,
  kGetSnapshot,
  kSetCollectionSeq,
  kLogChange,
  kReadChanges,
  kTrimChanges,
  kReadPuts,
  kCount,  // not a statement
};

// A statement's bound values, all binary.
class Params {
 public:
  Params& Bytes(std::string_view bytes);  // bytea: the caller's bytes outlive the call
  Params& Int(std::int64_t value);        // bigint
  Params& Null();

  int size() const { return static_cast<int>(values_.size()); }
  const char* const* values() const { return values_.data(); }
  const int* lengths() const { return lengths_.data(); }
  const int* formats() const { return formats_.data(); }

 private:
  std::vector<const char*> values_;
  std::vector<int> lengths_;
  std::vector<int> formats_;
  std::deque<std::array<char, 8>> ints_;  // stable addresses for the encoded ints
};

struct ResultFree {
  void operator()(PGresult* r) const { PQclear(r); }
};
using Result = std::unique_ptr<PGresult, ResultFree>;

// A binary result's cell: bytea as its bytes (NULL reads as empty); bigint.
std::string_view CellBytes(const PGresult* r, int row, int column);
std::int64_t CellInt(const PGresult* r, int row, int column);

class Connection {
 public:
  // Connects with a libpq connection string or postgresql:// URL, makes the
  // commits of this session durable (synchronous_commit at least `on`),
  // migrates the schema (statements.cc) and prepares the statements.
  static StatusOr<std::unique_ptr<Connection>> Open(const std::string& conninfo);
  ~Connection() { PQfinish(conn_); }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Runs a prepared statement; its rows, or the error with `what` as context.
  StatusOr<Result> Run(Sql sql, const Params& params, std::string_view what);
  // Runs one fixed query without parameters; its rows in binary format.
  StatusOr<Result> Query(const char* query, std::string_view what);
  // Runs fixed commands without parameters or rows (BEGIN, COMMIT, DDL).
  Status Exec(const char* commands, std::string_view what);
  // Starts a prepared statement whose rows are then read one by one
  // (single-row mode) with Next, so a scan holds one row in memory.
  Status Send(Sql sql, const Params& params, std::string_view what);
  // The next row of a Send: a result of one row, nullptr at the end (after
  // which the connection is ready again), or the error.
  StatusOr<Result> Next(std::string_view what);
  // Reads and drops what is left of a Send.
  void Drain();

  // After LISTEN on this connection: waits up to `timeout` for a
  // notification; true when one (or more) arrived, false at the timeout,
  // IoError when the connection is lost.
  StatusOr<bool> AwaitNotification(std::chrono::milliseconds timeout);

  // Whether the connection to the server is gone.
  bool lost() const { return PQstatus(conn_) == CONNECTION_BAD; }
  // Whether a transaction is open (or failed and awaiting ROLLBACK).
  bool in_transaction() const;
  // Maps a failed result (nullptr: the connection's own error) to the store's
  // contract: a lost connection or a refused read or write is IoError, data
  // the server reports damaged is Corruption, a server out of resources is
  // ResourceExhausted. The message names the server and database.
  Status Error(const PGresult* r, std::string_view what) const;
  // The constraint the last failed statement violated ("" when none).
  const std::string& violated() const { return violated_; }

 private:
  explicit Connection(PGconn* conn) : conn_(conn) {}
  Status Prepare();
  PGconn* conn_;
  mutable std::string violated_;
};

}  // namespace engram::storage::postgres

#endif  // ENGRAM_STORAGE_POSTGRES_CONNECTION_H_
