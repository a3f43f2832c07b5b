// DurableFiles: what a disk keeps when the power goes, for FaultVfs's power
// loss (the model of LazyFS and ALICE). A file's content is durable as of its
// last fsync and a directory's entries as of the directory's last fsync;
// everything since is kept revertible (an undo and a redo log per file, a
// deleted file moved aside) until Revert puts the files back.
#ifndef ENGRAM_STORAGE_TESTING_DURABLE_FILES_H_
#define ENGRAM_STORAGE_TESTING_DURABLE_FILES_H_

#include <cstdint>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include <sqlite3.h>

#include "engram/status.h"

namespace engram::storage::testing {

// What Revert did.
struct RevertStats {
  std::uint64_t files = 0;             // files whose content went back to their last sync
  std::uint64_t changes_dropped = 0;   // unsynced writes and truncations undone
  std::uint64_t changes_kept = 0;      // unsynced ones that survived (keep_probability)
  std::uint64_t changes_torn = 0;      // unsynced writes kept in part (some 4 KiB blocks)
  std::uint64_t bytes_dropped = 0;     // bytes of the dropped writes and blocks
  std::uint64_t entries_removed = 0;   // files created since their directory's last sync
  std::uint64_t entries_restored = 0;  // files deleted since their directory's last sync
  std::uint64_t shm_removed = 0;       // wal-index (-shm) files deleted

  RevertStats& operator+=(const RevertStats& other);
  // One line for a test's log.
  std::string ToString() const;
};

// Thread-safe. `real` below is the open file the change goes through (the
// wrapped VFS's); the model reads the bytes a change overwrites through it.
// Files that exist when the model first sees them count as durable, entry
// and content (Reset: everything on disk now is durable).
class DurableFiles {
 public:
  // `path` was opened; `created`: it did not exist before. `main_db`: a
  // database, whose wal-index (path + "-shm") Revert deletes.
  void Opened(const std::string& path, bool created, bool main_db, sqlite3_file* real);
  // Before the write or truncation happens: keeps what it changes. False
  // when the bytes it overwrites cannot be read (the change must then fail).
  bool WillWrite(const std::string& path, sqlite3_file* real, const void* data, int n,
                 sqlite3_int64 offset);
  bool WillTruncate(const std::string& path, sqlite3_file* real, sqlite3_int64 size);
  // After a successful fsync of `path`: its content as it is now is durable.
  void Synced(const std::string& path, sqlite3_file* real);
  // After a successful fsync of directory `dir`: its entries as they are now
  // (files created or deleted in it) are durable.
  void DirectorySynced(const std::string& dir);
  // Deletes `path` (SQLite's xDelete): a file whose entry is durable is
  // moved aside, to come back on Revert unless its directory is synced
  // first. Returns a SQLite result code (SQLITE_IOERR_DELETE_NOENT when
  // absent).
  int Delete(const std::string& path);

  // The power comes back: every file seen since Reset goes back to its
  // durable content (each unsynced truncation, and each 4 KiB block of each
  // unsynced write, kept instead with `keep_probability`, drawn in order
  // from `seed`: the disk wrote some of what it was given, in any order,
  // tearing writes between blocks), files whose entry is not durable are
  // removed, deleted ones restored, wal-index files deleted. No file may be
  // open. Afterwards everything on disk is durable (Reset). IoError naming
  // the file when the disk refuses.
  Status Revert(double keep_probability, std::uint64_t seed, RevertStats* stats);
  // Forgets every change: what is on disk now is durable.
  void Reset();

 private:
  struct Change {
    bool truncate = false;
    std::uint64_t offset = 0;  // a truncation's new size
    std::string before;        // the bytes it overwrote or cut, within the file as it was
    std::string after;         // a write's bytes
  };
  struct File {
    bool entry_durable = true;
    bool main_db = false;
    std::uint64_t durable_size = 0;
    std::vector<Change> unsynced;  // in order
  };
  struct Deleted {
    std::string path;   // where it was
    std::string aside;  // where it is now
    File file;
  };

  // The state of `path`, made when first seen: durable as it is on disk.
  File& Track(const std::string& path, sqlite3_file* real);
  // Puts the file at `path` back to its durable content plus the kept changes.
  Status RevertContent(const std::string& path, const File& file, double keep_probability,
                       std::mt19937_64& rng, RevertStats* stats);

  std::mutex mu_;
  std::map<std::string, File> files_;
  std::vector<Deleted> deleted_;
  std::uint64_t asides_ = 0;  // names the moved-aside files
};

}  // namespace engram::storage::testing

#endif  // ENGRAM_STORAGE_TESTING_DURABLE_FILES_H_
