// The dialect-neutral filter AST: what a dialect parser makes of the JSON
// before anything is known about the schema. Every node and operand keeps
// its path; shape errors found while parsing are attached where they occur
// (not thrown), so that the checker can report the first error of the whole
// filter in pre-order, whichever layer finds it (FILTERS.md §1.4).
#ifndef ENGRAM_FILTER_AST_AST_H_
#define ENGRAM_FILTER_AST_AST_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/json.h"
#include "base/path.h"
#include "filter/ast/fault.h"

namespace engram::filter {

enum class CmpOp : std::uint8_t { kEq, kNe, kLt, kLe, kGt, kGe };

// "eq", "ne", "lt", "le", "gt", "ge".
std::string_view CmpOpName(CmpOp op);
// The op with its operands swapped (lt <-> gt, le <-> ge).
CmpOp FlipCmpOp(CmpOp op);
// Whether a three-way comparison result `c` (<0, 0, >0) satisfies `op`.
bool CmpHolds(CmpOp op, int c);
// lt, le, gt, ge.
inline bool IsOrdering(CmpOp op) {
  return op != CmpOp::kEq && op != CmpOp::kNe;
}

namespace ast {

struct Operand {
  enum class Kind : std::uint8_t {
    kNone,     // not given (the fault says why)
    kField,    // a schema field, by name as written
    kLiteral,  // one JSON value (typed by the checker)
    kList,     // a JSON array of literals (the haystack of `in`, `$in`, any_of)
  };
  Kind kind = Kind::kNone;
  std::string field;
  // kLiteral / kList: values inside the parsed document, which must outlive
  // the tree (the compiler holds both).
  const json::Value* literal = nullptr;
  std::vector<const json::Value*> items;
  Path path;                   // where errors about this operand are reported
  Path items_path;             // item i is reported at items_path.Index(i)
  std::optional<Fault> fault;  // found while parsing; reported when the checker reaches it
  // A date-only datetime literal stands for the end of its day (SearchMemory's
  // `after` bound and `between` upper bound).
  bool date_rounds_up = false;
};

enum class NodeKind : std::uint8_t {
  kInvalid,   // could not be parsed; `fault` says why
  kConst,     // `value`
  kAnd,       // children
  kOr,        // children
  kNot,       // children[0]
  kCompare,   // cmp; operands [lhs, rhs]
  kIn,        // operands [needle, haystack]
  kContains,  // operands [field, needle]; case_insensitive
  kExists,    // operands [field] (a second operand only carries a fault)
  kBetween,   // operands [field, low, high], both bounds inclusive
};

struct Node {
  NodeKind kind = NodeKind::kInvalid;
  std::string op;  // as written ("neq", "$ne", "is_not", "ge"): messages and filter-impact reasons
  Path path;
  // Where an op that does not apply to the field's type is reported
  // (search_memory: the entry's `.operator`); empty: at the blamed operand.
  std::optional<Path> op_path;
  // Where an error about the values together is reported (between: min > max).
  std::optional<Path> values_path;
  std::optional<Fault> fault;  // reported when the checker enters the node
  // False for nodes a parser adds while lowering (the `not` of `neq`): they do
  // not count toward the depth and node limits.
  bool counts = true;
  bool value = false;             // kConst
  CmpOp cmp = CmpOp::kEq;         // kCompare
  bool case_insensitive = false;  // kContains
  std::vector<Node> children;
  std::vector<Operand> operands;
};

// A parsed filter document. `fault` is an error in the document around the
// filter (the expr_v1 envelope), reported before anything in `root`.
struct Tree {
  std::optional<Fault> fault;
  Node root;
};

}  // namespace ast
}  // namespace engram::filter

#endif  // ENGRAM_FILTER_AST_AST_H_
