#include "filter/ir/verifier.h"

#include <string>

#include "filter/ir/printer.h"

namespace engram::filter {

bool LiteralFits(FieldType t, const Value& v) {
  switch (t) {
    case FieldType::kInt:
    case FieldType::kFloat:
      return IsNumeric(v);
    case FieldType::kString:
    case FieldType::kStringSet:
      return std::holds_alternative<std::string>(v);
    case FieldType::kBool:
      return std::holds_alternative<bool>(v);
    case FieldType::kDatetime:
      return std::holds_alternative<Datetime>(v);
  }
  return false;
}

namespace {

bool Comparable(FieldType a, FieldType b) {
  if (IsNumeric(a) && IsNumeric(b)) return true;
  return a == b && a != FieldType::kStringSet;
}

std::optional<std::string> VerifyNode(const Node& n, const Schema& schema) {
  auto fail = [&](const std::string& what) -> std::optional<std::string> {
    return std::string(OpName(n)) + ": " + what;
  };
  switch (n.op) {
    case Op::kTrue:
    case Op::kFalse:
      if (!n.children.empty() || !n.values.empty()) return fail("constant with operands");
      return std::nullopt;
    case Op::kAnd:
    case Op::kOr:
      if (n.children.empty()) return fail("no children");
      for (const Node& c : n.children) {
        if (auto e = VerifyNode(c, schema)) return e;
      }
      return std::nullopt;
    case Op::kNot:
      if (n.children.size() != 1) return fail("needs exactly one child");
      return VerifyNode(n.children[0], schema);
    default:
      break;
  }
  if (!n.children.empty()) return fail("leaf with children");
  if (n.slot >= schema.fields().size()) return fail("slot out of range");
  const Field& f = schema.field(n.slot);
  if (!f.filterable) return fail("field '" + f.name + "' is not filterable");
  for (const Value& v : n.values) {
    if (!LiteralFits(f.type, v)) return fail("literal does not fit field '" + f.name + "'");
  }
  switch (n.op) {
    case Op::kExists:
      if (!n.values.empty()) return fail("exists with literals");
      return std::nullopt;
    case Op::kCmp:
      if (n.values.size() != 1) return fail("needs one literal");
      if (f.type == FieldType::kStringSet) return fail("comparison on a set field");
      if (n.cmp != CmpOp::kEq && n.cmp != CmpOp::kNe && !IsOrdered(f.type)) {
        return fail("ordering on a field that has none");
      }
      return std::nullopt;
    case Op::kIn:
      if (f.type == FieldType::kStringSet) return fail("in on a set field");
      return std::nullopt;
    case Op::kHasAny:
      if (f.type != FieldType::kStringSet) return fail("has_any on a scalar field");
      return std::nullopt;
    case Op::kContains:
    case Op::kIContains:
      if (f.type != FieldType::kString || n.values.size() != 1) {
        return fail("needs a string field and one string");
      }
      return std::nullopt;
    case Op::kRange:
      if (!IsOrdered(f.type)) return fail("range on a field that has no order");
      if (!n.lo && !n.hi) return fail("range without bounds");
      if ((n.lo && !LiteralFits(f.type, n.lo->value)) ||
          (n.hi && !LiteralFits(f.type, n.hi->value))) {
        return fail("bound does not fit the field");
      }
      if (!n.values.empty()) return fail("range with literals");
      return std::nullopt;
    case Op::kCmpFields: {
      if (n.other >= schema.fields().size()) return fail("other slot out of range");
      const Field& g = schema.field(n.other);
      if (!g.filterable) return fail("field '" + g.name + "' is not filterable");
      if (!Comparable(f.type, g.type)) return fail("fields of incomparable types");
      if (n.cmp != CmpOp::kEq && n.cmp != CmpOp::kNe &&
          (!IsOrdered(f.type) || f.type == FieldType::kString)) {
        return fail("ordering between fields that have none");
      }
      return std::nullopt;
    }
    case Op::kInField: {
      if (n.other >= schema.fields().size()) return fail("other slot out of range");
      const Field& g = schema.field(n.other);
      if (f.type != FieldType::kString || g.type != FieldType::kStringSet || !g.filterable) {
        return fail("needs a string field and a filterable set<string> field");
      }
      return std::nullopt;
    }
    default:
      return fail("unknown op");
  }
}

}  // namespace

std::optional<std::string> Verify(const Node& node, const Schema& schema) {
  return VerifyNode(node, schema);
}

}  // namespace engram::filter
