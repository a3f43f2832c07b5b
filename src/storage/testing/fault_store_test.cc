// The store under a failing disk: write, sync and read faults injected at
// every position of an operation (LevelDB db/fault_injection_test.cc), and a
// database file with overwritten bytes.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "storage/sqlite/sqlite_store.h"
#include "storage/store.h"
#include "storage/testing/fault_vfs.h"
#include "storage/testing/test_dir.h"

namespace engram::storage::testing {
namespace {

FaultVfs& Vfs() {
  static FaultVfs* vfs = new FaultVfs("engram-fault-test");  // lives until exit
  return *vfs;
}

struct Row {
  std::uint32_t doc;
  std::uint64_t seq;
  std::string body;
  std::string vector;
  bool operator==(const Row&) const = default;
};
using Model = std::map<std::string, Row>;  // id -> row

void ApplyToModel(Model& model, const WriteBatch& batch, std::uint64_t seq) {
  for (const std::string& id : batch.removes) model.erase(id);
  for (const RecordWrite& put : batch.puts) model[put.id] = {put.doc, seq, put.body, put.vector};
}

// The store's contents, or its error; checks doc order on the way.
StatusOr<Model> Contents(Store& store, std::vector<std::string>* order = nullptr) {
  Model model;
  std::optional<std::uint32_t> last;
  Status status = store.ScanRecords("c", 0, [&](const RecordRow& r) {
    if (last && r.doc <= *last) return Status::Internal("scan out of doc order");
    last = r.doc;
    model[std::string(r.id)] = {r.doc, r.seq, std::string(r.body), std::string(r.vector)};
    if (order) order->emplace_back(r.id);
    return Status::Ok();
  });
  if (!status.ok()) return status;
  return model;
}

// Batch `n` of a deterministic history: new records, a few replacements and
// removals of earlier ones. Bodies of ~300 bytes make a batch span pages.
WriteBatch Batch(int n) {
  WriteBatch batch;
  const std::uint32_t base = static_cast<std::uint32_t>(n) * 100;
  for (std::uint32_t d = base; d < base + 60; ++d) {
    RecordWrite r = TestRecord(d, std::string(250, static_cast<char>('a' + n % 26)), 16);
    batch.puts.push_back(std::move(r));
  }
  if (n > 0) {
    const std::uint32_t prev = base - 100;
    for (std::uint32_t d = prev; d < prev + 5; ++d) batch.puts.push_back(TestRecord(d, "re", 16));
    for (std::uint32_t d = prev + 10; d < prev + 13; ++d) {
      batch.removes.push_back("id-" + std::to_string(d));
    }
  }
  return batch;
}

std::unique_ptr<Store> OpenOn(const std::string& dir, const std::string& vfs) {
  auto store = OpenSqliteStoreWithVfs(dir, vfs);
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  return store.ok() ? std::move(store).value() : nullptr;
}

// Opens the store at `dir` on the fault VFS with no fault armed, then arms
// `plan` for what the caller does next.
std::unique_ptr<Store> OpenArmed(const std::string& dir, const FaultPlan& plan) {
  Vfs().Disarm();
  auto store = OpenOn(dir, Vfs().name());
  Vfs().Arm(plan);
  return store;
}

// A plan that fails the nth read.
FaultPlan FailReadAt(std::uint64_t n) {
  FaultPlan plan;
  plan.fail_read_at = n;
  return plan;
}

enum class Kind { kWrite, kTornWrite, kSync };

// A closed store holding batches 0 and 1 (built once, copied per case: a
// copy costs no fsync), and the model of what it holds.
struct TemplateStore {
  TemplateStore() {
    auto store = OpenOn(dir.path(), "");
    EXPECT_TRUE(store->CreateCollection({"c", "{}"}).ok());
    for (int b = 0; b < 2; ++b) {
      auto seq = store->Apply("c", Batch(b));
      EXPECT_TRUE(seq.ok());
      ApplyToModel(model, Batch(b), *seq);
    }
  }
  TestDir dir;
  Model model;
};

const std::string& Template(Model* model) {
  static const TemplateStore made;
  static const std::string path = made.dir.db();
  *model = made.model;
  return path;
}

// For N = 1, 2, ...: fail the Nth write (or sync) while a batch commits, then
// reopen on the real VFS. The batch is there whole or not at all, earlier
// acknowledged batches are all there, and an acknowledged batch is there.
void RunWriteFaults(Kind kind) {
  ASSERT_TRUE(Vfs().registered());
  int hits = 0;
  for (std::uint64_t n = 1;; ++n) {
    ASSERT_LT(n, 2000u) << "the batch never completed";
    TestDir dir;
    Model acknowledged;
    std::filesystem::create_directories(dir.path());
    std::filesystem::copy_file(Template(&acknowledged), dir.db());
    Model with_batch = acknowledged;
    ApplyToModel(with_batch, Batch(2), 4);  // after the creation (1) and batches 0 and 1
    {
      FaultPlan plan;
      if (kind == Kind::kSync) {
        plan.fail_sync_at = n;
      } else {
        plan.fail_write_at = n;
        plan.tear_writes = kind == Kind::kTornWrite;
      }
      auto store = OpenArmed(dir.path(), plan);
      ASSERT_NE(store, nullptr);
      auto seq = store->Apply("c", Batch(2));
      const bool injected = Vfs().counters().injected > 0;
      Vfs().Disarm();
      if (seq.ok() && !injected) break;  // every position has been tried
      hits += injected;
      if (!seq.ok()) {
        EXPECT_EQ(seq.status().code(), StatusCode::kIoError) << seq.status().ToString();
        // After an I/O error the store takes no more writes.
        EXPECT_EQ(store->Apply("c", Batch(3)).status().code(), StatusCode::kFailedPrecondition);
      }
      if (seq.ok()) acknowledged = with_batch;
    }
    auto store = OpenSqliteStore(dir.path());
    ASSERT_TRUE(store.ok()) << "n=" << n << ": " << store.status().ToString();
    auto contents = Contents(**store);
    ASSERT_TRUE(contents.ok()) << contents.status().ToString();
    const std::uint64_t last = (*store)->LastSequence().value();
    if (*contents == with_batch) {
      EXPECT_EQ(last, 4u) << "n=" << n;
    } else {
      EXPECT_EQ(*contents, acknowledged) << "n=" << n << ": a partial batch";
      EXPECT_EQ(last, 3u) << "n=" << n;
    }
  }
  EXPECT_GT(hits, 0);
}

TEST(FaultStoreTest, FailedWriteLeavesBatchWholeOrAbsent) {
  RunWriteFaults(Kind::kWrite);
}
TEST(FaultStoreTest, TornWriteLeavesBatchWholeOrAbsent) {
  RunWriteFaults(Kind::kTornWrite);
}
TEST(FaultStoreTest, FailedSyncLeavesBatchWholeOrAbsent) {
  RunWriteFaults(Kind::kSync);
}

// Random write and sync failures over a longer history; after each failure
// the store is reopened and must hold the acknowledged batches, plus the
// failed one whole or not at all.
TEST(FaultStoreTest, RandomFaultsKeepEveryAcknowledgedBatch) {
  ASSERT_TRUE(Vfs().registered());
  for (std::uint64_t seed = 1; seed <= 2; ++seed) {
    TestDir dir;
    Model model;
    std::uint64_t last_seq = 0;
    Vfs().Disarm();
    auto store = OpenOn(dir.path(), Vfs().name());
    ASSERT_NE(store, nullptr);
    last_seq = store->CreateCollection({"c", "{}"}).value();
    int failures = 0;
    for (int b = 0; b < 20; ++b) {
      FaultPlan plan;
      plan.seed = seed * 1000 + b;
      plan.write_failure_probability = 0.01;
      plan.sync_failure_probability = 0.1;
      plan.tear_writes = b % 2 == 1;
      Vfs().Arm(plan);
      auto seq = store->Apply("c", Batch(b));
      Vfs().Disarm();
      if (seq.ok()) {
        EXPECT_GT(*seq, last_seq);
        last_seq = *seq;
        ApplyToModel(model, Batch(b), *seq);
        continue;
      }
      ++failures;
      store.reset();
      store = OpenOn(dir.path(), Vfs().name());
      ASSERT_NE(store, nullptr);
      auto contents = Contents(*store);
      ASSERT_TRUE(contents.ok()) << contents.status().ToString();
      Model with_batch = model;
      ApplyToModel(with_batch, Batch(b), last_seq + 1);
      if (*contents == with_batch) {
        model = with_batch;
        ++last_seq;
      } else {
        ASSERT_EQ(*contents, model) << "seed " << seed << " batch " << b << ": a partial batch";
      }
      ASSERT_EQ(store->LastSequence().value(), last_seq);
    }
    EXPECT_GT(failures, 0) << "seed " << seed;
    store.reset();
    auto reopened = OpenOn(dir.path(), "");
    ASSERT_NE(reopened, nullptr);
    EXPECT_EQ(Contents(*reopened).value(), model);
  }
}

// Builds a closed store of three batches; returns its contents in doc order.
Model BuildStore(const std::string& dir, std::vector<std::string>* order) {
  auto store = OpenOn(dir, "");
  EXPECT_TRUE(store->CreateCollection({"c", "{}"}).ok());
  for (int b = 0; b < 3; ++b) EXPECT_TRUE(store->Apply("c", Batch(b)).ok());
  EXPECT_TRUE(store->PutSnapshot("c", "text", {3, std::string(20000, 's')}).ok());
  return Contents(*store, order).value();
}

// For N = 1, 2, ...: fail the Nth read of a scan (and of a lookup). The call
// reports IoError, or succeeds with exactly the stored data; a failed scan
// has only seen a correct prefix; the store reads correctly afterwards.
TEST(FaultStoreTest, ReadFaultsSurfaceAsIoError) {
  ASSERT_TRUE(Vfs().registered());
  TestDir dir;
  std::vector<std::string> order;
  const Model expected = BuildStore(dir.path(), &order);
  int hits = 0;
  for (std::uint64_t n = 1;; ++n) {
    ASSERT_LT(n, 5000u);
    auto store = OpenArmed(dir.path(), FailReadAt(n));
    ASSERT_NE(store, nullptr);
    std::size_t seen = 0;
    bool prefix_ok = true;
    Status status = store->ScanRecords("c", 0, [&](const RecordRow& r) {
      const std::string& id = order.at(seen++);
      const Row& want = expected.at(id);
      prefix_ok &= r.id == id && r.doc == want.doc && r.seq == want.seq && r.body == want.body &&
                   r.vector == want.vector;
      return Status::Ok();
    });
    const bool injected = Vfs().counters().injected > 0;
    Vfs().Disarm();
    EXPECT_TRUE(prefix_ok) << "n=" << n;
    if (status.ok()) {
      EXPECT_EQ(seen, order.size()) << "n=" << n;
    } else {
      ++hits;
      EXPECT_EQ(status.code(), StatusCode::kIoError) << "n=" << n << ": " << status.ToString();
    }
    EXPECT_EQ(Contents(*store).value(), expected) << "n=" << n;
    if (status.ok() && !injected) break;
  }
  EXPECT_GT(hits, 0);

  for (std::uint64_t n = 1;; ++n) {
    ASSERT_LT(n, 100u);
    auto store = OpenArmed(dir.path(), FailReadAt(n));
    ASSERT_NE(store, nullptr);
    auto found = store->GetRecord("c", "id-205");
    auto snapshot = store->GetSnapshot("c", "text");
    const bool injected = Vfs().counters().injected > 0;
    Vfs().Disarm();
    if (found.ok()) {
      ASSERT_TRUE(found->has_value());
      EXPECT_EQ((*found)->body, expected.at("id-205").body);
    } else {
      EXPECT_EQ(found.status().code(), StatusCode::kIoError) << found.status().ToString();
    }
    if (snapshot.ok()) {
      EXPECT_EQ((*snapshot)->bytes, std::string(20000, 's'));
    } else {
      EXPECT_EQ(snapshot.status().code(), StatusCode::kIoError) << snapshot.status().ToString();
    }
    if (found.ok() && snapshot.ok() && !injected) break;
  }
}

// Read failures while opening: the open fails cleanly or the store is whole.
TEST(FaultStoreTest, ReadFaultsDuringOpen) {
  ASSERT_TRUE(Vfs().registered());
  TestDir dir;
  const Model expected = BuildStore(dir.path(), nullptr);
  for (std::uint64_t n = 1;; ++n) {
    ASSERT_LT(n, 100u);
    Vfs().Arm(FailReadAt(n));
    auto store = OpenSqliteStoreWithVfs(dir.path(), Vfs().name());
    const bool injected = Vfs().counters().injected > 0;
    Vfs().Disarm();
    if (!store.ok()) {
      EXPECT_EQ(store.status().code(), StatusCode::kIoError) << store.status().ToString();
      continue;
    }
    EXPECT_EQ(Contents(**store).value(), expected) << "n=" << n;
    if (!injected) break;
  }
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Opens the damaged store and reads everything; every step may fail, but
// only with Corruption or IoError (or FailedPrecondition when the header no
// longer names an engram store). Returns whether any step failed.
bool ReadsFailCleanly(const std::string& dir) {
  auto store = OpenSqliteStore(dir);
  if (!store.ok()) {
    const StatusCode code = store.status().code();
    EXPECT_TRUE(code == StatusCode::kCorruption || code == StatusCode::kIoError ||
                code == StatusCode::kFailedPrecondition)
        << store.status().ToString();
    return true;
  }
  bool failed = false;
  auto check = [&](const Status& status) {
    if (status.ok()) return;
    failed = true;
    EXPECT_TRUE(status.code() == StatusCode::kCorruption || status.code() == StatusCode::kIoError ||
                status.code() == StatusCode::kNotFound)
        << status.ToString();
  };
  check((*store)->ListCollections().status());
  check(Contents(**store).status());
  check((*store)->GetRecord("c", "id-150").status());
  check((*store)->GetSnapshot("c", "text").status());
  return failed;
}

TEST(FaultStoreTest, CorruptedFileReportsErrorsNotUndefinedBehaviour) {
  TestDir dir;
  BuildStore(dir.path(), nullptr);
  const std::string pristine = ReadFile(dir.db());
  ASSERT_GT(pristine.size(), 8192u * 4);
  ASSERT_FALSE(std::filesystem::exists(dir.db() + "-wal"));

  // The header: not a database any more.
  std::string bytes = pristine;
  for (int i = 0; i < 100; ++i) bytes[i] = static_cast<char>(0xa5);
  WriteFile(dir.db(), bytes);
  auto store = OpenSqliteStore(dir.path());
  EXPECT_EQ(store.status().code(), StatusCode::kCorruption) << store.status().ToString();

  // Every page after the first overwritten: the tables are unreadable.
  bytes = pristine;
  for (std::size_t i = 8192; i < bytes.size(); ++i) bytes[i] = static_cast<char>(0x5a);
  WriteFile(dir.db(), bytes);
  EXPECT_TRUE(ReadsFailCleanly(dir.path()));

  // Random damage: any outcome but a crash (ASan and UBSan watch).
  std::mt19937_64 rng(7);
  for (int round = 0; round < 40; ++round) {
    bytes = pristine;
    const int spots = 1 + static_cast<int>(rng() % 8);
    for (int s = 0; s < spots; ++s) {
      const std::size_t at = rng() % bytes.size();
      const std::size_t len = 1 + rng() % 64;
      for (std::size_t i = at; i < at + len && i < bytes.size(); ++i) {
        bytes[i] = static_cast<char>(rng());
      }
    }
    WriteFile(dir.db(), bytes);
    std::filesystem::remove(dir.db() + "-wal");
    std::filesystem::remove(dir.db() + "-shm");
    (void)ReadsFailCleanly(dir.path());
  }
}

// Power loss (FaultPlan::power_loss) at every Nth change of a history that
// makes the store, writes batches and a snapshot, closes it (SQLite copies
// the WAL into the database file and deletes the WAL) and writes again.
// After the power comes back the store opens on the real VFS and holds every
// acknowledged batch, and the one in flight whole or not at all.
class PowerLossHistory {
 public:
  explicit PowerLossHistory(const std::string& dir) : dir_(dir) {}

  // Runs until the end or the first failure.
  bool Run() {
    for (int session = 0; session < 2; ++session) {
      auto store = OpenSqliteStoreWithVfs(dir_, Vfs().name());
      if (!store.ok()) return false;
      if (session == 0) {
        if (!(*store)->CreateCollection({"c", "{}"}).ok()) return false;
        created_ = true;
      }
      for (int b = session * 4; b < session * 4 + 4; ++b) {
        in_flight_ = acknowledged_;
        ApplyToModel(in_flight_, Batch(b), 0);
        auto seq = (*store)->Apply("c", Batch(b));
        if (!seq.ok()) return false;
        acknowledged_ = in_flight_;
      }
      if (!(*store)->PutSnapshot("c", "text", {1, std::string(100000, 's')}).ok()) return false;
    }
    return true;
  }

  // Checks the store after the power came back.
  void Check(std::uint64_t n) const {
    auto store = OpenSqliteStore(dir_);
    ASSERT_TRUE(store.ok()) << "n=" << n << ": " << store.status().ToString();
    auto collections = (*store)->ListCollections();
    ASSERT_TRUE(collections.ok());
    if (collections->empty()) {
      ASSERT_FALSE(created_) << "n=" << n << ": an acknowledged collection is lost";
      return;
    }
    auto contents = Contents(**store);
    ASSERT_TRUE(contents.ok()) << contents.status().ToString();
    Model found = *contents;
    for (auto& [id, row] : found) row.seq = 0;  // the model does not follow sequences
    EXPECT_TRUE(found == acknowledged_ || found == in_flight_)
        << "n=" << n << ": " << found.size() << " records, acknowledged " << acknowledged_.size();
  }

 private:
  std::string dir_;
  bool created_ = false;
  Model acknowledged_, in_flight_;
};

TEST(FaultStoreTest, PowerLossKeepsEveryAcknowledgedBatch) {
  ASSERT_TRUE(Vfs().registered());
  std::uint64_t changes = 0;
  {
    TestDir dir;
    std::filesystem::create_directories(dir.path());
    Vfs().Arm({.power_loss = true});
    ASSERT_TRUE(PowerLossHistory(dir.path()).Run());
    changes = Vfs().counters().changes();
    ASSERT_TRUE(Vfs().PowerCycle().ok());
  }
  // Every point in the first session's commits; sparser later.
  RevertStats total;
  int points = 0;
  for (std::uint64_t n = 1; n <= changes; n += n < 60 ? 1 : 7, ++points) {
    TestDir dir;
    std::filesystem::create_directories(dir.path());
    FaultPlan plan{.seed = n, .power_loss = true, .power_cut_at = n};
    plan.keep_unsynced_probability = n % 2 == 0 ? 0.5 : 0;
    Vfs().Arm(plan);
    PowerLossHistory history(dir.path());
    (void)history.Run();  // a cut while the store closes is not reported
    EXPECT_TRUE(Vfs().counters().power_cut) << "n=" << n;
    StatusOr<RevertStats> reverted = Vfs().PowerCycle();
    ASSERT_TRUE(reverted.ok()) << reverted.status().ToString();
    total += *reverted;
    history.Check(n);
  }
  std::printf("power loss at %d of %llu points: %s\n", points,
              static_cast<unsigned long long>(changes), total.ToString().c_str());
  EXPECT_GT(total.changes_dropped, 0u);
  EXPECT_GT(total.changes_torn, 0u);
  EXPECT_GT(total.entries_removed, 0u);
}

}  // namespace
}  // namespace engram::storage::testing
