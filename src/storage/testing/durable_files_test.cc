// FaultVfs's power loss, file by file through the VFS interface SQLite uses:
// what a power cut keeps (synced content, directory entries synced) and
// drops (unsynced writes and truncations, new entries, deletions, -shm).
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "storage/testing/fault_vfs.h"
#include "storage/testing/test_dir.h"

namespace engram::storage::testing {
namespace {

namespace fs = std::filesystem;

FaultVfs& Vfs() {
  static FaultVfs* vfs = new FaultVfs("engram-power-loss-test");  // lives until exit
  return *vfs;
}

std::string Contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void Put(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// A file opened through the fault VFS as SQLite would; closed on destruction.
class File {
 public:
  File(std::string path, int type) : path_(std::move(path)) {
    sqlite3_vfs* vfs = sqlite3_vfs_find(Vfs().name().c_str());
    memory_ = std::make_unique<char[]>(static_cast<std::size_t>(vfs->szOsFile));
    file_ = reinterpret_cast<sqlite3_file*>(memory_.get());
    int out = 0;
    rc_ = vfs->xOpen(vfs, path_.c_str(), file_, type | SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                     &out);
  }
  ~File() { Close(); }
  bool open() const { return file_ != nullptr && file_->pMethods != nullptr; }
  File(const File&) = delete;
  File& operator=(const File&) = delete;

  // SQLITE_OK, or why the open failed (then every call below fails the test).
  int open_rc() const { return rc_; }
  int Write(const std::string& bytes, sqlite3_int64 offset) {
    if (!open()) return SQLITE_MISUSE;
    return file_->pMethods->xWrite(file_, bytes.data(), static_cast<int>(bytes.size()), offset);
  }
  int Truncate(sqlite3_int64 size) {
    return open() ? file_->pMethods->xTruncate(file_, size) : SQLITE_MISUSE;
  }
  int Sync() { return open() ? file_->pMethods->xSync(file_, SQLITE_SYNC_FULL) : SQLITE_MISUSE; }
  void Close() {
    if (open()) file_->pMethods->xClose(file_);
    file_ = nullptr;
  }

 private:
  std::string path_;  // SQLite keeps the name alive while the file is open
  std::unique_ptr<char[]> memory_;
  sqlite3_file* file_ = nullptr;
  int rc_ = SQLITE_OK;
};

int Delete(const std::string& path, bool sync_dir) {
  sqlite3_vfs* vfs = sqlite3_vfs_find(Vfs().name().c_str());
  return vfs->xDelete(vfs, path.c_str(), sync_dir ? 1 : 0);
}

// A store directory that exists (durably) before the VFS is armed.
struct Fixture {
  explicit Fixture(FaultPlan plan = {}) {
    fs::create_directories(dir.path());
    plan.power_loss = true;
    Vfs().Arm(plan);
  }
  std::string path(const std::string& name) const { return dir.path() + "/" + name; }
  TestDir dir;
};

RevertStats Cycle() {
  StatusOr<RevertStats> stats = Vfs().PowerCycle();
  EXPECT_TRUE(stats.ok()) << stats.status().ToString();
  return stats.ok() ? *stats : RevertStats{};
}

TEST(DurableFilesTest, UnsyncedChangesAreLostSyncedOnesKept) {
  Fixture f;
  const std::string db = f.path("engram.db");
  Put(db, "0123456789");  // there before the VFS saw it: durable
  Put(db + "-shm", "wal-index");
  {
    File file(db, SQLITE_OPEN_MAIN_DB);
    ASSERT_EQ(file.open_rc(), SQLITE_OK);
    ASSERT_EQ(file.Write("ab", 0), SQLITE_OK);
    ASSERT_EQ(file.Sync(), SQLITE_OK);
    ASSERT_EQ(file.Write("XY", 1), SQLITE_OK);     // overwrites synced bytes
    ASSERT_EQ(file.Write("tail", 12), SQLITE_OK);  // grows the file, with a hole
    ASSERT_EQ(file.Truncate(5), SQLITE_OK);        // then shrinks it
    ASSERT_EQ(file.Write("Z", 3), SQLITE_OK);
    EXPECT_EQ(Contents(db), std::string("aXYZ4"));
  }
  const RevertStats stats = Cycle();
  EXPECT_EQ(Contents(db), "ab23456789");
  EXPECT_FALSE(fs::exists(db + "-shm"));
  EXPECT_EQ(stats.changes_dropped, 4u);
  EXPECT_EQ(stats.changes_kept, 0u);
  EXPECT_EQ(stats.shm_removed, 1u);
}

TEST(DurableFilesTest, NewFileNeedsItsDirectorySynced) {
  Fixture f;
  const std::string db = f.path("engram.db");
  {
    File file(db, SQLITE_OPEN_MAIN_DB);  // SQLite never syncs the directory for it
    ASSERT_EQ(file.Write("page", 0), SQLITE_OK);
    ASSERT_EQ(file.Sync(), SQLITE_OK);
  }
  EXPECT_EQ(Cycle().entries_removed, 1u);
  EXPECT_FALSE(fs::exists(db));

  // A WAL's first sync syncs the directory: both entries are durable then,
  // with the content each had at its last sync.
  Vfs().Arm({.power_loss = true});
  {
    File file(db, SQLITE_OPEN_MAIN_DB);
    ASSERT_EQ(file.Write("db", 0), SQLITE_OK);
    ASSERT_EQ(file.Sync(), SQLITE_OK);
    File wal(db + "-wal", SQLITE_OPEN_WAL);
    ASSERT_EQ(wal.Write("frame1", 0), SQLITE_OK);
    ASSERT_EQ(wal.Sync(), SQLITE_OK);
    ASSERT_EQ(wal.Write("frame2", 6), SQLITE_OK);
    ASSERT_EQ(file.Write("DB", 0), SQLITE_OK);
  }
  EXPECT_EQ(Cycle().entries_removed, 0u);
  EXPECT_EQ(Contents(db), "db");
  EXPECT_EQ(Contents(db + "-wal"), "frame1");
}

TEST(DurableFilesTest, DeletedFileComesBackUnlessItsDirectoryIsSynced) {
  Fixture f;
  const std::string wal = f.path("engram.db-wal");
  Put(f.path("engram.db"), "");  // the unix VFS takes a WAL's permissions from its database
  Put(wal, "synced");
  {
    File file(wal, SQLITE_OPEN_WAL);
    ASSERT_EQ(file.Write("UNSYNCED", 0), SQLITE_OK);
  }
  ASSERT_EQ(Delete(wal, false), SQLITE_OK);
  EXPECT_FALSE(fs::exists(wal));
  {
    File again(wal, SQLITE_OPEN_WAL);  // made anew, never synced: not durable
    ASSERT_EQ(again.Write("new", 0), SQLITE_OK);
  }
  const RevertStats stats = Cycle();
  EXPECT_EQ(stats.entries_restored, 1u);
  EXPECT_EQ(Contents(wal), "synced");
  EXPECT_EQ(std::distance(fs::directory_iterator(f.dir.path()), fs::directory_iterator()), 2)
      << "nothing left aside";

  Vfs().Arm({.power_loss = true});
  ASSERT_EQ(Delete(wal, true), SQLITE_OK);
  Cycle();
  EXPECT_FALSE(fs::exists(wal));
  EXPECT_EQ(std::distance(fs::directory_iterator(f.dir.path()), fs::directory_iterator()), 1);
  EXPECT_EQ(Delete(wal, false), SQLITE_IOERR_DELETE_NOENT);
}

TEST(DurableFilesTest, PowerCutFailsEveryLaterChange) {
  Fixture f({.power_cut_at = 3});
  const std::string db = f.path("engram.db");
  Put(db, "durable");
  {
    File file(db, SQLITE_OPEN_MAIN_DB);
    EXPECT_EQ(file.Write("one", 0), SQLITE_OK);  // change 1
    EXPECT_EQ(file.Write("two", 3), SQLITE_OK);  // 2
    EXPECT_EQ(file.Sync(), SQLITE_IOERR_FSYNC);  // 3: the power goes
    EXPECT_EQ(file.Write("x", 0), SQLITE_IOERR_WRITE);
    EXPECT_EQ(file.Truncate(0), SQLITE_IOERR_TRUNCATE);
    EXPECT_EQ(Delete(db, true), SQLITE_IOERR_DELETE);
    File made(f.path("new"), SQLITE_OPEN_MAIN_JOURNAL);
    EXPECT_EQ(made.open_rc(), SQLITE_CANTOPEN);
    EXPECT_TRUE(Vfs().counters().power_cut);
    EXPECT_EQ(Vfs().PowerCycle().status().code(), StatusCode::kFailedPrecondition)
        << "a file is still open";
  }
  Cycle();
  EXPECT_EQ(Contents(db), "durable");
  EXPECT_FALSE(fs::exists(f.path("new")));
  EXPECT_FALSE(Vfs().counters().power_cut) << "disarmed after the cycle";
}

TEST(DurableFilesTest, DiskMayKeepAnySubsetOfUnsyncedWrites) {
  Fixture f({.seed = 5, .power_loss = true, .keep_unsynced_probability = 0.5});
  const std::string db = f.path("engram.db");
  Put(db, std::string(64, '.'));
  {
    File file(db, SQLITE_OPEN_MAIN_DB);
    for (int i = 0; i < 64; ++i) ASSERT_EQ(file.Write("#", i), SQLITE_OK);
  }
  const RevertStats stats = Cycle();
  const std::string after = Contents(db);
  EXPECT_EQ(after.size(), 64u);
  EXPECT_EQ(stats.changes_kept + stats.changes_dropped, 64u);
  EXPECT_EQ(static_cast<std::uint64_t>(std::count(after.begin(), after.end(), '#')),
            stats.changes_kept);
  EXPECT_GT(stats.changes_kept, 0u);
  EXPECT_GT(stats.changes_dropped, 0u);

  Vfs().Arm({.power_loss = true, .keep_unsynced_probability = 1});
  {
    File file(db, SQLITE_OPEN_MAIN_DB);
    ASSERT_EQ(file.Truncate(10), SQLITE_OK);
    ASSERT_EQ(file.Write("end", 10), SQLITE_OK);
  }
  Cycle();
  EXPECT_EQ(Contents(db), after.substr(0, 10) + "end");
}

TEST(DurableFilesTest, KeptWritesTearBetweenBlocks) {
  Fixture f({.seed = 9, .power_loss = true, .keep_unsynced_probability = 0.5});
  const std::string db = f.path("engram.db");
  const std::string before(16 * 4096, 'o');
  Put(db, before);
  {
    File file(db, SQLITE_OPEN_MAIN_DB);
    ASSERT_EQ(file.Write(std::string(before.size() - 100, 'n'), 100), SQLITE_OK);  // 16 blocks
  }
  const RevertStats stats = Cycle();
  EXPECT_EQ(stats.changes_torn, 1u);
  const std::string after = Contents(db);
  ASSERT_EQ(after.size(), before.size());
  EXPECT_EQ(after.substr(0, 100), before.substr(0, 100)) << "outside the write";
  int kept = 0;
  for (std::size_t block = 0; block < 16; ++block) {
    const std::string part =
        after.substr(block * 4096 + (block == 0 ? 100 : 0), block == 0 ? 4096 - 100 : 4096);
    const bool old = part == std::string(part.size(), 'o');
    const bool fresh = part == std::string(part.size(), 'n');
    EXPECT_TRUE(old || fresh) << "block " << block << " is torn inside";
    kept += fresh;
  }
  EXPECT_GT(kept, 0);
  EXPECT_LT(kept, 16);
}

}  // namespace
}  // namespace engram::storage::testing
