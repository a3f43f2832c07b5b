#include "vector/distance/distance.h"

#include <cmath>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "vector/distance/distance_avx2.h"
#include "vector/metric.h"

namespace engram::vector {
namespace {

std::vector<float> Random(std::size_t n, std::mt19937_64& rng, float scale = 1.0f) {
  std::normal_distribution<float> normal(0.0f, scale);
  std::vector<float> v(n);
  for (float& x : v) x = normal(rng);
  return v;
}

double ExactL2(const float* a, const float* b, std::size_t dim) {
  double s = 0;
  for (std::size_t i = 0; i < dim; ++i) s += (double{a[i]} - b[i]) * (double{a[i]} - b[i]);
  return s;
}

double ExactDot(const float* a, const float* b, std::size_t dim) {
  double s = 0;
  for (std::size_t i = 0; i < dim; ++i) s += double{a[i]} * b[i];
  return s;
}

// Float sums in any order stay within a few ulps per term of the exact sum,
// measured against the sum of magnitudes (the dot product can cancel).
double Tolerance(const float* a, const float* b, std::size_t dim, bool l2) {
  double mag = 0;
  for (std::size_t i = 0; i < dim; ++i) {
    mag += l2 ? (double{a[i]} - b[i]) * (double{a[i]} - b[i]) : std::fabs(double{a[i]} * b[i]);
  }
  return 4e-7 * (dim + 4) * mag + 1e-30;
}

TEST(Distance, PortableMatchesDoublePrecision) {
  std::mt19937_64 rng(1);
  for (std::size_t dim = 1; dim <= 300; ++dim) {
    // Offset storage so that the kernels see unaligned pointers too.
    std::vector<float> a = Random(dim + 1, rng), b = Random(dim + 3, rng);
    const float* pa = a.data() + 1;
    const float* pb = b.data() + 3;
    EXPECT_NEAR(portable::L2Squared(pa, pb, dim), ExactL2(pa, pb, dim),
                Tolerance(pa, pb, dim, true))
        << dim;
    EXPECT_NEAR(portable::InnerProduct(pa, pb, dim), ExactDot(pa, pb, dim),
                Tolerance(pa, pb, dim, false))
        << dim;
  }
}

TEST(Distance, Avx2MatchesPortable) {
  if (!Avx2Supported()) GTEST_SKIP() << "CPU without AVX2+FMA";
  std::mt19937_64 rng(2);
  for (std::size_t dim = 1; dim <= 300; ++dim) {
    for (int rep = 0; rep < 3; ++rep) {
      std::vector<float> a = Random(dim + 1, rng, 10.0f), b = Random(dim + 2, rng);
      const float* pa = a.data() + 1;
      const float* pb = b.data() + 2;
      const double tl = Tolerance(pa, pb, dim, true), td = Tolerance(pa, pb, dim, false);
      EXPECT_NEAR(avx2::L2Squared(pa, pb, dim), ExactL2(pa, pb, dim), tl) << dim;
      EXPECT_NEAR(avx2::L2Squared(pa, pb, dim), portable::L2Squared(pa, pb, dim), 2 * tl) << dim;
      EXPECT_NEAR(avx2::InnerProduct(pa, pb, dim), ExactDot(pa, pb, dim), td) << dim;
      EXPECT_NEAR(avx2::InnerProduct(pa, pb, dim), portable::InnerProduct(pa, pb, dim), 2 * td)
          << dim;
      EXPECT_FLOAT_EQ(avx2::CosineDistance(pa, pb, dim), 1.0f - avx2::InnerProduct(pa, pb, dim));
      EXPECT_FLOAT_EQ(avx2::DotDistance(pa, pb, dim), -avx2::InnerProduct(pa, pb, dim));
    }
  }
}

// The masked tail must read nothing past dim: the components after it are
// poison that would change the result if read.
TEST(Distance, TailReadsOnlyDim) {
  for (std::size_t dim = 1; dim <= 40; ++dim) {
    std::vector<float> a(dim + 8, 1e30f), b(dim + 8, -1e30f);
    for (std::size_t i = 0; i < dim; ++i) a[i] = 1.0f, b[i] = 2.0f;
    EXPECT_FLOAT_EQ(L2Squared(a.data(), b.data(), dim), static_cast<float>(dim)) << dim;
    EXPECT_FLOAT_EQ(InnerProduct(a.data(), b.data(), dim), 2.0f * dim) << dim;
    EXPECT_FLOAT_EQ(portable::L2Squared(a.data(), b.data(), dim), static_cast<float>(dim));
    EXPECT_FLOAT_EQ(portable::InnerProduct(a.data(), b.data(), dim), 2.0f * dim);
  }
}

TEST(Distance, ExactSmallIntegers) {
  const float a[] = {1, 2, 3}, b[] = {4, 6, 3};
  EXPECT_EQ(L2Squared(a, b, 3), 25.0f);
  EXPECT_EQ(InnerProduct(a, b, 3), 25.0f);
  EXPECT_EQ(portable::L2Squared(a, b, 3), 25.0f);
  EXPECT_EQ(portable::InnerProduct(a, b, 3), 25.0f);
}

TEST(Distance, MetricDistances) {
  const float x[] = {0.6f, 0.8f}, y[] = {1.0f, 0.0f};
  EXPECT_FLOAT_EQ(DistanceFor(Metric::kCosine)(x, y, 2), 1.0f - 0.6f);
  EXPECT_FLOAT_EQ(DistanceFor(Metric::kCosine)(x, x, 2), 0.0f);
  EXPECT_FLOAT_EQ(DistanceFor(Metric::kDot)(x, y, 2), -0.6f);
  EXPECT_FLOAT_EQ(DistanceFor(Metric::kL2)(x, y, 2), 0.16f + 0.64f);
  EXPECT_FLOAT_EQ(ReportedDistance(Metric::kL2, 0.16f + 0.64f), std::sqrt(0.8f));
  EXPECT_FLOAT_EQ(ReportedDistance(Metric::kL2, -1e-9f), 0.0f);
  EXPECT_FLOAT_EQ(ReportedDistance(Metric::kCosine, 0.4f), 0.4f);
  EXPECT_FLOAT_EQ(ReportedDistance(Metric::kDot, -0.6f), -0.6f);
}

TEST(Distance, KernelNameFollowsTheCpu) {
  EXPECT_EQ(KernelName(), Avx2Supported() ? "avx2" : "portable");
  // The dispatched pointer is the same on every call (resolved once).
  EXPECT_EQ(DistanceFor(Metric::kL2), DistanceFor(Metric::kL2));
  EXPECT_NE(DistanceFor(Metric::kDot), DistanceFor(Metric::kCosine));
}

TEST(Metric, NamesRoundTrip) {
  for (Metric m : {Metric::kCosine, Metric::kDot, Metric::kL2}) {
    EXPECT_EQ(TryParseMetric(MetricName(m)), m);
  }
  EXPECT_EQ(MetricName(Metric::kCosine), "cosine");
  EXPECT_EQ(MetricName(Metric::kDot), "dot");
  EXPECT_EQ(MetricName(Metric::kL2), "l2");
  EXPECT_FALSE(TryParseMetric("L2").has_value());
  EXPECT_FALSE(TryParseMetric("euclidean").has_value());
  EXPECT_FALSE(TryParseMetric("").has_value());
}

}  // namespace
}  // namespace engram::vector
