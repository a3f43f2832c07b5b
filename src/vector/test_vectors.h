// Seeded clustered test vectors shared by the vector tests: a Gaussian mixture
// (so that neighbourhoods exist and filters can correlate with them) and
// allowed-sets that are random, near or far from a query.
#ifndef ENGRAM_VECTOR_TEST_VECTORS_H_
#define ENGRAM_VECTOR_TEST_VECTORS_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "base/roaring.h"
#include "vector/neighbor.h"
#include "vector/vector_store.h"

namespace engram::vector::testing {

// n vectors of `dim` floats, row-major: `centres` Gaussian clusters (centres
// uniform in [-1, 1]^dim, spread `sigma`).
inline std::vector<float> ClusteredVectors(std::size_t n, std::size_t dim, std::size_t centres,
                                           std::uint64_t seed, float sigma = 0.15f) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> uni(-1, 1);
  std::normal_distribution<float> noise(0, sigma);
  std::vector<float> c(centres * dim);
  for (float& x : c) x = uni(rng);
  std::vector<float> out(n * dim);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t at = rng() % centres;
    for (std::size_t d = 0; d < dim; ++d) out[i * dim + d] = c[at * dim + d] + noise(rng);
  }
  return out;
}

// A vector of `dim` N(0, 1) components, scaled to `norm` when norm > 0.
inline std::vector<float> GaussianVector(std::mt19937_64& rng, std::size_t dim, double norm = 0) {
  std::normal_distribution<float> normal;
  std::vector<float> v(dim);
  double n2 = 0;
  for (float& x : v) {
    x = normal(rng);
    n2 += double{x} * x;
  }
  if (norm > 0) {
    for (float& x : v) x = static_cast<float>(x * norm / std::sqrt(n2));
  }
  return v;
}

// A random allowed-set keeping about `fraction` of 0..n-1.
inline roaring::Roaring RandomAllowed(std::size_t n, double fraction, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::bernoulli_distribution keep(fraction);
  roaring::Roaring r;
  for (std::uint32_t i = 0; i < n; ++i)
    if (keep(rng)) r.add(i);
  return r;
}

// The `count` live records nearest to (near = true) or farthest from a
// prepared query: a filter correlated or anti-correlated with it.
inline roaring::Roaring DistanceRankedAllowed(const VectorStore& store, const float* query,
                                              std::size_t count, bool near) {
  std::vector<Neighbor> all;
  for (std::uint32_t id : store.live()) all.push_back({id, store.Distance(query, id)});
  std::sort(all.begin(), all.end());
  if (!near) std::reverse(all.begin(), all.end());
  roaring::Roaring r;
  for (std::size_t i = 0; i < std::min(count, all.size()); ++i) r.add(all[i].id);
  return r;
}

// |found ∩ truth| / |truth| (1 when truth is empty).
inline double Recall(const std::vector<Neighbor>& found, const std::vector<Neighbor>& truth) {
  if (truth.empty()) return 1;
  std::size_t hit = 0;
  for (const Neighbor& t : truth)
    for (const Neighbor& f : found)
      if (f.id == t.id) {
        ++hit;
        break;
      }
  return static_cast<double>(hit) / truth.size();
}

}  // namespace engram::vector::testing

#endif  // ENGRAM_VECTOR_TEST_VECTORS_H_
