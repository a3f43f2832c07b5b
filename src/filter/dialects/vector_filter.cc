// `vector_filter`: AgentsKit's VectorFilter v1 (seed 003, FILTERS.md §2.3), a
// Mongo-style document: {field: primitive | {$op: value, ...}}, $and / $or,
// several keys at one level ANDed. Errors are `<JSON Pointer>: <message>`,
// code 400.
#include <string>
#include <utility>

#include "filter/dialects/parse_util.h"

namespace engram::filter {
namespace {
namespace vector_filter {

using detail::Invalid;
using detail::LoweredNot;
using detail::TypeOf;

constexpr std::string_view kOperators = "$eq, $ne, $in, $nin, $gt, $gte, $lt, $lte, $exists";

ast::Node ParseObject(const json::Value& v, const Path& path, bool is_root);

ast::Operand FieldOperand(const std::string& name, const Path& path);

// A predicate that cannot be built (an unknown operator, an empty operator
// object): its field is still checked first, as for any predicate, and the
// fault comes after it.
ast::Node FieldFault(const std::string& field, const Path& field_path, const Path& path,
                     Fault fault, const std::string& op) {
  ast::Node n;
  n.kind = ast::NodeKind::kCompare;
  n.op = op;
  n.path = path;
  n.operands.push_back(FieldOperand(field, field_path));
  ast::Operand bad;
  bad.path = path;
  bad.fault = std::move(fault);
  n.operands.push_back(std::move(bad));
  return n;
}

ast::Operand FieldOperand(const std::string& name, const Path& path) {
  ast::Operand o;
  o.kind = ast::Operand::Kind::kField;
  o.field = name;
  o.path = path;
  return o;
}

// A scalar value operand (arrays belong to $in / $nin only).
ast::Operand ScalarOperand(const json::Value& v, const Path& path, const std::string& op) {
  ast::Operand o;
  o.path = path;
  if (v.is_array()) {
    o.fault = MakeFault(FaultCode::kMisplacedArray, path, op);
    return o;
  }
  o.kind = ast::Operand::Kind::kLiteral;
  o.literal = &v;
  return o;
}

ast::Node Compare(CmpOp cmp, const std::string& op, const std::string& field,
                  const Path& field_path, const json::Value& v, const Path& path) {
  ast::Node n;
  n.kind = ast::NodeKind::kCompare;
  n.cmp = cmp;
  n.op = op;
  n.path = path;
  n.operands.push_back(FieldOperand(field, field_path));
  n.operands.push_back(ScalarOperand(v, path, op));
  return n;
}

// One operator of a field predicate: `{"v": {"$gte": 2}}` at /v/$gte.
ast::Node ParseOperator(const std::string& field, const Path& field_path, const std::string& op,
                        const json::Value& v) {
  Path path = field_path.Key(op);
  if (op == "$eq") return Compare(CmpOp::kEq, op, field, field_path, v, path);
  if (op == "$ne") return LoweredNot(Compare(CmpOp::kEq, op, field, field_path, v, path));
  if (op == "$gt") return Compare(CmpOp::kGt, op, field, field_path, v, path);
  if (op == "$gte") return Compare(CmpOp::kGe, op, field, field_path, v, path);
  if (op == "$lt") return Compare(CmpOp::kLt, op, field, field_path, v, path);
  if (op == "$lte") return Compare(CmpOp::kLe, op, field, field_path, v, path);
  ast::Node n;
  n.op = op;
  n.path = path;
  n.operands.push_back(FieldOperand(field, field_path));
  if (op == "$in" || op == "$nin") {
    n.kind = ast::NodeKind::kIn;
    ast::Operand list;
    list.path = path;
    if (!v.is_array()) {
      list.fault = MakeFault(FaultCode::kWrongContainer, path, op, TypeOf(v));
    } else if (v.size() > kMaxArrayLiteral) {
      list.fault = CountFault(FaultCode::kListTooLarge, path, v.size(), kMaxArrayLiteral, op);
    } else {
      list.kind = ast::Operand::Kind::kList;
      list.items_path = path;
      for (const json::Value& item : v) list.items.push_back(&item);
    }
    n.operands.push_back(std::move(list));
    return op == "$nin" ? LoweredNot(std::move(n)) : n;
  }
  if (op == "$exists") {
    n.kind = ast::NodeKind::kExists;
    if (!v.is_boolean()) {
      // Reported after the field, like any value.
      ast::Operand bad;
      bad.path = path;
      bad.fault = MakeFault(FaultCode::kBadBool, path, TypeOf(v));
      n.operands.push_back(std::move(bad));
      return n;
    }
    return v.get<bool>() ? n : LoweredNot(std::move(n));
  }
  bool dollar = !op.empty() && op[0] == '$';
  return FieldFault(field, field_path, path,
                    MakeFault(dollar ? FaultCode::kUnknownOp : FaultCode::kNotAnOperator, path, op),
                    op);
}

// `field: value` at /field.
ast::Node ParsePredicate(const std::string& field, const json::Value& v, const Path& path) {
  if (!v.is_object()) return Compare(CmpOp::kEq, "$eq", field, path, v, path);
  if (v.empty())
    return FieldFault(field, path, path, MakeFault(FaultCode::kEmptyObject, path), "$eq");
  if (v.size() == 1) return ParseOperator(field, path, v.begin().key(), v.begin().value());
  ast::Node n;  // {"v":{"$gte":2,"$lt":10}}: an implicit and over two predicates
  n.kind = ast::NodeKind::kAnd;
  n.op = "$and";
  n.path = path;
  for (const auto& item : v.items())
    n.children.push_back(ParseOperator(field, path, item.key(), item.value()));
  return n;
}

ast::Node ParseEntry(const std::string& key, const json::Value& v, const Path& path) {
  Path p = path.Key(key);
  if (key == "$and" || key == "$or") {
    if (!v.is_array())
      return Invalid(p, MakeFault(FaultCode::kWrongContainer, p, key, TypeOf(v)), key);
    ast::Node n;
    n.kind = key == "$and" ? ast::NodeKind::kAnd : ast::NodeKind::kOr;
    n.op = key;
    n.path = p;
    if (v.empty()) n.fault = MakeFault(FaultCode::kEmptyArgs, p, key);
    for (std::size_t i = 0; i < v.size(); ++i)
      n.children.push_back(ParseObject(v[i], p.Index(i), false));
    return n;
  }
  if (!key.empty() && key[0] == '$') {
    // A field operator where a field belongs is named as such.
    bool field_op = key == "$eq" || key == "$ne" || key == "$in" || key == "$nin" || key == "$gt" ||
                    key == "$gte" || key == "$lt" || key == "$lte" || key == "$exists";
    return Invalid(p, MakeFault(FaultCode::kUnknownOp, p, key, field_op ? "field_operator" : ""),
                   key);
  }
  return ParsePredicate(key, v, p);
}

ast::Node ParseObject(const json::Value& v, const Path& path, bool is_root) {
  if (!v.is_object()) return Invalid(path, MakeFault(FaultCode::kNotObject, path, TypeOf(v)));
  if (v.empty()) {
    if (!is_root) return Invalid(path, MakeFault(FaultCode::kEmptyObject, path));
    ast::Node all;  // the whole filter `{}`: no restriction
    all.kind = ast::NodeKind::kConst;
    all.value = true;
    all.path = path;
    return all;
  }
  if (v.size() == 1) return ParseEntry(v.begin().key(), v.begin().value(), path);
  ast::Node n;  // several keys at one level: an implicit and
  n.kind = ast::NodeKind::kAnd;
  n.op = "$and";
  n.path = path;
  for (const auto& item : v.items())
    n.children.push_back(ParseEntry(item.key(), item.value(), path));
  return n;
}

std::string Message(const Fault& f) {
  const std::string n = std::to_string(f.n), m = std::to_string(f.m);
  switch (f.code) {
    case FaultCode::kNotObject:
      return "expected a filter object, got " + f.a;
    case FaultCode::kWrongContainer:
      return f.a + " expects an array, got " + f.b;
    case FaultCode::kEmptyArgs:
      return f.a + " needs at least one filter";
    case FaultCode::kUnknownOp:
      if (f.b == "field_operator") {
        return "'" + f.a + "' compares a field: write {\"<field>\": {\"" + f.a + "\": ...}}";
      }
      return "unknown operator '" + f.a + "'";
    case FaultCode::kNotAnOperator:
      return "expected an operator (" + std::string(kOperators) + "), got '" + f.a + "'";
    case FaultCode::kTypeMismatch:
    case FaultCode::kItemType:
      return "expected " + f.a + ", got " + f.b;
    case FaultCode::kNullNotAllowed:
      return "null is allowed only with $eq and $ne";
    case FaultCode::kBadBool:
      return "$exists expects true or false, got " + f.a;
    case FaultCode::kMisplacedArray:
      return "an array is allowed only with $in and $nin";
    case FaultCode::kListTooLarge:
      return f.a + " has " + n + " values, more than the limit of " + m;
    default:
      return detail::DefaultDetail(f);
  }
}

ast::Tree Parse(const json::Value& doc) {
  ast::Tree tree;
  tree.root = ParseObject(doc, Path(), true);
  return tree;
}

Diagnostic Render(const Fault& f) {
  return detail::PathMessage(f, f.path.Pointer("<root>"), Message(f));
}

}  // namespace vector_filter
}  // namespace

namespace detail {
const DialectSpec& VectorFilterSpec() {
  static const DialectSpec spec{
      Dialect::kVectorFilter, 400,
      Policy{.max_depth = 16, .max_nodes = 256, .string_order = true, .null_means_absent = true},
      &vector_filter::Parse, &vector_filter::Render};
  return spec;
}
}  // namespace detail

}  // namespace engram::filter
