#include "filter/ir/printer.h"

#include <string>

#include "base/number.h"

namespace engram::filter {
namespace {

bool IsIdentifier(const std::string& s) {
  if (s.empty()) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
              (i > 0 && ((c >= '0' && c <= '9') || c == '.' || c == '-'));
    if (!ok) return false;
  }
  return s != "true" && s != "false";
}

std::string FieldSexpr(const Schema& schema, std::uint32_t slot) {
  const std::string& name = schema.field(slot).name;
  if (IsIdentifier(name)) return name;
  std::string out = "|";
  for (char c : name) {
    if (c == '|' || c == '\\') out += '\\';
    out += c;
  }
  return out + "|";
}

void Sexpr(const Node& n, const Schema& schema, std::string* out) {
  switch (n.op) {
    case Op::kTrue:
      *out += "true";
      return;
    case Op::kFalse:
      *out += "false";
      return;
    case Op::kAnd:
    case Op::kOr:
    case Op::kNot:
      *out += '(';
      *out += OpName(n);
      for (const Node& c : n.children) {
        *out += ' ';
        Sexpr(c, schema, out);
      }
      *out += ')';
      return;
    case Op::kRange:
      *out += "(range " + FieldSexpr(schema, n.slot);
      if (n.lo)
        *out += std::string(n.lo->inclusive ? " (ge " : " (gt ") + LiteralSexpr(n.lo->value) + ")";
      if (n.hi)
        *out += std::string(n.hi->inclusive ? " (le " : " (lt ") + LiteralSexpr(n.hi->value) + ")";
      *out += ')';
      return;
    case Op::kCmpFields:
      *out += "(cmp_fields " + std::string(CmpOpName(n.cmp)) + " " + FieldSexpr(schema, n.slot) +
              " " + FieldSexpr(schema, n.other) + ")";
      return;
    case Op::kInField:
      *out += "(in_field " + FieldSexpr(schema, n.slot) + " " + FieldSexpr(schema, n.other) + ")";
      return;
    default:
      *out += '(';
      *out += OpName(n);
      *out += ' ';
      *out += FieldSexpr(schema, n.slot);
      for (const Value& v : n.values) *out += ' ' + LiteralSexpr(v);
      *out += ')';
      return;
  }
}

}  // namespace

std::string_view OpName(const Node& n) {
  switch (n.op) {
    case Op::kTrue:
      return "true";
    case Op::kFalse:
      return "false";
    case Op::kAnd:
      return "and";
    case Op::kOr:
      return "or";
    case Op::kNot:
      return "not";
    case Op::kExists:
      return "exists";
    case Op::kCmp:
      return CmpOpName(n.cmp);
    case Op::kIn:
      return "in";
    case Op::kHasAny:
      return "has_any";
    case Op::kContains:
      return "contains";
    case Op::kIContains:
      return "icontains";
    case Op::kRange:
      return "range";
    case Op::kCmpFields:
      return "cmp_fields";
    case Op::kInField:
      return "in_field";
  }
  return "?";
}

std::string LiteralSexpr(const Value& v) {
  switch (v.index()) {
    case 1:
      return std::get<bool>(v) ? "true" : "false";
    case 2:
      return std::to_string(std::get<std::int64_t>(v));
    case 3:
      return FormatFloatLiteral(std::get<double>(v));
    case 4:
      return json::Dump(json::Value(std::get<std::string>(v)));
    case 5:
      return FormatDatetime(std::get<Datetime>(v));
    default:
      return "?";
  }
}

std::string ToSexpr(const Node& node, const Schema& schema) {
  std::string out;
  Sexpr(node, schema, &out);
  return out;
}

json::Value ToJson(const Node& n, const Schema& schema) {
  json::Value o = json::Value::object();
  o["op"] = OpName(n);
  switch (n.op) {
    case Op::kTrue:
    case Op::kFalse:
      break;
    case Op::kAnd:
    case Op::kOr: {
      json::Value args = json::Value::array();
      for (const Node& c : n.children) args.push_back(ToJson(c, schema));
      o["args"] = std::move(args);
      break;
    }
    case Op::kNot:
      o["arg"] = ToJson(n.children[0], schema);
      break;
    case Op::kExists:
      o["field"] = schema.field(n.slot).name;
      break;
    case Op::kCmp:
    case Op::kContains:
    case Op::kIContains:
      o["field"] = schema.field(n.slot).name;
      o["value"] = ValueToJson(n.values[0]);
      break;
    case Op::kIn:
    case Op::kHasAny: {
      o["field"] = schema.field(n.slot).name;
      json::Value values = json::Value::array();
      for (const Value& v : n.values) values.push_back(ValueToJson(v));
      o["values"] = std::move(values);
      break;
    }
    case Op::kRange:
      o["field"] = schema.field(n.slot).name;
      if (n.lo) o[n.lo->inclusive ? "ge" : "gt"] = ValueToJson(n.lo->value);
      if (n.hi) o[n.hi->inclusive ? "le" : "lt"] = ValueToJson(n.hi->value);
      break;
    case Op::kCmpFields:
      o["cmp"] = CmpOpName(n.cmp);
      o["field"] = schema.field(n.slot).name;
      o["other"] = schema.field(n.other).name;
      break;
    case Op::kInField:
      o["field"] = schema.field(n.slot).name;
      o["set"] = schema.field(n.other).name;
      break;
  }
  return o;
}

}  // namespace engram::filter
