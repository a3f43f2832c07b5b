#include "storage/sqlite/sqlite_store.h"

#include <cstdint>
#include <filesystem>
#include <functional>
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
#include "storage/sqlite/connection.h"
#include "storage/sqlite/file.h"
#include "storage/sqlite/snapshots.h"
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

// The Store on one SQLite file: records and collections here, snapshots in
// Snapshots (snapshots.h), the connection's rules in Connection
// (connection.h).
class SqliteStore final : public Store {
 public:
  SqliteStore(sqlite3* db, std::string path) : connection_(db, std::move(path)) {}

  Status Init(const std::string& vfs) {
    RETURN_IF_ERROR(connection_.Prepare());
    RETURN_IF_ERROR(snapshots_.Open(vfs));
    ASSIGN_OR_RETURN(opened_seq_, LastSequence());
    return Status::Ok();
  }

  StatusOr<std::uint64_t> CreateCollection(const CollectionRow& collection) override {
    std::lock_guard<std::mutex> lock(connection_.mutex());
    std::uint64_t seq = 0;
    Status status =
        connection_.Write(fmt::format("create collection '{}'", Printable(collection.name)), [&] {
          ASSIGN_OR_RETURN(std::optional<std::int64_t> num,
                           connection_.FindCollection(collection.name));
          if (num) return Status::AlreadyExists("the collection exists");
          Bound s(sql().insert_collection);
          BindText(s, 1, collection.name);
          BindText(s, 2, collection.config);
          RETURN_IF_ERROR(connection_.Done(s, "insert"));
          if (sqlite3_last_insert_rowid(connection_.db()) > kMaxCollectionNumber) {
            return Status::ResourceExhausted("collection numbers exhausted");
          }
          ASSIGN_OR_RETURN(seq, connection_.TakeSequence());
          return Status::Ok();
        });
    if (!status.ok()) return status;
    last_batch_[collection.name] = seq;
    return seq;
  }

  Status DropCollection(std::string_view name) override {
    std::lock_guard<std::mutex> lock(connection_.mutex());
    return connection_.Write(fmt::format("drop collection '{}'", Printable(name)), [&] {
      ASSIGN_OR_RETURN(std::int64_t num, connection_.RequireCollection(name));
      {
        Bound s(sql().delete_range);
        sqlite3_bind_int64(s, 1, FirstKey(num));
        sqlite3_bind_int64(s, 2, LastKey(num));
        RETURN_IF_ERROR(connection_.Done(s, "delete records"));
      }
      {
        Bound s(sql().delete_collection_parts);
        sqlite3_bind_int64(s, 1, num);
        RETURN_IF_ERROR(connection_.Done(s, "delete snapshot parts"));
      }
      {
        Bound s(sql().delete_snapshots);
        sqlite3_bind_int64(s, 1, num);
        RETURN_IF_ERROR(connection_.Done(s, "delete snapshots"));
      }
      Bound s(sql().delete_collection);
      sqlite3_bind_int64(s, 1, num);
      RETURN_IF_ERROR(connection_.Done(s, "delete collection"));
      return connection_.TakeSequence().status();
    });
  }

  StatusOr<std::vector<CollectionRow>> ListCollections() override {
    std::lock_guard<std::mutex> lock(connection_.mutex());
    std::vector<CollectionRow> out;
    Bound s(sql().list_collections);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
      out.push_back({std::string(ColumnBytes(s, 0)), std::string(ColumnBytes(s, 1))});
    }
    if (rc != SQLITE_DONE) return connection_.Error(rc, "list collections");
    return out;
  }

  StatusOr<std::uint64_t> Apply(std::string_view collection, const WriteBatch& batch) override {
    std::lock_guard<std::mutex> lock(connection_.mutex());
    // The sequence is read inside the write transaction, so it stays right
    // even if another process wrote to the file since.
    std::uint64_t seq = 0;
    Status status =
        connection_.Write(fmt::format("apply to collection '{}'", Printable(collection)), [&] {
          ASSIGN_OR_RETURN(std::int64_t num, connection_.RequireCollection(collection));
          if (batch.after && LastBatch(collection) > *batch.after) {
            return Status::Aborted(
                fmt::format("the collection changed after sequence {}: a later batch is committed",
                            *batch.after));
          }
          ASSIGN_OR_RETURN(seq, connection_.TakeSequence());
          for (const std::string& id : batch.removes) RETURN_IF_ERROR(DeleteRecord(num, id));
          for (const RecordWrite& put : batch.puts) {
            RETURN_IF_ERROR(DeleteRecord(num, put.id));
            Bound s(sql().insert_record);
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
              return connection_.Error(rc, fmt::format("insert record '{}'", Printable(put.id)));
            }
          }
          for (const BodyWrite& touch : batch.touches) {
            Bound s(sql().touch_record);
            BindBlob(s, 1, touch.body);
            sqlite3_bind_int64(s, 2, num);
            BindBlob(s, 3, touch.id);
            RETURN_IF_ERROR(
                connection_.Done(s, fmt::format("touch record '{}'", Printable(touch.id))));
          }
          if (batch.config) {
            Bound s(sql().set_collection_config);
            BindText(s, 1, *batch.config);
            sqlite3_bind_int64(s, 2, num);
            RETURN_IF_ERROR(connection_.Done(s, "replace the configuration"));
          }
          return Status::Ok();
        });
    if (!status.ok()) return status;
    last_batch_[std::string(collection)] = seq;
    return seq;
  }

  StatusOr<std::uint64_t> LastSequence() override {
    std::lock_guard<std::mutex> lock(connection_.mutex());
    ASSIGN_OR_RETURN(std::int64_t last, connection_.ReadMeta("last_seq"));
    if (last < 0) return Status::Corruption(fmt::format("last sequence {} is negative", last));
    return static_cast<std::uint64_t>(last);
  }

  Status ScanRecords(std::string_view collection, std::uint64_t vectors_after,
                     const std::function<Status(const RecordRow&)>& fn) override {
    std::lock_guard<std::mutex> lock(connection_.mutex());
    const std::string what = fmt::format("scan collection '{}'", Printable(collection));
    auto num = connection_.RequireCollection(collection);
    if (!num.ok()) return num.status().WithContext(what);
    Bound s(sql().scan);
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
    if (rc != SQLITE_DONE) return connection_.Error(rc, what);
    return Status::Ok();
  }

  StatusOr<std::uint64_t> RecordLimit(std::string_view collection) override {
    std::lock_guard<std::mutex> lock(connection_.mutex());
    const std::string what =
        fmt::format("read the record numbers of collection '{}'", Printable(collection));
    auto num = connection_.RequireCollection(collection);
    if (!num.ok()) return num.status().WithContext(what);
    Bound s(sql().record_limit);
    sqlite3_bind_int64(s, 1, FirstKey(*num));
    sqlite3_bind_int64(s, 2, LastKey(*num));
    const int rc = sqlite3_step(s);
    if (rc != SQLITE_ROW) return connection_.Error(rc, what);
    if (sqlite3_column_type(s, 0) == SQLITE_NULL) return std::uint64_t{0};
    return (static_cast<std::uint64_t>(sqlite3_column_int64(s, 0)) & 0xffffffff) + 1;
  }

  StatusOr<std::optional<Found>> GetRecord(std::string_view collection,
                                           std::string_view id) override {
    std::lock_guard<std::mutex> lock(connection_.mutex());
    const std::string what =
        fmt::format("get record '{}' of collection '{}'", Printable(id), Printable(collection));
    auto num = connection_.RequireCollection(collection);
    if (!num.ok()) return num.status().WithContext(what);
    Bound s(sql().get_record);
    sqlite3_bind_int64(s, 1, *num);
    BindBlob(s, 2, id);
    int rc = sqlite3_step(s);
    if (rc == SQLITE_DONE) return std::optional<Found>();
    if (rc != SQLITE_ROW) return connection_.Error(rc, what);
    Found found;
    found.doc = static_cast<std::uint32_t>(sqlite3_column_int64(s, 0) & 0xffffffff);
    found.seq = static_cast<std::uint64_t>(sqlite3_column_int64(s, 1));
    found.body = ColumnBytes(s, 2);
    found.vector = ColumnBytes(s, 3);
    return std::optional<Found>(std::move(found));
  }

  Status PutSnapshot(std::string_view collection, std::string_view name,
                     const Snapshot& snapshot) override {
    return snapshots_.Put(collection, name, snapshot);
  }

  StatusOr<std::optional<Snapshot>> GetSnapshot(std::string_view collection,
                                                std::string_view name) override {
    return snapshots_.Get(collection, name);
  }

 private:
  // The sequence of the collection's last batch (WriteBatch::after). The
  // store has one owner, so it is known from the open on: a collection not
  // written since counts as written at the sequence the store opened with.
  std::uint64_t LastBatch(std::string_view collection) const {
    auto it = last_batch_.find(collection);
    return it == last_batch_.end() ? opened_seq_ : it->second;
  }

  Status DeleteRecord(std::int64_t num, std::string_view id) {
    Bound s(sql().delete_record);
    sqlite3_bind_int64(s, 1, num);
    BindBlob(s, 2, id);
    int rc = sqlite3_step(s);
    if (rc != SQLITE_DONE) {
      return connection_.Error(rc, fmt::format("delete record '{}'", Printable(id)));
    }
    return Status::Ok();
  }

  Statements& sql() { return connection_.sql(); }

  Connection connection_;
  Snapshots snapshots_{connection_};  // after connection_: closes its connection first
  std::uint64_t opened_seq_ = 0;      // the last sequence when the store opened
  std::map<std::string, std::uint64_t, std::less<>> last_batch_;  // written since the open
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
  auto store = std::make_unique<SqliteStore>(db, path);
  status = store->Init(vfs_name);
  if (!status.ok()) return status.WithContext(fmt::format("open {}", path));
  return std::unique_ptr<Store>(std::move(store));
}

StatusOr<std::unique_ptr<Store>> OpenSqliteStore(const std::string& dir) {
  return OpenSqliteStoreWithVfs(dir, "");
}

}  // namespace engram::storage
