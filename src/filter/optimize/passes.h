// The optimiser's rewrites, one per file. Each takes a verified tree and
// returns one that means exactly the same on every record (FILTERS.md §1.3
// semantics, int/float exact): the differential test evaluates both on random
// records for random filters.
#ifndef ENGRAM_FILTER_OPTIMIZE_PASSES_H_
#define ENGRAM_FILTER_OPTIMIZE_PASSES_H_

#include "filter/ir/ir.h"

namespace engram::filter {

// and(and(a, b), c) -> and(a, b, c); a junction of one child -> the child;
// not(not(x)) -> x.
Node Flatten(Node n);

// Drops repeated children of and/or (and(a, a) -> and(a)).
Node DedupeChildren(Node n);

// true/false through and/or/not; `in` and `has_any` with no values are false.
Node FoldConstants(Node n);

// Sorts and de-duplicates the literal lists of `in` / `has_any` (canonical
// order, LiteralLess); `in` with one value becomes `eq`.
Node SortLiterals(Node n);

// Within an `and`, the ordering comparisons and ranges on one field merge
// into one range (int fields get integer bounds); an empty range is false.
Node MergeRanges(Node n, const Schema& schema);

// Within an `and`: values a field cannot take at once (eq a and eq b, eq a
// and not(eq a), x and not(x), a leaf on x and not(exists x)) fold to false;
// within an `or`, x or not(x) folds to true.
Node FoldContradictions(Node n, const Schema& schema);

}  // namespace engram::filter

#endif  // ENGRAM_FILTER_OPTIMIZE_PASSES_H_
