#include "vector/quantize/sq8.h"

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "vector/distance/distance.h"
#include "vector/distance/distance_avx2.h"

namespace engram::vector {
namespace {

std::vector<float> Random(std::mt19937_64& rng, std::size_t dim, float scale) {
  std::normal_distribution<float> normal(0, scale);
  std::vector<float> v(dim);
  for (float& x : v) x = normal(rng);
  return v;
}

// The AVX2 kernel sums exactly what the portable one does (integers), at
// every length the rows pad to, and the largest sum (every product at its
// largest, at the longest row) does not overflow.
TEST(Sq8, KernelsAgreeExactly) {
  if (!Avx2Supported()) GTEST_SKIP() << "no AVX2 on this CPU";
  std::mt19937_64 rng(1);
  for (std::size_t dim : {16, 32, 48, 64, 80, 96, 112, 128, 144, 400, 1024, 4112}) {
    std::vector<std::int16_t> q(dim);
    std::vector<std::uint8_t> c(dim);
    for (int round = 0; round < 3; ++round) {
      for (std::size_t i = 0; i < dim; ++i) {
        q[i] = round == 2 ? kQueryMax
                          : static_cast<std::int16_t>(static_cast<int>(rng() % 4095) - 2047);
        c[i] = round == 2 ? 255 : static_cast<std::uint8_t>(rng());
      }
      EXPECT_EQ(avx2::DotCodes(q.data(), c.data(), dim),
                portable::DotCodes(q.data(), c.data(), dim))
          << "dim " << dim << " round " << round;
      if (round == 2) {
        EXPECT_EQ(avx2::DotCodes(q.data(), c.data(), dim),
                  std::int64_t{kQueryMax} * 255 * static_cast<std::int64_t>(dim));
      }
    }
  }
}

// Each component decodes to within half a step of its value, the step being
// the vector's own range / 255; a constant vector decodes exactly.
TEST(Sq8, CodesStayWithinHalfAStep) {
  std::mt19937_64 rng(2);
  for (std::size_t dim : {1, 3, 16, 17, 100, 128, 384}) {
    Sq8Codes codes(dim, Metric::kL2);
    EXPECT_EQ(codes.stride() % 16, 0u);
    EXPECT_GE(codes.stride(), dim + 16);
    codes.Resize(3);
    const std::vector<float> x = Random(rng, dim, 3.0f);
    codes.Encode(0, x.data());
    const auto [lo, hi] = std::minmax_element(x.begin(), x.end());
    const double half_step = (static_cast<double>(*hi) - *lo) / 255 / 2;
    const std::vector<float> d = codes.Decode(0);
    for (std::size_t i = 0; i < dim; ++i) {
      EXPECT_LE(std::abs(static_cast<double>(d[i]) - x[i]), half_step * 1.0001 + 1e-6)
          << "dim " << dim << " component " << i;
    }
    const std::vector<float> flat(dim, -0.25f);
    codes.Encode(1, flat.data());
    EXPECT_EQ(codes.Decode(1), flat);
    // Row 2 was never encoded: zero.
    EXPECT_EQ(codes.Decode(2), std::vector<float>(dim, 0.0f));
  }
}

// Distances are those of the decoded vectors, for every metric, up to the
// query's own 12-bit rounding.
TEST(Sq8, DistancesAreTheDecodedVectors) {
  std::mt19937_64 rng(3);
  for (Metric metric : {Metric::kL2, Metric::kCosine, Metric::kDot}) {
    for (std::size_t dim : {8, 100, 129}) {
      Sq8Codes codes(dim, metric);
      codes.Resize(20);
      std::vector<std::vector<float>> xs;
      for (std::uint32_t id = 0; id < 20; ++id) {
        xs.push_back(Random(rng, dim, 1.0f));
        codes.Encode(id, xs.back().data());
      }
      const std::vector<float> q = Random(rng, dim, 1.0f);
      const Sq8Query prepared = codes.Prepare(q.data());
      double qmax = 0;
      for (float v : q) qmax = std::max(qmax, std::abs(static_cast<double>(v)));
      for (std::uint32_t id = 0; id < 20; ++id) {
        const std::vector<float> d = codes.Decode(id);
        double dot = 0, l2 = 0, decoded_sum = 0;
        for (std::size_t i = 0; i < dim; ++i) {
          dot += static_cast<double>(q[i]) * d[i];
          l2 += (static_cast<double>(q[i]) - d[i]) * (static_cast<double>(q[i]) - d[i]);
          decoded_sum += std::abs(static_cast<double>(d[i]));
        }
        const double want = metric == Metric::kL2 ? l2 : metric == Metric::kCosine ? 1 - dot : -dot;
        // The query is rounded to qmax / 2047 a component.
        const double slack = qmax / kQueryMax * decoded_sum + 1e-4 * (1 + std::abs(want));
        EXPECT_NEAR(codes.Distance(prepared, id), want, 2 * slack)
            << MetricName(metric) << " dim " << dim << " id " << id;
      }
    }
  }
}

// Components at the store's bound (VectorStore::kMaxComponent) and a zero
// query give finite distances: nothing overflows.
TEST(Sq8, ExtremesStayFinite) {
  constexpr std::size_t kDim = 32;
  Sq8Codes codes(kDim, Metric::kL2);
  codes.Resize(2);
  std::vector<float> x(kDim, 1e15f);
  x[0] = -1e15f;
  codes.Encode(0, x.data());
  const std::vector<float> zero(kDim, 0.0f);
  codes.Encode(1, zero.data());
  const std::vector<const std::vector<float>*> queries = {&x, &zero};
  for (const std::vector<float>* q : queries) {
    const Sq8Query prepared = codes.Prepare(q->data());
    for (std::uint32_t id = 0; id < 2; ++id) {
      EXPECT_TRUE(std::isfinite(codes.Distance(prepared, id)));
      EXPECT_GE(codes.Distance(prepared, id), 0.0f);
    }
  }
}

}  // namespace
}  // namespace engram::vector
