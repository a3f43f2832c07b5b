#include <algorithm>
#include <utility>

#include "filter/optimize/passes.h"

namespace engram::filter {

void SortLiterals(Node& n, bool* changed) {
  for (Node& c : n.children) SortLiterals(c, changed);
  if (n.op != Op::kIn && n.op != Op::kHasAny) return;
  // Sorted, no two equal (1 and 1.0 are equal; the int sorts first).
  auto out_of_order = [](const Value& a, const Value& b) {
    return !LiteralLess(a, b) || ValuesEqual(a, b);
  };
  bool canonical =
      std::adjacent_find(n.values.begin(), n.values.end(), out_of_order) == n.values.end();
  if (!canonical) {
    *changed = true;
    std::stable_sort(n.values.begin(), n.values.end(), LiteralLess);
    // Equal values are adjacent now; keep the first of each run.
    std::vector<Value> unique;
    for (Value& v : n.values) {
      if (unique.empty() || !ValuesEqual(unique.back(), v)) unique.push_back(std::move(v));
    }
    n.values = std::move(unique);
  }
  if (n.op == Op::kIn && n.values.size() == 1) {
    *changed = true;
    n.op = Op::kCmp;
    n.cmp = CmpOp::kEq;
  }
}

}  // namespace engram::filter
