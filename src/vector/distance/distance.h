// Float32 distance kernels. The implementation is chosen once, at first use,
// from what the CPU offers: AVX2+FMA where present, a portable loop otherwise.
// Both give the same ordering; sums may differ in the last bits because the
// vector code adds in a different order.
#ifndef ENGRAM_VECTOR_DISTANCE_DISTANCE_H_
#define ENGRAM_VECTOR_DISTANCE_DISTANCE_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "vector/metric.h"

namespace engram::vector {

using DistanceFn = float (*)(const float* a, const float* b, std::size_t dim);

// Sum of (a[i] - b[i])^2.
float L2Squared(const float* a, const float* b, std::size_t dim);
// Sum of a[i] * b[i].
float InnerProduct(const float* a, const float* b, std::size_t dim);

// The internal ordering distance of `metric` (metric.h): L2Squared for l2,
// 1 - InnerProduct for cosine (on normalised vectors), -InnerProduct for dot.
DistanceFn DistanceFor(Metric metric);

// sum q[i] * code[i] of a 16-bit query and 8-bit codes (quantize/sq8.h),
// dim a multiple of 16, in 32-bit integers (exact for |q[i]| <= 2047 up to
// dim 4112): the kernel in use, chosen as the float ones are.
using DotCodesFn = std::int32_t (*)(const std::int16_t* q, const std::uint8_t* code,
                                    std::size_t dim);
DotCodesFn DotCodesKernel();

// "avx2" or "portable": the kernels in use, for explain and benchmarks.
std::string_view KernelName();

// The portable kernels, always available (tests compare against them).
namespace portable {
float L2Squared(const float* a, const float* b, std::size_t dim);
float InnerProduct(const float* a, const float* b, std::size_t dim);
std::int32_t DotCodes(const std::int16_t* q, const std::uint8_t* code, std::size_t dim);
}  // namespace portable

}  // namespace engram::vector

#endif  // ENGRAM_VECTOR_DISTANCE_DISTANCE_H_
