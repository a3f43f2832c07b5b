// The PostgreSQL store's reads and its change feed (postgres_store.h).
#include <fmt/format.h>

#include "storage/postgres/postgres_store.h"
#include "storage/printable.h"

namespace engram::storage::postgres {

StatusOr<std::vector<CollectionRow>> PostgresStore::ListCollections() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<CollectionRow> out;
  const Status status = Read("list collections", [&] {
    ASSIGN_OR_RETURN(Result r, c_->Run(Sql::kListCollections, Params(), "select"));
    out.clear();
    for (int i = 0; i < PQntuples(r.get()); ++i) {
      out.push_back({std::string(CellBytes(r.get(), i, 0)), std::string(CellBytes(r.get(), i, 1))});
    }
    return Status::Ok();
  });
  if (!status.ok()) return status;
  return out;
}

StatusOr<std::uint64_t> PostgresStore::LastSequence() {
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

Status PostgresStore::ScanRecords(std::string_view collection, std::uint64_t vectors_after,
                                  const std::function<Status(const RecordRow&)>& fn) {
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

StatusOr<std::uint64_t> PostgresStore::RecordLimit(std::string_view collection) {
  std::lock_guard<std::mutex> lock(mu_);
  std::uint64_t limit = 0;
  const Status status =
      Read(fmt::format("read the record numbers of collection '{}'", Printable(collection)), [&] {
        ASSIGN_OR_RETURN(Result r,
                         c_->Run(Sql::kRecordLimit, Params().Bytes(collection), "select"));
        RETURN_IF_ERROR(CollectionRowOf(r.get(), collection));
        limit =
            PQgetisnull(r.get(), 0, 0) ? 0 : static_cast<std::uint64_t>(CellInt(r.get(), 0, 0)) + 1;
        return Status::Ok();
      });
  if (!status.ok()) return status;
  return limit;
}

StatusOr<std::optional<Store::Found>> PostgresStore::GetRecord(std::string_view collection,
                                                               std::string_view id) {
  std::lock_guard<std::mutex> lock(mu_);
  std::optional<Found> out;
  const Status status = Read(
      fmt::format("get record '{}' of collection '{}'", Printable(id), Printable(collection)), [&] {
        ASSIGN_OR_RETURN(Result r,
                         c_->Run(Sql::kGetRecord, Params().Bytes(collection).Bytes(id), "select"));
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

StatusOr<std::optional<Snapshot>> PostgresStore::GetSnapshot(std::string_view collection,
                                                             std::string_view name) {
  std::lock_guard<std::mutex> lock(mu_);
  std::optional<Snapshot> out;
  const Status status = Read(
      fmt::format("get snapshot '{}' of collection '{}'", Printable(name), Printable(collection)),
      [&] {
        ASSIGN_OR_RETURN(
            Result r, c_->Run(Sql::kGetSnapshot, Params().Bytes(collection).Bytes(name), "select"));
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

StatusOr<std::vector<Change>> PostgresStore::ReadChanges(std::uint64_t after, std::size_t max) {
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

Status PostgresStore::TrimChanges(std::uint64_t through) {
  std::lock_guard<std::mutex> lock(mu_);
  // Idempotent, so retried after a reconnect as a read is.
  return Read(fmt::format("trim the changes up to {}", through), [&] {
    return c_->Run(Sql::kTrimChanges, Params().Int(ToSqlSeq(through)), "delete").status();
  });
}

StatusOr<bool> PostgresStore::WaitForChange(std::chrono::milliseconds timeout) {
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

}  // namespace engram::storage::postgres
