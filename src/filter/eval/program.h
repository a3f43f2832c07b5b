// Program: a checked filter compiled for fast evaluation over many records.
// The reference evaluator (evaluator.h) defines the meaning; a Program must
// agree with it on every record (tests/differential checks this on random
// filters). It differs only in how it gets there:
//   - leaves are specialised by field type once (an int field against an int
//     literal compares two int64s; string sets merge against a sorted
//     literal list), so no variant dispatch happens per record;
//   - the children of and/or are evaluated cheapest first, by a static cost
//     model, which is free to do because evaluation has no side effects;
//   - the tree is one flat array in pre-order.
#ifndef ENGRAM_FILTER_EVAL_PROGRAM_H_
#define ENGRAM_FILTER_EVAL_PROGRAM_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "filter/ir/ir.h"
#include "schema/value.h"

namespace engram::filter {

class Program {
 public:
  // `root` must be verified against `schema`.
  Program(const Node& root, const Schema& schema);

  // Whether the record whose slots are `slots` passes. Thread-safe.
  bool Matches(std::span<const Value> slots) const { return Eval(0, slots); }

  std::size_t size() const { return code_.size(); }

 private:
  enum class Kind : std::uint8_t {
    kTrue,
    kFalse,
    kAnd,
    kOr,
    kNot,
    kExists,
    kIntCmp,     // int field, int literal
    kFloatCmp,   // float field, double literal
    kNumCmp,     // any numeric field/literal mix, exact (CompareValues)
    kTimeCmp,    // datetime field
    kStrCmp,     // string field, bytewise
    kBoolEq,     // bool field, eq / ne
    kIntRange,   // int field, inclusive int64 bounds [lo, hi]
    kRange,      // any orderable field, general bounds
    kIn,         // scalar field, any of a literal list
    kStrIn,      // string field, any of a sorted string list
    kHasAny,     // set<string> field shares an element with a sorted list
    kContains,   // substring
    kIContains,  // substring after simple case folding
    kCmpFields,
    kInField,
  };
  struct Instr {
    Kind kind;
    CmpOp cmp = CmpOp::kEq;
    std::uint32_t slot = 0;
    std::uint32_t other = 0;
    std::uint32_t end = 0;      // index past this instruction's subtree
    std::int64_t i = 0, j = 0;  // int literal / int range bounds
    double f = 0;               // float literal
    std::uint32_t lit = 0;      // first literal in literals_
    std::uint32_t lits = 0;     // how many
  };

  // Appends `n` and its subtree.
  void Emit(const Node& n, const Schema& schema);
  bool Eval(std::uint32_t pc, std::span<const Value> slots) const;
  bool Leaf(const Instr& in, const Value& v, std::span<const Value> slots) const;

  std::vector<Instr> code_;
  std::vector<Value> literals_;
  std::vector<std::optional<Bound>> bounds_;  // kRange: lo at lit, hi at lit + 1
};

}  // namespace engram::filter

#endif  // ENGRAM_FILTER_EVAL_PROGRAM_H_
