// `retrieve`: the Retrieve node's filter grammar (seed 000, FILTERS.md §2.1).
// Ops and/or (args), not (arg), eq ne lt le gt ge (lhs, rhs), in (needle,
// haystack); operands {"knowledge": field} or {"value": literal}. Errors read
// `filter.<kind>: at <path>: <detail>` with code 3007 (InvalidParamValue).
#include <string>
#include <utility>

#include "filter/dialects/parse_util.h"

namespace engram::filter {
namespace {
namespace retrieve {

constexpr int kCode = 3007;  // InvalidParamValue, as the seed says

using detail::FirstUnknownKey;
using detail::Invalid;
using detail::TypeOf;

std::optional<CmpOp> ComparisonOp(std::string_view op) {
  if (op == "eq") return CmpOp::kEq;
  if (op == "ne") return CmpOp::kNe;
  if (op == "lt") return CmpOp::kLt;
  if (op == "le") return CmpOp::kLe;
  if (op == "gt") return CmpOp::kGt;
  if (op == "ge") return CmpOp::kGe;
  return std::nullopt;
}

// {"knowledge": field} | {"value": literal}; an array literal only where
// `list_allowed` (the haystack of `in`).
ast::Operand ParseOperand(const json::Value& v, const Path& path, bool list_allowed) {
  ast::Operand o;
  o.path = path;
  if (!v.is_object()) {
    o.fault = MakeFault(FaultCode::kMalformedOperand, path, "not_object", TypeOf(v));
    return o;
  }
  if (v.size() != 1) {
    o.fault = CountFault(FaultCode::kMalformedOperand, path, v.size(), 1, "key_count");
    return o;
  }
  const std::string& key = v.begin().key();
  const json::Value& inner = v.begin().value();
  if (key == "knowledge") {
    if (!inner.is_string()) {
      o.fault = MakeFault(FaultCode::kMalformedOperand, path, "field_name", TypeOf(inner));
      return o;
    }
    o.kind = ast::Operand::Kind::kField;
    o.field = inner.get<std::string>();
    return o;
  }
  if (key != "value") {
    o.fault = MakeFault(FaultCode::kUnknownNamespace, path, key);
    return o;
  }
  if (inner.is_array()) {
    if (!list_allowed) {
      o.fault = MakeFault(FaultCode::kMisplacedArray, path);
      return o;
    }
    if (inner.size() > kMaxArrayLiteral) {
      o.fault = CountFault(FaultCode::kListTooLarge, path, inner.size(), kMaxArrayLiteral);
      return o;
    }
    o.kind = ast::Operand::Kind::kList;
    o.items_path = path.Key("value");
    for (std::size_t i = 0; i < inner.size(); ++i) {
      if (!inner[i].is_string()) {
        o.fault =
            MakeFault(FaultCode::kItemType, o.items_path.Index(i), "string", TypeOf(inner[i]));
        return o;
      }
      o.items.push_back(&inner[i]);
    }
    return o;
  }
  if (inner.is_null() || inner.is_object()) {
    o.fault = MakeFault(FaultCode::kNotALiteral, path, TypeOf(inner));
    return o;
  }
  o.kind = ast::Operand::Kind::kLiteral;
  o.literal = &inner;
  return o;
}

ast::Node ParseNode(const json::Value& v, const Path& path) {
  if (!v.is_object()) return Invalid(path, MakeFault(FaultCode::kNotObject, path, TypeOf(v)));
  const json::Value* op_member = detail::Member(v, "op");
  if (op_member == nullptr) return Invalid(path, MakeFault(FaultCode::kMissingKey, path, "op"));
  const json::Value& op_value = *op_member;
  if (!op_value.is_string()) {
    return Invalid(path, MakeFault(FaultCode::kOpNotString, path.Key("op"), TypeOf(op_value)));
  }
  const std::string op = op_value.get<std::string>();
  ast::Node n;
  n.op = op;
  n.path = path;
  // The members each op takes: "op" and its two operand keys.
  static constexpr std::string_view kJunction[] = {"op", "args"};
  static constexpr std::string_view kNot[] = {"op", "arg"};
  static constexpr std::string_view kCompare[] = {"op", "lhs", "rhs"};
  static constexpr std::string_view kIn[] = {"op", "needle", "haystack"};
  std::span<const std::string_view> keys;
  std::optional<CmpOp> cmp = ComparisonOp(op);
  if (op == "and" || op == "or") {
    keys = kJunction;
  } else if (op == "not") {
    keys = kNot;
  } else if (cmp) {
    keys = kCompare;
  } else if (op == "in") {
    keys = kIn;
  } else {
    return Invalid(path, MakeFault(FaultCode::kUnknownOp, path, op), op);
  }
  if (auto unknown = FirstUnknownKey(v, keys)) {
    return Invalid(path, MakeFault(FaultCode::kUnknownKey, path.Key(*unknown), *unknown, op), op);
  }
  const json::Value* members[3] = {};
  for (std::size_t k = 1; k < keys.size(); ++k) {
    members[k] = detail::Member(v, keys[k]);
    if (members[k] == nullptr) {
      return Invalid(path, MakeFault(FaultCode::kMissingKey, path, std::string(keys[k]), op), op);
    }
  }
  if (op == "and" || op == "or") {
    n.kind = op == "and" ? ast::NodeKind::kAnd : ast::NodeKind::kOr;
    const json::Value& args = *members[1];
    if (!args.is_array()) {
      return Invalid(
          path, MakeFault(FaultCode::kWrongContainer, path.Key("args"), "args", TypeOf(args), op),
          op);
    }
    if (args.empty()) n.fault = MakeFault(FaultCode::kEmptyArgs, path, op);
    Path args_path = path.Key("args");
    for (std::size_t i = 0; i < args.size(); ++i) {
      n.children.push_back(ParseNode(args[i], args_path.Index(i)));
    }
    return n;
  }
  if (op == "not") {
    n.kind = ast::NodeKind::kNot;
    n.children.push_back(ParseNode(*members[1], path.Key("arg")));
    return n;
  }
  n.kind = cmp ? ast::NodeKind::kCompare : ast::NodeKind::kIn;
  n.cmp = cmp.value_or(CmpOp::kEq);
  n.operands.push_back(ParseOperand(*members[1], path.Key(keys[1]), false));
  // An array literal is allowed only as the haystack of `in`.
  n.operands.push_back(ParseOperand(*members[2], path.Key(keys[2]), !cmp));
  return n;
}

ast::Tree Parse(const json::Value& doc) {
  ast::Tree tree;
  tree.root = ParseNode(doc, Path());
  return tree;
}

Path LocateReadFault(const Path& p) {
  // Walk the node structure (args[i], arg) to the operand the fault is in.
  // A fault anywhere inside an operand is the operand's (`rhs`, not
  // `rhs.value` or `lhs.knowledge`), except inside an item of an array
  // literal, which is the item's (`haystack.value[1]`) (FILTERS.md §1.4).
  const std::vector<Path::Segment> s = p.segments();
  Path out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const Path::Segment& seg = s[i];
    if (seg.is_index) return p;  // not an operand position
    if (seg.key == "args" && i + 1 < s.size() && s[i + 1].is_index) {
      out = out.Key("args").Index(s[i + 1].index);
      ++i;
      continue;
    }
    if (seg.key == "arg") {
      out = out.Key("arg");
      continue;
    }
    if (seg.key == "lhs" || seg.key == "rhs" || seg.key == "needle" || seg.key == "haystack") {
      if (i + 1 == s.size()) return p;  // the operand itself
      out = out.Key(seg.key);
      if (!s[i + 1].is_index && s[i + 1].key == "value" && i + 2 < s.size() && s[i + 2].is_index) {
        return out.Key("value").Index(s[i + 2].index);
      }
      return out;
    }
    return p;  // a node's own member (`op`, an unknown key)
  }
  return p;
}

Diagnostic Render(const Fault& f) {
  std::string kind = "filter." + std::string(FaultKind(f.code));
  std::string path = f.path.Dotted("<root>");
  std::string text = detail::DefaultDetail(f);
  if (f.code == FaultCode::kUnknownOp)
    text += " (expected and, or, not, eq, ne, lt, le, gt, ge, in)";
  return Diagnostic{kCode, kind, path, kind + ": at " + path + ": " + text};
}

}  // namespace retrieve
}  // namespace

namespace detail {
const DialectSpec& RetrieveSpec() {
  static const DialectSpec spec{Dialect::kRetrieve,
                                retrieve::kCode,
                                Policy{.max_depth = 16,
                                       .max_nodes = 256,
                                       .typed_by_field = false,
                                       .set_eq_is_membership = false},
                                &retrieve::Parse,
                                &retrieve::Render,
                                &retrieve::LocateReadFault};
  return spec;
}
}  // namespace detail

}  // namespace engram::filter
