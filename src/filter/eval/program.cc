#include "filter/eval/program.h"

#include <algorithm>
#include <numeric>

#include "base/number.h"
#include "base/unicode.h"

namespace engram::filter {
namespace {

// A rough relative cost of evaluating `n` on one record: what and/or use to
// try cheap children first. Only the order depends on it, never the result.
double Cost(const Node& n, const Schema& schema) {
  switch (n.op) {
    case Op::kTrue:
    case Op::kFalse:
      return 0;
    case Op::kAnd:
    case Op::kOr: {
      double sum = 0;
      for (const Node& c : n.children) sum += Cost(c, schema);
      return sum;
    }
    case Op::kNot:
      return Cost(n.children[0], schema);
    case Op::kExists:
      return 1;
    case Op::kCmp:
    case Op::kRange:
      return schema.field(n.slot).type == FieldType::kString ? 2 : 1;
    case Op::kIn:
      return 1 + static_cast<double>(n.values.size()) / 4;
    case Op::kHasAny:
      return 3 + static_cast<double>(n.values.size()) / 2;
    case Op::kContains:
      return 6;
    case Op::kIContains:
      return 30;
    case Op::kCmpFields:
      return 2;
    case Op::kInField:
      return 4;
  }
  return 1;
}

template <typename T>
int Three(T a, T b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

}  // namespace

Program::Program(const Node& root, const Schema& schema) {
  Emit(root, schema);
}

void Program::Emit(const Node& n, const Schema& schema) {
  const auto at = static_cast<std::uint32_t>(code_.size());
  code_.push_back(Instr{});
  Instr in;
  in.slot = n.slot;
  in.other = n.other;
  in.cmp = n.cmp;
  switch (n.op) {
    case Op::kTrue:
      in.kind = Kind::kTrue;
      break;
    case Op::kFalse:
      in.kind = Kind::kFalse;
      break;
    case Op::kAnd:
    case Op::kOr: {
      in.kind = n.op == Op::kAnd ? Kind::kAnd : Kind::kOr;
      std::vector<std::size_t> order(n.children.size());
      std::iota(order.begin(), order.end(), 0);
      std::vector<double> costs;
      for (const Node& c : n.children) costs.push_back(Cost(c, schema));
      std::stable_sort(order.begin(), order.end(),
                       [&](std::size_t a, std::size_t b) { return costs[a] < costs[b]; });
      for (std::size_t k : order) Emit(n.children[k], schema);
      break;
    }
    case Op::kNot:
      in.kind = Kind::kNot;
      Emit(n.children[0], schema);
      break;
    case Op::kExists:
      in.kind = Kind::kExists;
      break;
    case Op::kCmp: {
      FieldType t = schema.field(n.slot).type;
      const Value& v = n.values[0];
      if (t == FieldType::kInt && std::holds_alternative<std::int64_t>(v)) {
        in.kind = Kind::kIntCmp;
        in.i = std::get<std::int64_t>(v);
      } else if (t == FieldType::kFloat && std::holds_alternative<double>(v)) {
        in.kind = Kind::kFloatCmp;
        in.f = std::get<double>(v);
      } else if (t == FieldType::kDatetime) {
        in.kind = Kind::kTimeCmp;
        in.i = std::get<Datetime>(v).micros;
      } else if (t == FieldType::kBool) {
        in.kind = Kind::kBoolEq;
        in.i = std::get<bool>(v) ? 1 : 0;
      } else if (t == FieldType::kString) {
        in.kind = Kind::kStrCmp;
        in.lit = static_cast<std::uint32_t>(literals_.size());
        literals_.push_back(v);
      } else {
        in.kind = Kind::kNumCmp;
        in.lit = static_cast<std::uint32_t>(literals_.size());
        literals_.push_back(v);
      }
      break;
    }
    case Op::kRange: {
      bool int_bounds = schema.field(n.slot).type == FieldType::kInt && n.lo && n.hi &&
                        n.lo->inclusive && n.hi->inclusive &&
                        std::holds_alternative<std::int64_t>(n.lo->value) &&
                        std::holds_alternative<std::int64_t>(n.hi->value);
      if (int_bounds) {
        in.kind = Kind::kIntRange;
        in.i = std::get<std::int64_t>(n.lo->value);
        in.j = std::get<std::int64_t>(n.hi->value);
      } else {
        in.kind = Kind::kRange;
        in.lit = static_cast<std::uint32_t>(bounds_.size());
        bounds_.push_back(n.lo);
        bounds_.push_back(n.hi);
      }
      break;
    }
    case Op::kIn:
    case Op::kHasAny: {
      bool strings = n.op == Op::kHasAny || schema.field(n.slot).type == FieldType::kString;
      in.kind = n.op == Op::kHasAny ? Kind::kHasAny : (strings ? Kind::kStrIn : Kind::kIn);
      in.lit = static_cast<std::uint32_t>(literals_.size());
      in.lits = static_cast<std::uint32_t>(n.values.size());
      literals_.insert(literals_.end(), n.values.begin(), n.values.end());
      if (strings) {
        // Sorted bytewise, as set<string> values are stored: lets has_any
        // merge two sorted lists.
        std::sort(literals_.begin() + in.lit, literals_.end(), [](const Value& a, const Value& b) {
          return std::get<std::string>(a) < std::get<std::string>(b);
        });
      }
      break;
    }
    case Op::kContains:
    case Op::kIContains:
      in.kind = n.op == Op::kContains ? Kind::kContains : Kind::kIContains;
      in.lit = static_cast<std::uint32_t>(literals_.size());
      literals_.push_back(n.values[0]);
      break;
    case Op::kCmpFields:
      in.kind = Kind::kCmpFields;
      break;
    case Op::kInField:
      in.kind = Kind::kInField;
      break;
  }
  in.end = static_cast<std::uint32_t>(code_.size());
  code_[at] = in;
}

bool Program::Eval(std::uint32_t pc, std::span<const Value> slots) const {
  const Instr& in = code_[pc];
  switch (in.kind) {
    case Kind::kTrue:
      return true;
    case Kind::kFalse:
      return false;
    case Kind::kAnd:
      for (std::uint32_t c = pc + 1; c < in.end; c = code_[c].end) {
        if (!Eval(c, slots)) return false;
      }
      return true;
    case Kind::kOr:
      for (std::uint32_t c = pc + 1; c < in.end; c = code_[c].end) {
        if (Eval(c, slots)) return true;
      }
      return false;
    case Kind::kNot:
      return !Eval(pc + 1, slots);
    default: {
      const Value& v = slots[in.slot];
      return v.index() != 0 && Leaf(in, v, slots);  // absent: every leaf is false
    }
  }
}

bool Program::Leaf(const Instr& in, const Value& v, std::span<const Value> slots) const {
  switch (in.kind) {
    case Kind::kExists:
      return true;
    case Kind::kIntCmp:
      return CmpHolds(in.cmp, Three(*std::get_if<std::int64_t>(&v), in.i));
    case Kind::kFloatCmp:
      return CmpHolds(in.cmp, Three(*std::get_if<double>(&v), in.f));
    case Kind::kTimeCmp:
      return CmpHolds(in.cmp, Three(std::get_if<Datetime>(&v)->micros, in.i));
    case Kind::kBoolEq:
      return CmpHolds(in.cmp, Three<int>(*std::get_if<bool>(&v), static_cast<int>(in.i)));
    case Kind::kStrCmp: {
      int c = std::get_if<std::string>(&v)->compare(*std::get_if<std::string>(&literals_[in.lit]));
      return CmpHolds(in.cmp, c < 0 ? -1 : (c > 0 ? 1 : 0));
    }
    case Kind::kNumCmp: {
      std::optional<int> c = CompareValues(v, literals_[in.lit]);
      return c && CmpHolds(in.cmp, *c);
    }
    case Kind::kIntRange: {
      std::int64_t x = *std::get_if<std::int64_t>(&v);
      return x >= in.i && x <= in.j;
    }
    case Kind::kRange: {
      const std::optional<Bound>& lo = bounds_[in.lit];
      const std::optional<Bound>& hi = bounds_[in.lit + 1];
      if (lo) {
        std::optional<int> c = CompareValues(v, lo->value);
        if (!c || *c < 0 || (*c == 0 && !lo->inclusive)) return false;
      }
      if (hi) {
        std::optional<int> c = CompareValues(v, hi->value);
        if (!c || *c > 0 || (*c == 0 && !hi->inclusive)) return false;
      }
      return true;
    }
    case Kind::kIn:
      for (std::uint32_t k = 0; k < in.lits; ++k) {
        if (ValuesEqual(v, literals_[in.lit + k])) return true;
      }
      return false;
    case Kind::kStrIn: {
      const std::string& s = *std::get_if<std::string>(&v);
      for (std::uint32_t k = 0; k < in.lits; ++k) {
        if (*std::get_if<std::string>(&literals_[in.lit + k]) == s) return true;
      }
      return false;
    }
    case Kind::kHasAny: {
      // Both lists are sorted: one merge pass.
      const StringSet& set = *std::get_if<StringSet>(&v);
      std::size_t a = 0;
      std::uint32_t b = 0;
      while (a < set.size() && b < in.lits) {
        int c = set[a].compare(*std::get_if<std::string>(&literals_[in.lit + b]));
        if (c == 0) return true;
        if (c < 0) {
          ++a;
        } else {
          ++b;
        }
      }
      return false;
    }
    case Kind::kContains:
      return std::get_if<std::string>(&v)->find(*std::get_if<std::string>(&literals_[in.lit])) !=
             std::string::npos;
    case Kind::kIContains:
      return FoldCase(*std::get_if<std::string>(&v))
                 .find(*std::get_if<std::string>(&literals_[in.lit])) != std::string::npos;
    case Kind::kCmpFields: {
      const Value& w = slots[in.other];
      if (w.index() == 0) return false;
      std::optional<int> c = CompareValues(v, w);
      return c && CmpHolds(in.cmp, *c);
    }
    case Kind::kInField: {
      const Value& w = slots[in.other];
      if (w.index() == 0) return false;
      const StringSet& set = *std::get_if<StringSet>(&w);
      return std::binary_search(set.begin(), set.end(), *std::get_if<std::string>(&v));
    }
    default:
      return false;
  }
}

}  // namespace engram::filter
