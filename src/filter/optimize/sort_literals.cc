#include <algorithm>
#include <utility>

#include "filter/optimize/passes.h"

namespace engram::filter {

Node SortLiterals(Node n) {
  for (Node& c : n.children) c = SortLiterals(std::move(c));
  if (n.op != Op::kIn && n.op != Op::kHasAny) return n;
  std::stable_sort(n.values.begin(), n.values.end(), LiteralLess);
  // Equal values are adjacent now (1 and 1.0 too: same type class, equal
  // value); keep the first of each run.
  std::vector<Value> unique;
  for (Value& v : n.values) {
    if (unique.empty() || !ValuesEqual(unique.back(), v)) unique.push_back(std::move(v));
  }
  n.values = std::move(unique);
  if (n.op == Op::kIn && n.values.size() == 1) {
    n.op = Op::kCmp;
    n.cmp = CmpOp::kEq;
  }
  return n;
}

}  // namespace engram::filter
