// The optimiser's rewrites, one per file. Each takes a verified tree and
// returns one that means exactly the same on every record (FILTERS.md §1.3
// semantics, int/float exact): the differential test evaluates both on random
// records for random filters. Each rewrites the tree in place and sets
// *changed when it rewrote anything (and leaves it alone otherwise), so the
// driver knows when it is done without keeping a copy to compare with.
#ifndef ENGRAM_FILTER_OPTIMIZE_PASSES_H_
#define ENGRAM_FILTER_OPTIMIZE_PASSES_H_

#include "filter/ir/ir.h"

namespace engram::filter {

// and(and(a, b), c) -> and(a, b, c); a junction of one child -> the child;
// not(not(x)) -> x.
void Flatten(Node& n, bool* changed);

// Drops repeated children of and/or (and(a, a) -> and(a)).
void DedupeChildren(Node& n, bool* changed);

// true/false through and/or/not; `in` and `has_any` with no values are false.
void FoldConstants(Node& n, bool* changed);

// Sorts and de-duplicates the literal lists of `in` / `has_any` (canonical
// order, LiteralLess); `in` with one value becomes `eq`.
void SortLiterals(Node& n, bool* changed);

// Within an `and`, the ordering comparisons and ranges on one field merge
// into one range (int fields get integer bounds); an empty range is false.
void MergeRanges(Node& n, const Schema& schema, bool* changed);

// Number literals take their field's type, exactly (FILTERS.md §1.2): on a
// float field an int literal becomes the double equal to it, or, when no
// double is, the comparison becomes one against its neighbouring doubles; on
// an int field a fractional literal of ne/in is dropped or turns the leaf
// into `exists` (MergeRanges does eq and the orderings). Afterwards every
// kCmp/kIn/kRange literal on a number field has the field's type, so stores
// that compare like with like (every SQL engine, Chroma, Milvus) agree.
void ExactLiterals(Node& n, const Schema& schema, bool* changed);

// Within an `and`: values a field cannot take at once (eq a and eq b, eq a
// and not(eq a), x and not(x), a leaf on x and not(exists x)) fold to false;
// within an `or`, x or not(x) folds to true.
void FoldContradictions(Node& n, const Schema& schema, bool* changed);

}  // namespace engram::filter

#endif  // ENGRAM_FILTER_OPTIMIZE_PASSES_H_
