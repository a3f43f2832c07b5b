// libFuzzer target for the engine's record reader, Collection::Prepare
// (src/engine/collection.cc): one JSONL record against a collection with
// every field type, two text fields and 4-dimensional vectors. Invariants:
// never crashes, hangs or leaks; a rejected record gets a record.invalid
// Diagnostic with a message; an accepted
// one has its id, one slot per field and per version slot (version.h), one
// text per text field, 4 finite components and at most 64 distinct
// `supersedes` ids, none its own, and reloads from its stored body, with a
// version, to the same id, texts, vector, body and version (what recovery
// reads back).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "engine/collection.h"
#include "engine/version.h"

namespace {

using engram::CollectionSpec;
using engram::SchemaRef;
using engram::engine::Collection;
using engram::engine::PreparedRecord;

Collection& TheCollection() {
  static Collection* c = [] {
    engram::Checked<SchemaRef> schema = SchemaRef::Parse(
        R"({"fields":[{"name":"level","type":"int","default":0},
                      {"name":"score","type":"float","optional":true},
                      {"name":"region","type":"string","required":true},
                      {"name":"ok","type":"bool","optional":true},
                      {"name":"written","type":"datetime","optional":true},
                      {"name":"tags","type":"set<string>","optional":true}]})");
    if (!schema.ok()) std::abort();
    return new Collection(CollectionSpec{
        "fuzz", schema.value(), {{"title", 2}, {"text", 1}}, 4, "cosine", "en", "written"});
  }();
  return *c;
}

void Check(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 8192) return 0;
  Collection& c = TheCollection();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  engram::Checked<PreparedRecord> r = c.Prepare(text);
  if (!r.ok()) {
    Check(!r.diagnostic().message.empty());
    Check(r.diagnostic().kind == "record.invalid");
    return 0;
  }
  const PreparedRecord& p = r.value();
  Check(!p.id.empty());
  Check(p.slots.size() == c.row_schema()->fields().size());
  Check(p.supersedes.size() <= engram::engine::kMaxSupersedes);
  for (const std::string& id : p.supersedes) Check(!id.empty() && id != p.id);
  Check(p.texts.size() == 2);
  Check(p.vector.size() == 4);
  for (float x : p.vector) Check(std::isfinite(x));
  std::string vector_bytes(16, '\0');
  std::memcpy(vector_bytes.data(), p.vector.data(), 16);
  PreparedRecord versioned = p;
  versioned.slots[c.written_slot()] = engram::Datetime{1700000000000000};
  versioned.slots[c.superseded_slot()] = engram::Datetime{1700000000000001};
  engram::StatusOr<PreparedRecord> back = c.Reload(c.StoredBodyOf(versioned), vector_bytes);
  Check(back.ok());
  Check(back.value().id == p.id && back.value().texts == p.texts &&
        back.value().vector == p.vector && back.value().body == p.body);
  Check(back.value().slots == versioned.slots);
  Check(engram::engine::SupersedesOf(back.value().body) == p.supersedes);
  return 0;
}
