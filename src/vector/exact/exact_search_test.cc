#include "vector/exact/exact_search.h"

#include <algorithm>
#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace engram::vector {
namespace {

// The oracle's oracle: every allowed live record, sorted.
std::vector<Neighbor> Naive(const VectorStore& store, const float* query, std::size_t k,
                            const roaring::Roaring* allowed) {
  std::vector<Neighbor> all;
  for (std::uint32_t id = 0; id < store.limit(); ++id) {
    if (!store.Contains(id) || (allowed != nullptr && !allowed->contains(id))) continue;
    all.push_back({id, store.Distance(query, id)});
  }
  std::sort(all.begin(), all.end());
  if (all.size() > k) all.resize(k);
  return all;
}

VectorStore RandomStore(Metric metric, std::size_t dim, std::uint32_t n, std::mt19937_64& rng) {
  std::normal_distribution<float> normal;
  VectorStore store(dim, metric);
  std::vector<float> v(dim);
  for (std::uint32_t id = 0; id < n; ++id) {
    if (rng() % 10 == 0) continue;  // gaps
    for (float& x : v) x = normal(rng);
    EXPECT_TRUE(store.Put(id, v).ok());
  }
  for (std::uint32_t id = 0; id < n; id += 7) store.Remove(id);
  return store;
}

std::vector<float> RandomQuery(const VectorStore& store, std::mt19937_64& rng) {
  std::normal_distribution<float> normal;
  std::vector<float> raw(store.dim());
  for (float& x : raw) x = normal(rng);
  auto query = store.PrepareQuery(raw);
  EXPECT_TRUE(query.ok());
  return query.ok() ? *query : raw;
}

// Allowed ids include dead, never-stored and past-the-limit ones.
roaring::Roaring RandomAllowed(std::uint32_t n, double density, std::mt19937_64& rng) {
  roaring::Roaring allowed;
  for (std::uint32_t id = 0; id < n + 50; ++id) {
    if (std::uniform_real_distribution<double>()(rng) < density) allowed.add(id);
  }
  return allowed;
}

TEST(ExactSearch, MatchesNaiveSortForEveryMetricAndDensity) {
  std::mt19937_64 rng(1);
  for (Metric metric : {Metric::kCosine, Metric::kDot, Metric::kL2}) {
    for (std::size_t dim : {1, 5, 16, 37}) {
      const std::uint32_t n = 1500;
      VectorStore store = RandomStore(metric, dim, n, rng);
      const std::vector<float> query = RandomQuery(store, rng);
      for (double density : {0.0, 0.001, 0.01, 0.2, 0.7, 1.0}) {
        const roaring::Roaring allowed = RandomAllowed(n, density, rng);
        for (std::size_t k : {1, 10, 100, 5000}) {
          EXPECT_EQ(ExactSearch(store, query.data(), k, &allowed),
                    Naive(store, query.data(), k, &allowed))
              << MetricName(metric) << " dim " << dim << " density " << density << " k " << k;
        }
      }
      for (std::size_t k : {1, 10, 2000}) {
        EXPECT_EQ(ExactSearch(store, query.data(), k), Naive(store, query.data(), k, nullptr));
      }
    }
  }
}

// The codes' scan: exact wherever rerank * k covers every candidate, and
// otherwise nearly the exact answer, always with the floats' distances.
TEST(CodedSearch, MatchesTheExactScanWithFloatDistances) {
  std::mt19937_64 rng(2);
  for (Metric metric : {Metric::kCosine, Metric::kDot, Metric::kL2}) {
    for (std::size_t dim : {1, 16, 37, 128}) {
      const std::uint32_t n = 1500;
      VectorStore store = RandomStore(metric, dim, n, rng);
      store.EnableCodes();
      std::size_t found = 0, wanted = 0;
      for (int qi = 0; qi < 20; ++qi) {
        const std::vector<float> query = RandomQuery(store, rng);
        for (double density : {0.005, 0.2, 1.0}) {
          const roaring::Roaring allowed = RandomAllowed(n, density, rng);
          const auto exact = Naive(store, query.data(), 10, &allowed);
          const auto got = CodedSearch(store, query.data(), 10, 4, &allowed);
          ASSERT_EQ(got.size(), exact.size());
          ASSERT_TRUE(std::is_sorted(got.begin(), got.end()));
          for (const Neighbor& nb : got) {
            EXPECT_EQ(nb.distance, store.Distance(query.data(), nb.id));
            EXPECT_TRUE(allowed.contains(nb.id) && store.Contains(nb.id));
            found += std::count(exact.begin(), exact.end(), nb);
          }
          if (allowed.cardinality() <= 40) {
            EXPECT_EQ(got, exact) << MetricName(metric) << " dim " << dim;  // all re-ranked
          }
          wanted += exact.size();
        }
      }
      // Measured: 1.000 for every metric and dim here.
      EXPECT_GE(static_cast<double>(found), 0.97 * static_cast<double>(wanted))
          << MetricName(metric) << " dim " << dim;
    }
  }
}

TEST(ExactSearch, TiesBrokenByRecordNumber) {
  VectorStore store(2, Metric::kL2);
  // Every record at the same distance from the query, stored out of order.
  for (std::uint32_t id : {9u, 3u, 7u, 1u, 5u, 0u}) {
    ASSERT_TRUE(store.Put(id, std::vector<float>{id % 2 ? 1.0f : -1.0f, 0}).ok());
  }
  const float q[] = {0, 0};
  std::vector<Neighbor> got = ExactSearch(store, q, 4);
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[0].id, 0u);
  EXPECT_EQ(got[1].id, 1u);
  EXPECT_EQ(got[2].id, 3u);
  EXPECT_EQ(got[3].id, 5u);
  for (const Neighbor& nb : got) EXPECT_EQ(nb.distance, 1.0f);
  // A nearer record replaces the largest id among the ties.
  ASSERT_TRUE(store.Put(8, std::vector<float>{0.5f, 0}).ok());
  got = ExactSearch(store, q, 4);
  EXPECT_EQ(got[0], (Neighbor{8, 0.25f}));
  EXPECT_EQ(got[3].id, 3u);
}

TEST(ExactSearch, SkipsDeadAndHandlesSmallSets) {
  VectorStore store(1, Metric::kDot);
  for (std::uint32_t id = 0; id < 10; ++id) {
    ASSERT_TRUE(store.Put(id, std::vector<float>{static_cast<float>(id)}).ok());
  }
  store.Remove(9);
  store.Remove(8);
  const float q[] = {1};
  roaring::Roaring allowed = roaring::Roaring::bitmapOf(4, 2, 8, 9, 1000);
  std::vector<Neighbor> got = ExactSearch(store, q, 10, &allowed);
  ASSERT_EQ(got.size(), 1u);  // k larger than what is allowed and live
  EXPECT_EQ(got[0], (Neighbor{2, -2.0f}));
  got = ExactSearch(store, q, 3);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].id, 7u);
  EXPECT_EQ(got[2].id, 5u);
  EXPECT_TRUE(ExactSearch(store, q, 0).empty());
  roaring::Roaring none;
  EXPECT_TRUE(ExactSearch(store, q, 5, &none).empty());
  VectorStore empty(1, Metric::kDot);
  EXPECT_TRUE(ExactSearch(empty, q, 5).empty());
  EXPECT_TRUE(ExactSearch(empty, q, 5, &allowed).empty());
}

}  // namespace
}  // namespace engram::vector
