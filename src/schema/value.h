// Value: one typed field value, as stored in a record slot or written as a
// literal in a filter, and the exact comparisons of FILTERS.md §1.2.
#ifndef ENGRAM_SCHEMA_VALUE_H_
#define ENGRAM_SCHEMA_VALUE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "base/time.h"

namespace engram {

// A set<string> value: sorted bytewise, no duplicates.
using StringSet = std::vector<std::string>;

// std::monostate means "absent" (a record without the field).
using Value =
    std::variant<std::monostate, bool, std::int64_t, double, std::string, Datetime, StringSet>;

enum class FieldType : std::uint8_t { kInt, kFloat, kString, kBool, kDatetime, kStringSet };

// "int", "float", "string", "bool", "datetime", "set<string>".
std::string_view FieldTypeName(FieldType type);
std::optional<FieldType> FieldTypeFromName(std::string_view name);

// The type name of a value as filters' messages use it (int, float, string,
// bool, datetime, set<string>; "absent" for monostate).
std::string_view ValueTypeName(const Value& v);

inline bool IsNumeric(FieldType t) {
  return t == FieldType::kInt || t == FieldType::kFloat;
}
// Types with an order filters may use (strings bytewise, where a dialect allows).
inline bool IsOrdered(FieldType t) {
  return t != FieldType::kBool && t != FieldType::kStringSet;
}

inline bool IsNumeric(const Value& v) {
  return std::holds_alternative<std::int64_t>(v) || std::holds_alternative<double>(v);
}

// Three-way comparison of two scalar values of comparable types: int and
// float by exact mathematical value, strings bytewise, datetimes as instants,
// bools false < true. nullopt when the types are not comparable (or either is
// absent or a set).
std::optional<int> CompareValues(const Value& a, const Value& b);

// CompareValues(a, b) == 0.
bool ValuesEqual(const Value& a, const Value& b);

// A strict total order over scalar literals for sorting and de-duplicating
// literal lists: by type class (bool, number, string, datetime), then value;
// an int sorts before an equal float.
bool LiteralLess(const Value& a, const Value& b);

// Sorts and de-duplicates a set<string> in place.
void NormalizeStringSet(StringSet* set);

}  // namespace engram

#endif  // ENGRAM_SCHEMA_VALUE_H_
