// libFuzzer target for the strict JSON reader and what reads documents with
// it: schema documents and records. Must never crash; errors must be located
// and printable.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "base/json.h"
#include "base/unicode.h"
#include "schema/presets.h"
#include "schema/record.h"
#include "schema/schema.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace engram;  // NOLINT(google-build-using-namespace): a fuzz target's own file
  std::string_view text(reinterpret_cast<const char*>(data), size);
  json::ReadResult doc = json::Read(text);
  if (!doc.ok()) {
    if (doc.error->detail.empty() || !IsValidUtf8(doc.error->detail)) std::abort();
    return 0;
  }
  (void)json::Dump(doc.value);
  Checked<std::shared_ptr<const Schema>> schema = Schema::FromJson(doc.value);
  if (schema.ok()) {
    // A parsed schema prints as a document that parses to the same schema.
    auto again = Schema::FromJson(schema.value()->ToJson());
    if (!again.ok() ||
        json::Dump(again.value()->ToJson()) != json::Dump(schema.value()->ToJson())) {
      std::abort();
    }
  } else if (!IsValidUtf8(schema.diagnostic().message)) {
    std::abort();
  }
  for (const auto& s : {MemorySchema(), NotesSchema()}) {
    Checked<Record> r = ParseRecord(doc.value, *s);
    if (!r.ok() && !IsValidUtf8(r.diagnostic().message)) std::abort();
  }
  return 0;
}
