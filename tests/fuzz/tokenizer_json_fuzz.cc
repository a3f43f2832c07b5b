// libFuzzer target for the tokenizer.json reader (src/embed/hf_tokenizer.cc):
// the input is a tokenizer.json; when it parses, a few fixed texts and the
// input itself are encoded with it. Invariants: never crashes, hangs or
// leaks; refusals are located; every id is one of the tokenizer's.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "embed/hf_tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  auto t = engram::embed::HfTokenizer::Parse(input, "fuzz");
  if (!t.ok()) {
    if (t.status().message().rfind("fuzz: ", 0) != 0) std::abort();
    return 0;
  }
  const std::string_view texts[] = {
      "Hello, World! Café naïve 我爱你 [CLS] snow\u2603man",
      "  \t\n ",
      "",
      input.substr(0, 2048),
  };
  for (std::string_view text : texts) {
    for (std::uint32_t id : t->Encode(text)) {
      if (id > t->max_id()) std::abort();
    }
  }
  return 0;
}
