#include "storage/testing/fault_vfs.h"

#include <cstdint>
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
  return M(f)->xClose(Real(f));
}

int Read(sqlite3_file* f, void* buf, int n, sqlite3_int64 off) {
  if (Self(f)->owner->ShouldFail(FaultVfs::Op::kRead)) return SQLITE_IOERR_READ;
  return M(f)->xRead(Real(f), buf, n, off);
}

int Write(sqlite3_file* f, const void* buf, int n, sqlite3_int64 off) {
  FaultVfs* owner = Self(f)->owner;
  if (owner->ShouldFail(FaultVfs::Op::kWrite)) {
    if (owner->tear_writes() && n > 1) (void)M(f)->xWrite(Real(f), buf, n / 2, off);
    return SQLITE_IOERR_WRITE;
  }
  return M(f)->xWrite(Real(f), buf, n, off);
}

int Truncate(sqlite3_file* f, sqlite3_int64 size) {
  return M(f)->xTruncate(Real(f), size);
}

int Sync(sqlite3_file* f, int flags) {
  if (Self(f)->owner->ShouldFail(FaultVfs::Op::kSync)) return SQLITE_IOERR_FSYNC;
  return M(f)->xSync(Real(f), flags);
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
  sqlite3_vfs* real = RealVfs(vfs);
  int rc = real->xOpen(real, name, self->real, flags, out_flags);
  // SQLite calls xClose whenever pMethods is set, even after a failed open.
  self->base.pMethods = self->real->pMethods != nullptr ? &kMethods : nullptr;
  return rc;
}

int Delete(sqlite3_vfs* vfs, const char* name, int sync_dir) {
  return RealVfs(vfs)->xDelete(RealVfs(vfs), name, sync_dir);
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
}

FaultCounters FaultVfs::counters() const {
  std::lock_guard<std::mutex> lock(mu_);
  return counters_;
}

bool FaultVfs::tear_writes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return plan_.tear_writes;
}

bool FaultVfs::ShouldFail(Op op) {
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
  }
  bool fail = (at != 0 && count == at) || (plan_.sticky && failed_ && op != Op::kRead);
  if (!fail && probability > 0) {
    fail = std::uniform_real_distribution<double>(0, 1)(rng_) < probability;
  }
  if (fail) {
    ++counters_.injected;
    failed_ = true;
  }
  return fail;
}

}  // namespace engram::storage::testing
