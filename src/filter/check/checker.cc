#include "filter/check/checker.h"

#include <string>
#include <utility>
#include <variant>

#include "base/unicode.h"

namespace engram::filter {
namespace {

using ast::NodeKind;
using ast::Operand;

struct NullLiteral {};  // `eq null`: the field is absent
using Typed = std::variant<Value, NullLiteral>;

// One side of a `retrieve` comparison: a field or a literal of its JSON type.
struct Side {
  const Field* field = nullptr;
  Value literal;
  std::vector<Value> items;  // a string-array literal
  bool is_list = false;
  std::string TypeName() const {
    if (field) return std::string(FieldTypeName(field->type));
    if (is_list) return "string[]";
    return std::string(ValueTypeName(literal));
  }
};

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

class Checker {
 public:
  Checker(const Schema& schema, const Policy& policy) : schema_(schema), policy_(policy) {}

  // The IR of `n`, located where `n` was written.
  std::optional<Node> Visit(const ast::Node& n, std::size_t parent_depth) {
    std::optional<Node> ir = VisitNode(n, parent_depth);
    if (ir) ir->path = n.path;
    return ir;
  }

  std::optional<Fault>& fault() { return fault_; }

 private:
  std::optional<Node> VisitNode(const ast::Node& n, std::size_t parent_depth) {
    std::size_t depth = parent_depth;
    if (n.counts) {
      ++nodes_;
      ++depth;
      if (nodes_ > policy_.max_nodes) {
        return Fail(CountFault(FaultCode::kTooManyNodes, n.path, nodes_, policy_.max_nodes));
      }
      if (depth > policy_.max_depth) {
        return Fail(CountFault(FaultCode::kTooDeep, n.path, depth, policy_.max_depth));
      }
    }
    if (n.fault) return Fail(*n.fault);
    switch (n.kind) {
      case NodeKind::kInvalid:
        return Fail(MakeFault(FaultCode::kNotObject, n.path, "invalid"));
      case NodeKind::kConst:
        return MakeConst(n.value);
      case NodeKind::kAnd:
      case NodeKind::kOr: {
        std::vector<Node> children;
        for (const ast::Node& c : n.children) {
          std::optional<Node> child = Visit(c, depth);
          if (!child) return std::nullopt;
          children.push_back(std::move(*child));
        }
        if (children.empty()) return Fail(MakeFault(FaultCode::kEmptyArgs, n.path, n.op));
        return MakeJunction(n.kind == NodeKind::kAnd ? Op::kAnd : Op::kOr, std::move(children));
      }
      case NodeKind::kNot: {
        std::optional<Node> child = Visit(n.children.at(0), depth);
        if (!child) return std::nullopt;
        // A `not` the parser added while lowering (`neq`, `$nin`, `is_not`)
        // drops records for the leaf as written; a written `not` for itself.
        std::string origin = n.counts ? "" : child->origin;
        return MakeNot(std::move(*child), std::move(origin));
      }
      case NodeKind::kCompare:
        return policy_.typed_by_field ? CompareTyped(n) : CompareUntyped(n);
      case NodeKind::kIn:
        return policy_.typed_by_field ? InTyped(n) : InUntyped(n);
      case NodeKind::kContains:
        return ContainsNode(n);
      case NodeKind::kExists: {
        const Field* f = ResolveSubject(n);
        if (!f) return std::nullopt;
        // A value beside the field only ever carries a fault ($exists: 1).
        if (n.operands.size() > 1 && n.operands[1].fault) return Fail(*n.operands[1].fault);
        return Leaf(Op::kExists, *f, n);
      }
      case NodeKind::kBetween:
        return BetweenNode(n);
    }
    return std::nullopt;
  }

  std::nullopt_t Fail(Fault f) {
    if (!fault_) fault_ = std::move(f);
    return std::nullopt;
  }

  Node Leaf(Op op, const Field& f, const ast::Node& n) const {
    Node leaf;
    leaf.op = op;
    leaf.slot = f.slot;
    leaf.origin = n.op + ":" + f.name;
    leaf.path = n.path;
    return leaf;
  }

  const std::string& Allowlist() {
    if (allowlist_.empty()) {
      for (const Field& f : schema_.fields()) {
        if (!f.filterable) continue;
        if (!allowlist_.empty()) allowlist_ += ", ";
        allowlist_ += f.name;
      }
    }
    return allowlist_;
  }

  const Field* ResolveField(const Operand& o) {
    if (o.fault) return Fail(*o.fault), nullptr;
    const Field* f =
        policy_.field_names_ignore_case ? schema_.FindIgnoringCase(o.field) : schema_.Find(o.field);
    if (f == nullptr)
      return Fail(MakeFault(FaultCode::kUnknownField, o.path, o.field, Allowlist())), nullptr;
    if (!f->filterable) {
      return Fail(MakeFault(FaultCode::kFieldNotFilterable, o.path, o.field, Allowlist())), nullptr;
    }
    return f;
  }

  // Whether `op` (as written, `cmp` when a comparison) applies to field `f`,
  // in the typed dialects.
  bool OpApplies(NodeKind kind, CmpOp cmp, const Field& f) const {
    bool ordered = IsNumeric(f.type) || f.type == FieldType::kDatetime ||
                   (policy_.string_order && f.type == FieldType::kString);
    switch (kind) {
      case NodeKind::kCompare:
        if (IsOrdering(cmp)) return ordered;
        // On a set, eq means "contains" where the dialect says so; every
        // dialect writes "not equal" as not(eq), so ne never meets a set.
        if (f.type == FieldType::kStringSet) {
          return cmp == CmpOp::kEq && policy_.set_eq_is_membership;
        }
        return true;
      case NodeKind::kBetween:
        return ordered;
      case NodeKind::kContains:
        return f.type == FieldType::kString;
      default:
        return true;
    }
  }

  // The field a typed leaf reads; where the dialect says so, also whether the
  // op applies to its type, before the value is looked at.
  const Field* ResolveSubject(const ast::Node& n) {
    const Field* f = ResolveField(n.operands.at(0));
    if (f && policy_.op_before_value && !OpApplies(n.kind, n.cmp, *f)) {
      return NotApplicable(n, *f, n.op_path.value_or(n.path)), nullptr;
    }
    return f;
  }

  std::nullopt_t NotApplicable(const ast::Node& n, const Field& f, const Path& path) {
    return Fail(MakeFault(FaultCode::kOpNotApplicable, path, n.op,
                          std::string(FieldTypeName(f.type)), "", f.name));
  }

  // Reads literal `v` as a value of field `f`'s type (typed dialects).
  std::optional<Typed> TypeLiteral(const Field& f, const json::Value& v, const Path& path,
                                   bool as_item, bool rounds_up) {
    FaultCode mismatch = as_item ? FaultCode::kItemType : FaultCode::kTypeMismatch;
    std::string expected(
        FieldTypeName(f.type == FieldType::kStringSet ? FieldType::kString : f.type));
    auto wrong = [&]() {
      return Fail(MakeFault(mismatch, path, expected, std::string(json::TypeName(v))));
    };
    if (v.is_null()) {
      if (as_item || !policy_.null_means_absent) return wrong();
      if (policy_.null_requires_optional && f.presence != Presence::kOptional) {
        return Fail(MakeFault(FaultCode::kNullNeedsOptional, path, f.name));
      }
      return Typed(NullLiteral{});
    }
    // The text of a string literal: bounded (before anything parses it),
    // then trimmed where the dialect says so.
    auto string_text = [&]() -> std::optional<std::string> {
      const auto& s = v.get_ref<const std::string&>();
      if (policy_.max_string_bytes != 0 && s.size() > policy_.max_string_bytes) {
        return Fail(
            CountFault(FaultCode::kStringTooLong, path, s.size(), policy_.max_string_bytes));
      }
      return policy_.trim_strings ? std::string(TrimWhitespace(s)) : s;
    };
    switch (f.type) {
      case FieldType::kInt:
        if (v.is_number_integer()) return Typed(Value(v.get<std::int64_t>()));
        if (v.is_number_float() && !policy_.int_fields_take_integers_only) {
          return Typed(Value(v.get<double>()));
        }
        return wrong();
      case FieldType::kFloat:
        if (v.is_number_integer()) return Typed(Value(v.get<std::int64_t>()));
        if (v.is_number_float()) return Typed(Value(v.get<double>()));
        return wrong();
      case FieldType::kString:
      case FieldType::kStringSet:
        if (v.is_string()) {
          std::optional<std::string> text = string_text();
          if (!text) return std::nullopt;
          return Typed(Value(std::move(*text)));
        }
        if (f.numbers_as_text && v.is_number()) {
          // Normalised exactly as records are (FILTERS.md §2.4).
          auto converted = ConvertFieldValue(f, v);
          return Typed(std::get<Value>(std::move(converted)));
        }
        return wrong();
      case FieldType::kBool:
        if (v.is_boolean()) return Typed(Value(v.get<bool>()));
        return wrong();
      case FieldType::kDatetime: {
        if (!v.is_string()) return wrong();
        std::optional<std::string> text = string_text();
        if (!text) return std::nullopt;
        std::optional<ParsedDatetime> t = ParseDatetime(*text, policy_.datetime_form);
        if (!t) return Fail(MakeFault(FaultCode::kBadDatetime, path, *text));
        return Typed(Value(t->date_only && rounds_up ? EndOfDay(t->value) : t->value));
      }
    }
    return wrong();
  }

  std::optional<Value> TypeValue(const Field& f, const Operand& o, const ast::Node& n) {
    if (o.fault) return Fail(*o.fault);
    std::optional<Typed> t = TypeLiteral(f, *o.literal, o.path, false, o.date_rounds_up);
    if (!t) return std::nullopt;
    if (std::holds_alternative<NullLiteral>(*t)) {
      return Fail(MakeFault(FaultCode::kNullNotAllowed, o.path, n.op));
    }
    return std::get<Value>(std::move(*t));
  }

  std::optional<Node> CompareTyped(const ast::Node& n) {
    const Field* f = ResolveSubject(n);
    if (!f) return std::nullopt;
    const Operand& value = n.operands.at(1);
    if (value.fault) return Fail(*value.fault);
    std::optional<Typed> t =
        TypeLiteral(*f, *value.literal, value.path, false, value.date_rounds_up);
    if (!t) return std::nullopt;
    if (std::holds_alternative<NullLiteral>(*t)) {
      if (n.cmp != CmpOp::kEq) return Fail(MakeFault(FaultCode::kNullNotAllowed, value.path, n.op));
      Node exists = Leaf(Op::kExists, *f, n);
      std::string origin = exists.origin;
      return MakeNot(std::move(exists), std::move(origin));
    }
    if (!OpApplies(n.kind, n.cmp, *f)) return NotApplicable(n, *f, value.path);
    Value literal = std::get<Value>(std::move(*t));
    if (f->type == FieldType::kStringSet) {  // eq: membership (OpApplies)
      Node has = Leaf(Op::kHasAny, *f, n);
      has.values.push_back(std::move(literal));
      return has;
    }
    Node leaf = Leaf(Op::kCmp, *f, n);
    leaf.cmp = n.cmp;
    leaf.values.push_back(std::move(literal));
    return leaf;
  }

  std::optional<Side> ResolveSide(const Operand& o) {
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

  // A string literal facing a datetime field is read as a datetime.
  bool CoerceDatetime(const Side& field_side, Side* literal_side, const Operand& o) {
    if (!field_side.field || field_side.field->type != FieldType::kDatetime ||
        literal_side->field || literal_side->is_list ||
        !std::holds_alternative<std::string>(literal_side->literal)) {
      return true;
    }
    const auto& text = std::get<std::string>(literal_side->literal);
    std::optional<ParsedDatetime> t = ParseDatetime(text, policy_.datetime_form);
    if (!t) return Fail(MakeFault(FaultCode::kBadDatetime, o.path, text)), false;
    literal_side->literal = t->value;
    return true;
  }

  std::optional<Node> CompareUntyped(const ast::Node& n) {
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

  std::optional<Node> InUntyped(const ast::Node& n) {
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

  std::optional<Node> InTyped(const ast::Node& n) {
    const Field* f = ResolveSubject(n);
    if (!f) return std::nullopt;
    const Operand& list = n.operands.at(1);
    if (list.fault) return Fail(*list.fault);
    Node leaf = Leaf(f->type == FieldType::kStringSet ? Op::kHasAny : Op::kIn, *f, n);
    for (std::size_t i = 0; i < list.items.size(); ++i) {
      std::optional<Typed> t =
          TypeLiteral(*f, *list.items[i], list.items_path.Index(i), true, false);
      if (!t) return std::nullopt;
      leaf.values.push_back(std::get<Value>(std::move(*t)));
    }
    return leaf;
  }

  std::optional<Node> ContainsNode(const ast::Node& n) {
    const Field* f = ResolveSubject(n);
    if (!f) return std::nullopt;
    const Operand& needle = n.operands.at(1);
    std::optional<Value> v = TypeValue(*f, needle, n);
    if (!v) return std::nullopt;
    if (!std::holds_alternative<std::string>(*v)) {
      return Fail(MakeFault(FaultCode::kContainsNeedsString, needle.path,
                            std::string(json::TypeName(*needle.literal))));
    }
    if (!OpApplies(n.kind, n.cmp, *f)) return NotApplicable(n, *f, needle.path);
    std::string text = std::get<std::string>(std::move(*v));
    if (policy_.nonempty_contains && text.empty()) {
      return Fail(MakeFault(FaultCode::kEmptyNeedle, needle.path));
    }
    Node leaf = Leaf(n.case_insensitive ? Op::kIContains : Op::kContains, *f, n);
    leaf.values.emplace_back(n.case_insensitive ? FoldCase(text) : std::move(text));
    return leaf;
  }

  std::optional<Node> BetweenNode(const ast::Node& n) {
    const Field* f = ResolveSubject(n);
    if (!f) return std::nullopt;
    std::optional<Value> lo = TypeValue(*f, n.operands.at(1), n);
    if (!lo) return std::nullopt;
    std::optional<Value> hi = TypeValue(*f, n.operands.at(2), n);
    if (!hi) return std::nullopt;
    if (!OpApplies(n.kind, n.cmp, *f)) return NotApplicable(n, *f, n.operands[1].path);
    std::optional<int> c = CompareValues(*lo, *hi);
    if (c && *c > 0)
      return Fail(MakeFault(FaultCode::kBetweenOrder, n.values_path.value_or(n.path)));
    Node leaf = Leaf(Op::kRange, *f, n);
    leaf.lo = Bound{std::move(*lo), true};
    leaf.hi = Bound{std::move(*hi), true};
    return leaf;
  }

  const Schema& schema_;
  const Policy& policy_;
  std::size_t nodes_ = 0;
  std::string allowlist_;
  std::optional<Fault> fault_;
};

}  // namespace

CheckResult Check(const ast::Tree& tree, const Schema& schema, const Policy& policy) {
  CheckResult result;
  if (tree.fault) {
    result.fault = tree.fault;
    return result;
  }
  Checker checker(schema, policy);
  result.root = checker.Visit(tree.root, 0);
  if (!result.root) result.fault = checker.fault();
  return result;
}

}  // namespace engram::filter
