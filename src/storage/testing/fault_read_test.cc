// The store under a failing disk, reading: read faults at every position of
// a scan, a lookup and an open surface as IoError, and a database file with
// overwritten bytes reports errors, never undefined behaviour.
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

}  // namespace
}  // namespace engram::storage::testing
