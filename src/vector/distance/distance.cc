// The portable kernels and the run-time choice between them and the AVX2 ones
// (distance_avx2.cc). The choice is made once, on first use, into a table of
// function pointers; DistanceFor hands out a pointer from that table, so the
// indexes pay one indirect call per distance and never re-check the CPU.
#include "vector/distance/distance.h"

#include "vector/distance/distance_avx2.h"

namespace engram::vector {
namespace portable {

// Eight independent partial sums: the loop carries no single add chain, and
// the compiler can keep them in SIMD registers without reassociating (which
// it may not do for floats without -ffast-math).
float L2Squared(const float* a, const float* b, std::size_t dim) {
  float s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  std::size_t i = 0;
  for (; i + 8 <= dim; i += 8) {
    for (std::size_t j = 0; j < 8; ++j) {
      const float d = a[i + j] - b[i + j];
      s[j] += d * d;
    }
  }
  for (std::size_t j = 0; i < dim; ++i, ++j) {
    const float d = a[i] - b[i];
    s[j] += d * d;
  }
  return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

float InnerProduct(const float* a, const float* b, std::size_t dim) {
  float s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  std::size_t i = 0;
  for (; i + 8 <= dim; i += 8) {
    for (std::size_t j = 0; j < 8; ++j) s[j] += a[i + j] * b[i + j];
  }
  for (std::size_t j = 0; i < dim; ++i, ++j) s[j] += a[i] * b[i];
  return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

std::int32_t DotCodes(const std::int16_t* q, const std::uint8_t* code, std::size_t dim) {
  std::int32_t s = 0;
  for (std::size_t i = 0; i < dim; ++i) s += std::int32_t{q[i]} * code[i];
  return s;
}

namespace {
float CosineDistance(const float* a, const float* b, std::size_t dim) {
  return 1.0f - InnerProduct(a, b, dim);
}
float DotDistance(const float* a, const float* b, std::size_t dim) {
  return -InnerProduct(a, b, dim);
}
}  // namespace
}  // namespace portable

bool Avx2Supported() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

namespace {

struct Kernels {
  DistanceFn l2;
  DistanceFn inner_product;
  DistanceFn cosine;
  DistanceFn dot;
  DotCodesFn dot_codes;
  std::string_view name;
};

const Kernels& Active() {
  static const Kernels kernels =
      Avx2Supported()
          ? Kernels{avx2::L2Squared,   avx2::InnerProduct, avx2::CosineDistance,
                    avx2::DotDistance, avx2::DotCodes,     "avx2"}
          : Kernels{portable::L2Squared,   portable::InnerProduct, portable::CosineDistance,
                    portable::DotDistance, portable::DotCodes,     "portable"};
  return kernels;
}

}  // namespace

float L2Squared(const float* a, const float* b, std::size_t dim) {
  return Active().l2(a, b, dim);
}

float InnerProduct(const float* a, const float* b, std::size_t dim) {
  return Active().inner_product(a, b, dim);
}

DistanceFn DistanceFor(Metric metric) {
  const Kernels& k = Active();
  switch (metric) {
    case Metric::kCosine:
      return k.cosine;
    case Metric::kDot:
      return k.dot;
    case Metric::kL2:
      return k.l2;
  }
  return k.l2;
}

DotCodesFn DotCodesKernel() {
  return Active().dot_codes;
}

std::string_view KernelName() {
  return Active().name;
}

}  // namespace engram::vector
