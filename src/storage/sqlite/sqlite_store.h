// The SQLite implementation of storage::Store (store.h): one database file,
// `DIR/engram.db`, in WAL mode with synchronous=FULL. This header adds the
// variant tests use to open the store on another SQLite VFS, such as the
// fault-injecting one in storage/testing/fault_vfs.h.
#ifndef ENGRAM_STORAGE_SQLITE_SQLITE_STORE_H_
#define ENGRAM_STORAGE_SQLITE_SQLITE_STORE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "engram/status.h"
#include "storage/store.h"

namespace engram::storage {

// The file inside the store directory that holds everything.
inline constexpr const char* kSqliteStoreFile = "engram.db";

// The layout version this build writes; OpenSqliteStore refuses a file with a
// larger one (FailedPrecondition) instead of guessing at its meaning.
// Version 1 files are upgraded in place when opened (the table of snapshot
// parts added).
inline constexpr std::int64_t kSqliteStoreSchemaVersion = 2;

// A snapshot image larger than this is written in parts of this size, each
// part in a transaction of its own, and then swapped in by one short
// transaction: the store's writes go on between the parts instead of
// waiting for the whole image (a 1M-record text image is ~130 MiB).
inline constexpr std::size_t kSqliteSnapshotPartBytes = std::size_t{4} << 20;

// As OpenSqliteStore, but every file access goes through the registered
// SQLite VFS named `vfs_name` (empty: SQLite's default VFS). InvalidArgument
// when no VFS has that name.
StatusOr<std::unique_ptr<Store>> OpenSqliteStoreWithVfs(const std::string& dir,
                                                        const std::string& vfs_name);

}  // namespace engram::storage

#endif  // ENGRAM_STORAGE_SQLITE_SQLITE_STORE_H_
