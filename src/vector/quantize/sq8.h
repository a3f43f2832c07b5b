// Sq8Codes: an 8-bit copy of a VectorStore's vectors for the graph walk,
// four times fewer bytes to bring from memory per distance than float32.
// Each vector is quantised on its own range (no training, so vectors may
// arrive in any order and any scale): x[i] ~ lo + step * code[i], code in
// [0, 255], with lo = min x[i] and step = (max x[i] - lo) / 255, so each
// component is off by at most step / 2. A row holds lo, step, the decoded
// vector's squared norm and the codes, so one distance reads one row.
//
// Distances are those of the decoded vectors (the metric's internal
// distance, metric.h), computed from one integer dot product q.code of the
// query, rounded to 12 bits (kQueryMax), with the codes: q.x = lo * sum(q) +
// step * q.code. They order near neighbours almost as the float vectors do;
// callers re-rank their final candidates with the floats (Hnsw::Search). Not
// thread-safe for writes; concurrent const use is safe.
#ifndef ENGRAM_VECTOR_QUANTIZE_SQ8_H_
#define ENGRAM_VECTOR_QUANTIZE_SQ8_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "vector/distance/distance.h"
#include "vector/metric.h"

namespace engram::vector {

// The largest magnitude of a prepared query's components: with it the codes'
// dot product (DotCodesKernel) stays exact in 32 bits up to dim 4112.
constexpr std::int16_t kQueryMax = 2047;

// A query prepared for Sq8Codes::Distance: rounded to 16-bit integers of at
// most kQueryMax in magnitude, and its sums.
struct Sq8Query {
  std::vector<std::int16_t> q;  // round(q[i] * scale), |.| <= kQueryMax, padded to 16
  float inv_scale = 0;          // 1 / scale
  float sum = 0;                // sum of q[i]
  float norm2 = 0;              // sum of q[i]^2
};

class Sq8Codes {
 public:
  Sq8Codes(std::size_t dim, Metric metric);

  // Row bytes: 16 of parameters, then dim codes, rounded up to 16.
  std::size_t stride() const { return stride_; }
  std::size_t dim() const { return dim_; }
  // Rows for record numbers below `limit` (new rows zero: distance from the
  // origin until Encode).
  void Resize(std::uint32_t limit);
  // Quantises `x` (dim floats, finite) into row `id` < the limit.
  void Encode(std::uint32_t id, const float* x);

  Sq8Query Prepare(const float* q) const;
  // The metric's internal distance from the query to row `id`'s decoded
  // vector.
  float Distance(const Sq8Query& q, std::uint32_t id) const;
  // Row `id`'s first byte, for prefetching.
  const std::uint8_t* Row(std::uint32_t id) const {
    return bytes_.data() + std::size_t{id} * stride_;
  }
  // The decoded vector of row `id` (tests).
  std::vector<float> Decode(std::uint32_t id) const;
  std::size_t MemoryBytes() const { return bytes_.capacity(); }

 private:
  std::size_t dim_;
  Metric metric_;
  std::size_t stride_;
  DotCodesFn dot_ = DotCodesKernel();
  std::vector<std::uint8_t> bytes_;
};

}  // namespace engram::vector

#endif  // ENGRAM_VECTOR_QUANTIZE_SQ8_H_
