// The PostgreSQL implementation of storage::Store (store.h). One connection,
// guarded by a mutex; every write is one transaction.
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

#include <fmt/format.h>

#include "base/status.h"
#include "storage/postgres/changes.h"
#include "storage/postgres/connection.h"
#include "storage/postgres/statements.h"
#include "storage/printable.h"
#include "storage/store.h"

namespace engram::storage {
namespace {

using postgres::CellBytes;
using postgres::CellInt;
using postgres::ChangeKind;
using postgres::Connection;
using postgres::EncodeList;
using postgres::Params;
using postgres::Result;
using postgres::Sql;

std::int64_t ToSqlSeq(std::uint64_t seq) {
  constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  return static_cast<std::int64_t>(seq > kMax ? kMax : seq);
}

class PostgresStore final : public Store {
 public:
  PostgresStore(std::unique_ptr<Connection> c, std::string conninfo)
      : c_(std::move(c)), conninfo_(std::move(conninfo)) {}

  // Every write takes its sequence first (the row lock on engram_meta): one
  // order of locks, so that writers never deadlock on each other's rows.
  StatusOr<std::uint64_t> CreateCollection(const CollectionRow& collection) override {
    std::lock_guard<std::mutex> lock(mu_);
    std::int64_t seq = 0;
    Status status = Write(fmt::format("create collection '{}'", Printable(collection.name)), [&] {
      ASSIGN_OR_RETURN(seq, TakeSequence());
      ASSIGN_OR_RETURN(
          Result r,
          c_->Run(Sql::kInsertCollection,
                  Params().Bytes(collection.name).Bytes(collection.config).Int(seq), "insert"));
      if (PQntuples(r.get()) == 0) return Status::AlreadyExists("the collection exists");
      return Log(seq, ChangeKind::kCreate, collection.name);
    });
    if (!status.ok()) return status;
    return static_cast<std::uint64_t>(seq);
  }

  Status DropCollection(std::string_view name) override {
    std::lock_guard<std::mutex> lock(mu_);
    return Write(fmt::format("drop collection '{}'", Printable(name)), [&] {
      ASSIGN_OR_RETURN(std::int64_t seq, TakeSequence());
      ASSIGN_OR_RETURN(std::int64_t num, RequireCollection(name));
      // Its records and snapshots go with it (ON DELETE CASCADE).
      RETURN_IF_ERROR(c_->Run(Sql::kDeleteCollection, Params().Int(num), "delete").status());
      return Log(seq, ChangeKind::kDrop, name);
    });
  }

  StatusOr<std::vector<CollectionRow>> ListCollections() override {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<CollectionRow> out;
    const Status status = Read("list collections", [&] {
      ASSIGN_OR_RETURN(Result r, c_->Run(Sql::kListCollections, Params(), "select"));
      out.clear();
      for (int i = 0; i < PQntuples(r.get()); ++i) {
        out.push_back(
            {std::string(CellBytes(r.get(), i, 0)), std::string(CellBytes(r.get(), i, 1))});
      }
      return Status::Ok();
    });
    if (!status.ok()) return status;
    return out;
  }

  StatusOr<std::uint64_t> Apply(std::string_view collection, const WriteBatch& batch) override {
    std::lock_guard<std::mutex> lock(mu_);
    std::uint64_t seq = 0;
    Status status = Write(fmt::format("apply to collection '{}'", Printable(collection)), [&] {
      ASSIGN_OR_RETURN(const std::int64_t taken, TakeSequence());
      seq = static_cast<std::uint64_t>(taken);
      // Read after the sequence is taken: every batch before it is committed.
      ASSIGN_OR_RETURN(std::int64_t num, RequireCollection(collection));
      Params check;
      check.Int(num).Int(taken);
      if (batch.after) {
        check.Int(ToSqlSeq(*batch.after));
      } else {
        check.Null();
      }
      ASSIGN_OR_RETURN(Result checked,
                       c_->Run(Sql::kSetCollectionSeq, check, "check the collection's sequence"));
      if (PQntuples(checked.get()) == 0) {
        return Status::Aborted(fmt::format(
            "the collection changed after sequence {}: a later batch is committed", *batch.after));
      }
      for (const std::string& id : batch.removes) {
        RETURN_IF_ERROR(c_->Run(Sql::kDeleteRecord, Params().Int(num).Bytes(id),
                                fmt::format("delete record '{}'", Printable(id)))
                            .status());
      }
      for (const RecordWrite& put : batch.puts) RETURN_IF_ERROR(Put(num, taken, put));
      for (const BodyWrite& touch : batch.touches) {
        RETURN_IF_ERROR(c_->Run(Sql::kTouchRecord,
                                Params().Int(num).Bytes(touch.id).Bytes(touch.body),
                                fmt::format("touch record '{}'", Printable(touch.id)))
                            .status());
      }
      if (batch.config) {
        RETURN_IF_ERROR(c_->Run(Sql::kSetCollectionConfig, Params().Int(num).Bytes(*batch.config),
                                "replace the configuration")
                            .status());
      }
      std::vector<std::string_view> removes(batch.removes.begin(), batch.removes.end());
      std::vector<std::string_view> touches;
      for (const BodyWrite& touch : batch.touches) {
        touches.push_back(touch.id);
        touches.push_back(touch.body);
      }
      return Log(taken, batch.config ? ChangeKind::kConfig : ChangeKind::kBatch, collection,
                 EncodeList(removes), EncodeList(touches));
    });
    if (!status.ok()) return status;
    return seq;
  }

  StatusOr<std::uint64_t> LastSequence() override {
    std::lock_guard<std::mutex> lock(mu_);
    std::int64_t last = 0;
    const Status status = Read("read the last sequence", [&] {
      ASSIGN_OR_RETURN(Result r, c_->Run(Sql::kLastSequence, Params(), "select"));
      if (PQntuples(r.get()) != 1) return Status::Corruption("no 'last_seq' in engram_meta");
      last = CellInt(r.get(), 0, 0);
      return Status::Ok();
    });
    if (!status.ok()) return status;
    if (last < 0) return Status::Corruption(fmt::format("last sequence {} is negative", last));
    return static_cast<std::uint64_t>(last);
  }

  Status ScanRecords(std::string_view collection, std::uint64_t vectors_after,
                     const std::function<Status(const RecordRow&)>& fn) override {
    std::lock_guard<std::mutex> lock(mu_);
    const std::string what = fmt::format("scan collection '{}'", Printable(collection));
    // Only the start is retried after a reconnect: once a row has reached
    // `fn`, a failure is returned. An error of `fn` is returned as it is.
    bool started = false;
    Status stopped;
    Status status = Read(what, [&]() -> Status {
      if (started) return Status::IoError("the connection was lost during the scan");
      RETURN_IF_ERROR(
          c_->Send(Sql::kScan, Params().Bytes(collection).Int(ToSqlSeq(vectors_after)), "select"));
      bool found = false;  // the collection's row
      while (true) {
        ASSIGN_OR_RETURN(Result r, c_->Next("read a row"));
        if (r == nullptr) break;
        found = true;
        if (PQgetisnull(r.get(), 0, 0)) continue;  // the collection has no records
        started = true;
        RecordRow row;
        row.doc = static_cast<std::uint32_t>(CellInt(r.get(), 0, 0));
        row.id = CellBytes(r.get(), 0, 1);
        row.seq = static_cast<std::uint64_t>(CellInt(r.get(), 0, 2));
        row.body = CellBytes(r.get(), 0, 3);
        row.vector = CellBytes(r.get(), 0, 4);
        stopped = fn(row);
        if (!stopped.ok()) {
          c_->Drain();
          return stopped;
        }
      }
      return found ? Status::Ok()
                   : Status::NotFound(fmt::format("no collection '{}'", Printable(collection)));
    });
    return stopped.ok() ? status : stopped;
  }

  StatusOr<std::uint64_t> RecordLimit(std::string_view collection) override {
    std::lock_guard<std::mutex> lock(mu_);
    std::uint64_t limit = 0;
    const Status status =
        Read(fmt::format("read the record numbers of collection '{}'", Printable(collection)), [&] {
          ASSIGN_OR_RETURN(Result r,
                           c_->Run(Sql::kRecordLimit, Params().Bytes(collection), "select"));
          RETURN_IF_ERROR(CollectionRowOf(r.get(), collection));
          limit = PQgetisnull(r.get(), 0, 0)
                      ? 0
                      : static_cast<std::uint64_t>(CellInt(r.get(), 0, 0)) + 1;
          return Status::Ok();
        });
    if (!status.ok()) return status;
    return limit;
  }

  StatusOr<std::optional<Found>> GetRecord(std::string_view collection,
                                           std::string_view id) override {
    std::lock_guard<std::mutex> lock(mu_);
    std::optional<Found> out;
    const Status status = Read(
        fmt::format("get record '{}' of collection '{}'", Printable(id), Printable(collection)),
        [&] {
          ASSIGN_OR_RETURN(
              Result r, c_->Run(Sql::kGetRecord, Params().Bytes(collection).Bytes(id), "select"));
          RETURN_IF_ERROR(CollectionRowOf(r.get(), collection));
          out.reset();
          if (PQgetisnull(r.get(), 0, 0)) return Status::Ok();
          Found found;
          found.doc = static_cast<std::uint32_t>(CellInt(r.get(), 0, 0));
          found.seq = static_cast<std::uint64_t>(CellInt(r.get(), 0, 1));
          found.body = CellBytes(r.get(), 0, 2);
          found.vector = CellBytes(r.get(), 0, 3);
          out = std::move(found);
          return Status::Ok();
        });
    if (!status.ok()) return status;
    return out;
  }

  Status PutSnapshot(std::string_view collection, std::string_view name,
                     const Snapshot& snapshot) override {
    std::lock_guard<std::mutex> lock(mu_);
    return Write(
        fmt::format("put snapshot '{}' of collection '{}'", Printable(name), Printable(collection)),
        [&] {
          ASSIGN_OR_RETURN(std::int64_t seq, TakeSequence());
          ASSIGN_OR_RETURN(std::int64_t num, RequireCollection(collection));
          RETURN_IF_ERROR(
              c_->Run(
                    Sql::kPutSnapshot,
                    Params().Int(num).Bytes(name).Int(ToSqlSeq(snapshot.seq)).Bytes(snapshot.bytes),
                    "write")
                  .status());
          return Log(seq, ChangeKind::kSnapshot, collection, {}, {}, name);
        });
  }

  StatusOr<std::optional<Snapshot>> GetSnapshot(std::string_view collection,
                                                std::string_view name) override {
    std::lock_guard<std::mutex> lock(mu_);
    std::optional<Snapshot> out;
    const Status status = Read(
        fmt::format("get snapshot '{}' of collection '{}'", Printable(name), Printable(collection)),
        [&] {
          ASSIGN_OR_RETURN(Result r, c_->Run(Sql::kGetSnapshot,
                                             Params().Bytes(collection).Bytes(name), "select"));
          RETURN_IF_ERROR(CollectionRowOf(r.get(), collection));
          out.reset();
          if (PQgetisnull(r.get(), 0, 0)) return Status::Ok();
          out = Snapshot{static_cast<std::uint64_t>(CellInt(r.get(), 0, 0)),
                         std::string(CellBytes(r.get(), 0, 1))};
          return Status::Ok();
        });
    if (!status.ok()) return status;
    return out;
  }

  bool shared() const override { return true; }

  StatusOr<std::vector<Change>> ReadChanges(std::uint64_t after, std::size_t max) override {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<Change> out;
    const Status status = Read("read the changes", [&] {
      out.clear();
      // One view of the store for the changes and their records.
      RETURN_IF_ERROR(c_->Exec("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", "begin"));
      Status read = postgres::ReadChanges(*c_, ToSqlSeq(after), max, &out);
      if (read.ok()) return c_->Exec("COMMIT", "commit");
      if (!c_->lost() && c_->in_transaction()) (void)c_->Exec("ROLLBACK", "roll back");
      return read;
    });
    if (!status.ok()) return status;
    return out;
  }

  Status TrimChanges(std::uint64_t through) override {
    std::lock_guard<std::mutex> lock(mu_);
    // Idempotent, so retried after a reconnect as a read is.
    return Read(fmt::format("trim the changes up to {}", through), [&] {
      return c_->Run(Sql::kTrimChanges, Params().Int(ToSqlSeq(through)), "delete").status();
    });
  }

  StatusOr<bool> WaitForChange(std::chrono::milliseconds timeout) override {
    std::lock_guard<std::mutex> lock(listen_mu_);
    if (listener_ == nullptr || listener_->lost()) {
      listener_.reset();
      ASSIGN_OR_RETURN(std::unique_ptr<Connection> c, Connection::Open(conninfo_));
      RETURN_IF_ERROR(c->Exec("LISTEN engram_changes", "listen for changes"));
      listener_ = std::move(c);
      // Changes committed before LISTEN took effect were not announced.
      return true;
    }
    return listener_->AwaitNotification(timeout);
  }

 private:
  // The next sequence: the row lock on engram_meta it takes is held to
  // COMMIT, so sequences are taken in commit order.
  StatusOr<std::int64_t> TakeSequence() {
    ASSIGN_OR_RETURN(Result next, c_->Run(Sql::kNextSequence, Params(), "take a sequence"));
    if (PQntuples(next.get()) != 1) return Status::Corruption("no 'last_seq' in engram_meta");
    const std::int64_t taken = CellInt(next.get(), 0, 0);
    if (taken <= 0) return Status::Corruption(fmt::format("sequence {} out of range", taken));
    return taken;
  }

  // Records the change `seq` for the engines that follow the store, and
  // wakes them when it commits (NOTIFY is delivered at COMMIT).
  Status Log(std::int64_t seq, ChangeKind kind, std::string_view collection,
             std::string_view removes = {}, std::string_view touches = {},
             std::string_view snapshot = {}) {
    Params params;
    params.Int(seq).Int(static_cast<std::int64_t>(kind)).Bytes(collection);
    removes.empty() ? params.Null() : params.Bytes(removes);
    touches.empty() ? params.Null() : params.Bytes(touches);
    snapshot.empty() ? params.Null() : params.Bytes(snapshot);
    RETURN_IF_ERROR(c_->Run(Sql::kLogChange, params, "log the change").status());
    return c_->Exec("NOTIFY engram_changes", "announce the change");
  }

  // Runs `body` inside BEGIN ... COMMIT. On any failure the transaction is
  // rolled back (the server does so itself when the connection is gone) and
  // the error returned with `what` as context. A write is never retried once
  // sent. A COMMIT whose answer was lost may have been applied: unlike the
  // SQLite store, this one keeps accepting writes (on a new connection),
  // because the change feed says what committed: the engine applies the
  // batch when it follows it, and its next write, decided without it, is
  // refused (WriteBatch::after) until it has.
  Status Write(std::string_view what, const std::function<Status()>& body) {
    RETURN_IF_ERROR(Reconnect().WithContext(what));
    bool committing = false;
    Status status = [&] {
      Status begin = c_->Exec("BEGIN", "begin");
      if (!begin.ok() && c_->lost()) {
        // Gone while idle (a server restart): nothing of the batch was sent,
        // so it starts again on a new connection.
        RETURN_IF_ERROR(Reconnect());
        begin = c_->Exec("BEGIN", "begin");
      }
      RETURN_IF_ERROR(begin);
      RETURN_IF_ERROR(body());
      committing = true;
      return c_->Exec("COMMIT", "commit");
    }();
    if (status.ok()) return status;
    if (c_->lost()) {
      status = Status::IoError(fmt::format(
          "{}; {}", status.message(),
          committing ? "the connection was lost during COMMIT: the batch is either applied whole "
                       "or not at all (the change feed tells which)"
                     : "the connection was lost before COMMIT: nothing of it was applied"));
    } else if (c_->in_transaction()) {
      Status rollback = c_->Exec("ROLLBACK", "roll back");
      if (!rollback.ok()) {
        status = Status::IoError(
            fmt::format("{}; rollback failed too: {}", status.message(), rollback.message()));
      }
    }
    return status.WithContext(what);
  }

  // Runs the read `body`; when the connection was lost, reconnects and runs
  // it once more (a read changes nothing, so repeating it is safe).
  Status Read(std::string_view what, const std::function<Status()>& body) {
    Status status = Reconnect();
    if (status.ok()) {
      status = body();
      if (!status.ok() && c_->lost()) {
        status = Reconnect();
        if (status.ok()) status = body();
      }
    }
    return status.WithContext(what);
  }

  // A new connection in place of a lost one.
  Status Reconnect() {
    if (!c_->lost()) return Status::Ok();
    ASSIGN_OR_RETURN(c_, Connection::Open(conninfo_));
    return Status::Ok();
  }

  // A write records a record under the batch's sequence; a doc held by
  // another id rejects the whole batch.
  Status Put(std::int64_t num, std::int64_t seq, const RecordWrite& put) {
    Params params;
    params.Int(num).Int(put.doc).Bytes(put.id).Int(seq).Bytes(put.body);
    if (put.vector.empty()) {
      params.Null();
    } else {
      params.Bytes(put.vector);
    }
    auto r =
        c_->Run(Sql::kUpsertRecord, params, fmt::format("insert record '{}'", Printable(put.id)));
    if (r.ok()) return Status::Ok();
    if (c_->violated() == "engram_records_doc") {
      return Status::InvalidArgument(
          fmt::format("record '{}': doc {} belongs to another record", Printable(put.id), put.doc));
    }
    return r.status();
  }

  StatusOr<std::int64_t> RequireCollection(std::string_view name) {
    ASSIGN_OR_RETURN(Result r,
                     c_->Run(Sql::kFindCollection, Params().Bytes(name), "look up the collection"));
    if (PQntuples(r.get()) == 0)
      return Status::NotFound(fmt::format("no collection '{}'", Printable(name)));
    return CellInt(r.get(), 0, 0);
  }

  // NotFound when a joined lookup found no collection row.
  static Status CollectionRowOf(const PGresult* r, std::string_view name) {
    if (PQntuples(r) == 0)
      return Status::NotFound(fmt::format("no collection '{}'", Printable(name)));
    return Status::Ok();
  }

  std::mutex mu_;  // one connection, used by one thread at a time
  std::unique_ptr<Connection> c_;
  const std::string conninfo_;
  std::mutex listen_mu_;                  // guards listener_
  std::unique_ptr<Connection> listener_;  // LISTENs for WaitForChange
};

}  // namespace

bool IsPostgresUrl(std::string_view location) {
  return location.starts_with("postgresql://") || location.starts_with("postgres://");
}

StatusOr<std::unique_ptr<Store>> OpenPostgresStore(const std::string& conninfo) {
  ASSIGN_OR_RETURN(std::unique_ptr<Connection> c, Connection::Open(conninfo));
  return std::unique_ptr<Store>(new PostgresStore(std::move(c), conninfo));
}

}  // namespace engram::storage
