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
    bool changed = false;
    Flatten(root, &changed);
    DedupeChildren(root, &changed);
    FoldConstants(root, &changed);
    SortLiterals(root, &changed);
    MergeRanges(root, schema, &changed);
    ExactLiterals(root, schema, &changed);
    FoldContradictions(root, schema, &changed);
    if (!changed) break;
  }
  return root;
}

}  // namespace engram::filter
