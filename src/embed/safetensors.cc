#include "embed/safetensors.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <utility>

#include "base/json.h"
#include "base/status.h"

namespace engram::embed {
namespace {

struct DtypeEntry {
  Dtype dtype;
  std::string_view name;
  std::size_t size;
};
constexpr DtypeEntry kDtypes[] = {
    {Dtype::kF64, "F64", 8},   {Dtype::kF32, "F32", 4}, {Dtype::kF16, "F16", 2},
    {Dtype::kBF16, "BF16", 2}, {Dtype::kI64, "I64", 8}, {Dtype::kI32, "I32", 4},
    {Dtype::kI8, "I8", 1},
};

std::uint64_t LoadLe(const char* p, int bytes) {
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= std::uint64_t{static_cast<unsigned char>(p[i])} << (8 * i);
  return v;
}

// A located refusal: "<origin>: <where>: <what>".
Status Bad(std::string_view origin, std::string_view where, std::string_view what) {
  std::string m(origin);
  m += ": ";
  if (!where.empty()) {
    m += where;
    m += ": ";
  }
  m += what;
  return Status::InvalidArgument(std::move(m));
}

bool AsSize(const json::Value& v, std::size_t* out) {
  const std::optional<std::uint64_t> n = json::CountOf(v);
  if (n) *out = *n;
  return n.has_value();
}

StatusOr<TensorInfo> ParseTensor(const std::string& name, const json::Value& v,
                                 std::size_t data_size, std::string_view origin) {
  const std::string where = "header: tensor '" + name + "'";
  if (!v.is_object()) return Bad(origin, where, "expected an object");
  for (const auto& [key, unused] : v.items()) {
    if (key != "dtype" && key != "shape" && key != "data_offsets") {
      return Bad(origin, where, "unknown member '" + key + "'");
    }
  }
  if (!v.contains("dtype") || !v.contains("shape") || !v.contains("data_offsets")) {
    return Bad(origin, where, "needs dtype, shape and data_offsets");
  }
  TensorInfo t;
  const json::Value& dtype = v["dtype"];
  const auto* entry = std::find_if(std::begin(kDtypes), std::end(kDtypes), [&](const auto& e) {
    return dtype.is_string() && dtype.get<std::string>() == e.name;
  });
  if (entry == std::end(kDtypes)) {
    return Bad(origin, where + ": dtype",
               "unknown " + json::Dump(dtype) + " (known: F64, F32, F16, BF16, I64, I32, I8)");
  }
  t.dtype = entry->dtype;
  const json::Value& shape = v["shape"];
  if (!shape.is_array() || shape.size() > 8) {
    return Bad(origin, where + ": shape", "expected a list of at most 8 sizes");
  }
  std::size_t bytes = entry->size;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    std::size_t n = 0;
    if (!AsSize(shape[i], &n)) {
      return Bad(origin, where + ": shape[" + std::to_string(i) + "]",
                 "expected a non-negative integer, got " + json::Dump(shape[i]));
    }
    if (__builtin_mul_overflow(bytes, n, &bytes)) {
      return Bad(origin, where + ": shape", "the tensor's byte size overflows");
    }
    t.shape.push_back(n);
  }
  const json::Value& offsets = v["data_offsets"];
  if (!offsets.is_array() || offsets.size() != 2 || !AsSize(offsets[0], &t.begin) ||
      !AsSize(offsets[1], &t.end)) {
    return Bad(origin, where + ": data_offsets",
               "expected [begin, end] as non-negative integers, got " + json::Dump(offsets));
  }
  if (t.begin > t.end) {
    return Bad(origin, where + ": data_offsets",
               "begin " + std::to_string(t.begin) + " is after end " + std::to_string(t.end));
  }
  if (t.end > data_size) {
    return Bad(origin, where + ": data_offsets",
               "end " + std::to_string(t.end) + " is past the data (" + std::to_string(data_size) +
                   " bytes)");
  }
  if (t.end - t.begin != bytes) {
    return Bad(origin, where,
               "shape mismatch: dtype " + std::string(entry->name) + " x shape " +
                   json::Dump(shape) + " is " + std::to_string(bytes) +
                   " bytes, data_offsets hold " + std::to_string(t.end - t.begin));
  }
  return t;
}

}  // namespace

std::string_view DtypeName(Dtype dtype) {
  for (const auto& e : kDtypes) {
    if (e.dtype == dtype) return e.name;
  }
  return "?";
}

std::size_t DtypeSize(Dtype dtype) {
  for (const auto& e : kDtypes) {
    if (e.dtype == dtype) return e.size;
  }
  return 0;
}

std::size_t TensorInfo::elements() const {
  std::size_t n = 1;
  for (std::size_t d : shape) n *= d;  // checked not to overflow when parsed
  return n;
}

StatusOr<Safetensors> Safetensors::Parse(std::string bytes, std::string_view origin) {
  if (bytes.size() < 8) {
    return Bad(
        origin, "",
        "shorter than the 8-byte header length (" + std::to_string(bytes.size()) + " bytes)");
  }
  const std::uint64_t n = LoadLe(bytes.data(), 8);
  if (n > kMaxSafetensorsHeader) {
    return Bad(origin, "header length",
               std::to_string(n) + " is beyond the limit of " +
                   std::to_string(kMaxSafetensorsHeader) + " bytes");
  }
  if (n > bytes.size() - 8) {
    return Bad(origin, "header length",
               std::to_string(n) + " is past the end of the file (" + std::to_string(bytes.size()) +
                   " bytes)");
  }
  const std::string_view header(bytes.data() + 8, n);
  if (header.empty() || header.front() != '{') {
    return Bad(origin, "header", "does not start with '{'");
  }
  json::ReadOptions options;
  options.max_bytes = 0;  // bounded by kMaxSafetensorsHeader above
  options.max_depth = 4;
  json::ReadResult doc = json::Read(header, options);
  if (!doc.ok()) {
    return Bad(origin, "header: " + doc.error->path.Dotted("<root>"),
               "not valid JSON: " + doc.error->detail +
                   (doc.error->token.empty() ? "" : " '" + doc.error->token + "'"));
  }
  if (!doc.value.is_object()) return Bad(origin, "header", "expected a JSON object");
  Safetensors out;
  out.data_start_ = 8 + n;
  const std::size_t data_size = bytes.size() - out.data_start_;
  for (const auto& [name, v] : doc.value.items()) {
    if (name == "__metadata__") {
      if (!v.is_object()) return Bad(origin, "header: __metadata__", "expected an object");
      for (const auto& [key, value] : v.items()) {
        if (!value.is_string()) {
          return Bad(origin, "header: __metadata__: " + key, "expected a string");
        }
      }
      continue;
    }
    ASSIGN_OR_RETURN(TensorInfo t, ParseTensor(name, v, data_size, origin));
    out.tensors_.emplace(name, std::move(t));
  }
  // The tensors tile the data section: no overlap, no unused bytes (as the
  // reference reader requires).
  std::vector<std::pair<const std::string*, const TensorInfo*>> order;
  for (const auto& [name, t] : out.tensors_) order.emplace_back(&name, &t);
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return std::pair(a.second->begin, a.second->end) < std::pair(b.second->begin, b.second->end);
  });
  std::size_t at = 0;
  for (const auto& [name, t] : order) {
    if (t->begin < at) {
      return Bad(origin, "header: tensor '" + *name + "': data_offsets",
                 "overlaps the tensor before it (begin " + std::to_string(t->begin) + " < " +
                     std::to_string(at) + ")");
    }
    if (t->begin > at) {
      return Bad(origin, "header: tensor '" + *name + "': data_offsets",
                 "leaves bytes " + std::to_string(at) + ".." + std::to_string(t->begin) +
                     " of the data unused");
    }
    at = t->end;
  }
  if (at != data_size) {
    return Bad(origin, "data",
               std::to_string(data_size - at) + " bytes after the last tensor are unused");
  }
  out.bytes_ = std::move(bytes);
  return out;
}

const TensorInfo* Safetensors::Find(std::string_view name) const {
  auto it = tensors_.find(name);
  return it == tensors_.end() ? nullptr : &it->second;
}

std::string_view Safetensors::Data(const TensorInfo& t) const {
  return std::string_view(bytes_).substr(data_start_ + t.begin, t.end - t.begin);
}

float HalfToFloat(std::uint16_t h) {
  const std::uint32_t sign = std::uint32_t{h & 0x8000u} << 16;
  std::uint32_t exp = (h >> 10) & 0x1f;
  std::uint32_t mant = h & 0x3ffu;
  std::uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13);  // inf, NaN
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  } else if (mant == 0) {
    bits = sign;
  } else {  // subnormal: normalise
    exp = 113;
    while ((mant & 0x400u) == 0) {
      mant <<= 1;
      --exp;
    }
    bits = sign | (exp << 23) | ((mant & 0x3ffu) << 13);
  }
  return std::bit_cast<float>(bits);
}

float Bf16ToFloat(std::uint16_t h) {
  return std::bit_cast<float>(std::uint32_t{h} << 16);
}

std::vector<float> Safetensors::ToFloats(const TensorInfo& t) const {
  const std::string_view d = Data(t);
  const std::size_t size = DtypeSize(t.dtype);
  const std::size_t n = d.size() / size;
  std::vector<float> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    const char* p = d.data() + i * size;
    const std::uint64_t raw = LoadLe(p, static_cast<int>(size));
    switch (t.dtype) {
      case Dtype::kF64:
        out[i] = static_cast<float>(std::bit_cast<double>(raw));
        break;
      case Dtype::kF32:
        out[i] = std::bit_cast<float>(static_cast<std::uint32_t>(raw));
        break;
      case Dtype::kF16:
        out[i] = HalfToFloat(static_cast<std::uint16_t>(raw));
        break;
      case Dtype::kBF16:
        out[i] = Bf16ToFloat(static_cast<std::uint16_t>(raw));
        break;
      case Dtype::kI64:
        out[i] = static_cast<float>(static_cast<std::int64_t>(raw));
        break;
      case Dtype::kI32:
        out[i] = static_cast<float>(static_cast<std::int32_t>(raw));
        break;
      case Dtype::kI8:
        out[i] = static_cast<float>(static_cast<std::int8_t>(raw));
        break;
    }
  }
  return out;
}

std::vector<std::int64_t> Safetensors::ToInts(const TensorInfo& t) const {
  const std::string_view d = Data(t);
  const std::size_t size = DtypeSize(t.dtype);
  std::vector<std::int64_t> out(d.size() / size);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::uint64_t raw = LoadLe(d.data() + i * size, static_cast<int>(size));
    out[i] = t.dtype == Dtype::kI32  ? static_cast<std::int32_t>(raw)
             : t.dtype == Dtype::kI8 ? static_cast<std::int8_t>(raw)
                                     : static_cast<std::int64_t>(raw);
  }
  return out;
}

}  // namespace engram::embed
