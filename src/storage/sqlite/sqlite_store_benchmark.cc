// Ingest and scan speed of the SQLite store at the engine's target shape
// (issue 6: 63,666 records, ~300-dimensional vectors, durable batches):
// batches of 1000 records with 1 KiB bodies and 300 float32 values, and a
// full scan of 64,000 such records with and without their vectors.
// Run from a Release build: storage_benchmark [--benchmark_filter=...].
#include <cstdint>
#include <memory>
#include <string>

#include <benchmark/benchmark.h>

#include "storage/sqlite/sqlite_store.h"
#include "storage/store.h"
#include "storage/testing/test_dir.h"

namespace engram::storage {
namespace {

constexpr int kDim = 300;
constexpr std::uint32_t kRecords = 64000;

WriteBatch MakeBatch(std::uint32_t first, std::uint32_t count) {
  WriteBatch batch;
  batch.puts.reserve(count);
  for (std::uint32_t d = first; d < first + count; ++d) {
    RecordWrite r;
    r.id = "0f8fad5b-d9cb-469f-a165-" + std::to_string(1000000000000ull + d * 7919ull % 999983);
    r.id += "-" + std::to_string(d);
    r.doc = d;
    r.body = std::string(1024, static_cast<char>('a' + d % 26));
    r.vector = testing::TestVector(d, kDim);
    batch.puts.push_back(std::move(r));
  }
  return batch;
}

// Ingests kRecords in batches of state.range(0); reports durable records/s.
void BM_Apply(benchmark::State& state) {
  const auto batch_size = static_cast<std::uint32_t>(state.range(0));
  for (auto _ : state) {
    state.PauseTiming();
    testing::TestDir dir;
    auto store = OpenSqliteStore(dir.path()).value();
    if (!store->CreateCollection({"c", "{}"}).ok()) state.SkipWithError("create");
    std::vector<WriteBatch> batches;
    for (std::uint32_t d = 0; d < kRecords; d += batch_size) {
      batches.push_back(MakeBatch(d, batch_size));
    }
    state.ResumeTiming();
    for (const WriteBatch& b : batches) {
      if (!store->Apply("c", b).ok()) state.SkipWithError("apply");
    }
    state.PauseTiming();
    store.reset();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * kRecords);
}
BENCHMARK(BM_Apply)
    ->Arg(1000)
    ->Arg(5000)
    ->Iterations(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_Scan(benchmark::State& state) {
  static const testing::TestDir dir;  // removed at exit
  static const bool filled = [] {
    auto store = OpenSqliteStore(dir.path()).value();
    (void)store->CreateCollection({"c", "{}"});
    for (std::uint32_t s = 0; s < kRecords; s += 4000) (void)store->Apply("c", MakeBatch(s, 4000));
    return true;
  }();
  (void)filled;
  auto store = OpenSqliteStore(dir.path()).value();
  const std::uint64_t vectors_after = state.range(0) ? 0 : UINT64_MAX;
  std::uint64_t bytes = 0;
  for (auto _ : state) {
    Status status = store->ScanRecords("c", vectors_after, [&](const RecordRow& r) {
      bytes += r.body.size() + r.vector.size();
      return Status::Ok();
    });
    if (!status.ok()) state.SkipWithError("scan");
  }
  state.SetItemsProcessed(state.iterations() * kRecords);
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes));
}
BENCHMARK(BM_Scan)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace engram::storage

BENCHMARK_MAIN();
