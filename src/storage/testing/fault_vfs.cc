#include "storage/testing/fault_vfs.h"

#include <cstdint>
#include <filesystem>
#include <mutex>
#include <new>
#include <random>
#include <string>

#include <sqlite3.h>

namespace engram::storage::testing {
namespace {

// Our file: SQLite allocates szOsFile bytes and hands them to xOpen; the
// wrapped VFS's file lives right behind this header in the same block.
struct FaultFile {
  sqlite3_file base;  // first, so a sqlite3_file* is a FaultFile*
  FaultVfs* owner;
  sqlite3_file* real;
  const char* path;  // SQLite keeps the name valid until xClose; null for temporary files
  // SQLite's unix VFS fsyncs the directory on the first sync of a WAL or
  // journal it opened with SQLITE_OPEN_CREATE (unixOpen's syncDir).
  bool syncs_directory;
};

FaultFile* Self(sqlite3_file* f) {
  return reinterpret_cast<FaultFile*>(f);
}
sqlite3_file* Real(sqlite3_file* f) {
  return Self(f)->real;
}
const sqlite3_io_methods* M(sqlite3_file* f) {
  return Real(f)->pMethods;
}

int Close(sqlite3_file* f) {
  Self(f)->owner->FileOpened(-1);
  return M(f)->xClose(Real(f));
}

std::string Directory(const char* path) {
  return std::filesystem::path(path).parent_path().string();
}

int Read(sqlite3_file* f, void* buf, int n, sqlite3_int64 off) {
  if (Self(f)->owner->ShouldFail(FaultVfs::Op::kRead)) return SQLITE_IOERR_READ;
  return M(f)->xRead(Real(f), buf, n, off);
}

int Write(sqlite3_file* f, const void* buf, int n, sqlite3_int64 off) {
  FaultFile* self = Self(f);
  FaultVfs* owner = self->owner;
  const FaultVfs::Decision d = owner->Decide(FaultVfs::Op::kWrite);
  if (d.fail) {
    if (!d.track && owner->tear_writes() && n > 1) (void)M(f)->xWrite(Real(f), buf, n / 2, off);
    return SQLITE_IOERR_WRITE;
  }
  if (d.track && self->path != nullptr &&
      !owner->durable().WillWrite(self->path, Real(f), buf, n, off)) {
    return SQLITE_IOERR_WRITE;
  }
  return M(f)->xWrite(Real(f), buf, n, off);
}

int Truncate(sqlite3_file* f, sqlite3_int64 size) {
  FaultFile* self = Self(f);
  const FaultVfs::Decision d = self->owner->Decide(FaultVfs::Op::kTruncate);
  if (d.fail) return SQLITE_IOERR_TRUNCATE;
  if (d.track && self->path != nullptr &&
      !self->owner->durable().WillTruncate(self->path, Real(f), size)) {
    return SQLITE_IOERR_TRUNCATE;
  }
  return M(f)->xTruncate(Real(f), size);
}

int Sync(sqlite3_file* f, int flags) {
  FaultFile* self = Self(f);
  const FaultVfs::Decision d = self->owner->Decide(FaultVfs::Op::kSync);
  if (d.fail) return SQLITE_IOERR_FSYNC;
  const int rc = M(f)->xSync(Real(f), flags);
  if (rc != SQLITE_OK || self->path == nullptr) return rc;
  if (d.track) self->owner->durable().Synced(self->path, Real(f));
  if (self->syncs_directory) {
    self->syncs_directory = false;
    if (d.track) self->owner->durable().DirectorySynced(Directory(self->path));
  }
  return rc;
}

int FileSize(sqlite3_file* f, sqlite3_int64* size) {
  return M(f)->xFileSize(Real(f), size);
}
int Lock(sqlite3_file* f, int level) {
  return M(f)->xLock(Real(f), level);
}
int Unlock(sqlite3_file* f, int level) {
  return M(f)->xUnlock(Real(f), level);
}
int CheckReservedLock(sqlite3_file* f, int* out) {
  return M(f)->xCheckReservedLock(Real(f), out);
}
int FileControl(sqlite3_file* f, int op, void* arg) {
  return M(f)->xFileControl(Real(f), op, arg);
}
int SectorSize(sqlite3_file* f) {
  return M(f)->xSectorSize(Real(f));
}
int DeviceCharacteristics(sqlite3_file* f) {
  return M(f)->xDeviceCharacteristics(Real(f));
}

// The wal-index (-shm) is shared memory, not file I/O: forwarded untouched.
int ShmMap(sqlite3_file* f, int page, int size, int extend, void volatile** out) {
  return M(f)->xShmMap(Real(f), page, size, extend, out);
}
int ShmLock(sqlite3_file* f, int offset, int n, int flags) {
  return M(f)->xShmLock(Real(f), offset, n, flags);
}
void ShmBarrier(sqlite3_file* f) {
  M(f)->xShmBarrier(Real(f));
}
int ShmUnmap(sqlite3_file* f, int delete_flag) {
  return M(f)->xShmUnmap(Real(f), delete_flag);
}

// Memory-mapped reads would bypass xRead and its faults: always decline, and
// SQLite falls back to xRead (the xFetch contract allows *pp = 0).
int Fetch(sqlite3_file*, sqlite3_int64, int, void** pp) {
  *pp = nullptr;
  return SQLITE_OK;
}
int Unfetch(sqlite3_file*, sqlite3_int64, void*) {
  return SQLITE_OK;
}

const sqlite3_io_methods kMethods = {
    3,
    Close,
    Read,
    Write,
    Truncate,
    Sync,
    FileSize,
    Lock,
    Unlock,
    CheckReservedLock,
    FileControl,
    SectorSize,
    DeviceCharacteristics,
    ShmMap,
    ShmLock,
    ShmBarrier,
    ShmUnmap,
    Fetch,
    Unfetch,
};

FaultVfs* Owner(sqlite3_vfs* vfs) {
  return static_cast<FaultVfs*>(vfs->pAppData);
}
sqlite3_vfs* RealVfs(sqlite3_vfs* vfs) {
  return Owner(vfs)->real();
}

int Open(sqlite3_vfs* vfs, sqlite3_filename name, sqlite3_file* file, int flags, int* out_flags) {
  FaultFile* self = Self(file);
  self->owner = Owner(vfs);
  self->real = reinterpret_cast<sqlite3_file*>(self + 1);
  self->real->pMethods = nullptr;
  self->path = name;
  const int type = flags & 0xFFFFFF00;
  self->syncs_directory = (flags & SQLITE_OPEN_CREATE) != 0 &&
                          (type == SQLITE_OPEN_WAL || type == SQLITE_OPEN_MAIN_JOURNAL ||
                           type == SQLITE_OPEN_SUPER_JOURNAL);
  self->base.pMethods = nullptr;
  sqlite3_vfs* real = RealVfs(vfs);
  // With power loss: whether the open makes the file (a directory entry
  // that is not durable yet), which a machine without power cannot.
  const FaultVfs::Decision d = self->owner->DecideCreate();
  int existed = 1;
  if (d.track && name != nullptr && (flags & SQLITE_OPEN_CREATE) != 0 &&
      real->xAccess(real, name, SQLITE_ACCESS_EXISTS, &existed) != SQLITE_OK) {
    return SQLITE_CANTOPEN;
  }
  if (!existed && d.fail) return SQLITE_CANTOPEN;
  int rc = real->xOpen(real, name, self->real, flags, out_flags);
  // SQLite calls xClose whenever pMethods is set, even after a failed open.
  self->base.pMethods = self->real->pMethods != nullptr ? &kMethods : nullptr;
  if (self->base.pMethods != nullptr) self->owner->FileOpened(1);
  if (rc == SQLITE_OK && d.track && name != nullptr) {
    self->owner->durable().Opened(name, !existed, type == SQLITE_OPEN_MAIN_DB, self->real);
  }
  return rc;
}

int Delete(sqlite3_vfs* vfs, const char* name, int sync_dir) {
  const FaultVfs::Decision d = Owner(vfs)->Decide(FaultVfs::Op::kDelete);
  if (d.fail) return SQLITE_IOERR_DELETE;
  if (!d.track) return RealVfs(vfs)->xDelete(RealVfs(vfs), name, sync_dir);
  const int rc = Owner(vfs)->durable().Delete(name);
  if (rc == SQLITE_OK && (sync_dir & 1) != 0)
    Owner(vfs)->durable().DirectorySynced(Directory(name));
  return rc;
}
int Access(sqlite3_vfs* vfs, const char* name, int flags, int* out) {
  return RealVfs(vfs)->xAccess(RealVfs(vfs), name, flags, out);
}
int FullPathname(sqlite3_vfs* vfs, const char* name, int n, char* out) {
  return RealVfs(vfs)->xFullPathname(RealVfs(vfs), name, n, out);
}
void* DlOpen(sqlite3_vfs* vfs, const char* name) {
  return RealVfs(vfs)->xDlOpen(RealVfs(vfs), name);
}
void DlError(sqlite3_vfs* vfs, int n, char* out) {
  RealVfs(vfs)->xDlError(RealVfs(vfs), n, out);
}
void (*DlSym(sqlite3_vfs* vfs, void* handle, const char* symbol))(void) {
  return RealVfs(vfs)->xDlSym(RealVfs(vfs), handle, symbol);
}
void DlClose(sqlite3_vfs* vfs, void* handle) {
  RealVfs(vfs)->xDlClose(RealVfs(vfs), handle);
}
int Randomness(sqlite3_vfs* vfs, int n, char* out) {
  return RealVfs(vfs)->xRandomness(RealVfs(vfs), n, out);
}
int Sleep(sqlite3_vfs* vfs, int micros) {
  return RealVfs(vfs)->xSleep(RealVfs(vfs), micros);
}
int CurrentTime(sqlite3_vfs* vfs, double* out) {
  return RealVfs(vfs)->xCurrentTime(RealVfs(vfs), out);
}
int GetLastError(sqlite3_vfs* vfs, int n, char* out) {
  return RealVfs(vfs)->xGetLastError(RealVfs(vfs), n, out);
}
int CurrentTimeInt64(sqlite3_vfs* vfs, sqlite3_int64* out) {
  return RealVfs(vfs)->xCurrentTimeInt64(RealVfs(vfs), out);
}

}  // namespace

FaultVfs::FaultVfs(std::string name) : name_(std::move(name)), real_(sqlite3_vfs_find(nullptr)) {
  if (real_ == nullptr) return;
  vfs_.iVersion = 2;  // up to xCurrentTimeInt64; the system-call hooks stay unset
  vfs_.szOsFile = static_cast<int>(sizeof(FaultFile)) + real_->szOsFile;
  vfs_.mxPathname = real_->mxPathname;
  vfs_.zName = name_.c_str();
  vfs_.pAppData = this;
  vfs_.xOpen = Open;
  vfs_.xDelete = Delete;
  vfs_.xAccess = Access;
  vfs_.xFullPathname = FullPathname;
  vfs_.xDlOpen = DlOpen;
  vfs_.xDlError = DlError;
  vfs_.xDlSym = DlSym;
  vfs_.xDlClose = DlClose;
  vfs_.xRandomness = Randomness;
  vfs_.xSleep = Sleep;
  vfs_.xCurrentTime = CurrentTime;
  vfs_.xGetLastError = GetLastError;
  vfs_.xCurrentTimeInt64 = CurrentTimeInt64;
  registered_ = sqlite3_vfs_register(&vfs_, 0) == SQLITE_OK;
}

FaultVfs::~FaultVfs() {
  if (registered_) sqlite3_vfs_unregister(&vfs_);
}

void FaultVfs::Arm(const FaultPlan& plan) {
  std::lock_guard<std::mutex> lock(mu_);
  plan_ = plan;
  counters_ = FaultCounters{};
  rng_.seed(plan.seed);
  failed_ = false;
  durable_.Reset();
}

void FaultVfs::FileOpened(int delta) {
  std::lock_guard<std::mutex> lock(mu_);
  open_files_ += delta;
}

StatusOr<RevertStats> FaultVfs::PowerCycle() {
  FaultPlan plan;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!plan_.power_loss) return Status::FailedPrecondition("the plan has no power loss");
    if (open_files_ > 0) {
      return Status::FailedPrecondition(std::to_string(open_files_) + " files are still open");
    }
    plan = plan_;
  }
  RevertStats stats;
  Status reverted = durable_.Revert(plan.keep_unsynced_probability, plan.seed, &stats);
  Disarm();
  if (!reverted.ok()) return reverted;
  return stats;
}

FaultCounters FaultVfs::counters() const {
  std::lock_guard<std::mutex> lock(mu_);
  return counters_;
}

bool FaultVfs::tear_writes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return plan_.tear_writes;
}

FaultVfs::Decision FaultVfs::DecideCreate() {
  std::lock_guard<std::mutex> lock(mu_);
  return {counters_.power_cut, plan_.power_loss};
}

FaultVfs::Decision FaultVfs::Decide(Op op) {
  std::lock_guard<std::mutex> lock(mu_);
  std::uint64_t count = 0;
  std::uint64_t at = 0;
  double probability = 0;
  switch (op) {
    case Op::kWrite:
      count = ++counters_.writes;
      at = plan_.fail_write_at;
      probability = plan_.write_failure_probability;
      break;
    case Op::kSync:
      count = ++counters_.syncs;
      at = plan_.fail_sync_at;
      probability = plan_.sync_failure_probability;
      break;
    case Op::kRead:
      count = ++counters_.reads;
      at = plan_.fail_read_at;
      probability = plan_.read_failure_probability;
      break;
    case Op::kTruncate:
      ++counters_.truncates;
      break;
    case Op::kDelete:
      ++counters_.deletes;
      break;
  }
  if (plan_.power_loss && op != Op::kRead) {
    if (!counters_.power_cut && counters_.changes() == plan_.power_cut_at) {
      counters_.power_cut = true;
    }
    if (counters_.power_cut) {
      ++counters_.injected;
      return {true, true};
    }
  }
  bool fail = (at != 0 && count == at) || (plan_.sticky && failed_ && op != Op::kRead);
  if (!fail && probability > 0) {
    fail = std::uniform_real_distribution<double>(0, 1)(rng_) < probability;
  }
  if (fail) {
    ++counters_.injected;
    failed_ = true;
  }
  return {fail, plan_.power_loss};
}

}  // namespace engram::storage::testing
