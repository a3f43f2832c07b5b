// The optimiser: runs the meaning-preserving passes of passes.h to a fixed
// point. The result is what engram evaluates, plans and prints as "the"
// filter; the checker's output stays available for explain.
#ifndef ENGRAM_FILTER_OPTIMIZE_OPTIMIZE_H_
#define ENGRAM_FILTER_OPTIMIZE_OPTIMIZE_H_

#include "filter/ir/ir.h"

namespace engram::filter {

Node Optimize(Node root, const Schema& schema);

}  // namespace engram::filter

#endif  // ENGRAM_FILTER_OPTIMIZE_OPTIMIZE_H_
