#include "server/mcp/tools/arguments.h"

#include <cmath>
#include <string>

namespace engram::server::mcp {
namespace {

using nlohmann::json;

std::string TypeName(const json& value) {
  if (value.is_number_integer() || value.is_number_unsigned()) return "integer";
  if (value.is_number()) return "number";
  return value.type_name();  // "string", "boolean", "array", "object", "null"
}

std::string Join(std::initializer_list<std::string_view> items) {
  std::string out;
  for (std::string_view item : items) {
    if (!out.empty()) out += ", ";
    out += item;
  }
  return out;
}

const json* Find(const json& arguments, std::string_view key) {
  if (!arguments.is_object()) return nullptr;
  const auto it = arguments.find(std::string(key));
  return it == arguments.end() ? nullptr : &*it;
}

}  // namespace

std::size_t CountChars(std::string_view text) {
  std::size_t n = 0;
  for (unsigned char c : text) n += (c & 0xC0) != 0x80;
  return n;
}

std::string CheckArgumentObject(const json& arguments,
                                std::initializer_list<std::string_view> allowed) {
  if (arguments.is_null()) return "";
  if (!arguments.is_object()) {
    return "<root>: arguments must be an object, got " + TypeName(arguments);
  }
  for (const auto& item : arguments.items()) {
    bool known = false;
    for (std::string_view name : allowed) known = known || item.key() == name;
    if (!known) {
      return item.key() + ": unknown property (allowed: " + Join(allowed) + ")";
    }
  }
  return "";
}

std::string ReadString(const json& arguments, std::string_view key, const StringBounds& bounds,
                       std::string* out) {
  const json* value = Find(arguments, key);
  if (value == nullptr) {
    return bounds.required ? std::string(key) + ": required property is missing" : "";
  }
  if (!value->is_string()) {
    return std::string(key) + ": must be a string, got " + TypeName(*value);
  }
  const std::string& text = value->get_ref<const std::string&>();
  const std::size_t chars = CountChars(text);
  if (chars > bounds.max_chars) {
    return std::string(key) + ": must be at most " + std::to_string(bounds.max_chars) +
           " characters, got " + std::to_string(chars);
  }
  if (chars < bounds.min_chars) {
    return std::string(key) + ": must be at least " + std::to_string(bounds.min_chars) +
           " character" + (bounds.min_chars == 1 ? "" : "s");
  }
  *out = text;
  return "";
}

std::string ReadInteger(const json& arguments, std::string_view key, std::int64_t min,
                        std::int64_t max, std::int64_t* out) {
  const json* value = Find(arguments, key);
  if (value == nullptr) return "";
  const std::string range = std::string(key) + ": must be an integer from " + std::to_string(min) +
                            " to " + std::to_string(max);
  double number = 0;
  if (value->is_number_integer()) {
    number = static_cast<double>(value->get<std::int64_t>());
  } else if (value->is_number_unsigned()) {
    number = static_cast<double>(value->get<std::uint64_t>());
  } else if (value->is_number_float()) {
    number = value->get<double>();
    // JSON Schema: an integer is any number with a zero fractional part (3.0).
    if (!std::isfinite(number) || std::floor(number) != number) {
      return range + ", got " + value->dump();
    }
  } else {
    return range + ", got " + TypeName(*value);
  }
  if (number < static_cast<double>(min) || number > static_cast<double>(max)) {
    return range + ", got " + value->dump();
  }
  *out = static_cast<std::int64_t>(number);
  return "";
}

std::string ReadNumber(const json& arguments, std::string_view key, double min, double max,
                       double* out) {
  const json* value = Find(arguments, key);
  if (value == nullptr) return "";
  const std::string range =
      std::string(key) + ": must be a number from " + json(min).dump() + " to " + json(max).dump();
  if (!value->is_number()) return range + ", got " + TypeName(*value);
  const double number = value->get<double>();
  if (!(number >= min && number <= max)) return range + ", got " + value->dump();
  *out = number;
  return "";
}

std::string ReadEnum(const json& arguments, std::string_view key,
                     std::initializer_list<std::string_view> values, std::string* out) {
  const json* value = Find(arguments, key);
  if (value == nullptr) return "";
  const std::string expected = std::string(key) + ": must be one of " + Join(values);
  if (!value->is_string()) return expected + ", got " + TypeName(*value);
  for (std::string_view v : values) {
    if (*value == v) {
      *out = std::string(v);
      return "";
    }
  }
  return expected + ", got " + value->dump();
}

}  // namespace engram::server::mcp
