// libFuzzer target for one filter dialect (ENGRAM_FUZZ_DIALECT names it):
// arbitrary bytes through the whole compiler. Whatever the input, compiling
// must not crash, leak or hit undefined behaviour; a valid filter must verify,
// print, and mean the same optimised as checked, and translate to every
// target or be refused with a located `filter.unsupported` (an SQL
// translation binding exactly as many values as it has placeholders); a
// rejected one must carry a complete diagnostic whose message is valid UTF-8.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "base/unicode.h"
#include "filter/compiler.h"
#include "filter/eval/evaluator.h"
#include "filter/ir/printer.h"
#include "filter/ir/verifier.h"
#include "schema/presets.h"
#include "schema/record.h"

namespace {

using namespace engram;  // NOLINT(google-build-using-namespace): a fuzz target's own file

std::shared_ptr<const Schema> FuzzSchema() {
  if (filter::Dialect(ENGRAM_FUZZ_DIALECT) == filter::Dialect::kSearchMemory) return MemorySchema();
  if (filter::Dialect(ENGRAM_FUZZ_DIALECT) == filter::Dialect::kExprV1) return NotesSchema();
  static const auto schema = Schema::Parse(R"({"fields":[
    {"name":"min_level","type":"int","default":0},
    {"name":"weight","type":"float","optional":true},
    {"name":"character_class","type":"string","optional":true},
    {"name":"character_classes","type":"set<string>","optional":true},
    {"name":"hidden","type":"bool","optional":true},
    {"name":"created","type":"datetime","optional":true},
    {"name":"tags","type":"set<string>","optional":true},
    {"name":"page_title","type":"string","default":"","filterable":false}]})")
                                 .value();
  return schema;
}

// Records with every field present, and with every optional field absent.
const std::vector<Record>& FuzzRecords(const Schema& schema) {
  static const std::vector<Record> records = [&schema] {
    std::vector<Record> out;
    json::Value full = json::Value::object();
    json::Value sparse = json::Value::object();
    full["id"] = sparse["id"] = "r";
    for (const Field& f : schema.fields()) {
      json::Value v;
      switch (f.type) {
        case FieldType::kInt:
          v = 3;
          break;
        case FieldType::kFloat:
          v = 2.5;
          break;
        case FieldType::kString:
          v = "mage";
          break;
        case FieldType::kBool:
          v = true;
          break;
        case FieldType::kDatetime:
          v = "2025-07-01T00:00:00Z";
          break;
        case FieldType::kStringSet:
          v = json::Value::array({"mage", "warrior"});
          break;
      }
      if (f.name == schema.id_field()) v = "r";
      full[f.name] = v;
      if (f.presence == Presence::kRequired) sparse[f.name] = v;
    }
    out.push_back(ParseRecord(full, schema).value());
    out.push_back(ParseRecord(sparse, schema).value());
    return out;
  }();
  return records;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::shared_ptr<const Schema> schema = FuzzSchema();
  Checked<filter::CompiledFilter> c =
      filter::Compile(filter::Dialect(ENGRAM_FUZZ_DIALECT), text, schema);
  if (!c.ok()) {
    const Diagnostic& d = c.diagnostic();
    if (d.kind.rfind("filter.", 0) != 0 || d.path.empty() || d.message.empty() ||
        !IsValidUtf8(d.message) || !IsValidUtf8(d.path)) {
      std::abort();
    }
    return 0;
  }
  const filter::CompiledFilter& f = c.value();
  if (filter::Verify(f.checked.root, *schema) || filter::Verify(f.optimized.root, *schema)) {
    std::abort();
  }
  (void)json::Dump(filter::ToJson(f.optimized));
  (void)filter::ToSexpr(f.checked);
  for (const Record& r : FuzzRecords(*schema)) {
    if (filter::Evaluate(f.checked.root, r.slots) != filter::Evaluate(f.optimized.root, r.slots)) {
      std::abort();
    }
  }
  for (filter::Target target : filter::kAllTargets) {
    Checked<filter::Translation> t =
        filter::TranslateCompiled(f, filter::Dialect(ENGRAM_FUZZ_DIALECT), target);
    if (!t.ok()) {
      if (t.diagnostic().kind != "filter.unsupported" || t.diagnostic().path.empty()) std::abort();
      continue;
    }
    (void)json::Dump(t.value().filter);
    if (target == filter::Target::kSqlite) {
      const std::string& sql = t.value().filter.get_ref<const std::string&>();
      if (static_cast<std::size_t>(std::count(sql.begin(), sql.end(), '?')) !=
          t.value().params.size()) {
        std::abort();
      }
    }
  }
  return 0;
}
