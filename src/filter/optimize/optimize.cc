#include "filter/optimize/optimize.h"

#include <utility>

#include "filter/optimize/passes.h"

namespace engram::filter {

Node Optimize(Node root, const Schema& schema) {
  // Each round can expose work for another pass (a merged range folds to
  // false, which folds its parent, which flattens...). Trees are small; a
  // few rounds reach the fixed point.
  constexpr int kMaxRounds = 16;
  for (int round = 0; round < kMaxRounds; ++round) {
    Node next = Flatten(root);
    next = DedupeChildren(std::move(next));
    next = FoldConstants(std::move(next));
    next = SortLiterals(std::move(next));
    next = MergeRanges(std::move(next), schema);
    next = FoldContradictions(std::move(next), schema);
    if (SameNode(next, root)) return next;
    root = std::move(next);
  }
  return root;
}

}  // namespace engram::filter
