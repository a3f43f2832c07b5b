#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>
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

// True when some child is the negation of another: each `not`'s operand is
// looked up among the children by hash.
bool HasComplementaryPair(const std::vector<Node>& children) {
  std::unordered_multimap<std::size_t, const Node*> by_hash;
  bool any_not = false;
  for (const Node& c : children) {
    by_hash.emplace(HashNode(c), &c);
    any_not = any_not || c.op == Op::kNot;
  }
  if (!any_not) return false;
  for (const Node& a : children) {
    if (a.op != Op::kNot) continue;
    for (auto [it, end] = by_hash.equal_range(HashNode(a.children[0])); it != end; ++it) {
      if (SameNode(*it->second, a.children[0])) return true;
    }
  }
  return false;
}

// Orders literals so that those ValuesEqual holds for are adjacent
// (equivalent): by type class, numbers together, then by CompareValues.
bool MemberLess(const Value& a, const Value& b) {
  auto rank = [](const Value& v) { return IsNumeric(v) ? std::size_t{2} : v.index(); };
  if (rank(a) != rank(b)) return rank(a) < rank(b);
  return CompareValues(a, b).value_or(0) < 0;
}

// The values of an eq or in leaf (a membership test), or null.
const std::vector<Value>* Members(const Node& n) {
  const bool member = (n.op == Op::kCmp && n.cmp == CmpOp::kEq) || n.op == Op::kIn;
  return member ? &n.values : nullptr;
}

// Within an `and`, the constraints on one scalar field: when the field must
// equal one of finitely many values (eq, in), each candidate is tried against
// every constraint; if none passes them all, nothing can. Membership tests
// (eq, in, and their `not`) are decided by binary search in their sorted
// values, the rest by the evaluator, so the cost is about the constraints'
// sizes times the log of the smallest list (never a list against a list).
bool EqualitiesContradict(const std::vector<const Node*>& constraints, std::uint32_t slot,
                          std::size_t slot_count) {
  const std::vector<Value>* smallest = nullptr;
  for (const Node* c : constraints) {
    const std::vector<Value>* m = Members(*c);
    if (m != nullptr && (smallest == nullptr || m->size() < smallest->size())) smallest = m;
  }
  if (smallest == nullptr) return false;
  std::vector<Value> candidates = *smallest;
  std::vector<Value> sorted;
  std::vector<Value> slots(slot_count);
  for (const Node* c : constraints) {
    if (candidates.empty()) break;
    const bool negated = c->op == Op::kNot;
    const std::vector<Value>* m = Members(negated ? c->children[0] : *c);
    std::function<bool(const Value&)> passes;
    if (m != nullptr) {
      sorted = *m;
      std::sort(sorted.begin(), sorted.end(), MemberLess);
      passes = [&](const Value& v) {
        return std::binary_search(sorted.begin(), sorted.end(), v, MemberLess) != negated;
      };
    } else {
      passes = [&](const Value& v) {
        slots[slot] = v;
        return Evaluate(*c, slots);
      };
    }
    std::erase_if(candidates, [&](const Value& v) { return !passes(v); });
  }
  return candidates.empty();
}

// Within an `and`: not(exists x) beside anything that needs x present.
bool AbsenceContradicts(const std::vector<Node>& children) {
  std::set<std::uint32_t> absent;
  for (const Node& a : children) {
    if (a.op == Op::kNot && a.children[0].op == Op::kExists) absent.insert(a.children[0].slot);
  }
  if (absent.empty()) return false;
  for (const Node& b : children) {
    if (!b.IsLeaf() || b.IsConst()) continue;
    if (absent.count(b.slot) > 0) return true;
    if ((b.op == Op::kCmpFields || b.op == Op::kInField) && absent.count(b.other) > 0) return true;
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
  if (!contradiction) {
    std::map<std::uint32_t, std::vector<const Node*>> by_slot;
    for (const Node& c : n.children) {
      const std::optional<std::uint32_t> slot = SingleSlot(c);
      if (slot && schema.field(*slot).type != FieldType::kStringSet) by_slot[*slot].push_back(&c);
    }
    for (const auto& [slot, constraints] : by_slot) {
      if (EqualitiesContradict(constraints, slot, schema.fields().size())) {
        contradiction = true;
        break;
      }
    }
  }
  if (!contradiction) return;
  *changed = true;
  n = MakeConst(false);
}

}  // namespace engram::filter
