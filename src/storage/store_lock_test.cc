#include "storage/store_lock.h"

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "storage/testing/test_dir.h"

namespace engram::storage {
namespace {

using testing::TestDir;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(StoreLock, HolderTextRoundTrips) {
  const LockHolder holder{"engram serve", 4556, "http://127.0.0.1:7700"};
  const LockHolder back = ParseLockHolder(FormatLockHolder(holder));
  EXPECT_EQ(back.command, "engram serve");
  EXPECT_EQ(back.pid, 4556);
  EXPECT_EQ(back.url, "http://127.0.0.1:7700");
  // Damaged or foreign contents are read as far as they make sense.
  const LockHolder odd = ParseLockHolder("junk\npid=12x\ncommand=engram ingest\n=\n");
  EXPECT_EQ(odd.command, "engram ingest");
  EXPECT_EQ(odd.pid, 0);
  EXPECT_TRUE(odd.url.empty());
}

TEST(StoreLock, CreatesTheDirectoryAndNamesItsHolder) {
  TestDir dir;
  const std::string path = dir.path() + "/nested/store";
  auto lock = StoreLock::Acquire(path, "engram ingest");
  ASSERT_TRUE(lock.ok()) << lock.status().ToString();
  EXPECT_TRUE(std::filesystem::is_directory(path));
  const LockHolder holder = ParseLockHolder(ReadFile(path + "/LOCK"));
  EXPECT_EQ(holder.command, "engram ingest");
  EXPECT_EQ(holder.pid, ::getpid());
  ASSERT_TRUE((*lock)->Advertise("http://127.0.0.1:9").ok());
  EXPECT_EQ(ParseLockHolder(ReadFile(path + "/LOCK")).url, "http://127.0.0.1:9");
}

TEST(StoreLock, ASecondOpenInThisProcessIsRefusedUntilTheFirstCloses) {
  TestDir dir;
  auto first = StoreLock::Acquire(dir.path(), "engram serve");
  ASSERT_TRUE(first.ok());
  auto second = StoreLock::Acquire(dir.path(), "engram mcp");
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(second.status().message(),
            "store " + dir.path() + " is already open in this process (engram serve)");
  first->reset();
  EXPECT_TRUE(StoreLock::Acquire(dir.path(), "engram mcp").ok());
}

// Another process holds the lock: the refusal names it and how to reach it,
// and the file is left as the holder wrote it. When the holder exits, even
// without closing anything (_exit), the kernel releases the lock.
TEST(StoreLock, AnotherProcessIsNamedAndItsDeathReleasesTheStore) {
  TestDir dir;
  int ready[2], go[2];
  ASSERT_EQ(::pipe(ready), 0);
  ASSERT_EQ(::pipe(go), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto lock = StoreLock::Acquire(dir.path(), "engram serve");
    if (!lock.ok() || !(*lock)->Advertise("http://127.0.0.1:7700").ok()) ::_exit(1);
    char c = 'r';
    (void)!::write(ready[1], &c, 1);
    (void)!::read(go[0], &c, 1);
    ::_exit(0);  // no destructors: only the kernel releases the lock
  }
  char c;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  const std::string before = ReadFile(dir.path() + "/LOCK");
  auto refused = StoreLock::Acquire(dir.path(), "engram search");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(refused.status().message(),
            "store " + dir.path() + " is in use by engram serve (pid " + std::to_string(child) +
                "); use engram mcp --connect http://127.0.0.1:7700 to reach it");
  EXPECT_EQ(ReadFile(dir.path() + "/LOCK"), before);
  ASSERT_EQ(::write(go[1], &c, 1), 1);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_TRUE(StoreLock::Acquire(dir.path(), "engram search").ok());
}

TEST(StoreLock, APathThatCannotBeADirectoryIsAClearError) {
  TestDir dir;
  std::filesystem::create_directories(dir.path());
  std::ofstream(dir.path() + "/file") << "x";
  auto lock = StoreLock::Acquire(dir.path() + "/file", "engram");
  ASSERT_FALSE(lock.ok());
  EXPECT_EQ(lock.status().code(), StatusCode::kIoError);
  EXPECT_EQ(lock.status().message(), "store " + dir.path() + "/file exists and is not a directory");
  auto under = StoreLock::Acquire(dir.path() + "/file/store", "engram");
  ASSERT_FALSE(under.ok());
  EXPECT_NE(under.status().message().find("cannot create the store directory"), std::string::npos);
}

}  // namespace
}  // namespace engram::storage
