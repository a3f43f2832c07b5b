// `expr_v1`: the `search_filter_expr/v1` envelope of seed 004 (FILTERS.md
// §2.2). Ops and/or (args), not (expr), leaves eq neq in contains gt gte lt
// lte with field and value. Errors are `<JSONPath>: <message>` with the
// reference service's wording (FILTERS.md Appendix A), code 400.
#include <string>
#include <utility>

#include "base/unicode.h"
#include "filter/dialects/parse_util.h"

namespace engram::filter {
namespace {
namespace expr_v1 {

using detail::FirstUnknownKey;
using detail::Invalid;
using detail::TypeOf;

std::optional<CmpOp> LeafCmp(std::string_view op) {
  if (op == "eq" || op == "neq") return CmpOp::kEq;
  if (op == "gt") return CmpOp::kGt;
  if (op == "gte") return CmpOp::kGe;
  if (op == "lt") return CmpOp::kLt;
  if (op == "lte") return CmpOp::kLe;
  return std::nullopt;
}

ast::Node ParseNode(const json::Value& v, const Path& path) {
  if (!v.is_object()) return Invalid(path, MakeFault(FaultCode::kNotObject, path, TypeOf(v)));
  const json::Value* op_value = detail::Member(v, "op");
  if (op_value == nullptr || !op_value->is_string()) {
    return Invalid(path, MakeFault(FaultCode::kOpNotString, path));
  }
  const std::string op = op_value->get<std::string>();
  ast::Node n;
  n.op = op;
  n.path = path;
  if (op == "and" || op == "or") {
    if (auto unknown = FirstUnknownKey(v, {"op", "args"})) {
      return Invalid(path, MakeFault(FaultCode::kUnknownKey, path, *unknown, op), op);
    }
    Path args_path = path.Key("args");
    const json::Value* args_value = detail::Member(v, "args");
    if (args_value == nullptr) {
      return Invalid(path, MakeFault(FaultCode::kMissingKey, args_path, "args", op), op);
    }
    const json::Value& args = *args_value;
    if (!args.is_array()) {
      return Invalid(
          path, MakeFault(FaultCode::kWrongContainer, args_path, "args", TypeOf(args), op), op);
    }
    if (args.empty()) return Invalid(path, MakeFault(FaultCode::kEmptyArgs, args_path, op), op);
    n.kind = op == "and" ? ast::NodeKind::kAnd : ast::NodeKind::kOr;
    for (std::size_t i = 0; i < args.size(); ++i) {
      n.children.push_back(ParseNode(args[i], args_path.Index(i)));
    }
    return n;
  }
  if (op == "not") {
    if (auto unknown = FirstUnknownKey(v, {"op", "expr"})) {
      return Invalid(path, MakeFault(FaultCode::kUnknownKey, path, *unknown, op), op);
    }
    const json::Value* expr = detail::Member(v, "expr");
    if (expr == nullptr) {
      return Invalid(path, MakeFault(FaultCode::kMissingKey, path.Key("expr"), "expr", op), op);
    }
    n.kind = ast::NodeKind::kNot;
    n.children.push_back(ParseNode(*expr, path.Key("expr")));
    return n;
  }
  std::optional<CmpOp> cmp = LeafCmp(op);
  if (!cmp && op != "in" && op != "contains") {
    return Invalid(path, MakeFault(FaultCode::kUnknownOp, path, op), op);
  }
  if (auto unknown = FirstUnknownKey(v, {"op", "field", "value"})) {
    return Invalid(path, MakeFault(FaultCode::kUnknownKey, path, *unknown, op), op);
  }
  ast::Operand field;
  field.path = path.Key("field");
  const json::Value* field_value = detail::Member(v, "field");
  if (field_value == nullptr) {
    field.fault = MakeFault(FaultCode::kMissingKey, field.path, "field", op);
  } else if (!field_value->is_string()) {
    field.fault = MakeFault(FaultCode::kFieldNotString, field.path, TypeOf(*field_value));
  } else {
    field.kind = ast::Operand::Kind::kField;
    field.field = field_value->get<std::string>();
  }
  ast::Operand value;
  value.path = path.Key("value");
  const json::Value* value_value = detail::Member(v, "value");
  if (value_value == nullptr) {
    value.fault = MakeFault(FaultCode::kMissingKey, value.path, "value", op);
  } else if (op == "in") {
    const json::Value& list = *value_value;
    if (!list.is_array()) {
      value.fault = MakeFault(FaultCode::kWrongContainer, value.path, "value", TypeOf(list), op);
    } else if (list.size() > kExprV1MaxInList) {
      value.fault = CountFault(FaultCode::kListTooLarge, value.path, list.size(), kExprV1MaxInList);
    } else {
      value.kind = ast::Operand::Kind::kList;
      value.items_path = value.path;
      for (const json::Value& item : list) value.items.push_back(&item);
    }
  } else {
    value.kind = ast::Operand::Kind::kLiteral;
    value.literal = value_value;
  }
  n.operands.push_back(std::move(field));
  n.operands.push_back(std::move(value));
  if (op == "in") {
    n.kind = ast::NodeKind::kIn;
    return n;
  }
  if (op == "contains") {
    n.kind = ast::NodeKind::kContains;
    return n;
  }
  n.kind = ast::NodeKind::kCompare;
  n.cmp = *cmp;
  // neq is not(eq): true on a record without the field (FILTERS.md §2.2).
  return op == "neq" ? detail::LoweredNot(std::move(n)) : n;
}

std::string ValueExpected(const std::string& type) {
  if (type == "int" || type == "float") return "numeric value expected.";
  if (type == "datetime") return "datetime value must be RFC3339.";
  if (type == "bool") return "boolean value expected.";
  return "string value expected.";
}

std::string Message(const Fault& f) {
  const std::string n = std::to_string(f.n), m = std::to_string(f.m);
  switch (f.code) {
    case FaultCode::kSyntax:
    case FaultCode::kNestingTooDeep:
      return "filter is not valid JSON (" + f.a + ").";
    case FaultCode::kTextTooLarge:
      return "filter exceeds maximum size (" + m + " bytes).";
    case FaultCode::kDuplicateKey:
      return "duplicate key '" + f.a + "'.";
    case FaultCode::kNumberOutOfRange:
      return "number '" + f.a + "' is out of range.";
    case FaultCode::kNotObject:
      return f.path.empty() ? "filter must be an object." : "filter node must be an object.";
    case FaultCode::kBadEnvelope:
      if (f.b == "missing") return "filter.schema is required.";
      return "unsupported filter schema '" + f.a + "', expected '" + std::string(kExprV1Schema) +
             "'.";
    case FaultCode::kMissingKey:
      if (f.a == "expr")
        return f.b.empty() ? "filter.expr is required." : "not node requires expr.";
      if (f.a == "args") return f.b + " node requires args.";
      return "op node is missing required field '" + f.a + "'.";
    case FaultCode::kOpNotString:
      return "filter node is missing required string op.";
    case FaultCode::kWrongContainer:
      return f.a == "args" ? "op args must be an array." : "in value must be an array.";
    case FaultCode::kEmptyArgs:
      return "op args must contain at least one node.";
    case FaultCode::kUnknownOp:
      return "unsupported filter op '" + f.a + "'.";
    case FaultCode::kUnknownKey:
      return "unknown key '" + f.a + "'.";
    case FaultCode::kFieldNotString:
      return "filter field must be a string.";
    case FaultCode::kUnknownField:
    case FaultCode::kFieldNotFilterable:
      return "field '" + AsciiLower(f.a) + "' is not in allowlist: " + f.b;
    case FaultCode::kTypeMismatch:
    case FaultCode::kItemType:
      return ValueExpected(f.a);
    case FaultCode::kBadDatetime:
      return "datetime value must be RFC3339.";
    case FaultCode::kStringTooLong:
      return "string value exceeds maximum bytes (" + m + ").";
    case FaultCode::kContainsNeedsString:
      return "contains requires a string value.";
    case FaultCode::kListTooLarge:
      return "in list exceeds maximum size (" + n + "/" + m + ")";
    case FaultCode::kTooManyNodes:
      return "filter exceeds node limit (" + n + "/" + m + ")";
    case FaultCode::kTooDeep:
      return "filter exceeds depth limit (" + n + "/" + m + ")";
    case FaultCode::kOpNotApplicable:
      if (f.a == "contains") return "op 'contains' requires a string field.";
      return "op '" + f.a + "' requires a numeric or datetime field.";
    case FaultCode::kNullNeedsOptional:
      return "null is only allowed for optional fields.";
    case FaultCode::kNullNotAllowed:
      return "null is only allowed with eq and neq.";
    default:
      return detail::DefaultDetail(f) + ".";
  }
}

ast::Tree Parse(const json::Value& doc) {
  ast::Tree tree;
  Path root;
  if (!doc.is_object()) {
    tree.fault = MakeFault(FaultCode::kNotObject, root, TypeOf(doc));
    return tree;
  }
  if (!doc.contains("schema")) {
    tree.fault = MakeFault(FaultCode::kBadEnvelope, root.Key("schema"), "", "missing");
    return tree;
  }
  const json::Value& schema = doc["schema"];
  if (!schema.is_string() || schema.get<std::string>() != kExprV1Schema) {
    std::string shown = schema.is_string() ? schema.get<std::string>() : json::Dump(schema);
    tree.fault = MakeFault(FaultCode::kBadEnvelope, root.Key("schema"), shown);
    return tree;
  }
  if (!doc.contains("expr")) {
    tree.fault = MakeFault(FaultCode::kMissingKey, root.Key("expr"), "expr");
    return tree;
  }
  if (auto unknown = FirstUnknownKey(doc, {"schema", "expr"})) {
    tree.fault = MakeFault(FaultCode::kUnknownKey, root, *unknown);
    return tree;
  }
  tree.root = ParseNode(doc["expr"], root.Key("expr"));
  return tree;
}

Diagnostic Render(const Fault& f) {
  // Reading faults that concern the whole text are reported at the root.
  bool whole = f.code == FaultCode::kSyntax || f.code == FaultCode::kNestingTooDeep ||
               f.code == FaultCode::kTextTooLarge;
  return detail::PathMessage(f, whole ? "$.filter" : f.path.JsonPath("$.filter"), Message(f));
}

}  // namespace expr_v1
}  // namespace

namespace detail {
const DialectSpec& ExprV1Spec() {
  static const DialectSpec spec{Dialect::kExprV1, 400,
                                Policy{.max_depth = 8,
                                       .max_nodes = 128,
                                       .field_names_ignore_case = true,
                                       .null_means_absent = true,
                                       .null_requires_optional = true,
                                       .trim_strings = true,
                                       .max_string_bytes = kExprV1MaxStringBytes,
                                       .datetime_form = DatetimeForm::kStrict},
                                &expr_v1::Parse, &expr_v1::Render};
  return spec;
}
}  // namespace detail

}  // namespace engram::filter
