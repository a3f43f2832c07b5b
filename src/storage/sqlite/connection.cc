#include "storage/sqlite/connection.h"

#include <fmt/format.h>

#include "base/status.h"
#include "storage/printable.h"

namespace engram::storage {

Connection::~Connection() {
  sql_.Finalize();
  sqlite3_close_v2(db_);  // the last connection checkpoints and removes the WAL
}

Status Connection::Write(std::string_view what, const std::function<Status()>& body) {
  if (!broken_.ok()) {
    return Status::FailedPrecondition(
               fmt::format("the store refuses writes after an I/O error ({}); reopen it",
                           broken_.message()))
        .WithContext(what);
  }
  Status status = [&] {
    RETURN_IF_ERROR(Done(sql_.begin, "begin"));
    RETURN_IF_ERROR(body());
    return Done(sql_.commit, "commit");
  }();
  if (status.ok()) return status;
  if (!sqlite3_get_autocommit(db_)) {
    int rc = sqlite3_step(sql_.rollback);
    sqlite3_reset(sql_.rollback);
    if (rc != SQLITE_DONE) {
      status = Status::IoError(
          fmt::format("{}; rollback failed too: {}", status.message(), sqlite3_errmsg(db_)));
    }
  }
  if (status.code() == StatusCode::kIoError) broken_ = status;
  return status.WithContext(what);
}

StatusOr<std::uint64_t> Connection::TakeSequence() {
  ASSIGN_OR_RETURN(std::int64_t last, ReadMeta("last_seq"));
  if (last < 0 || last == std::numeric_limits<std::int64_t>::max()) {
    return Status::Corruption(fmt::format("last sequence {} out of range", last));
  }
  Bound s(sql_.set_meta);
  sqlite3_bind_int64(s, 1, last + 1);
  BindText(s, 2, "last_seq");
  RETURN_IF_ERROR(Done(s, "advance the sequence"));
  return static_cast<std::uint64_t>(last) + 1;
}

StatusOr<std::int64_t> Connection::ReadMeta(std::string_view key) {
  Bound s(sql_.get_meta);
  BindText(s, 1, key);
  int rc = sqlite3_step(s);
  if (rc == SQLITE_DONE) return Status::Corruption(fmt::format("no '{}' in meta", key));
  if (rc != SQLITE_ROW) return Error(rc, fmt::format("read '{}'", key));
  return sqlite3_column_int64(s, 0);
}

StatusOr<std::int64_t> Connection::PragmaInt(std::string_view name) {
  const std::string sql = fmt::format("PRAGMA {}", name);
  sqlite3_stmt* s = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.c_str(), -1, &s, nullptr);
  std::int64_t value = 0;
  if (rc == SQLITE_OK) rc = sqlite3_step(s);
  if (rc == SQLITE_ROW) value = sqlite3_column_int64(s, 0);
  sqlite3_finalize(s);
  if (rc != SQLITE_ROW) return Error(rc, sql);
  return value;
}

StatusOr<std::optional<std::int64_t>> Connection::FindCollection(std::string_view name) {
  Bound s(sql_.find_collection);
  BindText(s, 1, name);
  int rc = sqlite3_step(s);
  if (rc == SQLITE_DONE) return std::optional<std::int64_t>();
  if (rc != SQLITE_ROW) return Error(rc, "look up the collection");
  return std::optional<std::int64_t>(sqlite3_column_int64(s, 0));
}

StatusOr<std::int64_t> Connection::RequireCollection(std::string_view name) {
  ASSIGN_OR_RETURN(std::optional<std::int64_t> num, FindCollection(name));
  if (!num) return Status::NotFound(fmt::format("no collection '{}'", Printable(name)));
  return *num;
}

Status Connection::Done(sqlite3_stmt* s, std::string_view what) {
  int rc = sqlite3_step(s);
  sqlite3_reset(s);
  if (rc != SQLITE_DONE) return Error(rc, what);
  return Status::Ok();
}

Status Connection::Error(int rc, std::string_view what) const {
  std::string message =
      fmt::format("{}: {} (sqlite code {}) in {}", what, sqlite3_errmsg(db_), rc, path_);
  switch (rc & 0xff) {
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return Status::Corruption(std::move(message));
    case SQLITE_NOMEM:
    case SQLITE_TOOBIG:
      return Status::ResourceExhausted(std::move(message));
    case SQLITE_CONSTRAINT:
    case SQLITE_MISMATCH:
      return Status::Internal(std::move(message));
    default:
      return Status::IoError(std::move(message));
  }
}

}  // namespace engram::storage
