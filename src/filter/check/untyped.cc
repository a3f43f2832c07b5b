// `retrieve`'s leaves (walk.h): either side a field or a literal of its JSON
// type, compared when their types agree.
#include <string>
#include <utility>

#include "filter/check/walk.h"

namespace engram::filter::detail {
namespace {

std::optional<FieldType> LiteralType(const Value& v) {
  switch (v.index()) {
    case 1:
      return FieldType::kBool;
    case 2:
      return FieldType::kInt;
    case 3:
      return FieldType::kFloat;
    case 4:
      return FieldType::kString;
    case 5:
      return FieldType::kDatetime;
    default:
      return std::nullopt;
  }
}

}  // namespace

std::optional<Side> Checker::ResolveSide(const Operand& o) {
  if (o.fault) return Fail(*o.fault);
  Side side;
  switch (o.kind) {
    case Operand::Kind::kField:
      side.field = ResolveField(o);
      if (!side.field) return std::nullopt;
      return side;
    case Operand::Kind::kList:
      side.is_list = true;
      for (const json::Value* item : o.items) side.items.emplace_back(item->get<std::string>());
      return side;
    case Operand::Kind::kLiteral: {
      const json::Value& v = *o.literal;
      if (v.is_boolean()) {
        side.literal = v.get<bool>();
      } else if (v.is_number_integer()) {
        side.literal = v.get<std::int64_t>();
      } else if (v.is_number_float()) {
        side.literal = v.get<double>();
      } else if (v.is_string()) {
        side.literal = v.get<std::string>();
      } else {
        return Fail(MakeFault(FaultCode::kNotALiteral, o.path, std::string(json::TypeName(v))));
      }
      return side;
    }
    case Operand::Kind::kNone:
      break;
  }
  return Fail(MakeFault(FaultCode::kMalformedOperand, o.path, "missing"));
}

bool Checker::CoerceDatetime(const Side& field_side, Side* literal_side, const Operand& o) {
  if (!field_side.field || field_side.field->type != FieldType::kDatetime || literal_side->field ||
      literal_side->is_list || !std::holds_alternative<std::string>(literal_side->literal)) {
    return true;
  }
  const auto& text = std::get<std::string>(literal_side->literal);
  std::optional<ParsedDatetime> t = ParseDatetime(text, policy_.datetime_form);
  if (!t) return Fail(MakeFault(FaultCode::kBadDatetime, o.path, text)), false;
  literal_side->literal = t->value;
  return true;
}

std::optional<Node> Checker::CompareUntyped(const ast::Node& n) {
  std::optional<Side> a = ResolveSide(n.operands.at(0));
  if (!a) return std::nullopt;
  std::optional<Side> b = ResolveSide(n.operands.at(1));
  if (!b) return std::nullopt;
  if (!CoerceDatetime(*a, &*b, n.operands[1]) || !CoerceDatetime(*b, &*a, n.operands[0])) {
    return std::nullopt;
  }
  const Path& blame = n.operands[1].path;
  std::optional<FieldType> ta = a->field ? a->field->type : LiteralType(a->literal);
  std::optional<FieldType> tb = b->field ? b->field->type : LiteralType(b->literal);
  bool comparable = ta && tb && *ta != FieldType::kStringSet && *tb != FieldType::kStringSet &&
                    (*ta == *tb || (IsNumeric(*ta) && IsNumeric(*tb)));
  if (!comparable) {
    return Fail(MakeFault(FaultCode::kTypeMismatch, blame, a->TypeName(), b->TypeName(), n.op));
  }
  if (IsOrdering(n.cmp) && !IsNumeric(*ta) && *ta != FieldType::kDatetime) {
    return Fail(MakeFault(FaultCode::kOpNotApplicable, blame, n.op, a->TypeName(), b->TypeName(),
                          a->field ? a->field->name : (b->field ? b->field->name : "")));
  }
  if (a->field && b->field) {
    Node leaf = Leaf(Op::kCmpFields, *a->field, n);
    leaf.cmp = n.cmp;
    leaf.other = b->field->slot;
    return leaf;
  }
  if (!a->field && !b->field) {
    std::optional<int> c = CompareValues(a->literal, b->literal);
    Node k = MakeConst(c && CmpHolds(n.cmp, *c));
    k.origin = n.op;
    return k;
  }
  const Side& field = a->field ? *a : *b;
  const Side& literal = a->field ? *b : *a;
  Node leaf = Leaf(Op::kCmp, *field.field, n);
  leaf.cmp = a->field ? n.cmp : FlipCmpOp(n.cmp);  // `12 >= min_level` is `min_level <= 12`
  leaf.values.push_back(literal.literal);
  return leaf;
}

std::optional<Node> Checker::InUntyped(const ast::Node& n) {
  std::optional<Side> needle = ResolveSide(n.operands.at(0));
  if (!needle) return std::nullopt;
  std::optional<Side> hay = ResolveSide(n.operands.at(1));
  if (!hay) return std::nullopt;
  const Path& blame = n.operands[1].path;
  bool set_field = hay->field && hay->field->type == FieldType::kStringSet;
  if (!set_field && !hay->is_list) {
    return Fail(MakeFault(FaultCode::kBadHaystack, blame, hay->TypeName()));
  }
  bool string_needle = needle->field ? needle->field->type == FieldType::kString
                                     : std::holds_alternative<std::string>(needle->literal);
  if (needle->is_list || !string_needle) {
    return Fail(
        MakeFault(FaultCode::kTypeMismatch, blame, needle->TypeName(), hay->TypeName(), n.op));
  }
  if (needle->field && hay->is_list) {
    Node leaf = Leaf(Op::kIn, *needle->field, n);
    leaf.values = hay->items;
    return leaf;
  }
  if (needle->field) {
    Node leaf = Leaf(Op::kInField, *needle->field, n);
    leaf.other = hay->field->slot;
    return leaf;
  }
  if (set_field) {
    Node leaf = Leaf(Op::kHasAny, *hay->field, n);
    leaf.values.push_back(needle->literal);
    return leaf;
  }
  bool member = false;
  for (const Value& item : hay->items) member = member || item == needle->literal;
  Node k = MakeConst(member);
  k.origin = n.op;
  return k;
}

}  // namespace engram::filter::detail
