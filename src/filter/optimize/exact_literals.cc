#include <cmath>
#include <limits>
#include <utility>

#include "base/number.h"
#include "filter/optimize/passes.h"

namespace engram::filter {
namespace {

// An int64 as doubles: itself when a double holds it exactly, otherwise the
// two doubles around it (from 2^53 on, most int64s fall between doubles).
struct Doubles {
  double below, above;
  bool exact;
};

Doubles Around(std::int64_t k) {
  const double d = static_cast<double>(k);
  const int c = CompareValues(Value(d), Value(k)).value_or(0);
  if (c == 0) return {d, d, true};
  if (c > 0) return {std::nextafter(d, -std::numeric_limits<double>::infinity()), d, false};
  return {d, std::nextafter(d, std::numeric_limits<double>::infinity()), false};
}

void BecomeLeaf(Node& n, Op op) {
  n.op = op;
  n.values.clear();
  n.lo.reset();
  n.hi.reset();
}

// Keeps the items of an `in` that `convert` maps to the field's type.
template <typename Convert>
void ConvertItems(Node& n, Convert convert, bool* changed) {
  std::vector<Value> out;
  out.reserve(n.values.size());
  for (Value& v : n.values) {
    std::optional<Value> typed = convert(v);
    if (!typed || typed->index() != v.index()) *changed = true;
    if (typed) out.push_back(std::move(*typed));
  }
  n.values = std::move(out);
}

std::optional<Value> AsInt(const Value& v) {
  const double* d = std::get_if<double>(&v);
  if (!d) return v;
  std::optional<std::int64_t> k = ExactInt(*d);
  if (!k) return std::nullopt;
  return Value(*k);
}

std::optional<Value> AsDouble(const Value& v) {
  const std::int64_t* k = std::get_if<std::int64_t>(&v);
  if (!k) return v;
  Doubles d = Around(*k);
  if (!d.exact) return std::nullopt;
  return Value(d.below);
}

// A bound on a float field: an int64 no double holds becomes the inclusive
// bound of the nearest double on the inside (x > k is x >= the double above k).
void FloatBound(std::optional<Bound>& b, bool lower, bool* changed) {
  if (!b) return;
  const std::int64_t* k = std::get_if<std::int64_t>(&b->value);
  if (!k) return;
  *changed = true;
  Doubles d = Around(*k);
  if (d.exact) {
    b->value = d.below;
  } else {
    b = Bound{Value(lower ? d.above : d.below), true};
  }
}

void OnFloatField(Node& n, bool* changed) {
  if (n.op == Op::kIn) return ConvertItems(n, AsDouble, changed);
  if (n.op == Op::kRange) {
    FloatBound(n.lo, true, changed);
    FloatBound(n.hi, false, changed);
    return;
  }
  if (n.op != Op::kCmp || !std::holds_alternative<std::int64_t>(n.values[0])) return;
  std::optional<Bound> b = Bound{n.values[0], n.cmp == CmpOp::kLe || n.cmp == CmpOp::kGe};
  const bool lower = n.cmp == CmpOp::kGt || n.cmp == CmpOp::kGe;
  if (n.cmp == CmpOp::kEq || n.cmp == CmpOp::kNe) {
    std::optional<Value> d = AsDouble(n.values[0]);
    *changed = true;
    if (d) {
      n.values[0] = std::move(*d);
    } else {
      // No double equals k: eq never holds, ne holds wherever x is present.
      BecomeLeaf(n, n.cmp == CmpOp::kEq ? Op::kFalse : Op::kExists);
    }
    return;
  }
  FloatBound(b, lower, changed);
  if (b->inclusive) n.cmp = lower ? CmpOp::kGe : CmpOp::kLe;
  n.values[0] = b->value;
}

void OnIntField(Node& n, bool* changed) {
  if (n.op == Op::kIn) return ConvertItems(n, AsInt, changed);
  // eq and the orderings become integer bounds in MergeRanges.
  if (n.op != Op::kCmp || n.cmp != CmpOp::kNe || !std::holds_alternative<double>(n.values[0])) {
    return;
  }
  *changed = true;
  if (std::optional<Value> k = AsInt(n.values[0])) {
    n.values[0] = std::move(*k);
  } else {
    BecomeLeaf(n, Op::kExists);  // no int64 equals a fraction
  }
}

}  // namespace

void ExactLiterals(Node& n, const Schema& schema, bool* changed) {
  if (!n.IsLeaf()) {
    for (Node& c : n.children) ExactLiterals(c, schema, changed);
    return;
  }
  if (n.IsConst() || n.op == Op::kCmpFields) return;
  switch (schema.field(n.slot).type) {
    case FieldType::kFloat:
      return OnFloatField(n, changed);
    case FieldType::kInt:
      return OnIntField(n, changed);
    default:
      return;
  }
}

}  // namespace engram::filter
