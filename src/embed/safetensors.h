// A strict reader of the safetensors format (huggingface/safetensors: an
// 8-byte little-endian header length, a JSON header naming each tensor's
// dtype, shape and byte range, then the data), for the model2vec embedder.
// Every refusal names the file and where in it the fault is.
#ifndef ENGRAM_EMBED_SAFETENSORS_H_
#define ENGRAM_EMBED_SAFETENSORS_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"

namespace engram::embed {

// The largest header accepted (the reference library's own limit).
inline constexpr std::uint64_t kMaxSafetensorsHeader = std::uint64_t{100} << 20;

enum class Dtype { kF64, kF32, kF16, kBF16, kI64, kI32, kI8 };

std::string_view DtypeName(Dtype dtype);  // "F32", ...
std::size_t DtypeSize(Dtype dtype);       // bytes per element

struct TensorInfo {
  Dtype dtype = Dtype::kF32;
  std::vector<std::size_t> shape;
  std::size_t begin = 0, end = 0;  // byte range inside the data section
  std::size_t elements() const;    // the product of `shape` (1 for a scalar)
};

// A parsed file. It owns the file's bytes; views stay valid while it lives.
class Safetensors {
 public:
  // Parses `bytes` (the whole file). InvalidArgument, prefixed by `origin`,
  // when: the file is shorter than 8 bytes; the header length is past the
  // file or beyond kMaxSafetensorsHeader; the header is not a JSON object
  // (strict: no duplicate keys) of tensors `{"dtype","shape","data_offsets"}`
  // (plus an optional string map "__metadata__"); a dtype is unknown; a shape
  // is not a list of non-negative integers or its byte size overflows; the
  // offsets are not `[begin, end]` with begin <= end inside the data; a
  // tensor's byte range does not match dtype x shape; tensors overlap or
  // leave bytes of the data section unused.
  static StatusOr<Safetensors> Parse(std::string bytes, std::string_view origin);

  const std::map<std::string, TensorInfo, std::less<>>& tensors() const { return tensors_; }
  const TensorInfo* Find(std::string_view name) const;
  // The tensor's raw little-endian bytes.
  std::string_view Data(const TensorInfo& tensor) const;

  // The tensor's values as float: F64 rounded, F16 and BF16 widened,
  // integers converted (I8 embeddings are used as their integer values, as
  // the reference library does).
  std::vector<float> ToFloats(const TensorInfo& tensor) const;
  // The values of an I32 or I64 tensor as int64.
  std::vector<std::int64_t> ToInts(const TensorInfo& tensor) const;

 private:
  std::string bytes_;
  std::size_t data_start_ = 0;
  std::map<std::string, TensorInfo, std::less<>> tensors_;
};

// IEEE half and bfloat16 to float.
float HalfToFloat(std::uint16_t h);
float Bf16ToFloat(std::uint16_t h);

}  // namespace engram::embed

#endif  // ENGRAM_EMBED_SAFETENSORS_H_
