#include "filter/ir/ir.h"

#include <algorithm>
#include <functional>
#include <type_traits>
#include <utility>
#include <variant>

namespace engram::filter {

Node MakeConst(bool value) {
  Node n;
  n.op = value ? Op::kTrue : Op::kFalse;
  return n;
}

Node MakeNot(Node child, std::string origin) {
  Node n;
  n.op = Op::kNot;
  n.origin = std::move(origin);
  n.children.push_back(std::move(child));
  return n;
}

Node MakeJunction(Op op, std::vector<Node> children) {
  Node n;
  n.op = op;
  n.children = std::move(children);
  return n;
}

namespace {
bool SameValues(const std::vector<Value>& a, const std::vector<Value>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    // Same type and same value: an int literal and an equal float literal
    // print differently, so they are different nodes.
    if (a[i].index() != b[i].index() || a[i] != b[i]) return false;
  }
  return true;
}
bool SameBound(const std::optional<Bound>& a, const std::optional<Bound>& b) {
  if (a.has_value() != b.has_value()) return false;
  if (!a) return true;
  return a->inclusive == b->inclusive && a->value.index() == b->value.index() &&
         a->value == b->value;
}
}  // namespace

bool SameNode(const Node& a, const Node& b) {
  if (a.op != b.op || a.children.size() != b.children.size()) return false;
  switch (a.op) {
    case Op::kTrue:
    case Op::kFalse:
      return true;
    case Op::kAnd:
    case Op::kOr:
    case Op::kNot:
      for (std::size_t i = 0; i < a.children.size(); ++i) {
        if (!SameNode(a.children[i], b.children[i])) return false;
      }
      return true;
    case Op::kExists:
      return a.slot == b.slot;
    case Op::kCmp:
      return a.slot == b.slot && a.cmp == b.cmp && SameValues(a.values, b.values);
    case Op::kIn:
    case Op::kHasAny:
    case Op::kContains:
    case Op::kIContains:
      return a.slot == b.slot && SameValues(a.values, b.values);
    case Op::kRange:
      return a.slot == b.slot && SameBound(a.lo, b.lo) && SameBound(a.hi, b.hi);
    case Op::kCmpFields:
      return a.slot == b.slot && a.other == b.other && a.cmp == b.cmp;
    case Op::kInField:
      return a.slot == b.slot && a.other == b.other;
  }
  return false;
}

namespace {
std::size_t Mix(std::size_t h, std::size_t x) {
  // boost::hash_combine's mixing step.
  return h ^ (x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
}

std::size_t HashValue(const Value& v) {
  std::size_t h = v.index();
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, double>) {
          h = Mix(h, std::hash<double>{}(x == 0 ? 0.0 : x));  // -0.0 == 0.0
        } else if constexpr (std::is_same_v<T, Datetime>) {
          h = Mix(h, std::hash<std::int64_t>{}(x.micros));
        } else if constexpr (std::is_same_v<T, StringSet>) {
          for (const std::string& s : x) h = Mix(h, std::hash<std::string>{}(s));
        } else if constexpr (!std::is_same_v<T, std::monostate>) {
          h = Mix(h, std::hash<T>{}(x));
        }
      },
      v);
  return h;
}

std::size_t HashBound(const std::optional<Bound>& b) {
  return b ? Mix(HashValue(b->value), b->inclusive ? 2 : 1) : 0;
}
}  // namespace

std::size_t HashNode(const Node& n) {
  std::size_t h = Mix(static_cast<std::size_t>(n.op), n.children.size());
  switch (n.op) {
    case Op::kTrue:
    case Op::kFalse:
      return h;
    case Op::kAnd:
    case Op::kOr:
    case Op::kNot:
      for (const Node& c : n.children) h = Mix(h, HashNode(c));
      return h;
    default:
      break;
  }
  h = Mix(h, n.slot);
  if (n.op == Op::kCmp || n.op == Op::kCmpFields) h = Mix(h, static_cast<std::size_t>(n.cmp));
  if (n.op == Op::kCmpFields || n.op == Op::kInField) h = Mix(h, n.other);
  const bool has_values = n.op == Op::kCmp || n.op == Op::kIn || n.op == Op::kHasAny ||
                          n.op == Op::kContains || n.op == Op::kIContains;
  if (has_values) {
    for (const Value& v : n.values) h = Mix(h, HashValue(v));
  }
  if (n.op == Op::kRange) h = Mix(Mix(h, HashBound(n.lo)), HashBound(n.hi));
  return h;
}

std::size_t CountNodes(const Node& n) {
  std::size_t count = 1;
  for (const Node& c : n.children) count += CountNodes(c);
  return count;
}

std::size_t TreeDepth(const Node& n) {
  std::size_t deepest = 0;
  for (const Node& c : n.children) deepest = std::max(deepest, TreeDepth(c));
  return deepest + 1;
}

}  // namespace engram::filter
