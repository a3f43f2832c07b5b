#include <cmath>
#include <limits>
#include <map>
#include <utility>

#include "base/number.h"
#include "filter/optimize/passes.h"

namespace engram::filter {
namespace {

// The values one field may take: an interval, possibly open at either end.
struct Interval {
  std::optional<Bound> lo, hi;
  bool empty = false;
};

bool IsRangeLeaf(const Node& c) {
  return (c.op == Op::kCmp && c.cmp != CmpOp::kNe) || c.op == Op::kRange;
}

void TightenLo(Interval* iv, const Bound& b) {
  if (!iv->lo) {
    iv->lo = b;
    return;
  }
  int c = CompareValues(b.value, iv->lo->value).value_or(0);
  if (c > 0 || (c == 0 && !b.inclusive)) iv->lo = b;
}

void TightenHi(Interval* iv, const Bound& b) {
  if (!iv->hi) {
    iv->hi = b;
    return;
  }
  int c = CompareValues(b.value, iv->hi->value).value_or(0);
  if (c < 0 || (c == 0 && !b.inclusive)) iv->hi = b;
}

void Add(Interval* iv, const Node& c) {
  if (c.op == Op::kRange) {
    if (c.lo) TightenLo(iv, *c.lo);
    if (c.hi) TightenHi(iv, *c.hi);
    return;
  }
  const Value& v = c.values[0];
  switch (c.cmp) {
    case CmpOp::kEq:
      TightenLo(iv, Bound{v, true});
      TightenHi(iv, Bound{v, true});
      break;
    case CmpOp::kGt:
      TightenLo(iv, Bound{v, false});
      break;
    case CmpOp::kGe:
      TightenLo(iv, Bound{v, true});
      break;
    case CmpOp::kLt:
      TightenHi(iv, Bound{v, false});
      break;
    case CmpOp::kLe:
      TightenHi(iv, Bound{v, true});
      break;
    case CmpOp::kNe:
      break;
  }
}

constexpr double kTwo63 = 9223372036854775808.0;  // 2^63, exact
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

// The smallest int64 that satisfies `x > b` / `x >= b`: nullopt when every
// int64 does, kMax + 1 (reported through *none) when none does. All integer
// steps are taken in int64, never in double: from 2^53 on, a double cannot
// hold k + 1.
std::optional<std::int64_t> IntLowerBound(const Bound& b, bool* none) {
  if (const double* d = std::get_if<double>(&b.value)) {
    if (*d >= kTwo63) return *none = true, std::nullopt;
    if (*d < -kTwo63) return std::nullopt;
    if (std::optional<std::int64_t> k = ExactInt(*d)) {
      if (b.inclusive) return *k;
      if (*k == kMax) return *none = true, std::nullopt;
      return *k + 1;
    }
    return static_cast<std::int64_t>(std::ceil(*d));  // |d| < 2^53 here: exact
  }
  std::int64_t k = std::get<std::int64_t>(b.value);
  if (b.inclusive) return k;
  if (k == kMax) return *none = true, std::nullopt;
  return k + 1;
}

// The largest int64 that satisfies `x < b` / `x <= b`, likewise.
std::optional<std::int64_t> IntUpperBound(const Bound& b, bool* none) {
  if (const double* d = std::get_if<double>(&b.value)) {
    if (*d < -kTwo63) return *none = true, std::nullopt;
    if (*d >= kTwo63) return std::nullopt;
    if (std::optional<std::int64_t> k = ExactInt(*d)) {
      if (b.inclusive) return *k;
      if (*k == kMin) return *none = true, std::nullopt;
      return *k - 1;
    }
    return static_cast<std::int64_t>(std::floor(*d));
  }
  std::int64_t k = std::get<std::int64_t>(b.value);
  if (b.inclusive) return k;
  if (k == kMin) return *none = true, std::nullopt;
  return k - 1;
}

// On an int field every bound becomes an inclusive integer bound (x > 2.5 is
// x >= 3), so that bounds compare and merge exactly; a bound no int64 can
// meet makes the interval empty, one every int64 meets disappears.
void IntegerBounds(Interval* iv) {
  bool none = false;
  if (iv->lo) {
    std::optional<std::int64_t> k = IntLowerBound(*iv->lo, &none);
    iv->lo.reset();
    if (k) iv->lo = Bound{Value(*k), true};
  }
  if (iv->hi) {
    std::optional<std::int64_t> k = IntUpperBound(*iv->hi, &none);
    iv->hi.reset();
    if (k) iv->hi = Bound{Value(*k), true};
  }
  if (none) iv->empty = true;
  // x >= INT64_MIN and x <= INT64_MAX hold for every int64: drop them
  // (unless the interval is that single value).
  bool single = iv->lo && iv->hi && iv->lo->value == iv->hi->value;
  if (!single && iv->lo && std::get<std::int64_t>(iv->lo->value) == kMin) iv->lo.reset();
  if (!single && iv->hi && std::get<std::int64_t>(iv->hi->value) == kMax) iv->hi.reset();
}

// The interval as one leaf, located and explained as `first`, the earliest
// bound it came from.
Node ToNode(const Interval& iv, const Node& first) {
  Node n;
  n.path = first.path;
  if (iv.empty) {
    n.op = Op::kFalse;
    return n;
  }
  n.slot = first.slot;
  n.origin = first.origin;
  if (iv.lo && iv.hi) {
    int c = CompareValues(iv.lo->value, iv.hi->value).value_or(0);
    if (c > 0 || (c == 0 && !(iv.lo->inclusive && iv.hi->inclusive))) {
      n.op = Op::kFalse;
      return n;
    }
    if (c == 0) {
      n.op = Op::kCmp;
      n.cmp = CmpOp::kEq;
      n.values.push_back(iv.lo->value);
      return n;
    }
    n.op = Op::kRange;
    n.lo = iv.lo;
    n.hi = iv.hi;
    return n;
  }
  if (!iv.lo && !iv.hi) {
    n.op = Op::kExists;  // every value qualifies, but the field must be there
    return n;
  }
  n.op = Op::kCmp;
  const Bound& b = iv.lo ? *iv.lo : *iv.hi;
  n.cmp = iv.lo ? (b.inclusive ? CmpOp::kGe : CmpOp::kGt) : (b.inclusive ? CmpOp::kLe : CmpOp::kLt);
  n.values.push_back(b.value);
  return n;
}

bool HasFloatLiteral(const Node& n) {
  auto is_float = [](const Value& v) { return std::holds_alternative<double>(v); };
  return (!n.values.empty() && is_float(n.values[0])) || (n.lo && is_float(n.lo->value)) ||
         (n.hi && is_float(n.hi->value));
}

// A lone bound on an int field: one no int64 meets is false, one every int64
// meets is `exists`, one with a float literal becomes integer bounds
// (x > 2.5 is x >= 3); anything else stays as written.
void LoneBound(Node& n, const Schema& schema, bool* changed) {
  if (schema.field(n.slot).type != FieldType::kInt) return;
  Interval iv;
  Add(&iv, n);
  IntegerBounds(&iv);
  if (!iv.empty && (iv.lo || iv.hi) && !HasFloatLiteral(n)) return;
  *changed = true;
  n = ToNode(iv, n);
}

}  // namespace

void MergeRanges(Node& n, const Schema& schema, bool* changed) {
  if (n.IsLeaf()) {
    if (IsRangeLeaf(n)) LoneBound(n, schema, changed);
    return;
  }
  for (Node& c : n.children) {
    // Bounds directly under an `and` are merged with their siblings below.
    if (n.op != Op::kAnd || !IsRangeLeaf(c)) MergeRanges(c, schema, changed);
  }
  if (n.op != Op::kAnd) return;
  // The bounds on each field, in order; they merge where the first stands.
  std::map<std::uint32_t, std::vector<std::size_t>> by_slot;
  for (std::size_t i = 0; i < n.children.size(); ++i) {
    if (IsRangeLeaf(n.children[i])) by_slot[n.children[i].slot].push_back(i);
  }
  std::vector<Node> out;
  for (std::size_t i = 0; i < n.children.size(); ++i) {
    Node& first = n.children[i];
    if (!IsRangeLeaf(first)) {
      out.push_back(std::move(first));
      continue;
    }
    const std::vector<std::size_t>& members = by_slot[first.slot];
    if (members.front() != i) continue;  // merged into its field's first bound
    if (members.size() == 1) {
      LoneBound(first, schema, changed);
      out.push_back(std::move(first));
      continue;
    }
    Interval iv;
    for (std::size_t j : members) Add(&iv, n.children[j]);
    *changed = true;
    if (schema.field(first.slot).type == FieldType::kInt) IntegerBounds(&iv);
    out.push_back(ToNode(iv, first));
  }
  n.children = std::move(out);
}

}  // namespace engram::filter
