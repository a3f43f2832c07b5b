// engram's filter language for front-ends (CLI, server, bindings): load a
// schema, compile a filter written in any of the four dialects against it,
// print its canonical IR, and test records against it.
//
// Thread-safety: every type here is immutable once built and may be shared
// between threads.
#ifndef ENGRAM_FILTER_H_
#define ENGRAM_FILTER_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engram/diagnostic.h"
#include "engram/status.h"

namespace engram {

class Schema;
struct Record;
namespace filter {
struct CompiledFilter;
}

enum class FilterDialect { kRetrieve, kExprV1, kVectorFilter, kSearchMemory };

// "retrieve", "expr_v1", "vector_filter", "search_memory".
std::string_view FilterDialectName(FilterDialect dialect);
std::optional<FilterDialect> FilterDialectFromName(std::string_view name);

// A collection's metadata schema (FILTERS.md §1.1).
class SchemaRef {
 public:
  // `preset:memory`, `preset:notes`, or the path of a schema JSON file.
  // NotFound for an unknown preset or a missing file; InvalidArgument with
  // the located message for a bad schema document.
  static StatusOr<SchemaRef> Load(const std::string& spec);
  // A schema document; the Diagnostic names the path (`fields[2].type`).
  static Checked<SchemaRef> Parse(std::string_view json_text);

  // The schema as a JSON document (what Parse reads).
  std::string ToJson() const;

  const std::shared_ptr<const Schema>& get() const { return schema_; }

 private:
  explicit SchemaRef(std::shared_ptr<const Schema> schema) : schema_(std::move(schema)) {}
  std::shared_ptr<const Schema> schema_;
};

// One record's metadata, validated against a schema.
class MetadataRecord {
 public:
  // A JSON object: `id` plus metadata at top level, in the JSON forms of
  // FILTERS.md §1.1. The Diagnostic (kind "record.invalid") names the field.
  static Checked<MetadataRecord> Parse(const SchemaRef& schema, std::string_view json_text);
  const std::string& id() const;

 private:
  explicit MetadataRecord(std::shared_ptr<const Record> record) : record_(std::move(record)) {}
  std::shared_ptr<const Record> record_;
  friend class CompiledFilterRef;
};

// A filter translated for another store or dialect (FILTERS.md §1.5b).
struct FilterTranslation {
  std::string target;
  std::string filter;  // JSON text: the target's JSON, or a JSON string for text targets
  std::string params;  // JSON text: the bound values in placeholder order (SQL targets), or []
};

// The names of the translation targets: "sqlite", "postgres", ...
std::vector<std::string> FilterTranslationTargets();

// A filter compiled against a schema.
class CompiledFilterRef {
 public:
  // Compiles `text` in `dialect`. For `search_memory` the text is the
  // `filters` array; for `expr_v1` the whole envelope. The Diagnostic is
  // rendered as the dialect's own document shows errors.
  static Checked<CompiledFilterRef> Compile(FilterDialect dialect, const SchemaRef& schema,
                                            std::string_view text);

  // The canonical IR, optimised (what runs) or as checked.
  std::string IrJson(bool optimized = true) const;
  std::string IrSexpr(bool optimized = true) const;

  // Whether `record` passes. It must have been parsed with the same schema.
  bool Matches(const MetadataRecord& record) const;

  // The filter for `target` (one of FilterTranslationTargets()). What the
  // target cannot express faithfully is a `filter.unsupported` Diagnostic at
  // the path where it was written, rendered as the filter's dialect renders
  // errors; an unknown target is `filter.unsupported` at the root.
  Checked<FilterTranslation> Translate(std::string_view target) const;

 private:
  CompiledFilterRef(std::shared_ptr<const filter::CompiledFilter> impl, FilterDialect dialect)
      : impl_(std::move(impl)), dialect_(dialect) {}
  std::shared_ptr<const filter::CompiledFilter> impl_;
  FilterDialect dialect_;
};

}  // namespace engram

#endif  // ENGRAM_FILTER_H_
