// The canonical printed forms of a checked filter: a compact S-expression
// (tests, explain) and JSON (the CLI, HTTP). Both are deterministic: the same
// IR prints the same bytes in every run.
//
// S-expression: `(and (le min_level 12) (has_any character_classes "mage"))`.
// Leaves are `(<op> <field> <literal>...)`: eq ne lt le gt ge (cmp), in,
// has_any, contains, icontains, exists, `(range f (ge 2) (lt 10))`,
// `(cmp_fields eq a b)`, `(in_field a b)`. Literals: integers, floats with a
// `.` or exponent, JSON-quoted strings, true/false, datetimes as bare RFC 3339
// (`2025-07-01T00:00:00Z`). Field names that are not plain identifiers are
// written `|like this|`.
//
// JSON: `{"op":"and","args":[...]}`, `{"op":"not","arg":...}`,
// `{"op":"eq","field":"f","value":12}`, `{"op":"in","field":"f","values":[...]}`,
// `{"op":"range","field":"f","ge":2,"lt":10}`, `{"op":"exists","field":"f"}`,
// `{"op":"cmp_fields","cmp":"eq","field":"a","other":"b"}`,
// `{"op":"in_field","field":"a","set":"b"}`, `{"op":"true"}`; datetimes as
// RFC 3339 strings.
#ifndef ENGRAM_FILTER_IR_PRINTER_H_
#define ENGRAM_FILTER_IR_PRINTER_H_

#include <string>

#include "base/json.h"
#include "filter/ir/ir.h"

namespace engram::filter {

std::string ToSexpr(const Node& node, const Schema& schema);
json::Value ToJson(const Node& node, const Schema& schema);

inline std::string ToSexpr(const Filter& f) {
  return ToSexpr(f.root, *f.schema);
}
inline json::Value ToJson(const Filter& f) {
  return ToJson(f.root, *f.schema);
}

// A literal as the S-expression writes it.
std::string LiteralSexpr(const Value& v);

// The op's printed name ("eq", "has_any", "range", ...).
std::string_view OpName(const Node& node);

}  // namespace engram::filter

#endif  // ENGRAM_FILTER_IR_PRINTER_H_
