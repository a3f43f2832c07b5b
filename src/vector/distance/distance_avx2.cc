// AVX2+FMA distance kernels. This file alone is compiled with -mavx2 -mfma
// (src/vector/CMakeLists.txt); it includes no library headers with inline
// functions, so no AVX2 copy of a shared inline function can be picked by the
// linker for code that runs on CPUs without AVX2.
//
// Each kernel keeps four 8-lane accumulators, so four independent FMA chains
// hide the FMA latency (4-5 cycles at 2 per cycle on Haswell and later), then
// finishes with one 8-lane step and a masked load for the last dim % 8
// components: any dim works and nothing is read past the end.
#include "vector/distance/distance_avx2.h"

#include <cstdint>

#include <immintrin.h>

namespace engram::vector::avx2 {
namespace {

// Loading 8 lanes at kTailMask + 8 - r gives r all-ones lanes, then zeros.
alignas(64) constexpr std::int32_t kTailMask[16] = {-1, -1, -1, -1, -1, -1, -1, -1,
                                                    0,  0,  0,  0,  0,  0,  0,  0};

inline __m256i TailMask(std::size_t r) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kTailMask + 8 - r));
}

inline float HorizontalSum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

}  // namespace

float L2Squared(const float* a, const float* b, std::size_t dim) {
  __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
  __m256 s2 = _mm256_setzero_ps(), s3 = _mm256_setzero_ps();
  std::size_t i = 0;
  for (; i + 32 <= dim; i += 32) {
    const __m256 d0 = _mm256_sub_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i));
    const __m256 d1 = _mm256_sub_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8));
    const __m256 d2 = _mm256_sub_ps(_mm256_loadu_ps(a + i + 16), _mm256_loadu_ps(b + i + 16));
    const __m256 d3 = _mm256_sub_ps(_mm256_loadu_ps(a + i + 24), _mm256_loadu_ps(b + i + 24));
    s0 = _mm256_fmadd_ps(d0, d0, s0);
    s1 = _mm256_fmadd_ps(d1, d1, s1);
    s2 = _mm256_fmadd_ps(d2, d2, s2);
    s3 = _mm256_fmadd_ps(d3, d3, s3);
  }
  for (; i + 8 <= dim; i += 8) {
    const __m256 d = _mm256_sub_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i));
    s0 = _mm256_fmadd_ps(d, d, s0);
  }
  if (i < dim) {
    const __m256i mask = TailMask(dim - i);
    const __m256 d =
        _mm256_sub_ps(_mm256_maskload_ps(a + i, mask), _mm256_maskload_ps(b + i, mask));
    s1 = _mm256_fmadd_ps(d, d, s1);
  }
  return HorizontalSum(_mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3)));
}

float InnerProduct(const float* a, const float* b, std::size_t dim) {
  __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
  __m256 s2 = _mm256_setzero_ps(), s3 = _mm256_setzero_ps();
  std::size_t i = 0;
  for (; i + 32 <= dim; i += 32) {
    s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
    s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8), s1);
    s2 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 16), _mm256_loadu_ps(b + i + 16), s2);
    s3 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 24), _mm256_loadu_ps(b + i + 24), s3);
  }
  for (; i + 8 <= dim; i += 8) {
    s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
  }
  if (i < dim) {
    const __m256i mask = TailMask(dim - i);
    s1 = _mm256_fmadd_ps(_mm256_maskload_ps(a + i, mask), _mm256_maskload_ps(b + i, mask), s1);
  }
  return HorizontalSum(_mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3)));
}

float CosineDistance(const float* a, const float* b, std::size_t dim) {
  return 1.0f - InnerProduct(a, b, dim);
}

float DotDistance(const float* a, const float* b, std::size_t dim) {
  return -InnerProduct(a, b, dim);
}

}  // namespace engram::vector::avx2
