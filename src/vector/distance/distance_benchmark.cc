// Micro-benchmarks of the distance kernels (portable, AVX2 and the dispatched
// pointer the indexes use) and of the exact scan over 100k x 128 random
// vectors at several allowed-set densities. Run the release build:
//   build/release/src/vector/distance_benchmark
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "base/roaring.h"
#include "vector/distance/distance.h"
#include "vector/distance/distance_avx2.h"
#include "vector/exact/exact_search.h"
#include "vector/vector_store.h"

namespace engram::vector {
namespace {

// Many vector pairs, so that the loop does not run from one cache line pair.
constexpr std::size_t kPairs = 64;

std::vector<float> RandomFloats(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal;
  std::vector<float> v(n);
  for (float& x : v) x = normal(rng);
  return v;
}

template <DistanceFn kFn, bool kAvx2>
void BM_Kernel(benchmark::State& state) {
  if (kAvx2 && !Avx2Supported()) {
    state.SkipWithError("CPU without AVX2+FMA");
    return;
  }
  const std::size_t dim = static_cast<std::size_t>(state.range(0));
  const std::vector<float> a = RandomFloats(kPairs * dim, 1), b = RandomFloats(kPairs * dim, 2);
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(kFn(a.data() + i * dim, b.data() + i * dim, dim));
    i = (i + 1) % kPairs;
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_Dispatched(benchmark::State& state) {
  const std::size_t dim = static_cast<std::size_t>(state.range(0));
  const DistanceFn fn = DistanceFor(static_cast<Metric>(state.range(1)));
  const std::vector<float> a = RandomFloats(kPairs * dim, 1), b = RandomFloats(kPairs * dim, 2);
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(fn(a.data() + i * dim, b.data() + i * dim, dim));
    i = (i + 1) % kPairs;
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(std::string(KernelName()) + " " +
                 std::string(MetricName(static_cast<Metric>(state.range(1)))));
}

void Dims(benchmark::internal::Benchmark* b) {
  for (int dim : {96, 128, 768}) b->Arg(dim);
}

BENCHMARK_TEMPLATE(BM_Kernel, portable::L2Squared, false)->Apply(Dims);
BENCHMARK_TEMPLATE(BM_Kernel, portable::InnerProduct, false)->Apply(Dims);
BENCHMARK_TEMPLATE(BM_Kernel, avx2::L2Squared, true)->Apply(Dims);
BENCHMARK_TEMPLATE(BM_Kernel, avx2::InnerProduct, true)->Apply(Dims);
BENCHMARK(BM_Dispatched)->ArgsProduct({{96, 128, 768}, {0, 1, 2}});

// The exact scan: range(0) is the allowed share in 1/1000, 1000 meaning
// no allowed-set at all.
void BM_ExactSearch(benchmark::State& state) {
  constexpr std::size_t kDim = 128;
  constexpr std::uint32_t kN = 100000;
  static const VectorStore* store = [] {
    auto* s = new VectorStore(kDim, Metric::kL2);
    const std::vector<float> v = RandomFloats(std::size_t{kN} * kDim, 3);
    for (std::uint32_t id = 0; id < kN; ++id) {
      if (!s->Put(id, {v.data() + std::size_t{id} * kDim, kDim}).ok()) std::abort();
    }
    return s;
  }();
  const std::int64_t per_mille = state.range(0);
  roaring::Roaring allowed;
  std::mt19937_64 rng(4);
  for (std::uint32_t id = 0; id < kN; ++id) {
    if (static_cast<std::int64_t>(rng() % 1000) < per_mille) allowed.add(id);
  }
  allowed.runOptimize();
  const std::vector<float> queries = RandomFloats(16 * kDim, 5);
  std::size_t q = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        ExactSearch(*store, queries.data() + q * kDim, 10, per_mille >= 1000 ? nullptr : &allowed));
    q = (q + 1) % 16;
  }
  const double scanned = per_mille >= 1000 ? kN : static_cast<double>(allowed.cardinality());
  state.counters["vectors/s"] = benchmark::Counter(
      scanned * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.SetItemsProcessed(state.iterations());  // queries/s
}
BENCHMARK(BM_ExactSearch)
    ->Arg(1000)
    ->Arg(500)
    ->Arg(100)
    ->Arg(10)
    ->Arg(1)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace engram::vector

BENCHMARK_MAIN();
