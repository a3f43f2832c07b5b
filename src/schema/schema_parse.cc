// Schema::Parse / Schema::FromJson: the schema document format, with a located
// error for everything wrong in it.
#include <string>
#include <unordered_set>
#include <utility>

#include "base/unicode.h"
#include "schema/schema.h"

namespace engram {
namespace {

Diagnostic SchemaError(const Path& path, const std::string& message) {
  std::string where = path.Dotted("<schema>");
  return Diagnostic{400, "schema.invalid", where, where + ": " + message};
}

// Parses one entry of "fields"; `seen_lower` holds the lower-cased names
// already declared.
Checked<Field> ParseField(const json::Value& f, const Path& path,
                          std::unordered_set<std::string>* seen_lower) {
  if (!f.is_object()) return SchemaError(path, "a field must be an object");
  for (const auto& item : f.items()) {
    const std::string& k = item.key();
    if (k != "name" && k != "type" && k != "default" && k != "optional" && k != "required" &&
        k != "filterable" && k != "min" && k != "numbers_as_text") {
      return SchemaError(path.Key(k),
                         "unknown key '" + k +
                             "' (expected name, type, default, optional, required, filterable, "
                             "min, numbers_as_text)");
    }
  }
  Field field;
  if (!f.contains("name")) return SchemaError(path, "missing key 'name'");
  if (!f["name"].is_string()) return SchemaError(path.Key("name"), "name must be a string");
  field.name = f["name"].get<std::string>();
  if (field.name.empty() || field.name.size() > kMaxFieldNameBytes) {
    return SchemaError(path.Key("name"),
                       "name must be 1 to " + std::to_string(kMaxFieldNameBytes) + " bytes");
  }
  if (field.name == "id" || field.name == "vector" || field.name[0] == '$') {
    return SchemaError(path.Key("name"),
                       "'" + field.name +
                           "' is reserved (id and vector are record keys; names cannot start "
                           "with $)");
  }
  for (char c : field.name) {
    if (static_cast<unsigned char>(c) < 0x20) {
      return SchemaError(path.Key("name"), "name must not contain control characters");
    }
  }
  if (!seen_lower->insert(AsciiLower(field.name)).second) {
    return SchemaError(path.Key("name"),
                       "field '" + field.name +
                           "' is declared twice (names must differ in more than letter case)");
  }
  if (!f.contains("type")) return SchemaError(path, "missing key 'type'");
  const json::Value& type = f["type"];
  std::optional<FieldType> t =
      type.is_string() ? FieldTypeFromName(type.get<std::string>()) : std::nullopt;
  if (!t) {
    return SchemaError(path.Key("type"),
                       "unknown type " + json::Dump(type) +
                           " (expected int, float, string, bool, datetime, set<string>)");
  }
  field.type = *t;

  int presence_keys = 0;
  for (const char* k : {"optional", "required"}) {
    if (!f.contains(k)) continue;
    if (!f[k].is_boolean() || !f[k].get<bool>()) {
      return SchemaError(path.Key(k), std::string(k) + " must be true when given");
    }
    ++presence_keys;
    field.presence = std::string_view(k) == "optional" ? Presence::kOptional : Presence::kRequired;
  }
  if (f.contains("default")) {
    ++presence_keys;
    field.presence = Presence::kDefault;
    const json::Value& d = f["default"];
    if (d.is_null()) return SchemaError(path.Key("default"), "default must not be null");
    // min and numbers_as_text apply to the default too.
    Field probe = field;
    if (f.contains("numbers_as_text") && f["numbers_as_text"].is_boolean()) {
      probe.numbers_as_text = f["numbers_as_text"].get<bool>();
    }
    auto v = ConvertFieldValue(probe, d);
    if (auto* msg = std::get_if<std::string>(&v)) {
      return SchemaError(
          path.Key("default"),
          "default for " + std::string(FieldTypeName(field.type)) + " field: " + *msg);
    }
    field.default_value = std::get<Value>(std::move(v));
  }
  if (presence_keys != 1) {
    return SchemaError(path, "field '" + field.name +
                                 "' must declare exactly one of default, optional: true, "
                                 "required: true");
  }
  if (f.contains("filterable")) {
    if (!f["filterable"].is_boolean()) {
      return SchemaError(path.Key("filterable"), "filterable must be true or false");
    }
    field.filterable = f["filterable"].get<bool>();
  }
  if (f.contains("min")) {
    if (field.type != FieldType::kInt) {
      return SchemaError(path.Key("min"), "min applies to int fields only");
    }
    if (!f["min"].is_number_integer())
      return SchemaError(path.Key("min"), "min must be an integer");
    field.min = f["min"].get<std::int64_t>();
    if (field.presence == Presence::kDefault &&
        std::get<std::int64_t>(field.default_value) < *field.min) {
      return SchemaError(path.Key("default"), "default is below min");
    }
  }
  if (f.contains("numbers_as_text")) {
    if (field.type != FieldType::kString) {
      return SchemaError(path.Key("numbers_as_text"),
                         "numbers_as_text applies to string fields only");
    }
    if (!f["numbers_as_text"].is_boolean()) {
      return SchemaError(path.Key("numbers_as_text"), "numbers_as_text must be true or false");
    }
    field.numbers_as_text = f["numbers_as_text"].get<bool>();
  }
  return field;
}

}  // namespace

Checked<std::shared_ptr<const Schema>> Schema::Parse(std::string_view json_text) {
  json::ReadOptions options;
  options.max_bytes = 1 << 20;
  json::ReadResult doc = json::Read(json_text, options);
  if (!doc.ok()) {
    std::string where = doc.error->path.Dotted("<schema>");
    return Diagnostic{400, "schema.invalid", where,
                      where + ": not valid JSON: " + doc.error->detail};
  }
  return FromJson(doc.value);
}

Checked<std::shared_ptr<const Schema>> Schema::FromJson(const json::Value& doc) {
  Path root;
  if (!doc.is_object()) return SchemaError(root, "a schema must be an object with \"fields\"");
  for (const auto& item : doc.items()) {
    if (item.key() != "fields" && item.key() != "id_field") {
      return SchemaError(root.Key(item.key()),
                         "unknown key '" + item.key() + "' (expected fields, id_field)");
    }
  }
  if (!doc.contains("fields")) return SchemaError(root, "missing key 'fields'");
  const json::Value& fields = doc["fields"];
  if (!fields.is_array()) return SchemaError(root.Key("fields"), "fields must be an array");
  if (fields.size() > kMaxSchemaFields) {
    return SchemaError(root.Key("fields"),
                       "more than " + std::to_string(kMaxSchemaFields) + " fields");
  }
  std::vector<Field> parsed;
  std::unordered_set<std::string> seen_lower;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    Checked<Field> f = ParseField(fields[i], root.Key("fields").Index(i), &seen_lower);
    if (!f.ok()) return f.diagnostic();
    parsed.push_back(std::move(f).value());
  }
  std::string id_field;
  if (doc.contains("id_field")) {
    const json::Value& idf = doc["id_field"];
    const Field* target = nullptr;
    if (idf.is_string()) {
      for (const Field& f : parsed) {
        if (f.name == idf.get<std::string>()) target = &f;
      }
    }
    if (target == nullptr || target->type != FieldType::kString ||
        target->presence != Presence::kRequired) {
      return SchemaError(root.Key("id_field"),
                         "id_field must name a required string field of this schema");
    }
    id_field = target->name;
  }
  return std::shared_ptr<const Schema>(std::make_shared<Schema>(std::move(parsed), id_field));
}

}  // namespace engram
