// The store directory on disk: created when missing, with its entry synced in
// the parent so that a store made just now survives a crash. Shared by the
// lock (store_lock.h) and the SQLite store, whichever opens it first.
#ifndef ENGRAM_STORAGE_DIRECTORY_H_
#define ENGRAM_STORAGE_DIRECTORY_H_

#include <string>

#include "engram/status.h"

namespace engram::storage {

// Makes sure `dir` is a directory, creating it (and missing parents) when
// absent. InvalidArgument for an empty path; IoError naming the path and the
// reason when it exists but is not a directory or cannot be created.
Status CreateStoreDirectory(const std::string& dir);

}  // namespace engram::storage

#endif  // ENGRAM_STORAGE_DIRECTORY_H_
