// The fixture of the store's contract tests (store_contract_test.cc,
// store_contract_read_test.cc): one test per store kind (the embedded SQLite
// store, the PostgreSQL store on a private server started by the test:
// tests/support/store_places.h), and the records a scan returns.
#ifndef ENGRAM_STORAGE_TEST_STORE_CONTRACT_H_
#define ENGRAM_STORAGE_TEST_STORE_CONTRACT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "storage/store.h"
#include "storage/testing/test_dir.h"
#include "tests/support/store_places.h"

namespace engram::storage::contract {

using testing::StoreKind;
using testing::StorePlace;

class StoreContractTest : public ::testing::TestWithParam<StoreKind> {
 protected:
  void SetUp() override {
    place_ = GetParam().make();
    ASSERT_NE(place_, nullptr);
  }
  std::unique_ptr<Store> Open() {
    auto store = place_->Open();
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    return store.ok() ? std::move(store).value() : nullptr;
  }

 private:
  std::unique_ptr<StorePlace> place_;
};

struct Row {
  std::string id;
  std::uint32_t doc;
  std::uint64_t seq;
  std::string body;
  std::string vector;
  bool operator==(const Row&) const = default;
};

inline std::vector<Row> Scan(Store& store, std::string_view collection,
                             std::uint64_t vectors_after = 0) {
  std::vector<Row> rows;
  Status status = store.ScanRecords(collection, vectors_after, [&](const RecordRow& r) {
    rows.push_back({std::string(r.id), r.doc, r.seq, std::string(r.body), std::string(r.vector)});
    return Status::Ok();
  });
  EXPECT_TRUE(status.ok()) << status.ToString();
  return rows;
}

inline std::vector<std::string> Ids(const std::vector<Row>& rows) {
  std::vector<std::string> ids;
  for (const Row& r : rows) ids.push_back(r.id);
  return ids;
}

}  // namespace engram::storage::contract

#endif  // ENGRAM_STORAGE_TEST_STORE_CONTRACT_H_
