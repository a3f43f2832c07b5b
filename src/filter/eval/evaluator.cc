#include "filter/eval/evaluator.h"

#include <algorithm>

#include "base/unicode.h"

namespace engram::filter {
namespace {

bool Absent(const Value& v) {
  return std::holds_alternative<std::monostate>(v);
}

bool Compare(CmpOp op, const Value& field, const Value& literal) {
  std::optional<int> c = CompareValues(field, literal);
  return c && CmpHolds(op, *c);
}

bool SetHas(const StringSet& set, const std::string& s) {
  return std::binary_search(set.begin(), set.end(), s);
}

}  // namespace

bool Evaluate(const Node& n, std::span<const Value> slots) {
  switch (n.op) {
    case Op::kTrue:
      return true;
    case Op::kFalse:
      return false;
    case Op::kAnd:
      for (const Node& c : n.children) {
        if (!Evaluate(c, slots)) return false;
      }
      return true;
    case Op::kOr:
      for (const Node& c : n.children) {
        if (Evaluate(c, slots)) return true;
      }
      return false;
    case Op::kNot:
      return !Evaluate(n.children[0], slots);
    default:
      break;
  }
  const Value& v = slots[n.slot];
  if (Absent(v)) return false;
  switch (n.op) {
    case Op::kExists:
      return true;
    case Op::kCmp:
      return Compare(n.cmp, v, n.values[0]);
    case Op::kIn:
      return std::any_of(n.values.begin(), n.values.end(),
                         [&](const Value& lit) { return Compare(CmpOp::kEq, v, lit); });
    case Op::kHasAny: {
      const auto& set = std::get<StringSet>(v);
      return std::any_of(n.values.begin(), n.values.end(),
                         [&](const Value& lit) { return SetHas(set, std::get<std::string>(lit)); });
    }
    case Op::kContains:
      return std::get<std::string>(v).find(std::get<std::string>(n.values[0])) != std::string::npos;
    case Op::kIContains:
      // The literal was folded when the filter was checked.
      return FoldCase(std::get<std::string>(v)).find(std::get<std::string>(n.values[0])) !=
             std::string::npos;
    case Op::kRange: {
      if (n.lo && !Compare(n.lo->inclusive ? CmpOp::kGe : CmpOp::kGt, v, n.lo->value)) return false;
      if (n.hi && !Compare(n.hi->inclusive ? CmpOp::kLe : CmpOp::kLt, v, n.hi->value)) return false;
      return true;
    }
    case Op::kCmpFields: {
      const Value& w = slots[n.other];
      return !Absent(w) && Compare(n.cmp, v, w);
    }
    case Op::kInField: {
      const Value& w = slots[n.other];
      return !Absent(w) && SetHas(std::get<StringSet>(w), std::get<std::string>(v));
    }
    default:
      return false;
  }
}

}  // namespace engram::filter
