// Schema: a collection's typed metadata fields (FILTERS.md §1.1), loaded from
// JSON or taken from a preset. Filters are checked against it; records are
// validated by it. Each field has a slot number: its position, used by
// records and compiled filters instead of names.
#ifndef ENGRAM_SCHEMA_SCHEMA_H_
#define ENGRAM_SCHEMA_SCHEMA_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

#include "base/diagnostic.h"
#include "base/json.h"
#include "schema/value.h"

namespace engram {

enum class Presence : std::uint8_t {
  kRequired,  // a record without the field is rejected (engram's addition)
  kOptional,  // a record may omit it; filters reading it are false there
  kDefault,   // substituted at ingest when the record omits it
};

struct Field {
  std::string name;
  FieldType type = FieldType::kString;
  Presence presence = Presence::kOptional;
  Value default_value;  // set when presence == kDefault
  bool filterable = true;
  std::optional<std::int64_t> min;  // int fields: smallest allowed value
  // string fields: a JSON number is accepted and stored as its shortest
  // round-trip decimal text (SearchMemory's archetype_version).
  bool numbers_as_text = false;
  std::uint32_t slot = 0;
};

// Limits on schema documents.
inline constexpr std::size_t kMaxSchemaFields = 1024;
inline constexpr std::size_t kMaxFieldNameBytes = 256;

class Schema {
 public:
  // Builds a schema from fields (slots are assigned in order). The fields
  // must be valid (unique names, consistent attributes); used by presets and
  // tests. `id_field`, when non-empty, names a required string field that
  // holds the record id.
  explicit Schema(std::vector<Field> fields, std::string id_field = "");

  // Parses a schema document:
  //   {"fields":[{"name":"min_level","type":"int","default":0},
  //              {"name":"tags","type":"set<string>","optional":true}, ...],
  //    "id_field": "memory_id"}
  // Field keys: name, type, exactly one of default / optional:true /
  // required:true, filterable (default true), min (int fields),
  // numbers_as_text (string fields). Errors name the path
  // (`fields[2].type: ...`), kind "schema.invalid".
  static Checked<std::shared_ptr<const Schema>> Parse(std::string_view json_text);
  static Checked<std::shared_ptr<const Schema>> FromJson(const json::Value& doc);

  const std::vector<Field>& fields() const { return fields_; }
  const Field& field(std::uint32_t slot) const { return fields_[slot]; }
  const std::string& id_field() const { return id_field_; }

  // The field named exactly `name`, or nullptr.
  const Field* Find(std::string_view name) const;
  // The first field (in schema order) whose ASCII-lower-cased name equals
  // the ASCII-lower-cased `name`, or nullptr.
  const Field* FindIgnoringCase(std::string_view name) const;

  // The schema as a document Parse accepts (round-trips).
  json::Value ToJson() const;

 private:
  std::vector<Field> fields_;
  std::string id_field_;
  std::unordered_map<std::string, std::uint32_t> by_name_;
  std::unordered_map<std::string, std::uint32_t> by_lower_name_;
};

// Converts a JSON value (not null) to `field`'s typed value by FILTERS.md
// §1.1: int fields take integers (and integral numbers in range), float
// fields any number, datetime fields RFC 3339 text (offset optional, date
// alone is midnight UTC), set<string> fields arrays of strings (sorted,
// de-duplicated). Returns the value, or a message such as
// "expected int, got string".
std::variant<Value, std::string> ConvertFieldValue(const Field& field, const json::Value& v);

// The JSON form of a stored value (datetimes as RFC 3339 text).
json::Value ValueToJson(const Value& v);

}  // namespace engram

#endif  // ENGRAM_SCHEMA_SCHEMA_H_
