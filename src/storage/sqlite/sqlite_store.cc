#include "storage/sqlite/sqlite_store.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <sqlite3.h>

#include "base/status.h"
#include "storage/directory.h"
#include "storage/sqlite/file.h"
#include "storage/sqlite/statements.h"

namespace engram::storage {
namespace {

// A record's row key is (collection number << 32) | doc, so one collection's
// records are a contiguous rowid range in doc order: a scan is a sequential
// walk of the table b-tree with no index lookups, and rows (a body plus a
// ~1 KiB vector) live in a rowid table, which SQLite stores far better than a
// WITHOUT ROWID table when rows are large (sqlite.org/withoutrowid.html §4).
constexpr std::int64_t kMaxCollectionNumber = (std::int64_t{1} << 31) - 1;
std::int64_t FirstKey(std::int64_t num) {
  return num << 32;
}
std::int64_t LastKey(std::int64_t num) {
  return (num << 32) | 0xffffffff;
}

constexpr int kBusyTimeoutMs = 5000;
// New files give free pages back (PRAGMA auto_vacuum=INCREMENTAL): after a
// snapshot, in transactions of this many pages (8 MiB: a short hold of the
// write lock), at most kMaxVacuumSteps of them per snapshot.
constexpr int kVacuumStepPages = (8 << 20) / kSqlitePageSize;
constexpr int kMaxVacuumSteps = 256;
std::int64_t ToSqlSeq(std::uint64_t seq) {
  constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  return static_cast<std::int64_t>(seq > kMax ? kMax : seq);
}

class SqliteStore final : public Store {
 public:
  SqliteStore(sqlite3* db, std::string path, std::string vfs)
      : db_(db), sql_(db), path_(std::move(path)), vfs_(std::move(vfs)) {}
  ~SqliteStore() override {
    sql_.Finalize();
    sqlite3_close_v2(checkpointer_);
    sqlite3_close_v2(db_);  // the last connection checkpoints and removes the WAL
  }

  Status Init() {
    RETURN_IF_ERROR(sql_.Prepare());
    // A second connection moves the write-ahead log into the database after
    // a snapshot while the first goes on writing (Reclaim).
    const int rc =
        sqlite3_open_v2(path_.c_str(), &checkpointer_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
                        vfs_.empty() ? nullptr : vfs_.c_str());
    if (rc != SQLITE_OK) {
      return Status::IoError(fmt::format("open a second connection to {}: {} (sqlite code {})",
                                         path_, sqlite3_errstr(rc), rc));
    }
    sqlite3_busy_timeout(checkpointer_, 0);
    // Its first read attaches it to the log (a connection that has read
    // nothing does not know the file is in WAL mode and checkpoints nothing).
    ASSIGN_OR_RETURN(const std::string mode, QueryText(checkpointer_, "PRAGMA journal_mode"));
    if (mode != "wal") {
      return Status::IoError(
          fmt::format("the second connection to {} is not in WAL mode ('{}')", path_, mode));
    }
    ASSIGN_OR_RETURN(std::int64_t last, ReadMeta("last_seq"));
    if (last < 0) return Status::Corruption(fmt::format("last sequence {} is negative", last));
    opened_seq_ = static_cast<std::uint64_t>(last);
    ASSIGN_OR_RETURN(const std::int64_t auto_vacuum, PragmaInt("auto_vacuum"));
    incremental_ = auto_vacuum == 2;  // INCREMENTAL
    return Status::Ok();
  }

  StatusOr<std::uint64_t> CreateCollection(const CollectionRow& collection) override {
    std::lock_guard<std::mutex> lock(mu_);
    std::uint64_t seq = 0;
    Status status = Write(fmt::format("create collection '{}'", Printable(collection.name)), [&] {
      ASSIGN_OR_RETURN(std::optional<std::int64_t> num, FindCollection(collection.name));
      if (num) return Status::AlreadyExists("the collection exists");
      Bound s(sql_.insert_collection);
      BindText(s, 1, collection.name);
      BindText(s, 2, collection.config);
      RETURN_IF_ERROR(Done(s, "insert"));
      if (sqlite3_last_insert_rowid(db_) > kMaxCollectionNumber) {
        return Status::ResourceExhausted("collection numbers exhausted");
      }
      ASSIGN_OR_RETURN(seq, TakeSequence());
      return Status::Ok();
    });
    if (!status.ok()) return status;
    last_batch_[collection.name] = seq;
    return seq;
  }

  Status DropCollection(std::string_view name) override {
    std::lock_guard<std::mutex> lock(mu_);
    return Write(fmt::format("drop collection '{}'", Printable(name)), [&] {
      ASSIGN_OR_RETURN(std::int64_t num, RequireCollection(name));
      {
        Bound s(sql_.delete_range);
        sqlite3_bind_int64(s, 1, FirstKey(num));
        sqlite3_bind_int64(s, 2, LastKey(num));
        RETURN_IF_ERROR(Done(s, "delete records"));
      }
      {
        Bound s(sql_.delete_collection_parts);
        sqlite3_bind_int64(s, 1, num);
        RETURN_IF_ERROR(Done(s, "delete snapshot parts"));
      }
      {
        Bound s(sql_.delete_snapshots);
        sqlite3_bind_int64(s, 1, num);
        RETURN_IF_ERROR(Done(s, "delete snapshots"));
      }
      Bound s(sql_.delete_collection);
      sqlite3_bind_int64(s, 1, num);
      RETURN_IF_ERROR(Done(s, "delete collection"));
      return TakeSequence().status();
    });
  }

  StatusOr<std::vector<CollectionRow>> ListCollections() override {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<CollectionRow> out;
    Bound s(sql_.list_collections);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
      out.push_back({std::string(ColumnBytes(s, 0)), std::string(ColumnBytes(s, 1))});
    }
    if (rc != SQLITE_DONE) return Error(rc, "list collections");
    return out;
  }

  StatusOr<std::uint64_t> Apply(std::string_view collection, const WriteBatch& batch) override {
    std::lock_guard<std::mutex> lock(mu_);
    // The sequence is read inside the write transaction, so it stays right
    // even if another process wrote to the file since.
    std::uint64_t seq = 0;
    Status status = Write(fmt::format("apply to collection '{}'", Printable(collection)), [&] {
      ASSIGN_OR_RETURN(std::int64_t num, RequireCollection(collection));
      if (batch.after && LastBatch(collection) > *batch.after) {
        return Status::Aborted(fmt::format(
            "the collection changed after sequence {}: a later batch is committed", *batch.after));
      }
      ASSIGN_OR_RETURN(seq, TakeSequence());
      for (const std::string& id : batch.removes) RETURN_IF_ERROR(DeleteRecord(num, id));
      for (const RecordWrite& put : batch.puts) {
        RETURN_IF_ERROR(DeleteRecord(num, put.id));
        Bound s(sql_.insert_record);
        sqlite3_bind_int64(s, 1, FirstKey(num) | put.doc);
        sqlite3_bind_int64(s, 2, num);
        BindBlob(s, 3, put.id);
        sqlite3_bind_int64(s, 4, static_cast<std::int64_t>(seq));
        BindBlob(s, 5, put.body);
        if (!put.vector.empty()) BindBlob(s, 6, put.vector);
        int rc = sqlite3_step(s);
        if (rc == SQLITE_CONSTRAINT_PRIMARYKEY) {
          return Status::InvalidArgument(fmt::format(
              "record '{}': doc {} belongs to another record", Printable(put.id), put.doc));
        }
        if (rc != SQLITE_DONE) {
          return Error(rc, fmt::format("insert record '{}'", Printable(put.id)));
        }
      }
      for (const BodyWrite& touch : batch.touches) {
        Bound s(sql_.touch_record);
        BindBlob(s, 1, touch.body);
        sqlite3_bind_int64(s, 2, num);
        BindBlob(s, 3, touch.id);
        RETURN_IF_ERROR(Done(s, fmt::format("touch record '{}'", Printable(touch.id))));
      }
      if (batch.config) {
        Bound s(sql_.set_collection_config);
        BindText(s, 1, *batch.config);
        sqlite3_bind_int64(s, 2, num);
        RETURN_IF_ERROR(Done(s, "replace the configuration"));
      }
      return Status::Ok();
    });
    if (!status.ok()) return status;
    last_batch_[std::string(collection)] = seq;
    return seq;
  }

  StatusOr<std::uint64_t> LastSequence() override {
    std::lock_guard<std::mutex> lock(mu_);
    ASSIGN_OR_RETURN(std::int64_t last, ReadMeta("last_seq"));
    if (last < 0) return Status::Corruption(fmt::format("last sequence {} is negative", last));
    return static_cast<std::uint64_t>(last);
  }

  Status ScanRecords(std::string_view collection, std::uint64_t vectors_after,
                     const std::function<Status(const RecordRow&)>& fn) override {
    std::lock_guard<std::mutex> lock(mu_);
    const std::string what = fmt::format("scan collection '{}'", Printable(collection));
    auto num = RequireCollection(collection);
    if (!num.ok()) return num.status().WithContext(what);
    Bound s(sql_.scan);
    sqlite3_bind_int64(s, 1, FirstKey(*num));
    sqlite3_bind_int64(s, 2, LastKey(*num));
    sqlite3_bind_int64(s, 3, ToSqlSeq(vectors_after));
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
      RecordRow row;
      row.doc = static_cast<std::uint32_t>(sqlite3_column_int64(s, 0) & 0xffffffff);
      row.id = ColumnBytes(s, 1);
      row.seq = static_cast<std::uint64_t>(sqlite3_column_int64(s, 2));
      row.body = ColumnBytes(s, 3);
      row.vector = ColumnBytes(s, 4);
      RETURN_IF_ERROR(fn(row));
    }
    if (rc != SQLITE_DONE) return Error(rc, what);
    return Status::Ok();
  }

  StatusOr<std::uint64_t> RecordLimit(std::string_view collection) override {
    std::lock_guard<std::mutex> lock(mu_);
    const std::string what =
        fmt::format("read the record numbers of collection '{}'", Printable(collection));
    auto num = RequireCollection(collection);
    if (!num.ok()) return num.status().WithContext(what);
    Bound s(sql_.record_limit);
    sqlite3_bind_int64(s, 1, FirstKey(*num));
    sqlite3_bind_int64(s, 2, LastKey(*num));
    const int rc = sqlite3_step(s);
    if (rc != SQLITE_ROW) return Error(rc, what);
    if (sqlite3_column_type(s, 0) == SQLITE_NULL) return std::uint64_t{0};
    return (static_cast<std::uint64_t>(sqlite3_column_int64(s, 0)) & 0xffffffff) + 1;
  }

  StatusOr<std::optional<Found>> GetRecord(std::string_view collection,
                                           std::string_view id) override {
    std::lock_guard<std::mutex> lock(mu_);
    const std::string what =
        fmt::format("get record '{}' of collection '{}'", Printable(id), Printable(collection));
    auto num = RequireCollection(collection);
    if (!num.ok()) return num.status().WithContext(what);
    Bound s(sql_.get_record);
    sqlite3_bind_int64(s, 1, *num);
    BindBlob(s, 2, id);
    int rc = sqlite3_step(s);
    if (rc == SQLITE_DONE) return std::optional<Found>();
    if (rc != SQLITE_ROW) return Error(rc, what);
    Found found;
    found.doc = static_cast<std::uint32_t>(sqlite3_column_int64(s, 0) & 0xffffffff);
    found.seq = static_cast<std::uint64_t>(sqlite3_column_int64(s, 1));
    found.body = ColumnBytes(s, 2);
    found.vector = ColumnBytes(s, 3);
    return std::optional<Found>(std::move(found));
  }

  Status PutSnapshot(std::string_view collection, std::string_view name,
                     const Snapshot& snapshot) override {
    std::lock_guard<std::mutex> one_at_a_time(snapshot_mu_);
    const std::string what =
        fmt::format("put snapshot '{}' of collection '{}'", Printable(name), Printable(collection));
    std::optional<std::int64_t> gen;
    if (snapshot.bytes.size() > kSqliteSnapshotPartBytes) {
      ASSIGN_OR_RETURN(gen, WriteParts(collection, name, snapshot.bytes, what));
    }
    std::unique_lock<std::mutex> lock(mu_);
    const Status status = Write(what, [&] {
      ASSIGN_OR_RETURN(std::int64_t num, RequireCollection(collection));
      {
        Bound s(sql_.delete_snapshot);
        sqlite3_bind_int64(s, 1, num);
        BindText(s, 2, name);
        RETURN_IF_ERROR(Done(s, "delete the old image"));
      }
      {  // the old image's parts, and any left by a write that failed
        Bound s(sql_.delete_other_parts);
        sqlite3_bind_int64(s, 1, num);
        BindText(s, 2, name);
        if (gen) sqlite3_bind_int64(s, 3, *gen);
        RETURN_IF_ERROR(Done(s, "delete the old image's parts"));
      }
      Bound s(sql_.put_snapshot);
      sqlite3_bind_int64(s, 1, num);
      BindText(s, 2, name);
      sqlite3_bind_int64(s, 3, ToSqlSeq(snapshot.seq));
      BindBlob(s, 4, gen ? std::string_view() : std::string_view(snapshot.bytes));
      if (gen) sqlite3_bind_int64(s, 5, *gen);
      RETURN_IF_ERROR(Done(s, "write"));
      return TakeSequence().status();  // every change takes one, as in a shared store
    });
    lock.unlock();
    if (!status.ok()) {
      if (gen) DeleteParts(collection, name, *gen);
      return status;
    }
    return Reclaim();
  }

  StatusOr<std::optional<Snapshot>> GetSnapshot(std::string_view collection,
                                                std::string_view name) override {
    std::lock_guard<std::mutex> lock(mu_);
    const std::string what =
        fmt::format("get snapshot '{}' of collection '{}'", Printable(name), Printable(collection));
    auto num = RequireCollection(collection);
    if (!num.ok()) return num.status().WithContext(what);
    Bound s(sql_.get_snapshot);
    sqlite3_bind_int64(s, 1, *num);
    BindText(s, 2, name);
    int rc = sqlite3_step(s);
    if (rc == SQLITE_DONE) return std::optional<Snapshot>();
    if (rc != SQLITE_ROW) return Error(rc, what);
    Snapshot snapshot;
    snapshot.seq = static_cast<std::uint64_t>(sqlite3_column_int64(s, 0));
    if (sqlite3_column_type(s, 2) == SQLITE_NULL) {
      snapshot.bytes = ColumnBytes(s, 1);
      return std::optional<Snapshot>(std::move(snapshot));
    }
    const std::int64_t gen = sqlite3_column_int64(s, 2);
    {  // the image is read into one allocation
      Bound size(sql_.size_parts);
      sqlite3_bind_int64(size, 1, *num);
      BindText(size, 2, name);
      sqlite3_bind_int64(size, 3, gen);
      rc = sqlite3_step(size);
      if (rc != SQLITE_ROW) return Error(rc, what);
      snapshot.bytes.reserve(
          static_cast<std::size_t>(std::max<std::int64_t>(0, sqlite3_column_int64(size, 0))));
    }
    Bound parts(sql_.get_parts);
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
    if (rc != SQLITE_DONE) return Error(rc, what);
    return std::optional<Snapshot>(std::move(snapshot));
  }

 private:
  // After a snapshot was stored: gives the file's free pages back to the file
  // system (auto_vacuum=INCREMENTAL, new stores only: an older file has
  // auto_vacuum=NONE and keeps its free pages for reuse) in transactions of
  // at most kVacuumStepPages, taking the connection for one step at a time so
  // that writes go on between them, then moves the WAL into the database on
  // the second connection and truncates it if no writer or reader holds it
  // (no waiting: a later checkpoint resets it, journal_size_limit bounds it
  // meanwhile).
  // Records deleted since the last snapshot free their pages here too.
  Status Reclaim() {
    for (int step = 0; incremental_ && step < kMaxVacuumSteps; ++step) {
      std::lock_guard<std::mutex> lock(mu_);
      ASSIGN_OR_RETURN(const std::int64_t free_pages, PragmaInt("freelist_count"));
      if (free_pages == 0) break;
      RETURN_IF_ERROR(Write("reclaim free pages", [&] {
        // The pragma returns a row per page it frees: stepped to its end.
        const std::string sql = fmt::format("PRAGMA incremental_vacuum({})", kVacuumStepPages);
        sqlite3_stmt* vacuum = nullptr;
        int rc = sqlite3_prepare_v2(db_, sql.c_str(), -1, &vacuum, nullptr);
        while (rc == SQLITE_OK || rc == SQLITE_ROW) rc = sqlite3_step(vacuum);
        const Status status = rc == SQLITE_DONE ? Status::Ok() : Error(rc, "incremental vacuum");
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
  Status CheckpointLog(int mode) {
    const int rc = sqlite3_wal_checkpoint_v2(checkpointer_, nullptr, mode, nullptr, nullptr);
    if (rc != SQLITE_OK && (rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED) {
      return Status::IoError(
          fmt::format("checkpoint the write-ahead log: {} (sqlite code {}) in {}",
                      sqlite3_errmsg(checkpointer_), rc, path_));
    }
    return Status::Ok();
  }

  // Writes `bytes` as parts of kSqliteSnapshotPartBytes under a new
  // generation, each part in a transaction of its own that holds the
  // connection only while it writes, and returns the generation. A failed
  // write deletes the parts written so far.
  StatusOr<std::int64_t> WriteParts(std::string_view collection, std::string_view name,
                                    std::string_view bytes, const std::string& what) {
    std::int64_t gen = 0;
    for (std::size_t offset = 0, part = 0; offset < bytes.size();
         offset += kSqliteSnapshotPartBytes, ++part) {
      std::unique_lock<std::mutex> lock(mu_);
      const Status status = Write(fmt::format("{}: part {}", what, part), [&] {
        ASSIGN_OR_RETURN(std::int64_t num, RequireCollection(collection));
        if (part == 0) {
          Bound s(sql_.next_part_gen);
          const int rc = sqlite3_step(s);
          if (rc != SQLITE_ROW) return Error(rc, "number the parts");
          gen = sqlite3_column_int64(s, 0);
        }
        Bound s(sql_.put_part);
        sqlite3_bind_int64(s, 1, num);
        BindText(s, 2, name);
        sqlite3_bind_int64(s, 3, gen);
        sqlite3_bind_int64(s, 4, static_cast<std::int64_t>(part));
        BindBlob(s, 5, bytes.substr(offset, kSqliteSnapshotPartBytes));
        return Done(s, "write");
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
  void DeleteParts(std::string_view collection, std::string_view name, std::int64_t gen) {
    std::lock_guard<std::mutex> lock(mu_);
    (void)Write("delete the parts of a snapshot not stored", [&] {
      ASSIGN_OR_RETURN(std::int64_t num, RequireCollection(collection));
      Bound s(sql_.delete_parts);
      sqlite3_bind_int64(s, 1, num);
      BindText(s, 2, name);
      sqlite3_bind_int64(s, 3, gen);
      return Done(s, "delete");
    });
  }

  // The integer value of PRAGMA `name`.
  StatusOr<std::int64_t> PragmaInt(std::string_view name) {
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

  // Runs `body` inside BEGIN IMMEDIATE ... COMMIT. On any failure the
  // transaction is rolled back and the error returned with `what` as context.
  // After an I/O error the store refuses further writes until reopened: the
  // operating system may have dropped the dirty pages of a failed write or
  // fsync, and a later fsync can then succeed without them ("fsyncgate",
  // PostgreSQL 2018), so a later acknowledgement could not be trusted.
  Status Write(std::string_view what, const std::function<Status()>& body) {
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

  // The next sequence, stored as the last one (inside a write transaction).
  StatusOr<std::uint64_t> TakeSequence() {
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

  // The sequence of the collection's last batch (WriteBatch::after). The
  // store has one owner, so it is known from the open on: a collection not
  // written since counts as written at the sequence the store opened with.
  std::uint64_t LastBatch(std::string_view collection) const {
    auto it = last_batch_.find(collection);
    return it == last_batch_.end() ? opened_seq_ : it->second;
  }

  // Steps `s` once, expecting it to finish.
  Status Done(sqlite3_stmt* s, std::string_view what) {
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    if (rc != SQLITE_DONE) return Error(rc, what);
    return Status::Ok();
  }

  // Maps a SQLite result code to the store's contract: unreadable contents
  // are Corruption, everything else that fails on the files is IoError.
  Status Error(int rc, std::string_view what) const {
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

  StatusOr<std::optional<std::int64_t>> FindCollection(std::string_view name) {
    Bound s(sql_.find_collection);
    BindText(s, 1, name);
    int rc = sqlite3_step(s);
    if (rc == SQLITE_DONE) return std::optional<std::int64_t>();
    if (rc != SQLITE_ROW) return Error(rc, "look up the collection");
    return std::optional<std::int64_t>(sqlite3_column_int64(s, 0));
  }

  StatusOr<std::int64_t> RequireCollection(std::string_view name) {
    ASSIGN_OR_RETURN(std::optional<std::int64_t> num, FindCollection(name));
    if (!num) return Status::NotFound(fmt::format("no collection '{}'", Printable(name)));
    return *num;
  }

  Status DeleteRecord(std::int64_t num, std::string_view id) {
    Bound s(sql_.delete_record);
    sqlite3_bind_int64(s, 1, num);
    BindBlob(s, 2, id);
    int rc = sqlite3_step(s);
    if (rc != SQLITE_DONE) return Error(rc, fmt::format("delete record '{}'", Printable(id)));
    return Status::Ok();
  }

  StatusOr<std::int64_t> ReadMeta(std::string_view key) {
    Bound s(sql_.get_meta);
    BindText(s, 1, key);
    int rc = sqlite3_step(s);
    if (rc == SQLITE_DONE) return Status::Corruption(fmt::format("no '{}' in meta", key));
    if (rc != SQLITE_ROW) return Error(rc, fmt::format("read '{}'", key));
    return sqlite3_column_int64(s, 0);
  }

  sqlite3* db_;
  sqlite3* checkpointer_ = nullptr;  // the second connection: log checkpoints only (CheckpointLog)
  std::mutex snapshot_mu_;           // one PutSnapshot at a time (its parts, then the swap)
  std::mutex mu_;                    // db_, used by one thread at a time (below)
  std::uint64_t opened_seq_ = 0;     // the last sequence when the store opened
  std::map<std::string, std::uint64_t, std::less<>> last_batch_;  // written since the open
  Statements sql_;
  const std::string path_;
  const std::string vfs_;  // the VFS both connections use (empty: SQLite's default)
  Status broken_;          // the I/O error that stopped writes, or OK
  // Whether the file gives free pages back (auto_vacuum=INCREMENTAL: files
  // created since it was introduced; see Reclaim).
  bool incremental_ = false;
};

}  // namespace

StatusOr<std::unique_ptr<Store>> OpenSqliteStoreWithVfs(const std::string& dir,
                                                        const std::string& vfs_name) {
  if (!vfs_name.empty() && sqlite3_vfs_find(vfs_name.c_str()) == nullptr) {
    return Status::InvalidArgument(fmt::format("no SQLite VFS named '{}'", vfs_name));
  }
  RETURN_IF_ERROR(CreateStoreDirectory(dir));
  const std::filesystem::path root(dir);
  const std::string path = (root / kSqliteStoreFile).string();
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(
      path.c_str(), &db,
      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE,
      vfs_name.empty() ? nullptr : vfs_name.c_str());
  if (rc != SQLITE_OK) {
    std::string message = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close_v2(db);
    return Status::IoError(fmt::format("open {}: {} (sqlite code {})", path, message, rc));
  }
  sqlite3_extended_result_codes(db, 1);
  sqlite3_busy_timeout(db, kBusyTimeoutMs);
  // Defensive mode: no SQL can corrupt the file behind SQLite's back.
  sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
  Status status = PrepareSqliteFile(db);
  if (!status.ok()) {
    sqlite3_close_v2(db);
    return status.WithContext(fmt::format("open {}", path));
  }
  auto store = std::make_unique<SqliteStore>(db, path, vfs_name);
  status = store->Init();
  if (!status.ok()) return status.WithContext(fmt::format("open {}", path));
  return std::unique_ptr<Store>(std::move(store));
}

StatusOr<std::unique_ptr<Store>> OpenSqliteStore(const std::string& dir) {
  return OpenSqliteStoreWithVfs(dir, "");
}

}  // namespace engram::storage
