// What the fault-injection tests of the store share (fault_store_test.cc,
// fault_read_test.cc; tests only): the fault VFS, a model of the store's
// contents, a deterministic history of batches, and stores opened on the
// fault VFS with a plan armed.
#ifndef ENGRAM_STORAGE_TESTING_FAULT_HISTORY_H_
#define ENGRAM_STORAGE_TESTING_FAULT_HISTORY_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "storage/sqlite/sqlite_store.h"
#include "storage/store.h"
#include "storage/testing/fault_vfs.h"
#include "storage/testing/test_dir.h"

namespace engram::storage::testing {

inline FaultVfs& Vfs() {
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

inline void ApplyToModel(Model& model, const WriteBatch& batch, std::uint64_t seq) {
  for (const std::string& id : batch.removes) model.erase(id);
  for (const RecordWrite& put : batch.puts) model[put.id] = {put.doc, seq, put.body, put.vector};
}

// The store's contents, or its error; checks doc order on the way.
inline StatusOr<Model> Contents(Store& store, std::vector<std::string>* order = nullptr) {
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
inline WriteBatch Batch(int n) {
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

inline std::unique_ptr<Store> OpenOn(const std::string& dir, const std::string& vfs) {
  auto store = OpenSqliteStoreWithVfs(dir, vfs);
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  return store.ok() ? std::move(store).value() : nullptr;
}

// Opens the store at `dir` on the fault VFS with no fault armed, then arms
// `plan` for what the caller does next.
inline std::unique_ptr<Store> OpenArmed(const std::string& dir, const FaultPlan& plan) {
  Vfs().Disarm();
  auto store = OpenOn(dir, Vfs().name());
  Vfs().Arm(plan);
  return store;
}

// A plan that fails the nth read.
inline FaultPlan FailReadAt(std::uint64_t n) {
  FaultPlan plan;
  plan.fail_read_at = n;
  return plan;
}

}  // namespace engram::storage::testing

#endif  // ENGRAM_STORAGE_TESTING_FAULT_HISTORY_H_
