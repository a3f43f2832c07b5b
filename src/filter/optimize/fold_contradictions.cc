#include <utility>

#include "filter/eval/evaluator.h"
#include "filter/optimize/passes.h"

namespace engram::filter {
namespace {

// The one slot `n` reads, if it reads exactly one (a leaf on one field, or
// `not` of such a leaf).
std::optional<std::uint32_t> SingleSlot(const Node& n) {
  if (n.op == Op::kNot) return SingleSlot(n.children[0]);
  if (!n.IsLeaf() || n.IsConst() || n.op == Op::kCmpFields || n.op == Op::kInField) {
    return std::nullopt;
  }
  return n.slot;
}

bool IsNotOf(const Node& maybe_not, const Node& other) {
  return maybe_not.op == Op::kNot && SameNode(maybe_not.children[0], other);
}

// True when some child is the negation of another.
bool HasComplementaryPair(const std::vector<Node>& children) {
  for (const Node& a : children) {
    for (const Node& b : children) {
      if (IsNotOf(a, b)) return true;
    }
  }
  return false;
}

// Within an `and`: when a field must equal one of finitely many values
// (eq, in), try each candidate against every other constraint on that field
// alone; if none passes them all, nothing can.
bool EqualitiesContradict(const std::vector<Node>& children, std::uint32_t slot,
                          std::size_t slot_count) {
  std::vector<Value> candidates;
  bool restricted = false;
  for (const Node& c : children) {
    bool positive_eq =
        c.slot == slot && ((c.op == Op::kCmp && c.cmp == CmpOp::kEq) || c.op == Op::kIn);
    if (!positive_eq) continue;
    if (!restricted) {
      candidates = c.values;
      restricted = true;
    }
  }
  if (!restricted) return false;
  std::vector<Value> slots(slot_count);
  for (const Value& candidate : candidates) {
    slots[slot] = candidate;
    bool all = true;
    for (const Node& c : children) {
      if (SingleSlot(c) == slot && !Evaluate(c, slots)) {
        all = false;
        break;
      }
    }
    if (all) return false;
  }
  return true;
}

// Within an `and`: not(exists x) beside anything that needs x present.
bool AbsenceContradicts(const std::vector<Node>& children) {
  for (const Node& a : children) {
    if (a.op != Op::kNot || a.children[0].op != Op::kExists) continue;
    std::uint32_t slot = a.children[0].slot;
    for (const Node& b : children) {
      bool needs_presence =
          b.IsLeaf() && !b.IsConst() &&
          (b.slot == slot || ((b.op == Op::kCmpFields || b.op == Op::kInField) && b.other == slot));
      if (needs_presence) return true;
    }
  }
  return false;
}

}  // namespace

void FoldContradictions(Node& n, const Schema& schema, bool* changed) {
  if (n.IsLeaf()) return;
  for (Node& c : n.children) FoldContradictions(c, schema, changed);
  if (n.op == Op::kNot) return;
  // x and not(x) is false; x or not(x) is true (no third truth value).
  if (HasComplementaryPair(n.children)) {
    *changed = true;
    n = MakeConst(n.op == Op::kOr);
    return;
  }
  if (n.op != Op::kAnd) return;
  bool contradiction = AbsenceContradicts(n.children);
  for (const Node& c : n.children) {
    if (contradiction) break;
    std::optional<std::uint32_t> slot = SingleSlot(c);
    contradiction = slot && schema.field(*slot).type != FieldType::kStringSet &&
                    EqualitiesContradict(n.children, *slot, schema.fields().size());
  }
  if (!contradiction) return;
  *changed = true;
  n = MakeConst(false);
}

}  // namespace engram::filter
