// The PostgreSQL implementation of storage::Store (store.h): one connection,
// guarded by a mutex; every write is one transaction. Internal to
// storage/postgres: the rest of engram opens it through OpenPostgresStore.
#ifndef ENGRAM_STORAGE_POSTGRES_POSTGRES_STORE_H_
#define ENGRAM_STORAGE_POSTGRES_POSTGRES_STORE_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "storage/postgres/changes.h"
#include "storage/postgres/connection.h"
#include "storage/postgres/statements.h"
#include "storage/store.h"

namespace engram::storage::postgres {

// A sequence as a bigint (sequences never reach 2^63; larger ones clamp).
inline std::int64_t ToSqlSeq(std::uint64_t seq) {
  constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  return static_cast<std::int64_t>(seq > kMax ? kMax : seq);
}

class PostgresStore final : public Store {
 public:
  PostgresStore(std::unique_ptr<Connection> c, std::string conninfo)
      : c_(std::move(c)), conninfo_(std::move(conninfo)) {}

  // The store's operations (store.h). Writes (postgres_store.cc) take
  // their sequence first (the row lock on engram_meta): one order of locks,
  // so that writers never deadlock on each other's rows.
  StatusOr<std::uint64_t> CreateCollection(const CollectionRow& collection) override;
  Status DropCollection(std::string_view name) override;
  StatusOr<std::uint64_t> Apply(std::string_view collection, const WriteBatch& batch) override;
  Status PutSnapshot(std::string_view collection, std::string_view name,
                     const Snapshot& snapshot) override;
  // Reads and the change feed (postgres_reads.cc).
  StatusOr<std::vector<CollectionRow>> ListCollections() override;
  StatusOr<std::uint64_t> LastSequence() override;
  Status ScanRecords(std::string_view collection, std::uint64_t vectors_after,
                     const std::function<Status(const RecordRow&)>& fn) override;
  StatusOr<std::uint64_t> RecordLimit(std::string_view collection) override;
  StatusOr<std::optional<Found>> GetRecord(std::string_view collection,
                                           std::string_view id) override;
  StatusOr<std::optional<Snapshot>> GetSnapshot(std::string_view collection,
                                                std::string_view name) override;
  bool shared() const override { return true; }
  StatusOr<std::vector<Change>> ReadChanges(std::uint64_t after, std::size_t max) override;
  Status TrimChanges(std::uint64_t through) override;
  StatusOr<bool> WaitForChange(std::chrono::milliseconds timeout) override;

 private:
  // The next sequence: the row lock on engram_meta it takes is held to
  // COMMIT, so sequences are taken in commit order.
  StatusOr<std::int64_t> TakeSequence();

  // Records the change `seq` for the engines that follow the store, and
  // wakes them when it commits (NOTIFY is delivered at COMMIT).
  Status Log(std::int64_t seq, ChangeKind kind, std::string_view collection,
             std::string_view removes = {}, std::string_view touches = {},
             std::string_view snapshot = {});

  // Runs `body` inside BEGIN ... COMMIT. On any failure the transaction is
  // rolled back (the server does so itself when the connection is gone) and
  // the error returned with `what` as context. A write is never retried once
  // sent. A COMMIT whose answer was lost may have been applied: unlike the
  // SQLite store, this one keeps accepting writes (on a new connection),
  // because the change feed says what committed: the engine applies the
  // batch when it follows it, and its next write, decided without it, is
  // refused (WriteBatch::after) until it has.
  Status Write(std::string_view what, const std::function<Status()>& body);

  // Runs the read `body`; when the connection was lost, reconnects and runs
  // it once more (a read changes nothing, so repeating it is safe).
  Status Read(std::string_view what, const std::function<Status()>& body);

  // A new connection in place of a lost one.
  Status Reconnect();

  // A write records a record under the batch's sequence; a doc held by
  // another id rejects the whole batch.
  Status Put(std::int64_t num, std::int64_t seq, const RecordWrite& put);

  StatusOr<std::int64_t> RequireCollection(std::string_view name);

  // NotFound when a joined lookup found no collection row.
  static Status CollectionRowOf(const PGresult* r, std::string_view name);

  std::mutex mu_;  // one connection, used by one thread at a time
  std::unique_ptr<Connection> c_;
  const std::string conninfo_;
  std::mutex listen_mu_;                  // guards listener_
  std::unique_ptr<Connection> listener_;  // LISTENs for WaitForChange
};

}  // namespace engram::storage::postgres

#endif  // ENGRAM_STORAGE_POSTGRES_POSTGRES_STORE_H_
