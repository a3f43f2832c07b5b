#include "filter/ir/ir.h"

#include <algorithm>
#include <utility>

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
