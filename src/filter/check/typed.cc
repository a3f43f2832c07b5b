// The typed dialects' leaves (walk.h): each literal read as its field's type.
#include <string>
#include <utility>

#include "base/unicode.h"
#include "filter/check/walk.h"

namespace engram::filter::detail {

std::optional<Typed> Checker::TypeLiteral(const Field& f, const json::Value& v, const Path& path,
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
      return Fail(CountFault(FaultCode::kStringTooLong, path, s.size(), policy_.max_string_bytes));
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

std::optional<Value> Checker::TypeValue(const Field& f, const Operand& o, const ast::Node& n) {
  if (o.fault) return Fail(*o.fault);
  std::optional<Typed> t = TypeLiteral(f, *o.literal, o.path, false, o.date_rounds_up);
  if (!t) return std::nullopt;
  if (std::holds_alternative<NullLiteral>(*t)) {
    return Fail(MakeFault(FaultCode::kNullNotAllowed, o.path, n.op));
  }
  return std::get<Value>(std::move(*t));
}

std::optional<Node> Checker::CompareTyped(const ast::Node& n) {
  const Field* f = ResolveSubject(n);
  if (!f) return std::nullopt;
  const Operand& value = n.operands.at(1);
  if (value.fault) return Fail(*value.fault);
  std::optional<Typed> t = TypeLiteral(*f, *value.literal, value.path, false, value.date_rounds_up);
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

std::optional<Node> Checker::InTyped(const ast::Node& n) {
  const Field* f = ResolveSubject(n);
  if (!f) return std::nullopt;
  const Operand& list = n.operands.at(1);
  if (list.fault) return Fail(*list.fault);
  Node leaf = Leaf(f->type == FieldType::kStringSet ? Op::kHasAny : Op::kIn, *f, n);
  for (std::size_t i = 0; i < list.items.size(); ++i) {
    std::optional<Typed> t = TypeLiteral(*f, *list.items[i], list.items_path.Index(i), true, false);
    if (!t) return std::nullopt;
    leaf.values.push_back(std::get<Value>(std::move(*t)));
  }
  return leaf;
}

std::optional<Node> Checker::ContainsNode(const ast::Node& n) {
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

std::optional<Node> Checker::BetweenNode(const ast::Node& n) {
  const Field* f = ResolveSubject(n);
  if (!f) return std::nullopt;
  std::optional<Value> lo = TypeValue(*f, n.operands.at(1), n);
  if (!lo) return std::nullopt;
  std::optional<Value> hi = TypeValue(*f, n.operands.at(2), n);
  if (!hi) return std::nullopt;
  if (!OpApplies(n.kind, n.cmp, *f)) return NotApplicable(n, *f, n.operands[1].path);
  std::optional<int> c = CompareValues(*lo, *hi);
  if (c && *c > 0) return Fail(MakeFault(FaultCode::kBetweenOrder, n.values_path.value_or(n.path)));
  Node leaf = Leaf(Op::kRange, *f, n);
  leaf.lo = Bound{std::move(*lo), true};
  leaf.hi = Bound{std::move(*hi), true};
  return leaf;
}

}  // namespace engram::filter::detail
