// The reference evaluator: whether one record passes a checked filter. It
// DEFINES the meaning of the IR; the metadata-index planner and every
// translation are tested against it.
//
// Fields are read by slot (resolved when the filter was checked), so no name
// is looked up per record. A leaf that reads an absent field is false; `not`
// inverts its child (FILTERS.md §1.3). int and float compare exactly.
#ifndef ENGRAM_FILTER_EVAL_EVALUATOR_H_
#define ENGRAM_FILTER_EVAL_EVALUATOR_H_

#include <span>

#include "filter/ir/ir.h"
#include "schema/value.h"

namespace engram::filter {

// `slots` holds one Value per schema field (std::monostate when absent), as
// Record::slots does. `node` must be verified against that schema.
bool Evaluate(const Node& node, std::span<const Value> slots);

}  // namespace engram::filter

#endif  // ENGRAM_FILTER_EVAL_EVALUATOR_H_
