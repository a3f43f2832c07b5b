// The crash test's writer (crash_records.h) on a disk that loses power:
// the engine runs on FaultVfs with power loss (storage/testing/fault_vfs.h),
// the power goes at the Nth write, truncate, sync or delete, and everything
// not synced by then is dropped (or, at every other point, a random subset
// of it kept, writes torn between 4 KiB blocks, as ALICE's disk may). Then a fresh engine opens the
// store on the real VFS and crash_checks.h checks it: no acknowledged record is lost, no batch is
// there in part, every index agrees with the records, and recovery replays no more than was written
// since the last checkpoint.
//
// The history, all counted in one run of changes: open a new store, create
// the collection, write batches (deletes and checkpoints among them), close
// (SQLite copies the WAL into the database and deletes it), reopen, write
// more, close. Background checkpoints are off, so the changes come in the
// same order every run and a crash point names one moment.
// ENGRAM_POWERLOSS_POINTS sets the number of crash points, spread evenly
// over the history (default 5; the issue asks for at least 200 once).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <memory>
#include <random>
#include <string>

#include <gtest/gtest.h>
#include <unistd.h>

#include "engram/engine.h"
#include "storage/testing/fault_vfs.h"
#include "tests/integration/crash_checks.h"
#include "tests/integration/crash_records.h"

namespace engram {
namespace {
namespace power_loss_test {

namespace fs = std::filesystem;
using storage::testing::FaultPlan;
using storage::testing::FaultVfs;
using storage::testing::RevertStats;

constexpr long kBatchesPerSession = 7;

storage::testing::FaultVfs& Vfs() {
  static FaultVfs* vfs = new FaultVfs("engram-power-loss");  // lives until exit
  return *vfs;
}

std::uint64_t Points() {
  const char* env = std::getenv("ENGRAM_POWERLOSS_POINTS");
  return env ? std::max(1L, std::atol(env)) : 5;
}

// Runs the history on the armed VFS until its end or the first failure,
// noting in `acked` what was acknowledged.
void RunHistory(const std::string& dir, crash::Acknowledged* acked) {
  Engine::Options options;
  options.sqlite_vfs = Vfs().name();
  options.threads = 1;
  options.checkpoint_records = std::numeric_limits<std::uint64_t>::max();
  options.checkpoint_interval_ms = 0;
  auto hear = [acked](std::string_view what, long b) { acked->Hear(what, b); };
  for (long session = 0; session < 2; ++session) {
    StatusOr<std::unique_ptr<Engine>> opened = Engine::Open(dir, options);
    if (!opened.ok()) return;
    Engine& e = **opened;
    if (session == 0) {
      if (!e.CreateCollection(crash::Spec()).ok()) return;
      hear("created", 0);
    }
    for (long b = session * kBatchesPerSession + 1; b <= (session + 1) * kBatchesPerSession; ++b) {
      if (!crash::WriteStep(e, b, /*checkpoint=*/b % 10 == 5, hear).ok()) return;
    }
    opened->reset();
    // Closing checkpoints the collection; the power was still on if nothing
    // failed until now.
    if (!Vfs().counters().power_cut) hear("checkpoint", acked->batch);
  }
}

TEST(PowerLoss, NoAcknowledgedRecordIsLost) {
  ASSERT_TRUE(Vfs().registered());
  const fs::path dir = fs::temp_directory_path() / ("engram_power_" + std::to_string(getpid()));
  // A dry run counts the history's changes.
  fs::remove_all(dir);
  fs::create_directories(dir);
  Vfs().Arm({.power_loss = true});
  crash::Acknowledged all;
  RunHistory(dir.string(), &all);
  const std::uint64_t changes = Vfs().counters().changes();
  ASSERT_TRUE(Vfs().PowerCycle().ok());
  ASSERT_EQ(all.batch, 2 * kBatchesPerSession) << "the history failed without a power cut";

  const std::uint64_t points = std::min(Points(), changes);
  std::mt19937 rng(20261121);
  RevertStats total;
  std::uint64_t lost_store = 0;
  std::size_t most_replayed = 0;
  for (std::uint64_t i = 0; i < points; ++i) {
    // Evenly spread over 1..changes, the last point the last change.
    const std::uint64_t n = points == 1 ? changes : 1 + i * (changes - 1) / (points - 1);
    const std::string where = "power cut at change " + std::to_string(n);
    fs::remove_all(dir);
    fs::create_directories(dir);
    FaultPlan plan{.seed = n, .power_loss = true, .power_cut_at = n};
    plan.keep_unsynced_probability = i % 2 == 1 ? 0.5 : 0;
    Vfs().Arm(plan);
    crash::Acknowledged acked;
    RunHistory(dir.string(), &acked);
    ASSERT_TRUE(Vfs().counters().power_cut) << where;
    StatusOr<RevertStats> reverted = Vfs().PowerCycle();
    ASSERT_TRUE(reverted.ok()) << where << ": " << reverted.status().ToString();
    total += *reverted;
    lost_store += !fs::exists(dir / "engram.db");

    StatusOr<std::unique_ptr<Engine>> opened = Engine::Open(dir.string());
    ASSERT_TRUE(opened.ok()) << where << ": " << opened.status().ToString();
    long last = 0;
    crash::ExpectConsistent(**opened, acked, rng, where, &last);
    if (HasFatalFailure()) return;
    crash::ExpectReplayExplained((*opened)->recovery(), acked, last, where);
    most_replayed = std::max(most_replayed, (*opened)->recovery().replayed);
  }
  std::printf(
      "power loss: %llu crash points over %llu changes: %s; no store file left %llu times; "
      "at most %zu records replayed\n",
      static_cast<unsigned long long>(points), static_cast<unsigned long long>(changes),
      total.ToString().c_str(), static_cast<unsigned long long>(lost_store), most_replayed);
  EXPECT_GT(total.changes_dropped, 0u) << "no crash point dropped anything: the test tests nothing";
  fs::remove_all(dir);
}

}  // namespace power_loss_test
}  // namespace
}  // namespace engram
