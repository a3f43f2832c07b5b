// The store under a failing disk: write, sync and torn-write faults injected
// at every position of a commit (LevelDB db/fault_injection_test.cc), random
// faults, and power loss (every write not yet synced dropped). Read faults
// and overwritten bytes: fault_read_test.cc.
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

#include "storage/testing/fault_history.h"

namespace engram::storage::testing {
namespace {

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
