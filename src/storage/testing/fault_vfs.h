// FaultVfs: a SQLite VFS that wraps the default one and makes chosen file
// operations fail, for tests of what the store promises when the disk does
// not keep its own (LevelDB's db/fault_injection_test.cc, at the file layer),
// or cuts the power: what was not synced is lost (durable_files.h).
// Open a store on it with OpenSqliteStoreWithVfs(dir, vfs.name()).
#ifndef ENGRAM_STORAGE_TESTING_FAULT_VFS_H_
#define ENGRAM_STORAGE_TESTING_FAULT_VFS_H_

#include <cstdint>
#include <mutex>
#include <random>
#include <string>

#include <sqlite3.h>

#include "engram/status.h"
#include "storage/testing/durable_files.h"

namespace engram::storage::testing {

// What to break. Operations are counted from Arm(); `*_at` = N fails the Nth
// operation of that kind (0: never); a probability fails each operation with
// that chance, drawn from `seed`. A failed write or sync returns
// SQLITE_IOERR_WRITE / SQLITE_IOERR_FSYNC, a failed read SQLITE_IOERR_READ.
struct FaultPlan {
  std::uint64_t fail_write_at = 0;
  std::uint64_t fail_sync_at = 0;
  std::uint64_t fail_read_at = 0;
  double write_failure_probability = 0;
  double sync_failure_probability = 0;
  double read_failure_probability = 0;
  std::uint64_t seed = 1;
  // A failing write first writes the first half of its bytes (a torn write),
  // as a disk that fails mid-request may.
  bool tear_writes = false;
  // After the first injected failure every later write and sync fails too
  // (a disk that went away), not just the one chosen.
  bool sticky = false;

  // Power loss. While armed with it, every change made through the VFS is
  // kept revertible until synced, and PowerCycle() puts the files back to
  // what the disk holds after a power cut.
  bool power_loss = false;
  // The power goes at the Nth write, truncate, sync or delete (counted
  // together from Arm; 0: never): that operation does not happen, and every
  // later one fails, as does creating a file (the machine is off; reads go on).
  std::uint64_t power_cut_at = 0;
  // The chance that the disk kept each unsynced truncation, and each 4 KiB
  // block of each unsynced write, anyway (drawn from `seed` in PowerCycle):
  // 0 models LazyFS, which drops every one; between 0 and 1, ALICE's disk,
  // which kept any subset of them, tearing writes between blocks.
  double keep_unsynced_probability = 0;
};

struct FaultCounters {
  std::uint64_t writes = 0;  // attempted since Arm(), failed ones included
  std::uint64_t syncs = 0;
  std::uint64_t reads = 0;
  std::uint64_t truncates = 0;
  std::uint64_t deletes = 0;
  std::uint64_t injected = 0;  // failures returned
  bool power_cut = false;      // power_cut_at was reached

  // The operations power_cut_at counts.
  std::uint64_t changes() const { return writes + truncates + syncs + deletes; }
};

// Registers itself with SQLite under `name` on construction (never as the
// default VFS) and unregisters on destruction, which must come after every
// connection using it closed. Thread-safe.
//
// Power loss assumes what SQLite's unix VFS does about directories: a file
// it creates is in its directory's durable entries only once the directory
// is fsynced, which that VFS does on the first sync of a WAL or journal it
// created and on a delete that asks for it; the main database file's entry
// becomes durable only through those (or a sync of the store directory
// outside SQLite, which this VFS cannot see: arm it after such a sync). A
// file that exists when first seen counts as durable, entry and content.
class FaultVfs {
 public:
  explicit FaultVfs(std::string name);
  ~FaultVfs();
  FaultVfs(const FaultVfs&) = delete;
  FaultVfs& operator=(const FaultVfs&) = delete;

  const std::string& name() const { return name_; }
  // False when SQLite refused the registration (no default VFS, or out of
  // memory); the VFS is then unusable.
  bool registered() const { return registered_; }

  // Starts a new plan and zeroes the counters. With power loss, everything
  // on disk now counts as durable.
  void Arm(const FaultPlan& plan);
  // No more failures; counting goes on.
  void Disarm() { Arm(FaultPlan{}); }
  FaultCounters counters() const;

  // The power comes back (after a cut, or cutting it now): every file the
  // VFS changed since Arm goes back to what the disk held durably
  // (DurableFiles::Revert), then the VFS is disarmed. FailedPrecondition when
  // a file is still open or the plan has no power_loss; IoError when a file
  // cannot be put back.
  StatusOr<RevertStats> PowerCycle();

  // Called by the wrapped files: whether this operation must fail, and
  // whether its changes are tracked for power loss.
  enum class Op { kWrite, kSync, kRead, kTruncate, kDelete };
  struct Decision {
    bool fail = false;
    bool track = false;
  };
  Decision Decide(Op op);
  bool ShouldFail(Op op) { return Decide(op).fail; }
  bool tear_writes() const;
  // Whether a new file may be made (not after a power cut), and whether
  // power loss is tracked.
  Decision DecideCreate();
  DurableFiles& durable() { return durable_; }
  void FileOpened(int delta);
  // The VFS that does the work (SQLite's default when this was built).
  sqlite3_vfs* real() const { return real_; }

 private:
  std::string name_;
  sqlite3_vfs* real_ = nullptr;
  sqlite3_vfs vfs_{};
  bool registered_ = false;
  mutable std::mutex mu_;
  FaultPlan plan_;
  FaultCounters counters_;
  std::mt19937_64 rng_;
  bool failed_ = false;
  int open_files_ = 0;
  DurableFiles durable_;
};

}  // namespace engram::storage::testing

#endif  // ENGRAM_STORAGE_TESTING_FAULT_VFS_H_
