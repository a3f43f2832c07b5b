#include "server/http/json_reader.h"

#include <cmath>
#include <limits>

#include "server/common/json_input.h"

namespace engram::server::http {

std::string JsonTypeName(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::null:
      return "null";
    case nlohmann::json::value_t::object:
      return "an object";
    case nlohmann::json::value_t::array:
      return "an array";
    case nlohmann::json::value_t::string:
      return "a string";
    case nlohmann::json::value_t::boolean:
      return "a boolean";
    case nlohmann::json::value_t::number_float:
      return "a number";
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
      return "an integer";
    default:
      return "a value";
  }
}

ObjectReader::ObjectReader(const nlohmann::json& object, std::string path)
    : object_(object), path_(std::move(path)) {
  if (!object_.is_object()) {
    Fail(BadRequest(path_, path_ + ": expected an object, got " + JsonTypeName(object_)));
  }
}

void ObjectReader::Fail(Problem problem) {
  if (!problem_) problem_ = std::move(problem);
}

void ObjectReader::Fail(const std::string& key, std::string message) {
  const std::string path = PathOf(key);
  Fail(BadRequest(path, path + ": " + message));
}

std::string ObjectReader::PathOf(std::string_view key) const {
  return JsonPathChild(path_, key);
}

const nlohmann::json* ObjectReader::Get(std::string_view key) {
  known_.emplace(key);
  if (!ok()) return nullptr;
  auto it = object_.find(key);
  if (it == object_.end() || it->is_null()) return nullptr;
  return &*it;
}

const nlohmann::json* ObjectReader::Require(std::string_view key) {
  const nlohmann::json* v = Get(key);
  if (v == nullptr) Fail(std::string(key), "is required");
  return v;
}

bool ObjectReader::String(std::string_view key, std::string* out, std::size_t max_bytes) {
  const nlohmann::json* v = Get(key);
  if (v == nullptr) return false;
  if (!v->is_string()) {
    Fail(std::string(key), "expected a string, got " + JsonTypeName(*v));
    return false;
  }
  const std::string& s = v->get_ref<const std::string&>();
  if (s.size() > max_bytes) {
    Fail(std::string(key), "exceeds the limit of " + std::to_string(max_bytes) + " bytes");
    return false;
  }
  *out = s;
  return true;
}

bool ObjectReader::Size(std::string_view key, std::size_t* out, std::size_t min, std::size_t max) {
  const nlohmann::json* v = Get(key);
  if (v == nullptr) return false;
  const std::string range = " in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
  if (v->is_number_unsigned()) {
    const std::uint64_t n = v->get<std::uint64_t>();
    if (n >= min && n <= max) {
      *out = static_cast<std::size_t>(n);
      return true;
    }
  } else if (!v->is_number_integer()) {
    Fail(std::string(key), "expected an integer" + range + ", got " + JsonTypeName(*v));
    return false;
  }
  Fail(std::string(key), "must be an integer" + range + ", got " + v->dump());
  return false;
}

bool ObjectReader::Number(std::string_view key, double* out, double min, double max) {
  const nlohmann::json* v = Get(key);
  if (v == nullptr) return false;
  if (!v->is_number()) {
    Fail(std::string(key), "expected a number, got " + JsonTypeName(*v));
    return false;
  }
  const double d = v->get<double>();
  if (!std::isfinite(d) || d < min || d > max) {
    Fail(std::string(key), "must be a number in [" + nlohmann::json(min).dump() + ", " +
                               nlohmann::json(max).dump() + "], got " + v->dump());
    return false;
  }
  *out = d;
  return true;
}

bool ObjectReader::Bool(std::string_view key, bool* out) {
  const nlohmann::json* v = Get(key);
  if (v == nullptr) return false;
  if (!v->is_boolean()) {
    Fail(std::string(key), "expected a boolean, got " + JsonTypeName(*v));
    return false;
  }
  *out = v->get<bool>();
  return true;
}

bool ObjectReader::Vector(std::string_view key, std::optional<std::vector<float>>* out,
                          std::size_t max) {
  const nlohmann::json* v = Get(key);
  if (v == nullptr) return false;
  if (!v->is_array() || v->empty()) {
    Fail(std::string(key), "expected a non-empty array of numbers, got " + JsonTypeName(*v));
    return false;
  }
  if (v->size() > max) {
    Fail(std::string(key),
         "has " + std::to_string(v->size()) + " components, more than " + std::to_string(max));
    return false;
  }
  std::vector<float> vec;
  vec.reserve(v->size());
  for (std::size_t i = 0; i < v->size(); ++i) {
    const nlohmann::json& x = (*v)[i];
    const double d = x.is_number() ? x.get<double>() : std::nan("");
    if (!std::isfinite(d) || std::fabs(d) > std::numeric_limits<float>::max()) {
      const std::string path = JsonPathIndex(PathOf(key), i);
      Fail(BadRequest(path, path + ": expected a finite number, got " + x.dump()));
      return false;
    }
    vec.push_back(static_cast<float>(d));
  }
  *out = std::move(vec);
  return true;
}

bool ObjectReader::Enum(std::string_view key, std::string* out,
                        const std::vector<std::string_view>& names) {
  std::string s;
  if (!String(key, &s, 64)) return false;
  for (std::string_view n : names) {
    if (s == n) {
      *out = s;
      return true;
    }
  }
  std::string list;
  for (std::string_view n : names) list += (list.empty() ? "" : ", ") + std::string(n);
  Fail(std::string(key), "unknown value '" + s + "' (expected " + list + ")");
  return false;
}

bool ObjectReader::Finish() {
  if (!ok()) return false;
  for (auto it = object_.begin(); it != object_.end(); ++it) {
    if (known_.find(it.key()) == known_.end()) {
      Fail(it.key(), "unknown field");
      return false;
    }
  }
  return true;
}

}  // namespace engram::server::http
