// The PostgreSQL store's writes and transactions (postgres_store.h).
#include "storage/postgres/postgres_store.h"

#include <fmt/format.h>

#include "storage/printable.h"

namespace engram::storage {
namespace postgres {

// Every write takes its sequence first (the row lock on engram_meta): one
// order of locks, so that writers never deadlock on each other's rows.
StatusOr<std::uint64_t> PostgresStore::CreateCollection(const CollectionRow& collection) {
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

Status PostgresStore::DropCollection(std::string_view name) {
  std::lock_guard<std::mutex> lock(mu_);
  return Write(fmt::format("drop collection '{}'", Printable(name)), [&] {
    ASSIGN_OR_RETURN(std::int64_t seq, TakeSequence());
    ASSIGN_OR_RETURN(std::int64_t num, RequireCollection(name));
    // Its records and snapshots go with it (ON DELETE CASCADE).
    RETURN_IF_ERROR(c_->Run(Sql::kDeleteCollection, Params().Int(num), "delete").status());
    return Log(seq, ChangeKind::kDrop, name);
  });
}

StatusOr<std::uint64_t> PostgresStore::Apply(std::string_view collection, const WriteBatch& batch) {
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

Status PostgresStore::PutSnapshot(std::string_view collection, std::string_view name,
                                  const Snapshot& snapshot) {
  std::lock_guard<std::mutex> lock(mu_);
  return Write(
      fmt::format("put snapshot '{}' of collection '{}'", Printable(name), Printable(collection)),
      [&] {
        ASSIGN_OR_RETURN(std::int64_t seq, TakeSequence());
        ASSIGN_OR_RETURN(std::int64_t num, RequireCollection(collection));
        RETURN_IF_ERROR(
            c_->Run(Sql::kPutSnapshot,
                    Params().Int(num).Bytes(name).Int(ToSqlSeq(snapshot.seq)).Bytes(snapshot.bytes),
                    "write")
                .status());
        return Log(seq, ChangeKind::kSnapshot, collection, {}, {}, name);
      });
}

StatusOr<std::int64_t> PostgresStore::TakeSequence() {
  ASSIGN_OR_RETURN(Result next, c_->Run(Sql::kNextSequence, Params(), "take a sequence"));
  if (PQntuples(next.get()) != 1) return Status::Corruption("no 'last_seq' in engram_meta");
  const std::int64_t taken = CellInt(next.get(), 0, 0);
  if (taken <= 0) return Status::Corruption(fmt::format("sequence {} out of range", taken));
  return taken;
}

Status PostgresStore::Log(std::int64_t seq, ChangeKind kind, std::string_view collection,
                          std::string_view removes, std::string_view touches,
                          std::string_view snapshot) {
  Params params;
  params.Int(seq).Int(static_cast<std::int64_t>(kind)).Bytes(collection);
  removes.empty() ? params.Null() : params.Bytes(removes);
  touches.empty() ? params.Null() : params.Bytes(touches);
  snapshot.empty() ? params.Null() : params.Bytes(snapshot);
  RETURN_IF_ERROR(c_->Run(Sql::kLogChange, params, "log the change").status());
  return c_->Exec("NOTIFY engram_changes", "announce the change");
}

Status PostgresStore::Write(std::string_view what, const std::function<Status()>& body) {
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

Status PostgresStore::Read(std::string_view what, const std::function<Status()>& body) {
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

Status PostgresStore::Reconnect() {
  if (!c_->lost()) return Status::Ok();
  ASSIGN_OR_RETURN(c_, Connection::Open(conninfo_));
  return Status::Ok();
}

Status PostgresStore::Put(std::int64_t num, std::int64_t seq, const RecordWrite& put) {
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

StatusOr<std::int64_t> PostgresStore::RequireCollection(std::string_view name) {
  ASSIGN_OR_RETURN(Result r,
                   c_->Run(Sql::kFindCollection, Params().Bytes(name), "look up the collection"));
  if (PQntuples(r.get()) == 0)
    return Status::NotFound(fmt::format("no collection '{}'", Printable(name)));
  return CellInt(r.get(), 0, 0);
}

Status PostgresStore::CollectionRowOf(const PGresult* r, std::string_view name) {
  if (PQntuples(r) == 0)
    return Status::NotFound(fmt::format("no collection '{}'", Printable(name)));
  return Status::Ok();
}

}  // namespace postgres

bool IsPostgresUrl(std::string_view location) {
  return location.starts_with("postgresql://") || location.starts_with("postgres://");
}

StatusOr<std::unique_ptr<Store>> OpenPostgresStore(const std::string& conninfo) {
  ASSIGN_OR_RETURN(std::unique_ptr<postgres::Connection> c, postgres::Connection::Open(conninfo));
  return std::unique_ptr<Store>(new postgres::PostgresStore(std::move(c), conninfo));
}

}  // namespace engram::storage
