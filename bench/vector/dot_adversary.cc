// The dot metric under adversarial norms (issue 18, part 6): upserts with
// ever longer vectors into a collection of ordinary ones. Prints, per
// scenario, the worst and median upsert latency, the records the graph's
// Euclidean copy relinked, and recall@10 of the planner's answer and of a
// forced graph walk against exact dot search over 200 random queries.
//   growing: 3,000 N(0,1) 16-d vectors, then 14 upserts with norms 10^1..10^14
//            (the measurement: recall 0.000, ~1 s per upsert)
//   ramp:    3,000 ordinary, then 2,000 upserts growing 1.5 % each (1 to 1e13)
//   drift:   3,000 ordinary, then 3,000 in batches of 50 growing 0.5 % each
//            (the whole collection drifts: the range must move), then 1,000
//            upserts of norm 1e12
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <random>
#include <vector>

#include "vector/exact/exact_search.h"
#include "vector/test_vectors.h"
#include "vector/vector_index.h"

namespace engram::vector {
namespace {

constexpr std::size_t kDim = 16;
constexpr std::size_t kK = 10;

struct Run {
  std::vector<double> upsert_ms;
  std::size_t records = 0;
};

std::vector<float> Gaussian(std::mt19937_64& rng, double norm) {
  return testing::GaussianVector(rng, kDim, norm);
}

double Millis(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since)
      .count();
}

void Put(VectorIndex& index, Run& run, const std::vector<std::uint32_t>& ids,
         const std::vector<float>& rows) {
  const auto start = std::chrono::steady_clock::now();
  if (!index.PutBatch(ids, rows, 1).ok()) std::abort();
  run.upsert_ms.push_back(Millis(start));
  run.records += ids.size();
}

double Recall(const VectorIndex& index, std::optional<VectorPlan> plan) {
  std::mt19937_64 rng(99);
  double sum = 0;
  for (int i = 0; i < 200; ++i) {
    const std::vector<float> q = Gaussian(rng, 0);
    VectorSearchOptions o;
    o.k = kK;
    o.plan = plan;
    const std::vector<Neighbor> got = *index.Search(q, o);
    const std::vector<Neighbor> truth =
        ExactSearch(index.store(), index.store().PrepareQuery(q)->data(), kK);
    std::size_t hit = 0;
    for (const Neighbor& t : truth) {
      hit += std::any_of(got.begin(), got.end(), [&](const Neighbor& g) { return g.id == t.id; });
    }
    sum += static_cast<double>(hit) / static_cast<double>(truth.size());
  }
  return sum / 200;
}

void Report(const char* name, const VectorIndex& index, Run run) {
  std::sort(run.upsert_ms.begin(), run.upsert_ms.end());
  std::printf("| %-8s | %6zu | %9.3f | %9.3f | %8llu | %7zu | %6.3f | %6.3f |\n", name, run.records,
              run.upsert_ms[run.upsert_ms.size() / 2], run.upsert_ms.back(),
              static_cast<unsigned long long>(index.relinked()), index.outside(),
              Recall(index, std::nullopt), Recall(index, VectorPlan::kGraph));
}

VectorIndex Ordinary(std::mt19937_64& rng) {
  VectorIndexOptions o;
  o.dim = kDim;
  o.metric = Metric::kDot;
  VectorIndex index(o);
  std::vector<std::uint32_t> ids;
  std::vector<float> rows;
  for (std::uint32_t i = 0; i < 3000; ++i) {
    ids.push_back(i);
    const std::vector<float> v = Gaussian(rng, 0);
    rows.insert(rows.end(), v.begin(), v.end());
  }
  const auto start = std::chrono::steady_clock::now();
  if (!index.PutBatch(ids, rows, 1).ok()) std::abort();
  std::printf("(3,000 ordinary vectors linked in %.0f ms)\n", Millis(start));
  return index;
}

}  // namespace
}  // namespace engram::vector

int main() {
  using namespace engram::vector;
  std::printf(
      "| scenario | upserts | median ms | worst ms | relinked | outside | recall@10 planner | "
      "recall@10 graph |\n|---|---:|---:|---:|---:|---:|---:|---:|\n");
  {
    std::mt19937_64 rng(1);
    Run run;
    VectorIndex index = Ordinary(rng);
    for (int e = 1; e <= 14; ++e) {
      Put(index, run, {static_cast<std::uint32_t>(3000 + e)}, Gaussian(rng, std::pow(10.0, e)));
    }
    Report("growing", index, run);
  }
  {
    std::mt19937_64 rng(2);
    Run run;
    VectorIndex index = Ordinary(rng);
    double norm = 1;
    for (std::uint32_t i = 0; i < 2000; ++i, norm *= 1.015) {
      Put(index, run, {3000 + i}, Gaussian(rng, norm));
    }
    Report("ramp", index, run);
  }
  {
    std::mt19937_64 rng(3);
    Run run;
    VectorIndex index = Ordinary(rng);
    double norm = 1;
    std::uint32_t next = 3000;
    for (int b = 0; b < 60; ++b) {
      std::vector<std::uint32_t> ids;
      std::vector<float> rows;
      for (int j = 0; j < 50; ++j, norm *= 1.005) {
        ids.push_back(next++);
        const std::vector<float> v = Gaussian(rng, norm);
        rows.insert(rows.end(), v.begin(), v.end());
      }
      Put(index, run, ids, rows);
    }
    for (int i = 0; i < 1000; ++i) Put(index, run, {next++}, Gaussian(rng, 1e12));
    Report("drift", index, run);
  }
  return 0;
}
