// libFuzzer target for the configuration a store keeps with each collection
// (engine::SpecFromJson, src/engine/collection_spec.cc), which Engine::Open
// reads back from a store that may be damaged. Invariants: never crashes,
// hangs or leaks; a refused configuration is Corruption with a message; an
// accepted one passes ValidateSpec, writes back (SpecToJson) to a document
// that reads to the same configuration, and makes a Collection (what
// opening does next) whose slots agree with its schema.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "base/json.h"
#include "engine/collection.h"

namespace {

using engram::CollectionSpec;
using engram::engine::Collection;
using engram::engine::SpecFromJson;
using engram::engine::SpecToJson;

void Check(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 16384) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  engram::StatusOr<CollectionSpec> spec = SpecFromJson(text);
  if (!spec.ok()) {
    Check(spec.status().code() == engram::StatusCode::kCorruption);
    Check(!spec.status().message().empty());
    return 0;
  }
  Check(engram::engine::ValidateSpec(*spec).ok());
  const std::string written = engram::json::Dump(SpecToJson(*spec));
  engram::StatusOr<CollectionSpec> back = SpecFromJson(written);
  Check(back.ok());
  Check(engram::json::Dump(SpecToJson(*back)) == written);
  Collection c(*spec);
  Check(c.has_text() == !spec->text.empty());
  Check(c.has_vectors() == (spec->vector_dim > 0));
  Check(c.written_slot() == c.schema().fields().size());
  Check(c.row_schema()->fields().size() == c.schema().fields().size() + 2);
  return 0;
}
