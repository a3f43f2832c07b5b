// The checker: AST + Schema -> typed IR, or the first Fault in pre-order
// (FILTERS.md §1.4). One checker serves every dialect; their differences are
// a Policy. It never throws on bad input.
#ifndef ENGRAM_FILTER_CHECK_CHECKER_H_
#define ENGRAM_FILTER_CHECK_CHECKER_H_

#include <optional>

#include "filter/ast/ast.h"
#include "filter/check/policy.h"
#include "filter/ir/ir.h"

namespace engram::filter {

struct CheckResult {
  std::optional<Node> root;    // set when the filter is valid
  std::optional<Fault> fault;  // else the first fault
};

// Checks `tree` against `schema`: limits as each node is entered (node count
// before depth), then the node's own shape fault, then its operands in order
// (field, then value), then the op's typing rule.
CheckResult Check(const ast::Tree& tree, const Schema& schema, const Policy& policy);

}  // namespace engram::filter

#endif  // ENGRAM_FILTER_CHECK_CHECKER_H_
