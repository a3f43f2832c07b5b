// libFuzzer target for the safetensors reader (src/embed/safetensors.cc): the
// input is a whole model.safetensors file. Invariants: never crashes, hangs or
// leaks; a parsed file's tensors lie inside the data, tile it, and convert to
// exactly as many values as their shape says.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "embed/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using engram::embed::Dtype;
  using engram::embed::Safetensors;
  auto st = Safetensors::Parse(std::string(reinterpret_cast<const char*>(data), size), "fuzz");
  if (!st.ok()) {
    if (st.status().message().rfind("fuzz: ", 0) != 0) std::abort();  // always located
    return 0;
  }
  std::size_t bytes = 0;
  for (const auto& [name, t] : st->tensors()) {
    if (st->Data(t).size() != t.end - t.begin) std::abort();
    if (t.end - t.begin != t.elements() * engram::embed::DtypeSize(t.dtype)) std::abort();
    bytes += t.end - t.begin;
    if (t.dtype == Dtype::kI32 || t.dtype == Dtype::kI64) {
      if (st->ToInts(t).size() != t.elements()) std::abort();
    } else if (st->ToFloats(t).size() != t.elements()) {
      std::abort();
    }
  }
  if (bytes > size) std::abort();
  return 0;
}
