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

// Sixteen codes a step, widened to 16 bits and multiplied with the query's
// 16-bit components in pairs summed into 32 bits (vpmaddwd); dim is a
// multiple of 16.
std::int32_t DotCodes(const std::int16_t* q, const std::uint8_t* code, std::size_t dim) {
  __m256i s0 = _mm256_setzero_si256(), s1 = _mm256_setzero_si256();
  std::size_t i = 0;
  for (; i + 32 <= dim; i += 32) {
    const __m256i c0 =
        _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(code + i)));
    const __m256i c1 =
        _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(code + i + 16)));
    s0 = _mm256_add_epi32(
        s0, _mm256_madd_epi16(c0, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + i))));
    s1 = _mm256_add_epi32(
        s1,
        _mm256_madd_epi16(c1, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + i + 16))));
  }
  if (i < dim) {
    const __m256i c0 =
        _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(code + i)));
    s0 = _mm256_add_epi32(
        s0, _mm256_madd_epi16(c0, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + i))));
  }
  __m256i s = _mm256_add_epi32(s0, s1);
  __m128i h = _mm_add_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
  h = _mm_add_epi32(h, _mm_shuffle_epi32(h, 0x4E));
  h = _mm_add_epi32(h, _mm_shuffle_epi32(h, 0xB1));
  return _mm_cvtsi128_si32(h);
}

float CosineDistance(const float* a, const float* b, std::size_t dim) {
  return 1.0f - InnerProduct(a, b, dim);
}

float DotDistance(const float* a, const float* b, std::size_t dim) {
  return -InnerProduct(a, b, dim);
}

}  // namespace engram::vector::avx2
