#include "storage/store_lock.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>
#include <utility>

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include "base/status.h"
#include "storage/directory.h"

namespace engram::storage {
namespace {

// The holder's description is a few short lines; more is not a LOCK file
// engram wrote, and is not read.
constexpr std::size_t kMaxLockFileBytes = 4096;

std::string ErrnoText(int error) {
  return std::error_code(error, std::generic_category()).message();
}

// What LOCK says of its holder; empty when it cannot be read.
LockHolder ReadHolder(int fd) {
  std::string text(kMaxLockFileBytes, '\0');
  const ssize_t n = ::pread(fd, text.data(), text.size(), 0);
  if (n <= 0) return {};
  text.resize(static_cast<std::size_t>(n));
  return ParseLockHolder(text);
}

std::string InUseMessage(const std::string& dir, const LockHolder& holder) {
  if (holder.pid == static_cast<std::int64_t>(::getpid())) {
    return fmt::format("store {} is already open in this process ({})", dir,
                       holder.command.empty() ? "engram" : holder.command);
  }
  std::string who = holder.command.empty() ? "another process" : holder.command;
  if (holder.pid > 0) who += fmt::format(" (pid {})", holder.pid);
  if (!holder.url.empty()) {
    return fmt::format("store {} is in use by {}; use engram mcp --connect {} to reach it", dir,
                       who, holder.url);
  }
  return fmt::format("store {} is in use by {}; wait for it to finish, or stop it", dir, who);
}

}  // namespace

std::string FormatLockHolder(const LockHolder& holder) {
  std::string text = fmt::format("command={}\npid={}\n", holder.command, holder.pid);
  if (!holder.url.empty()) text += fmt::format("url={}\n", holder.url);
  return text;
}

LockHolder ParseLockHolder(std::string_view text) {
  LockHolder holder;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    const std::size_t eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view key = line.substr(0, eq), value = line.substr(eq + 1);
    if (key == "command") {
      holder.command = std::string(value);
    } else if (key == "url") {
      holder.url = std::string(value);
    } else if (key == "pid") {
      std::int64_t pid = 0;
      bool digits = !value.empty() && value.size() <= 18;
      for (const char c : value) {
        if (c < '0' || c > '9') digits = false;
        if (digits) pid = pid * 10 + (c - '0');
      }
      if (digits) holder.pid = pid;
    }
  }
  return holder;
}

StoreLock::StoreLock(int fd, std::string path, LockHolder holder)
    : fd_(fd), path_(std::move(path)), holder_(std::move(holder)) {}

StoreLock::~StoreLock() {
  ::close(fd_);  // closing the last descriptor of the open file releases the flock
}

StatusOr<std::unique_ptr<StoreLock>> StoreLock::Acquire(const std::string& dir,
                                                        std::string_view command) {
  RETURN_IF_ERROR(CreateStoreDirectory(dir));
  const std::string path = (std::filesystem::path(dir) / kStoreLockFile).string();
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    return Status::IoError(fmt::format("cannot open {}: {}", path, ErrnoText(errno)));
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    if (error == EWOULDBLOCK) {
      const LockHolder holder = ReadHolder(fd);
      ::close(fd);
      return Status::FailedPrecondition(InUseMessage(dir, holder));
    }
    ::close(fd);
    return Status::IoError(fmt::format("cannot lock {}: {}", path, ErrnoText(error)));
  }
  LockHolder holder;
  holder.command = std::string(command);
  holder.pid = static_cast<std::int64_t>(::getpid());
  std::unique_ptr<StoreLock> lock(new StoreLock(fd, path, std::move(holder)));
  RETURN_IF_ERROR(lock->Write());
  return lock;
}

Status StoreLock::Advertise(std::string_view url) {
  holder_.url = std::string(url);
  return Write();
}

Status StoreLock::Write() {
  const std::string text = FormatLockHolder(holder_);
  if (::ftruncate(fd_, 0) != 0 ||
      ::pwrite(fd_, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size())) {
    return Status::IoError(fmt::format("cannot write {}: {}", path_, ErrnoText(errno)));
  }
  return Status::Ok();
}

}  // namespace engram::storage
