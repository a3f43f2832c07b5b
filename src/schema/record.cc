#include "schema/record.h"

#include <string>
#include <utility>

namespace engram {
namespace {

Diagnostic RecordError(const std::string& field, const std::string& message) {
  return Diagnostic{400, "record.invalid", field,
                    field.empty() ? message : "field '" + field + "': " + message};
}

}  // namespace

Checked<Record> ParseRecord(const json::Value& object, const Schema& schema) {
  if (!object.is_object()) {
    return RecordError(
        "", "a record must be a JSON object, got " + std::string(json::TypeName(object)));
  }
  Record record;
  record.slots.resize(schema.fields().size());
  for (const auto& item : object.items()) {
    const std::string& key = item.key();
    const json::Value& v = item.value();
    if (key == "id") {
      if (!v.is_string() || v.get_ref<const std::string&>().empty()) {
        return RecordError("id", "id must be a non-empty string");
      }
      record.id = v.get<std::string>();
      continue;
    }
    const Field* field = schema.Find(key);
    if (field == nullptr) {
      record.extra[key] = v;
      continue;
    }
    if (v.is_null()) continue;  // null means absent
    auto converted = ConvertFieldValue(*field, v);
    if (auto* msg = std::get_if<std::string>(&converted)) return RecordError(key, *msg);
    record.slots[field->slot] = std::get<Value>(std::move(converted));
  }
  if (!schema.id_field().empty() && !record.id.empty()) {
    // The id may stand for the id field (and vice versa, below).
    Value& slot = record.slots[schema.Find(schema.id_field())->slot];
    if (std::holds_alternative<std::monostate>(slot)) slot = record.id;
  }
  for (const Field& field : schema.fields()) {
    Value& slot = record.slots[field.slot];
    if (!std::holds_alternative<std::monostate>(slot)) continue;
    if (field.presence == Presence::kRequired)
      return RecordError(field.name, "required but missing");
    if (field.presence == Presence::kDefault) slot = field.default_value;
  }
  if (!schema.id_field().empty()) {
    const Field* idf = schema.Find(schema.id_field());
    const auto& from_field = std::get<std::string>(record.slots[idf->slot]);
    if (record.id.empty()) {
      record.id = from_field;
    } else if (record.id != from_field) {
      return RecordError(
          "id", "id '" + record.id + "' differs from " + idf->name + " '" + from_field + "'");
    }
    if (record.id.empty()) return RecordError(idf->name, "must be a non-empty string");
  }
  if (record.id.empty()) return RecordError("id", "required but missing");
  return record;
}

}  // namespace engram
