// Google Benchmark: loading a MetadataIndex as opening a store does, in
// batches of 4,096 records of the synthetic memories' schema (agent_id: 100
// values, kind: 8, importance: 101, ts: one per record, tags: 0-3 of 200),
// record numbers ascending. Put: one record after another; PutMany: a batch
// at a time. "Rewritten": a quarter of the records carry a ts past their
// neighbours' (records rewritten later), so that ts is not in record order,
// as in a store that has seen updates; else ts ascends with the records.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "index/metadata_index.h"
#include "schema/schema.h"

namespace engram::index {
namespace {

constexpr std::size_t kBatch = 4096;

std::shared_ptr<const Schema> MemorySchema() {
  return Schema::Parse(R"({"fields":[
    {"name":"agent_id","type":"string","required":true},
    {"name":"kind","type":"string","required":true},
    {"name":"importance","type":"int","required":true},
    {"name":"ts","type":"int","required":true},
    {"name":"tags","type":"set<string>","optional":true}]})")
      .value();
}

std::vector<std::vector<Value>> Rows(std::size_t n, bool rewritten) {
  const char* kinds[] = {"fact", "event", "preference", "task", "note", "plan", "goal", "skill"};
  std::mt19937_64 rng(42);
  std::vector<std::vector<Value>> rows(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<Value>& row = rows[i];
    row.resize(5);
    row[0] = "agent-" + std::to_string(rng() % 100);
    row[1] = std::string(kinds[rng() % 8]);
    row[2] = static_cast<std::int64_t>(rng() % 101);
    const bool later = rewritten && rng() % 4 == 0;
    row[3] = static_cast<std::int64_t>(1700000000 + 7 * i + (later ? 7 * (rng() % n) : 0));
    StringSet tags;
    for (std::uint64_t t = rng() % 4; t > 0; --t) tags.push_back("t" + std::to_string(rng() % 200));
    NormalizeStringSet(&tags);
    if (!tags.empty()) row[4] = std::move(tags);
  }
  return rows;
}

void BM_Load(benchmark::State& state, bool many, bool rewritten) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const std::vector<std::vector<Value>> rows = Rows(n, rewritten);
  for (auto _ : state) {
    state.PauseTiming();
    std::vector<std::vector<Value>> copy = rows;
    MetadataIndex index(MemorySchema());
    state.ResumeTiming();
    for (std::size_t first = 0; first < n; first += kBatch) {
      const std::size_t last = std::min(n, first + kBatch);
      std::vector<std::uint32_t> records;
      std::vector<std::vector<Value>> batch;
      for (std::size_t i = first; i < last; ++i) {
        records.push_back(static_cast<std::uint32_t>(i));
        batch.push_back(std::move(copy[i]));
      }
      if (many) {
        index.PutMany(records, std::move(batch));
      } else {
        for (std::size_t i = 0; i < records.size(); ++i) index.Put(records[i], std::move(batch[i]));
      }
    }
    benchmark::DoNotOptimize(index.size());
    state.PauseTiming();
    {
      MetadataIndex gone = std::move(index);  // freed untimed
    }
    state.ResumeTiming();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
}

BENCHMARK_CAPTURE(BM_Load, put_in_order, false, false)->Arg(1000000)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Load, putmany_in_order, true, false)
    ->Arg(1000000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Load, put_rewritten, false, true)->Arg(1000000)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Load, putmany_rewritten, true, true)
    ->Arg(1000000)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace engram::index

BENCHMARK_MAIN();
