// Checkpoints through the public API: staged vectors linked first, and
// background checkpoints by records written and by time, also under writes
// that never pause.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "engine/testing/engine_fixture.h"
#include "engram/engine.h"
#include "storage/store.h"
#include "vector/vector_index.h"

namespace engram {
namespace {

using testing::EngineTest;

// Checkpoint links what is staged before it captures: its vector image holds
// the whole graph, so the close has nothing to store again and no open links
// these records again. (It used to capture the staged vectors as staged while
// the background linker linked them, and the close then wrote the images a
// second time, still with the rest unlinked.)
TEST_F(EngineTest, CheckpointLinksStagedVectorsFirst) {
  std::mt19937 rng(5);
  std::vector<std::string> records;
  for (int i = 0; i < 2000; ++i) records.push_back(Record(i, rng));
  {
    auto e = Open();
    ASSERT_TRUE(e->CreateCollection(Spec()).ok());
    ASSERT_TRUE(Ingest(*e, records).ok());
    ASSERT_TRUE(e->Checkpoint("lore").ok());
  }
  StatusOr<std::unique_ptr<storage::Store>> store = storage::OpenSqliteStore(dir_.string());
  ASSERT_TRUE(store.ok());
  StatusOr<std::optional<storage::Snapshot>> snap = (*store)->GetSnapshot("lore", "vector");
  ASSERT_TRUE(snap.ok() && snap->has_value());
  StatusOr<vector::VectorIndex> image = vector::VectorIndex::Load((*snap)->bytes, 2000);
  ASSERT_TRUE(image.ok()) << image.status().message();
  EXPECT_EQ(image->pending(), 0u) << "staged vectors in the checkpoint's image";
  EXPECT_EQ(image->size(), 2000u);
}

// Checkpoints happen in the background, by records written and by time, so
// that a crash replays only what came after the last one.
TEST_F(EngineTest, CheckpointsRunInTheBackground) {
  auto snapshot_seq = [&](const char* name) -> std::uint64_t {
    StatusOr<std::unique_ptr<storage::Store>> store = storage::OpenSqliteStore(dir_.string());
    if (!store.ok()) return 0;
    StatusOr<std::optional<storage::Snapshot>> snap = (*store)->GetSnapshot("lore", name);
    return snap.ok() && snap->has_value() ? (*snap)->seq : 0;
  };
  auto wait_for = [&](const char* name, std::uint64_t above) {
    for (int i = 0; i < 400 && snapshot_seq(name) <= above; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return snapshot_seq(name);
  };
  std::mt19937 rng(17);
  Engine::Options by_records;
  by_records.checkpoint_records = 100;
  by_records.checkpoint_interval_ms = 0;
  {
    StatusOr<std::unique_ptr<Engine>> e = Engine::Open(dir_.string(), by_records);
    ASSERT_TRUE(e.ok());
    ASSERT_TRUE((*e)->CreateCollection(Spec()).ok());
    std::vector<std::string> few;
    for (int i = 0; i < 40; ++i) few.push_back(Record(i, rng));
    ASSERT_TRUE(Ingest(**e, few).ok());
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_EQ(snapshot_seq("text"), 0u) << "40 records are below the threshold";
    std::vector<std::string> more;
    for (int i = 40; i < 140; ++i) more.push_back(Record(i, rng));
    ASSERT_TRUE(Ingest(**e, more).ok());
    EXPECT_GT(wait_for("text", 0), 0u);
    EXPECT_GT(wait_for("vector", 0), 0u);
  }
  const std::uint64_t closed = snapshot_seq("text");
  Engine::Options by_time;
  by_time.checkpoint_records = 1000000;
  by_time.checkpoint_interval_ms = 200;
  {
    StatusOr<std::unique_ptr<Engine>> e = Engine::Open(dir_.string(), by_time);
    ASSERT_TRUE(e.ok());
    std::vector<std::string> one = {Record(500, rng)};
    ASSERT_TRUE(Ingest(**e, one).ok());
    EXPECT_GT(wait_for("text", closed), closed);
    EXPECT_GT(wait_for("vector", closed), closed);
    EXPECT_TRUE((*e)->Get("lore", "r500").value().has_value());
  }
}

// A load that never pauses still gets checkpointed (checkpoints are due
// while writes go on), or a crash would replay the whole load.
TEST_F(EngineTest, CheckpointsRunUnderWritesThatNeverPause) {
  Engine::Options options;
  options.checkpoint_records = 50;
  options.checkpoint_interval_ms = 0;
  StatusOr<std::unique_ptr<Engine>> e = Engine::Open(dir_.string(), options);
  ASSERT_TRUE(e.ok());
  ASSERT_TRUE((*e)->CreateCollection(Spec()).ok());
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    std::mt19937 rng(23);
    for (int n = 0; !stop.load(); ++n) {
      std::vector<std::string> batch;
      for (int i = 0; i < 10; ++i) batch.push_back(Record(n * 10 + i, rng));
      ASSERT_TRUE(Ingest(**e, batch).ok());
    }
  });
  std::uint64_t seq = 0;
  for (int i = 0; i < 400 && seq == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    StatusOr<std::unique_ptr<storage::Store>> store = storage::OpenSqliteStore(dir_.string());
    ASSERT_TRUE(store.ok());
    StatusOr<std::optional<storage::Snapshot>> snap = (*store)->GetSnapshot("lore", "text");
    seq = snap.ok() && snap->has_value() ? (*snap)->seq : 0;
  }
  stop = true;
  writer.join();
  EXPECT_GT(seq, 0u) << "no checkpoint while the writes went on";
}
}  // namespace
}  // namespace engram
