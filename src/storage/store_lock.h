// StoreLock: one owner per store directory. The owner holds an exclusive
// flock(2) on DIR/LOCK for as long as it has the store open; the kernel
// releases it when the owner exits or dies, so there is no stale lock to
// clear (LevelDB's LOCK file works the same way). The file names its holder
// (the command, its pid and, for a server, where it can be reached), so a
// second opener can say who has the store and how to reach it instead.
#ifndef ENGRAM_STORAGE_STORE_LOCK_H_
#define ENGRAM_STORAGE_STORE_LOCK_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "engram/status.h"

namespace engram::storage {

inline constexpr std::string_view kStoreLockFile = "LOCK";

// Who holds a store, as its LOCK file says.
struct LockHolder {
  std::string command;  // e.g. "engram serve"; empty when unknown
  std::int64_t pid = 0;
  std::string url;  // where the holder serves the store, or empty
};

// The holder's description in LOCK's format (key=value lines), and back.
// Parsing is lenient: unknown or malformed lines are skipped.
std::string FormatLockHolder(const LockHolder& holder);
LockHolder ParseLockHolder(std::string_view text);

class StoreLock {
 public:
  // Creates `dir` when it is missing, then takes the lock on DIR/LOCK without
  // waiting and writes `command` and this process's pid into the file.
  // FailedPrecondition, writing nothing, when another process or another
  // open in this process holds it: the message names the holder as its file
  // says ("store DIR is in use by engram serve (pid 4556); use engram mcp
  // --connect http://127.0.0.1:7700 to reach it"). IoError when the
  // directory or the file cannot be created or locked.
  static StatusOr<std::unique_ptr<StoreLock>> Acquire(const std::string& dir,
                                                      std::string_view command);
  ~StoreLock();  // releases the lock (the file stays)
  StoreLock(const StoreLock&) = delete;
  StoreLock& operator=(const StoreLock&) = delete;

  // Records where the holder serves the store, for later openers' messages.
  // IoError when the file cannot be written (the lock is still held).
  Status Advertise(std::string_view url);

  const LockHolder& holder() const { return holder_; }

 private:
  StoreLock(int fd, std::string path, LockHolder holder);
  Status Write();

  int fd_;
  std::string path_;
  LockHolder holder_;
};

}  // namespace engram::storage

#endif  // ENGRAM_STORAGE_STORE_LOCK_H_
