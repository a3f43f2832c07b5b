// The typed filter IR: what every dialect compiles to, checked against a
// schema. Fields are slots (resolved at compile time), literals are typed
// Values. The evaluator defines what each node means; the index planner and
// the translators must agree with it.
//
// Semantics (FILTERS.md §1.3): every leaf that reads a field is false on a
// record where the field is absent; `not` inverts its child; there is no
// third truth value.
#ifndef ENGRAM_FILTER_IR_IR_H_
#define ENGRAM_FILTER_IR_IR_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "filter/ast/ast.h"
#include "schema/schema.h"
#include "schema/value.h"

namespace engram::filter {

enum class Op : std::uint8_t {
  kTrue,
  kFalse,
  kAnd,        // children, at least one
  kOr,         // children, at least one
  kNot,        // children[0]
  kExists,     // field present
  kCmp,        // field <cmp> values[0]; kNe is "present and not equal"
  kIn,         // scalar field equals one of values (may be empty: false)
  kHasAny,     // set<string> field shares an element with values
  kContains,   // string field contains values[0] as a byte substring
  kIContains,  // string field contains values[0] after simple case folding of both
  kRange,      // field within lo / hi (either may be open)
  kCmpFields,  // field <cmp> other field (both present)
  kInField,    // string field is an element of set<string> field `other`
};

struct Bound {
  Value value;
  bool inclusive = true;
};

struct Node {
  Op op = Op::kTrue;
  CmpOp cmp = CmpOp::kEq;   // kCmp, kCmpFields
  std::uint32_t slot = 0;   // the field a leaf reads
  std::uint32_t other = 0;  // kCmpFields, kInField: the second field
  std::vector<Value> values;
  std::optional<Bound> lo, hi;  // kRange
  std::vector<Node> children;
  // "<op as written>:<field>" (e.g. "neq:scope"): the reason a record is
  // dropped, for filter impact (SEARCH.md §3). Not part of the meaning.
  std::string origin;
  // Where the construct was written in the source filter: translators report
  // what they cannot express there. Not part of the meaning.
  Path path;

  bool IsLeaf() const { return op != Op::kAnd && op != Op::kOr && op != Op::kNot; }
  bool IsConst() const { return op == Op::kTrue || op == Op::kFalse; }
};

// A checked filter: an IR tree and the schema its slots refer to.
struct Filter {
  std::shared_ptr<const Schema> schema;
  Node root;
};

// Node constructors.
Node MakeConst(bool value);
Node MakeNot(Node child, std::string origin = "");
Node MakeJunction(Op op, std::vector<Node> children);  // kAnd or kOr

// Structural equality of meaning-bearing parts (origin ignored).
bool SameNode(const Node& a, const Node& b);
// A hash consistent with SameNode (equal nodes hash equal), in time linear
// in the subtree's size.
std::size_t HashNode(const Node& n);

// Counts nodes and the depth of the tree (root depth 1).
std::size_t CountNodes(const Node& n);
std::size_t TreeDepth(const Node& n);

}  // namespace engram::filter

#endif  // ENGRAM_FILTER_IR_IR_H_
