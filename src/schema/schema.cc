#include "schema/schema.h"

#include <string>
#include <utility>

#include "base/number.h"
#include "base/unicode.h"

namespace engram {

Schema::Schema(std::vector<Field> fields, std::string id_field)
    : fields_(std::move(fields)), id_field_(std::move(id_field)) {
  for (std::uint32_t i = 0; i < fields_.size(); ++i) {
    fields_[i].slot = i;
    by_name_.emplace(fields_[i].name, i);
    by_lower_name_.emplace(AsciiLower(fields_[i].name), i);  // first one wins
  }
}

const Field* Schema::Find(std::string_view name) const {
  auto it = by_name_.find(std::string(name));
  return it == by_name_.end() ? nullptr : &fields_[it->second];
}

const Field* Schema::FindIgnoringCase(std::string_view name) const {
  auto it = by_lower_name_.find(AsciiLower(name));
  return it == by_lower_name_.end() ? nullptr : &fields_[it->second];
}

std::variant<Value, std::string> ConvertFieldValue(const Field& field, const json::Value& v) {
  auto expected = [&](std::string_view what) {
    return std::string("expected ") + std::string(what) + ", got " + std::string(json::TypeName(v));
  };
  switch (field.type) {
    case FieldType::kInt: {
      std::int64_t i;
      if (v.is_number_integer()) {
        i = v.get<std::int64_t>();
      } else if (v.is_number_float()) {
        std::optional<std::int64_t> exact = ExactInt(v.get<double>());
        if (!exact) {
          return "expected int, got non-integral or out-of-range number " +
                 FormatShortest(v.get<double>());
        }
        i = *exact;
      } else {
        return expected("int");
      }
      if (field.min && i < *field.min) {
        return "must be at least " + std::to_string(*field.min) + ", got " + std::to_string(i);
      }
      return Value(i);
    }
    case FieldType::kFloat:
      if (v.is_number_integer()) return Value(static_cast<double>(v.get<std::int64_t>()));
      if (v.is_number_float()) return Value(v.get<double>());
      return expected("float");
    case FieldType::kString:
      if (v.is_string()) return Value(v.get<std::string>());
      if (field.numbers_as_text && v.is_number_integer()) {
        return Value(std::to_string(v.get<std::int64_t>()));
      }
      if (field.numbers_as_text && v.is_number_float()) {
        return Value(FormatShortest(v.get<double>()));
      }
      return expected(field.numbers_as_text ? "string or number" : "string");
    case FieldType::kBool:
      if (v.is_boolean()) return Value(v.get<bool>());
      return expected("bool");
    case FieldType::kDatetime: {
      if (!v.is_string()) return expected("RFC 3339 datetime string");
      const auto& s = v.get_ref<const std::string&>();
      std::optional<ParsedDatetime> t = ParseDatetime(s, DatetimeForm::kLenient);
      if (!t) return "expected an RFC 3339 datetime, got '" + s + "'";
      return Value(t->value);
    }
    case FieldType::kStringSet: {
      if (!v.is_array()) return expected("array of strings");
      StringSet set;
      set.reserve(v.size());
      for (std::size_t i = 0; i < v.size(); ++i) {
        if (!v[i].is_string()) {
          return "item [" + std::to_string(i) + "]: expected string, got " +
                 std::string(json::TypeName(v[i]));
        }
        set.push_back(v[i].get<std::string>());
      }
      NormalizeStringSet(&set);
      return Value(std::move(set));
    }
  }
  return std::string("unknown field type");
}

json::Value ValueToJson(const Value& v) {
  switch (v.index()) {
    case 1:
      return std::get<bool>(v);
    case 2:
      return std::get<std::int64_t>(v);
    case 3:
      return std::get<double>(v);
    case 4:
      return std::get<std::string>(v);
    case 5:
      return FormatDatetime(std::get<Datetime>(v));
    case 6: {
      json::Value a = json::Value::array();
      for (const auto& s : std::get<StringSet>(v)) a.push_back(s);
      return a;
    }
    default:
      return nullptr;
  }
}

json::Value Schema::ToJson() const {
  json::Value fields = json::Value::array();
  for (const Field& f : fields_) {
    json::Value o = json::Value::object();
    o["name"] = f.name;
    o["type"] = FieldTypeName(f.type);
    switch (f.presence) {
      case Presence::kRequired:
        o["required"] = true;
        break;
      case Presence::kOptional:
        o["optional"] = true;
        break;
      case Presence::kDefault:
        o["default"] = ValueToJson(f.default_value);
        break;
    }
    if (!f.filterable) o["filterable"] = false;
    if (f.min) o["min"] = *f.min;
    if (f.numbers_as_text) o["numbers_as_text"] = true;
    fields.push_back(std::move(o));
  }
  json::Value doc = json::Value::object();
  doc["fields"] = std::move(fields);
  if (!id_field_.empty()) doc["id_field"] = id_field_;
  return doc;
}

}  // namespace engram
