#include "storage/directory.h"

#include <filesystem>
#include <system_error>

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

namespace engram::storage {
namespace {

// Flushes the directory entry of `dir` in its parent.
void SyncParentDirectory(const std::filesystem::path& dir) {
  std::filesystem::path parent = dir.parent_path();
  if (parent.empty()) parent = ".";
  int fd = ::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;  // best effort: SQLite syncs the directory it writes in
  (void)::fsync(fd);
  ::close(fd);
}

}  // namespace

Status CreateStoreDirectory(const std::string& dir) {
  if (dir.empty()) return Status::InvalidArgument("the store directory is empty");
  const std::filesystem::path root(dir);
  std::error_code ec;
  if (std::filesystem::is_directory(root, ec)) return Status::Ok();
  if (std::filesystem::exists(root, ec)) {
    return Status::IoError(fmt::format("store {} exists and is not a directory", dir));
  }
  std::filesystem::create_directories(root, ec);
  if (ec) {
    return Status::IoError(
        fmt::format("cannot create the store directory {}: {}", dir, ec.message()));
  }
  SyncParentDirectory(std::filesystem::absolute(root, ec));
  return Status::Ok();
}

}  // namespace engram::storage
