// The AVX2+FMA kernels (distance_avx2.cc, compiled with -mavx2 -mfma). Only
// call them after checking the CPU (Avx2Supported); distance.cc dispatches to
// them, the tests and benchmarks compare them with the portable ones.
#ifndef ENGRAM_VECTOR_DISTANCE_DISTANCE_AVX2_H_
#define ENGRAM_VECTOR_DISTANCE_DISTANCE_AVX2_H_

#include <cstddef>
#include <cstdint>

namespace engram::vector {

// True when the CPU runs AVX2 and FMA instructions.
bool Avx2Supported();

namespace avx2 {
float L2Squared(const float* a, const float* b, std::size_t dim);
float InnerProduct(const float* a, const float* b, std::size_t dim);
// 1 - InnerProduct and -InnerProduct, each one call (no second indirection).
float CosineDistance(const float* a, const float* b, std::size_t dim);
float DotDistance(const float* a, const float* b, std::size_t dim);
// sum q[i] * code[i] (quantize/sq8.h).
std::int32_t DotCodes(const std::int16_t* q, const std::uint8_t* code, std::size_t dim);
}  // namespace avx2

}  // namespace engram::vector

#endif  // ENGRAM_VECTOR_DISTANCE_DISTANCE_AVX2_H_
