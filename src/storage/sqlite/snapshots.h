// The SQLite store's snapshots (Store::PutSnapshot, GetSnapshot): an image
// larger than kSqliteSnapshotPartBytes is written as parts, each in a
// transaction of its own so that the writers' batches go in between, and
// swapped in by one short transaction; until then the old image stays the
// snapshot. After each, the file's free pages are given back and the
// write-ahead log moved into the database on a second connection that never
// waits for the writers. Internal to storage/sqlite.
#ifndef ENGRAM_STORAGE_SQLITE_SNAPSHOTS_H_
#define ENGRAM_STORAGE_SQLITE_SNAPSHOTS_H_

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include <sqlite3.h>

#include "storage/sqlite/connection.h"
#include "storage/store.h"

namespace engram::storage {

class Snapshots {
 public:
  explicit Snapshots(Connection& connection) : connection_(connection) {}
  ~Snapshots();
  Snapshots(const Snapshots&) = delete;
  Snapshots& operator=(const Snapshots&) = delete;

  // Opens the second connection (through the VFS `vfs`, empty: SQLite's
  // default) and reads whether the file gives free pages back; before Put.
  Status Open(const std::string& vfs);

  // Both take the connection's mutex themselves. Puts run one at a time,
  // each holding the connection only per part and for the swap.
  Status Put(std::string_view collection, std::string_view name, const Snapshot& snapshot);
  StatusOr<std::optional<Snapshot>> Get(std::string_view collection, std::string_view name);

 private:
  Status Reclaim();
  Status CheckpointLog(int mode);
  StatusOr<std::int64_t> WriteParts(std::string_view collection, std::string_view name,
                                    std::string_view bytes, const std::string& what);
  void DeleteParts(std::string_view collection, std::string_view name, std::int64_t gen);

  Connection& connection_;
  sqlite3* checkpointer_ = nullptr;  // the second connection: log checkpoints only
  std::mutex one_at_a_time_;         // one Put at a time (its parts, then the swap)
  // Whether the file gives free pages back (auto_vacuum=INCREMENTAL: files
  // created since it was introduced; see Reclaim).
  bool incremental_ = false;
};

}  // namespace engram::storage

#endif  // ENGRAM_STORAGE_SQLITE_SNAPSHOTS_H_
