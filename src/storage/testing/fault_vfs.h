// FaultVfs: a SQLite VFS that wraps the default one and makes chosen file
// operations fail, for tests of what the store promises when the disk does
// not keep its own (LevelDB's db/fault_injection_test.cc, at the file layer).
// Open a store on it with OpenSqliteStoreWithVfs(dir, vfs.name()).
#ifndef ENGRAM_STORAGE_TESTING_FAULT_VFS_H_
#define ENGRAM_STORAGE_TESTING_FAULT_VFS_H_

#include <cstdint>
#include <mutex>
#include <random>
#include <string>

#include <sqlite3.h>

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
};

struct FaultCounters {
  std::uint64_t writes = 0;  // attempted since Arm(), failed ones included
  std::uint64_t syncs = 0;
  std::uint64_t reads = 0;
  std::uint64_t injected = 0;  // failures returned
};

// Registers itself with SQLite under `name` on construction (never as the
// default VFS) and unregisters on destruction, which must come after every
// connection using it closed. Thread-safe.
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

  // Starts a new plan and zeroes the counters.
  void Arm(const FaultPlan& plan);
  // No more failures; counting goes on.
  void Disarm() { Arm(FaultPlan{}); }
  FaultCounters counters() const;

  // Called by the wrapped files: true when this operation must fail.
  enum class Op { kWrite, kSync, kRead };
  bool ShouldFail(Op op);
  bool tear_writes() const;
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
};

}  // namespace engram::storage::testing

#endif  // ENGRAM_STORAGE_TESTING_FAULT_VFS_H_
