#include "storage/sqlite/snapshots.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "base/status.h"
#include "storage/printable.h"
#include "storage/sqlite/file.h"
#include "storage/sqlite/sqlite_store.h"
#include "storage/sqlite/statements.h"

namespace engram::storage {
namespace {

// New files give free pages back (PRAGMA auto_vacuum=INCREMENTAL): after a
// snapshot, in transactions of this many pages (8 MiB: a short hold of the
// write lock), at most kMaxVacuumSteps of them per snapshot.
constexpr int kVacuumStepPages = (8 << 20) / kSqlitePageSize;
constexpr int kMaxVacuumSteps = 256;

}  // namespace

Snapshots::~Snapshots() {
  sqlite3_close_v2(checkpointer_);
}

Status Snapshots::Open(const std::string& vfs) {
  const std::string& path = connection_.path();
  const int rc =
      sqlite3_open_v2(path.c_str(), &checkpointer_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
                      vfs.empty() ? nullptr : vfs.c_str());
  if (rc != SQLITE_OK) {
    return Status::IoError(fmt::format("open a second connection to {}: {} (sqlite code {})", path,
                                       sqlite3_errstr(rc), rc));
  }
  sqlite3_busy_timeout(checkpointer_, 0);
  // Its first read attaches it to the log (a connection that has read
  // nothing does not know the file is in WAL mode and checkpoints nothing).
  ASSIGN_OR_RETURN(const std::string mode, QueryText(checkpointer_, "PRAGMA journal_mode"));
  if (mode != "wal") {
    return Status::IoError(
        fmt::format("the second connection to {} is not in WAL mode ('{}')", path, mode));
  }
  std::lock_guard<std::mutex> lock(connection_.mutex());
  ASSIGN_OR_RETURN(const std::int64_t auto_vacuum, connection_.PragmaInt("auto_vacuum"));
  incremental_ = auto_vacuum == 2;  // INCREMENTAL
  return Status::Ok();
}

Status Snapshots::Put(std::string_view collection, std::string_view name,
                      const Snapshot& snapshot) {
  std::lock_guard<std::mutex> one_at_a_time(one_at_a_time_);
  const std::string what =
      fmt::format("put snapshot '{}' of collection '{}'", Printable(name), Printable(collection));
  std::optional<std::int64_t> gen;
  if (snapshot.bytes.size() > kSqliteSnapshotPartBytes) {
    ASSIGN_OR_RETURN(gen, WriteParts(collection, name, snapshot.bytes, what));
  }
  std::unique_lock<std::mutex> lock(connection_.mutex());
  const Status status = connection_.Write(what, [&] {
    ASSIGN_OR_RETURN(std::int64_t num, connection_.RequireCollection(collection));
    {
      Bound s(connection_.sql().delete_snapshot);
      sqlite3_bind_int64(s, 1, num);
      BindText(s, 2, name);
      RETURN_IF_ERROR(connection_.Done(s, "delete the old image"));
    }
    {  // the old image's parts, and any left by a write that failed
      Bound s(connection_.sql().delete_other_parts);
      sqlite3_bind_int64(s, 1, num);
      BindText(s, 2, name);
      if (gen) sqlite3_bind_int64(s, 3, *gen);
      RETURN_IF_ERROR(connection_.Done(s, "delete the old image's parts"));
    }
    Bound s(connection_.sql().put_snapshot);
    sqlite3_bind_int64(s, 1, num);
    BindText(s, 2, name);
    sqlite3_bind_int64(s, 3, ToSqlSeq(snapshot.seq));
    BindBlob(s, 4, gen ? std::string_view() : std::string_view(snapshot.bytes));
    if (gen) sqlite3_bind_int64(s, 5, *gen);
    RETURN_IF_ERROR(connection_.Done(s, "write"));
    return connection_.TakeSequence().status();  // every change takes one, as in a shared store
  });
  lock.unlock();
  if (!status.ok()) {
    if (gen) DeleteParts(collection, name, *gen);
    return status;
  }
  return Reclaim();
}

StatusOr<std::optional<Snapshot>> Snapshots::Get(std::string_view collection,
                                                 std::string_view name) {
  std::lock_guard<std::mutex> lock(connection_.mutex());
  const std::string what =
      fmt::format("get snapshot '{}' of collection '{}'", Printable(name), Printable(collection));
  auto num = connection_.RequireCollection(collection);
  if (!num.ok()) return num.status().WithContext(what);
  Bound s(connection_.sql().get_snapshot);
  sqlite3_bind_int64(s, 1, *num);
  BindText(s, 2, name);
  int rc = sqlite3_step(s);
  if (rc == SQLITE_DONE) return std::optional<Snapshot>();
  if (rc != SQLITE_ROW) return connection_.Error(rc, what);
  Snapshot snapshot;
  snapshot.seq = static_cast<std::uint64_t>(sqlite3_column_int64(s, 0));
  if (sqlite3_column_type(s, 2) == SQLITE_NULL) {
    snapshot.bytes = ColumnBytes(s, 1);
    return std::optional<Snapshot>(std::move(snapshot));
  }
  const std::int64_t gen = sqlite3_column_int64(s, 2);
  {  // the image is read into one allocation
    Bound size(connection_.sql().size_parts);
    sqlite3_bind_int64(size, 1, *num);
    BindText(size, 2, name);
    sqlite3_bind_int64(size, 3, gen);
    rc = sqlite3_step(size);
    if (rc != SQLITE_ROW) return connection_.Error(rc, what);
    snapshot.bytes.reserve(
        static_cast<std::size_t>(std::max<std::int64_t>(0, sqlite3_column_int64(size, 0))));
  }
  Bound parts(connection_.sql().get_parts);
  sqlite3_bind_int64(parts, 1, *num);
  BindText(parts, 2, name);
  sqlite3_bind_int64(parts, 3, gen);
  std::int64_t expected = 0;
  while ((rc = sqlite3_step(parts)) == SQLITE_ROW) {
    if (sqlite3_column_int64(parts, 0) != expected) break;
    snapshot.bytes += ColumnBytes(parts, 1);
    ++expected;
  }
  if (rc == SQLITE_ROW || (rc == SQLITE_DONE && expected == 0)) {
    return Status::Corruption(
               fmt::format("part {} of the image (generation {}) is missing", expected, gen))
        .WithContext(what);
  }
  if (rc != SQLITE_DONE) return connection_.Error(rc, what);
  return std::optional<Snapshot>(std::move(snapshot));
}

// After a snapshot was stored: gives the file's free pages back to the file
// system (auto_vacuum=INCREMENTAL, new stores only: an older file has
// auto_vacuum=NONE and keeps its free pages for reuse) in transactions of
// at most kVacuumStepPages, taking the connection for one step at a time so
// that writes go on between them, then moves the WAL into the database on
// the second connection and truncates it if no writer or reader holds it
// (no waiting: a later checkpoint resets it, journal_size_limit bounds it
// meanwhile). Records deleted since the last snapshot free their pages here
// too.
Status Snapshots::Reclaim() {
  for (int step = 0; incremental_ && step < kMaxVacuumSteps; ++step) {
    std::lock_guard<std::mutex> lock(connection_.mutex());
    ASSIGN_OR_RETURN(const std::int64_t free_pages, connection_.PragmaInt("freelist_count"));
    if (free_pages == 0) break;
    RETURN_IF_ERROR(connection_.Write("reclaim free pages", [&] {
      // The pragma returns a row per page it frees: stepped to its end.
      const std::string sql = fmt::format("PRAGMA incremental_vacuum({})", kVacuumStepPages);
      sqlite3_stmt* vacuum = nullptr;
      int rc = sqlite3_prepare_v2(connection_.db(), sql.c_str(), -1, &vacuum, nullptr);
      while (rc == SQLITE_OK || rc == SQLITE_ROW) rc = sqlite3_step(vacuum);
      const Status status =
          rc == SQLITE_DONE ? Status::Ok() : connection_.Error(rc, "incremental vacuum");
      sqlite3_finalize(vacuum);
      return status;
    }));
  }
  // Most of the log is copied first without stopping the writes; the reset
  // then finds little left to copy while it holds the log.
  RETURN_IF_ERROR(CheckpointLog(SQLITE_CHECKPOINT_PASSIVE));
  return CheckpointLog(SQLITE_CHECKPOINT_TRUNCATE);
}

// Moves the write-ahead log into the database on the second connection,
// which never waits (busy timeout 0): a reset that would have to wait for a
// writer or a reader is skipped, and a later snapshot's does it.
Status Snapshots::CheckpointLog(int mode) {
  const int rc = sqlite3_wal_checkpoint_v2(checkpointer_, nullptr, mode, nullptr, nullptr);
  if (rc != SQLITE_OK && (rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED) {
    return Status::IoError(fmt::format("checkpoint the write-ahead log: {} (sqlite code {}) in {}",
                                       sqlite3_errmsg(checkpointer_), rc, connection_.path()));
  }
  return Status::Ok();
}

// Writes `bytes` as parts of kSqliteSnapshotPartBytes under a new
// generation, each part in a transaction of its own that holds the
// connection only while it writes, and returns the generation. A failed
// write deletes the parts written so far.
StatusOr<std::int64_t> Snapshots::WriteParts(std::string_view collection, std::string_view name,
                                             std::string_view bytes, const std::string& what) {
  std::int64_t gen = 0;
  for (std::size_t offset = 0, part = 0; offset < bytes.size();
       offset += kSqliteSnapshotPartBytes, ++part) {
    std::unique_lock<std::mutex> lock(connection_.mutex());
    const Status status = connection_.Write(fmt::format("{}: part {}", what, part), [&] {
      ASSIGN_OR_RETURN(std::int64_t num, connection_.RequireCollection(collection));
      if (part == 0) {
        Bound s(connection_.sql().next_part_gen);
        const int rc = sqlite3_step(s);
        if (rc != SQLITE_ROW) return connection_.Error(rc, "number the parts");
        gen = sqlite3_column_int64(s, 0);
      }
      Bound s(connection_.sql().put_part);
      sqlite3_bind_int64(s, 1, num);
      BindText(s, 2, name);
      sqlite3_bind_int64(s, 3, gen);
      sqlite3_bind_int64(s, 4, static_cast<std::int64_t>(part));
      BindBlob(s, 5, bytes.substr(offset, kSqliteSnapshotPartBytes));
      return connection_.Done(s, "write");
    });
    lock.unlock();
    if (!status.ok()) {
      if (part > 0) DeleteParts(collection, name, gen);
      return status;
    }
    // Keeps the log short while the parts go in, off the writers' path.
    RETURN_IF_ERROR(CheckpointLog(SQLITE_CHECKPOINT_PASSIVE));
  }
  return gen;
}

// Best effort after a failed snapshot write: what it cannot delete, the
// next snapshot of the name deletes.
void Snapshots::DeleteParts(std::string_view collection, std::string_view name, std::int64_t gen) {
  std::lock_guard<std::mutex> lock(connection_.mutex());
  (void)connection_.Write("delete the parts of a snapshot not stored", [&] {
    ASSIGN_OR_RETURN(std::int64_t num, connection_.RequireCollection(collection));
    Bound s(connection_.sql().delete_parts);
    sqlite3_bind_int64(s, 1, num);
    BindText(s, 2, name);
    sqlite3_bind_int64(s, 3, gen);
    return connection_.Done(s, "delete");
  });
}

}  // namespace engram::storage
