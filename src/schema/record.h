// Record: one stored item's id and typed metadata, one slot per schema field,
// validated against the schema (FILTERS.md §1.1). Keys outside the schema are
// kept as they came (stored and returned, never filtered on).
#ifndef ENGRAM_SCHEMA_RECORD_H_
#define ENGRAM_SCHEMA_RECORD_H_

#include <string>
#include <vector>

#include "base/diagnostic.h"
#include "base/json.h"
#include "schema/schema.h"

namespace engram {

struct Record {
  std::string id;
  std::vector<Value> slots;                   // by Field::slot; monostate = absent
  json::Value extra = json::Value::object();  // keys outside the schema, in order
};

// Validates a record object: `id` a non-empty string (or taken from the
// schema's id_field; when both are given they must be equal), every field's
// value of its type (null means absent), required fields present, defaults
// substituted. The Diagnostic (kind "record.invalid") names the field in
// `path` and says what is wrong: "field 'min_level': expected int, got string".
Checked<Record> ParseRecord(const json::Value& object, const Schema& schema);

}  // namespace engram

#endif  // ENGRAM_SCHEMA_RECORD_H_
