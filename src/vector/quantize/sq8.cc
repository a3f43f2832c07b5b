// Sq8Codes: per-vector 8-bit quantisation (sq8.h). A row:
//   f32 lo, f32 step, f32 norm2 (of the decoded vector), 4 bytes zero,
//   dim x u8 codes, zero padding to a multiple of 16 bytes.
#include "vector/quantize/sq8.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace engram::vector {
namespace {

constexpr std::size_t kHeader = 16;

struct RowHeader {
  float lo;
  float step;
  float norm2;
};

RowHeader Header(const std::uint8_t* row) {
  RowHeader h;
  std::memcpy(&h, row, sizeof h);
  return h;
}

}  // namespace

Sq8Codes::Sq8Codes(std::size_t dim, Metric metric)
    : dim_(dim), metric_(metric), stride_((kHeader + dim + 15) / 16 * 16) {}

void Sq8Codes::Resize(std::uint32_t limit) {
  const std::size_t needed = std::size_t{limit} * stride_;
  if (needed <= bytes_.size()) return;
  // Doubling keeps appends in record order amortised O(dim) each.
  if (needed > bytes_.capacity()) bytes_.reserve(std::max(needed, 2 * bytes_.capacity()));
  bytes_.resize(needed, 0);
}

void Sq8Codes::Encode(std::uint32_t id, const float* x) {
  std::uint8_t* row = bytes_.data() + std::size_t{id} * stride_;
  const auto [min_it, max_it] = std::minmax_element(x, x + dim_);
  const float lo = *min_it;
  // In double: max - lo of components up to 1e15 in magnitude stays finite.
  const double range = static_cast<double>(*max_it) - lo;
  const float step = static_cast<float>(range / 255.0);
  double norm2 = 0;
  std::uint8_t* code = row + kHeader;
  for (std::size_t i = 0; i < dim_; ++i) {
    const double c = step > 0 ? std::nearbyint((static_cast<double>(x[i]) - lo) / step) : 0.0;
    code[i] = static_cast<std::uint8_t>(std::clamp(c, 0.0, 255.0));
    const double decoded = lo + static_cast<double>(step) * code[i];
    norm2 += decoded * decoded;
  }
  const RowHeader h{lo, step, static_cast<float>(norm2)};
  std::memcpy(row, &h, sizeof h);
}

Sq8Query Sq8Codes::Prepare(const float* q) const {
  Sq8Query p;
  double sum = 0, norm2 = 0, top = 0;
  for (std::size_t i = 0; i < dim_; ++i) {
    sum += q[i];
    norm2 += static_cast<double>(q[i]) * q[i];
    top = std::max(top, std::abs(static_cast<double>(q[i])));
  }
  p.sum = static_cast<float>(sum);
  p.norm2 = static_cast<float>(norm2);
  const double scale = top > 0 ? kQueryMax / top : 1.0;
  p.inv_scale = static_cast<float>(1.0 / scale);
  p.q.assign(stride_ - kHeader, 0);
  for (std::size_t i = 0; i < dim_; ++i) {
    p.q[i] = static_cast<std::int16_t>(std::nearbyint(q[i] * scale));
  }
  return p;
}

float Sq8Codes::Distance(const Sq8Query& q, std::uint32_t id) const {
  const std::uint8_t* row = Row(id);
  const RowHeader h = Header(row);
  const float codes = static_cast<float>(dot_(q.q.data(), row + kHeader, q.q.size()));
  const float dot = h.lo * q.sum + h.step * q.inv_scale * codes;
  switch (metric_) {
    case Metric::kCosine:
      return 1.0f - dot;
    case Metric::kDot:
      return -dot;
    case Metric::kL2:
      return std::max(0.0f, q.norm2 - 2.0f * dot + h.norm2);
  }
  return 0;
}

std::vector<float> Sq8Codes::Decode(std::uint32_t id) const {
  const std::uint8_t* row = Row(id);
  const RowHeader h = Header(row);
  std::vector<float> out(dim_);
  for (std::size_t i = 0; i < dim_; ++i) out[i] = h.lo + h.step * row[kHeader + i];
  return out;
}

}  // namespace engram::vector
