#include "storage/testing/durable_files.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <utility>

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

namespace engram::storage::testing {
namespace {

// What a disk writes whole or not at all when the power goes: a 4 KiB
// block (a page of the page cache). A kept write spanning several may be
// torn between them; SQLite copes (a torn WAL frame fails its checksum, a
// torn database page is written again from the WAL, which is reset only
// after the database was synced). Bytes outside a write are never touched:
// SQLite assumes that (powersafe overwrite), and so does this model.
constexpr std::uint64_t kBlock = 4096;

std::string Parent(const std::string& path) {
  return std::filesystem::path(path).parent_path().string();
}

std::uint64_t SizeOf(sqlite3_file* real) {
  sqlite3_int64 size = 0;
  if (real->pMethods->xFileSize(real, &size) != SQLITE_OK || size < 0) return 0;
  return static_cast<std::uint64_t>(size);
}

// The bytes [begin, end) of `real`, clipped to its size; false when unreadable.
bool ReadRange(sqlite3_file* real, std::uint64_t begin, std::uint64_t end, std::string* out) {
  end = std::min(end, SizeOf(real));
  out->clear();
  if (begin >= end) return true;
  out->resize(end - begin);
  return real->pMethods->xRead(real, out->data(), static_cast<int>(out->size()),
                               static_cast<sqlite3_int64>(begin)) == SQLITE_OK;
}

Status PosixError(const std::string& what, const std::string& path) {
  return Status::IoError(what + " " + path + ": " + std::strerror(errno));
}

bool WriteAll(int fd, const std::string& bytes, std::uint64_t offset) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n =
        ::pwrite(fd, bytes.data() + done, bytes.size() - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

// Removes `path`; a missing file is fine.
Status Unlink(const std::string& path) {
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) return PosixError("unlink", path);
  return Status::Ok();
}

}  // namespace

RevertStats& RevertStats::operator+=(const RevertStats& o) {
  files += o.files;
  changes_dropped += o.changes_dropped;
  changes_kept += o.changes_kept;
  changes_torn += o.changes_torn;
  bytes_dropped += o.bytes_dropped;
  entries_removed += o.entries_removed;
  entries_restored += o.entries_restored;
  shm_removed += o.shm_removed;
  return *this;
}

std::string RevertStats::ToString() const {
  return std::to_string(changes_dropped) + " unsynced changes dropped (" +
         std::to_string(bytes_dropped) + " bytes), " + std::to_string(changes_kept) + " kept, " +
         std::to_string(changes_torn) + " torn; " + std::to_string(entries_removed) +
         " files never in their directory removed, " + std::to_string(entries_restored) +
         " deleted files restored, " + std::to_string(shm_removed) + " -shm removed";
}

DurableFiles::File& DurableFiles::Track(const std::string& path, sqlite3_file* real) {
  auto it = files_.find(path);
  if (it == files_.end()) {
    File file;
    file.durable_size = SizeOf(real);
    it = files_.emplace(path, std::move(file)).first;
  }
  return it->second;
}

void DurableFiles::Opened(const std::string& path, bool created, bool main_db, sqlite3_file* real) {
  std::lock_guard<std::mutex> lock(mu_);
  if (files_.count(path) == 0 && created) {
    File file;
    file.entry_durable = false;  // until its directory is synced
    files_.emplace(path, std::move(file));
  }
  Track(path, real).main_db |= main_db;
}

bool DurableFiles::WillWrite(const std::string& path, sqlite3_file* real, const void* data, int n,
                             sqlite3_int64 offset) {
  std::lock_guard<std::mutex> lock(mu_);
  File& file = Track(path, real);
  Change change;
  change.offset = static_cast<std::uint64_t>(offset);
  if (!ReadRange(real, change.offset, change.offset + static_cast<std::uint64_t>(n),
                 &change.before)) {
    return false;
  }
  change.after.assign(static_cast<const char*>(data), static_cast<std::size_t>(n));
  file.unsynced.push_back(std::move(change));
  return true;
}

bool DurableFiles::WillTruncate(const std::string& path, sqlite3_file* real, sqlite3_int64 size) {
  std::lock_guard<std::mutex> lock(mu_);
  File& file = Track(path, real);
  Change change;
  change.truncate = true;
  change.offset = static_cast<std::uint64_t>(size);
  if (!ReadRange(real, change.offset, SizeOf(real), &change.before)) return false;
  file.unsynced.push_back(std::move(change));
  return true;
}

void DurableFiles::Synced(const std::string& path, sqlite3_file* real) {
  std::lock_guard<std::mutex> lock(mu_);
  File& file = Track(path, real);
  file.unsynced.clear();
  file.durable_size = SizeOf(real);
}

void DurableFiles::DirectorySynced(const std::string& dir) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [path, file] : files_) {
    if (Parent(path) == dir) file.entry_durable = true;
  }
  // Deletions in `dir` are durable now: the files moved aside are gone.
  std::erase_if(deleted_, [&](const Deleted& d) {
    if (Parent(d.path) != dir) return false;
    (void)::unlink(d.aside.c_str());
    return true;
  });
}

int DurableFiles::Delete(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    files_.erase(path);
    return errno == ENOENT ? SQLITE_IOERR_DELETE_NOENT : SQLITE_IOERR_DELETE;
  }
  auto it = files_.find(path);
  File file;
  if (it != files_.end()) {
    file = std::move(it->second);
    files_.erase(it);
  } else {
    file.durable_size = static_cast<std::uint64_t>(st.st_size);  // first seen: durable as it is
  }
  if (!file.entry_durable) {  // it never was on the disk's directory: gone for good
    return ::unlink(path.c_str()) == 0 ? SQLITE_OK : SQLITE_IOERR_DELETE;
  }
  Deleted d{path, path + "-powerloss-deleted-" + std::to_string(asides_++), std::move(file)};
  if (::rename(d.path.c_str(), d.aside.c_str()) != 0) return SQLITE_IOERR_DELETE;
  deleted_.push_back(std::move(d));
  return SQLITE_OK;
}

Status DurableFiles::RevertContent(const std::string& path, const File& file,
                                   double keep_probability, std::mt19937_64& rng,
                                   RevertStats* stats) {
  if (file.unsynced.empty()) return Status::Ok();
  const int fd = ::open(path.c_str(), O_RDWR);
  if (fd < 0) return PosixError("open", path);
  bool ok = true;
  // Undo every change, newest first: the content as of the last sync.
  for (auto c = file.unsynced.rbegin(); ok && c != file.unsynced.rend(); ++c) {
    ok = WriteAll(fd, c->before, c->offset);
  }
  ok = ok && ::ftruncate(fd, static_cast<off_t>(file.durable_size)) == 0;
  // Then redo, oldest first, what the disk happened to keep: truncations
  // whole, writes block by block (a block is written whole or not at all).
  std::bernoulli_distribution keep(keep_probability);
  for (const Change& c : file.unsynced) {
    if (!ok) break;
    if (c.truncate) {
      const bool kept = keep(rng);
      ++(kept ? stats->changes_kept : stats->changes_dropped);
      if (kept) ok = ::ftruncate(fd, static_cast<off_t>(c.offset)) == 0;
      continue;
    }
    std::size_t kept = 0;
    for (std::size_t begin = 0; ok && begin < c.after.size();) {
      const std::uint64_t at = c.offset + begin;
      const std::size_t n = std::min<std::size_t>(c.after.size() - begin, kBlock - at % kBlock);
      if (keep(rng)) {
        ok = WriteAll(fd, c.after.substr(begin, n), at);
        kept += n;
      } else {
        stats->bytes_dropped += n;
      }
      begin += n;
    }
    ++(kept == c.after.size() ? stats->changes_kept
       : kept == 0            ? stats->changes_dropped
                              : stats->changes_torn);
  }
  Status status = ok ? Status::Ok() : PosixError("revert", path);
  ::close(fd);
  ++stats->files;
  return status;
}

Status DurableFiles::Revert(double keep_probability, std::uint64_t seed, RevertStats* stats) {
  std::lock_guard<std::mutex> lock(mu_);
  std::mt19937_64 rng(seed);
  Status status;
  auto remove_shm = [&](const std::string& db) {
    struct stat st;
    if (::stat((db + "-shm").c_str(), &st) != 0) return Status::Ok();
    ++stats->shm_removed;
    return Unlink(db + "-shm");
  };
  for (const auto& [path, file] : files_) {
    if (!status.ok()) break;
    if (file.main_db) status = remove_shm(path);
    if (!status.ok()) break;
    if (file.entry_durable) {
      status = RevertContent(path, file, keep_probability, rng, stats);
    } else {
      ++stats->entries_removed;
      status = Unlink(path);
    }
  }
  // Files deleted since their directory's last sync come back (no directory
  // sync came after the deletion, so any file of that name made since is
  // not durable and went above).
  for (const Deleted& d : deleted_) {
    if (!status.ok()) break;
    if (::rename(d.aside.c_str(), d.path.c_str()) != 0) {
      status = PosixError("restore", d.path);
      break;
    }
    ++stats->entries_restored;
    if (d.file.main_db) status = remove_shm(d.path);
    if (status.ok()) status = RevertContent(d.path, d.file, keep_probability, rng, stats);
  }
  files_.clear();
  deleted_.clear();
  return status;
}

void DurableFiles::Reset() {
  std::lock_guard<std::mutex> lock(mu_);
  files_.clear();
  for (const Deleted& d : deleted_) (void)::unlink(d.aside.c_str());
  deleted_.clear();
}

}  // namespace engram::storage::testing
