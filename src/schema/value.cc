#include "schema/value.h"

#include <algorithm>

#include "base/number.h"

namespace engram {

std::string_view FieldTypeName(FieldType type) {
  switch (type) {
    case FieldType::kInt:
      return "int";
    case FieldType::kFloat:
      return "float";
    case FieldType::kString:
      return "string";
    case FieldType::kBool:
      return "bool";
    case FieldType::kDatetime:
      return "datetime";
    case FieldType::kStringSet:
      return "set<string>";
  }
  return "?";
}

std::optional<FieldType> FieldTypeFromName(std::string_view name) {
  for (FieldType t : {FieldType::kInt, FieldType::kFloat, FieldType::kString, FieldType::kBool,
                      FieldType::kDatetime, FieldType::kStringSet}) {
    if (FieldTypeName(t) == name) return t;
  }
  return std::nullopt;
}

std::string_view ValueTypeName(const Value& v) {
  switch (v.index()) {
    case 0:
      return "absent";
    case 1:
      return "bool";
    case 2:
      return "int";
    case 3:
      return "float";
    case 4:
      return "string";
    case 5:
      return "datetime";
    default:
      return "set<string>";
  }
}

namespace {
template <typename T>
int Three(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}
}  // namespace

std::optional<int> CompareValues(const Value& a, const Value& b) {
  if (const auto* ai = std::get_if<std::int64_t>(&a)) {
    if (const auto* bi = std::get_if<std::int64_t>(&b)) return Three(*ai, *bi);
    if (const auto* bd = std::get_if<double>(&b)) return CompareIntDouble(*ai, *bd);
    return std::nullopt;
  }
  if (const auto* ad = std::get_if<double>(&a)) {
    if (const auto* bd = std::get_if<double>(&b)) return Three(*ad, *bd);
    if (const auto* bi = std::get_if<std::int64_t>(&b)) return -CompareIntDouble(*bi, *ad);
    return std::nullopt;
  }
  if (a.index() != b.index()) return std::nullopt;
  switch (a.index()) {
    case 1:
      return Three(std::get<bool>(a), std::get<bool>(b));
    case 4: {
      int c = std::get<std::string>(a).compare(std::get<std::string>(b));
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    case 5:
      return Three(std::get<Datetime>(a), std::get<Datetime>(b));
    default:
      return std::nullopt;
  }
}

bool ValuesEqual(const Value& a, const Value& b) {
  std::optional<int> c = CompareValues(a, b);
  return c && *c == 0;
}

namespace {
int TypeClass(const Value& v) {
  switch (v.index()) {
    case 1:
      return 0;
    case 2:
    case 3:
      return 1;
    case 4:
      return 2;
    case 5:
      return 3;
    default:
      return 4;
  }
}
}  // namespace

bool LiteralLess(const Value& a, const Value& b) {
  int ca = TypeClass(a), cb = TypeClass(b);
  if (ca != cb) return ca < cb;
  std::optional<int> c = CompareValues(a, b);
  if (c && *c != 0) return *c < 0;
  return a.index() < b.index();  // equal numbers: int before float
}

void NormalizeStringSet(StringSet* set) {
  std::sort(set->begin(), set->end());
  set->erase(std::unique(set->begin(), set->end()), set->end());
}

}  // namespace engram
