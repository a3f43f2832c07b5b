// Implements include/engram/filter.h on top of src/filter and src/schema.
#include <fstream>
#include <sstream>
#include <utility>

#include "engine/internal.h"
#include "engram/filter.h"
#include "filter/compiler.h"
#include "filter/ir/printer.h"
#include "schema/presets.h"
#include "schema/record.h"

namespace engram {

filter::Dialect ToInternal(FilterDialect d) {
  switch (d) {
    case FilterDialect::kRetrieve:
      return filter::Dialect::kRetrieve;
    case FilterDialect::kExprV1:
      return filter::Dialect::kExprV1;
    case FilterDialect::kVectorFilter:
      return filter::Dialect::kVectorFilter;
    case FilterDialect::kSearchMemory:
      return filter::Dialect::kSearchMemory;
  }
  return filter::Dialect::kRetrieve;
}

std::string_view FilterDialectName(FilterDialect dialect) {
  return filter::DialectName(ToInternal(dialect));
}

std::optional<FilterDialect> FilterDialectFromName(std::string_view name) {
  for (FilterDialect d : {FilterDialect::kRetrieve, FilterDialect::kExprV1,
                          FilterDialect::kVectorFilter, FilterDialect::kSearchMemory}) {
    if (FilterDialectName(d) == name) return d;
  }
  return std::nullopt;
}

StatusOr<SchemaRef> SchemaRef::Load(const std::string& spec) {
  constexpr std::string_view kPreset = "preset:";
  if (spec.rfind(kPreset, 0) == 0) {
    std::string name = spec.substr(kPreset.size());
    std::shared_ptr<const Schema> preset = FindPreset(name);
    if (!preset) {
      return Status::NotFound("unknown schema preset '" + name + "' (expected memory or notes)");
    }
    return SchemaRef(std::move(preset));
  }
  std::ifstream in(spec, std::ios::binary);
  if (!in) return Status::NotFound("cannot open schema file '" + spec + "'");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Status::IoError("cannot read schema file '" + spec + "'");
  Checked<SchemaRef> parsed = Parse(text.str());
  if (!parsed.ok()) return Status::InvalidArgument(spec + ": " + parsed.diagnostic().message);
  return std::move(parsed).value();
}

Checked<SchemaRef> SchemaRef::Parse(std::string_view json_text) {
  Checked<std::shared_ptr<const Schema>> schema = Schema::Parse(json_text);
  if (!schema.ok()) return schema.diagnostic();
  return SchemaRef(std::move(schema).value());
}

std::string SchemaRef::ToJson() const {
  return json::Dump(schema_->ToJson());
}

Checked<MetadataRecord> MetadataRecord::Parse(const SchemaRef& schema, std::string_view json_text) {
  json::ReadOptions options;
  options.max_bytes = 1 << 20;
  json::ReadResult doc = json::Read(json_text, options);
  if (!doc.ok()) {
    return Diagnostic{400, "record.invalid", doc.error->path.Dotted(""),
                      "not valid JSON: " + doc.error->detail};
  }
  Checked<Record> record = ParseRecord(doc.value, *schema.get());
  if (!record.ok()) return record.diagnostic();
  return MetadataRecord(std::make_shared<const Record>(std::move(record).value()));
}

const std::string& MetadataRecord::id() const {
  return record_->id;
}

Checked<CompiledFilterRef> CompiledFilterRef::Compile(FilterDialect dialect,
                                                      const SchemaRef& schema,
                                                      std::string_view text) {
  Checked<filter::CompiledFilter> compiled =
      filter::Compile(ToInternal(dialect), text, schema.get());
  if (!compiled.ok()) return compiled.diagnostic();
  return CompiledFilterRef(
      std::make_shared<const filter::CompiledFilter>(std::move(compiled).value()), dialect);
}

std::string CompiledFilterRef::IrJson(bool optimized) const {
  return json::Dump(filter::ToJson(optimized ? impl_->optimized : impl_->checked));
}

std::string CompiledFilterRef::IrSexpr(bool optimized) const {
  return filter::ToSexpr(optimized ? impl_->optimized : impl_->checked);
}

bool CompiledFilterRef::Matches(const MetadataRecord& record) const {
  return impl_->program.Matches(record.record_->slots);
}

std::vector<std::string> FilterTranslationTargets() {
  std::vector<std::string> names;
  for (filter::Target t : filter::kAllTargets) names.emplace_back(filter::TargetName(t));
  return names;
}

Checked<FilterTranslation> CompiledFilterRef::Translate(std::string_view target) const {
  const filter::Dialect dialect = ToInternal(dialect_);
  std::optional<filter::Target> t = filter::TargetFromName(target);
  if (!t) {
    return filter::GetDialect(dialect).render(
        filter::MakeFault(filter::FaultCode::kUnsupported, Path(), "engram",
                          "translations to '" + std::string(target) + "'"));
  }
  Checked<filter::Translation> out = filter::TranslateCompiled(*impl_, dialect, *t);
  if (!out.ok()) return out.diagnostic();
  return FilterTranslation{std::string(target), json::Dump(out.value().filter),
                           json::Dump(out.value().params)};
}

}  // namespace engram
