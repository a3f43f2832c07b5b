// The IR's invariants, checked: every producer of IR (the checker, each
// optimiser pass) must leave a tree that passes. Used by tests and debug
// builds; user input can never make it fail.
#ifndef ENGRAM_FILTER_IR_VERIFIER_H_
#define ENGRAM_FILTER_IR_VERIFIER_H_

#include <optional>
#include <string>

#include "filter/ir/ir.h"

namespace engram::filter {

// nullopt when `node` is well-formed against `schema`, else what is wrong.
std::optional<std::string> Verify(const Node& node, const Schema& schema);

// Whether a literal of `v`'s type may stand beside a field of type `t`
// (numbers with int/float fields, strings with string and set<string>
// fields, ...).
bool LiteralFits(FieldType t, const Value& v);

}  // namespace engram::filter

#endif  // ENGRAM_FILTER_IR_VERIFIER_H_
