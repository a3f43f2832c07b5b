// `search_memory`: the SearchMemory tool's `filters` array (seed 001,
// FILTERS.md §2.4): entries {field, operator, value}, ANDed, at most 32.
// Errors are `filters[<i>].<key>: <message>`, code 400.
#include <string>
#include <utility>

#include "filter/dialects/parse_util.h"

namespace engram::filter {
namespace {
namespace search_memory {

inline constexpr std::size_t kSearchMemoryMaxFilters = 32;
inline constexpr std::size_t kSearchMemoryMaxAnyOf = 100;

using detail::FirstUnknownKey;
using detail::Invalid;
using detail::TypeOf;

constexpr std::string_view kOperators = "is, is_not, before, after, between, contains, any_of";

// The bounds of `between`: [min, max] or {"from": min, "to": max}. A
// date-only upper bound covers its whole day.
void BetweenOperands(const json::Value& v, const Path& path, ast::Node* n) {
  ast::Operand lo, hi;
  lo.kind = hi.kind = ast::Operand::Kind::kLiteral;
  hi.date_rounds_up = true;
  if (v.is_array() && v.size() == 2) {
    lo.literal = &v[0];
    lo.path = path.Index(0);
    hi.literal = &v[1];
    hi.path = path.Index(1);
  } else if (v.is_object() && v.size() == 2 && detail::Member(v, "from") &&
             detail::Member(v, "to")) {
    lo.literal = detail::Member(v, "from");
    lo.path = path.Key("from");
    hi.literal = detail::Member(v, "to");
    hi.path = path.Key("to");
  } else {
    lo.path = hi.path = path;
    lo.fault = MakeFault(FaultCode::kBetweenShape, path, TypeOf(v));
  }
  n->operands.push_back(std::move(lo));
  n->operands.push_back(std::move(hi));
}

ast::Node ParseEntry(const json::Value& v, const Path& path) {
  if (!v.is_object()) return Invalid(path, MakeFault(FaultCode::kNotObject, path, TypeOf(v)));
  if (auto unknown = FirstUnknownKey(v, {"field", "operator", "value"})) {
    return Invalid(path, MakeFault(FaultCode::kUnknownKey, path.Key(*unknown), *unknown));
  }
  ast::Operand field;
  field.path = path.Key("field");
  const json::Value* field_value = detail::Member(v, "field");
  const json::Value* op_value = detail::Member(v, "operator");
  const json::Value* value_value = detail::Member(v, "value");
  if (field_value == nullptr) {
    field.fault = MakeFault(FaultCode::kMissingKey, field.path, "field");
  } else if (!field_value->is_string()) {
    field.fault = MakeFault(FaultCode::kFieldNotString, field.path, TypeOf(*field_value));
  } else {
    field.kind = ast::Operand::Kind::kField;
    field.field = field_value->get<std::string>();
  }
  Path op_path = path.Key("operator");
  Path value_path = path.Key("value");
  // Faults in `operator` and `value` are reported after the field's, in the
  // order the keys are written in the tool's schema.
  std::optional<Fault> op_fault;
  std::string op;
  if (op_value == nullptr) {
    op_fault = MakeFault(FaultCode::kMissingKey, op_path, "operator");
  } else if (!op_value->is_string()) {
    op_fault = MakeFault(FaultCode::kOpNotString, op_path, TypeOf(*op_value));
  } else {
    op = op_value->get<std::string>();
    if (op != "is" && op != "is_not" && op != "before" && op != "after" && op != "between" &&
        op != "contains" && op != "any_of") {
      op_fault = MakeFault(FaultCode::kUnknownOp, op_path, op);
    }
  }
  if (!op_fault && value_value == nullptr) {
    op_fault = MakeFault(FaultCode::kMissingKey, value_path, "value");
  }
  ast::Node n;
  n.op = op;
  n.path = path;
  n.op_path = op_path;
  n.values_path = value_path;
  n.operands.push_back(std::move(field));
  if (op_fault) {
    // Checked as a comparison whose value carries the fault.
    n.kind = ast::NodeKind::kCompare;
    ast::Operand bad;
    bad.path = value_path;
    bad.fault = std::move(op_fault);
    n.operands.push_back(std::move(bad));
    return n;
  }
  const json::Value& value = *value_value;
  if (op == "between") {
    n.kind = ast::NodeKind::kBetween;
    BetweenOperands(value, value_path, &n);
    return n;
  }
  if (op == "any_of") {
    n.kind = ast::NodeKind::kIn;
    ast::Operand list;
    list.path = value_path;
    if (!value.is_array()) {
      list.fault = MakeFault(FaultCode::kWrongContainer, value_path, "value", TypeOf(value), op);
    } else if (value.empty()) {
      list.fault = MakeFault(FaultCode::kEmptyList, value_path, op);
    } else if (value.size() > kSearchMemoryMaxAnyOf) {
      list.fault =
          CountFault(FaultCode::kListTooLarge, value_path, value.size(), kSearchMemoryMaxAnyOf, op);
    } else {
      list.kind = ast::Operand::Kind::kList;
      list.items_path = value_path;
      for (const json::Value& item : value) list.items.push_back(&item);
    }
    n.operands.push_back(std::move(list));
    return n;
  }
  ast::Operand scalar;
  scalar.path = value_path;
  if (value.is_array()) {
    scalar.fault = MakeFault(FaultCode::kMisplacedArray, value_path, op);
  } else {
    scalar.kind = ast::Operand::Kind::kLiteral;
    scalar.literal = &value;
    // An `after` bound that is a date alone means after that whole day.
    scalar.date_rounds_up = op == "after";
  }
  n.operands.push_back(std::move(scalar));
  if (op == "contains") {
    n.kind = ast::NodeKind::kContains;
    n.case_insensitive = true;
    return n;
  }
  n.kind = ast::NodeKind::kCompare;
  n.cmp = op == "before" ? CmpOp::kLt : (op == "after" ? CmpOp::kGt : CmpOp::kEq);
  // is_not is not(is): records without the field match (FILTERS.md §2.4).
  return op == "is_not" ? detail::LoweredNot(std::move(n)) : n;
}

std::string Message(const Fault& f) {
  const std::string n = std::to_string(f.n), m = std::to_string(f.m);
  switch (f.code) {
    case FaultCode::kNotArray:
      return "expected an array of filters, got " + f.a;
    case FaultCode::kNotObject:
      return "expected an object with field, operator and value, got " + f.a;
    case FaultCode::kUnknownKey:
      return "unknown key '" + f.a + "' (expected field, operator, value)";
    case FaultCode::kMissingKey:
      return "required key '" + f.a + "' is missing";
    case FaultCode::kFieldNotString:
    case FaultCode::kOpNotString:
      return "expected string, got " + f.a;
    case FaultCode::kUnknownField:
      return "unknown field '" + f.a + "' (expected one of: " + f.b + ")";
    case FaultCode::kUnknownOp:
      return "unknown operator '" + f.a + "' (expected " + std::string(kOperators) + ")";
    case FaultCode::kOpNotApplicable:
      return "'" + f.a + "' does not apply to " + f.b + " field '" + f.d + "'";
    case FaultCode::kTypeMismatch:
    case FaultCode::kItemType:
      return "expected " + f.a + ", got " + f.b;
    case FaultCode::kContainsNeedsString:
      return "expected string, got " + f.a;
    case FaultCode::kMisplacedArray:
      return "an array value is allowed only with between and any_of";
    case FaultCode::kWrongContainer:
      return "any_of expects an array of values, got " + f.b;
    case FaultCode::kEmptyList:
      return "any_of expects 1 to " + std::to_string(kSearchMemoryMaxAnyOf) + " values, got none";
    case FaultCode::kListTooLarge:
      return "any_of expects 1 to " + m + " values, got " + n;
    case FaultCode::kTooManyNodes:
      return "at most " + std::to_string(kSearchMemoryMaxFilters) + " filters are allowed";
    default:
      return detail::DefaultDetail(f);
  }
}

ast::Tree Parse(const json::Value& doc) {
  ast::Tree tree;
  Path root;
  if (!doc.is_array()) {
    tree.root = Invalid(root, MakeFault(FaultCode::kNotArray, root, TypeOf(doc)));
    return tree;
  }
  ast::Node& all = tree.root;
  all.path = root;
  all.op = "filters";
  if (doc.empty()) {  // no filters: no restriction
    all.kind = ast::NodeKind::kConst;
    all.value = true;
    return tree;
  }
  all.kind = ast::NodeKind::kAnd;
  for (std::size_t i = 0; i < doc.size(); ++i)
    all.children.push_back(ParseEntry(doc[i], root.Index(i)));
  return tree;
}

Diagnostic Render(const Fault& f) {
  return detail::PathMessage(f, f.path.JsonPath("filters"), Message(f));
}

}  // namespace search_memory
}  // namespace

namespace detail {
const DialectSpec& SearchMemorySpec() {
  static const DialectSpec spec{
      Dialect::kSearchMemory, 400,
      Policy{.max_depth = 16,
             .max_nodes = search_memory::kSearchMemoryMaxFilters + 1,  // array + entries
             .op_before_value = true,
             .int_fields_take_integers_only = true,
             .nonempty_contains = true},
      &search_memory::Parse, &search_memory::Render};
  return spec;
}
}  // namespace detail

}  // namespace engram::filter
