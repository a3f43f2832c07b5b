#include "filter/eval/evaluator.h"

#include <gtest/gtest.h>

#include "filter/test_schema.h"

namespace engram::filter {
namespace {

class EvaluatorTest : public ::testing::Test {
 protected:
  Node Leaf(Op op, const char* field, std::vector<Value> values = {}, CmpOp cmp = CmpOp::kEq) {
    Node n;
    n.op = op;
    n.cmp = cmp;
    n.slot = schema_->Find(field)->slot;
    n.values = std::move(values);
    return n;
  }
  std::vector<Value> Slots(std::initializer_list<std::pair<const char*, Value>> set) {
    std::vector<Value> slots(schema_->fields().size());
    for (const auto& [name, v] : set) slots[schema_->Find(name)->slot] = v;
    return slots;
  }
  std::shared_ptr<const Schema> schema_ = TestSchema();
};

TEST_F(EvaluatorTest, EveryLeafIsFalseOnAMissingField) {
  std::vector<Value> empty = Slots({});
  for (CmpOp op : {CmpOp::kEq, CmpOp::kNe, CmpOp::kLt, CmpOp::kLe, CmpOp::kGt, CmpOp::kGe}) {
    EXPECT_FALSE(Evaluate(Leaf(Op::kCmp, "i", {Value(std::int64_t{1})}, op), empty));
  }
  EXPECT_FALSE(Evaluate(Leaf(Op::kExists, "s"), empty));
  EXPECT_FALSE(Evaluate(Leaf(Op::kIn, "s", {Value(std::string("a"))}), empty));
  EXPECT_FALSE(Evaluate(Leaf(Op::kHasAny, "tags", {Value(std::string("a"))}), empty));
  EXPECT_FALSE(Evaluate(Leaf(Op::kContains, "s", {Value(std::string(""))}), empty));
  Node range = Leaf(Op::kRange, "f");
  range.lo = Bound{Value(-1e300), true};
  EXPECT_FALSE(Evaluate(range, empty));
  // not inverts: not(eq) is true where ne is false (FILTERS.md §1.3).
  EXPECT_TRUE(Evaluate(MakeNot(Leaf(Op::kCmp, "s", {Value(std::string("a"))})), empty));
  EXPECT_FALSE(Evaluate(Leaf(Op::kCmp, "s", {Value(std::string("a"))}, CmpOp::kNe), empty));
}

TEST_F(EvaluatorTest, IntFloatExact) {
  auto r = Slots({{"i", Value(std::int64_t{9007199254740993})}, {"f", Value(0.0)}});
  EXPECT_FALSE(Evaluate(Leaf(Op::kCmp, "i", {Value(9007199254740992.0)}), r));
  EXPECT_TRUE(Evaluate(Leaf(Op::kCmp, "i", {Value(9007199254740992.0)}, CmpOp::kGt), r));
  EXPECT_TRUE(Evaluate(Leaf(Op::kCmp, "f", {Value(std::int64_t{0})}), r));
  EXPECT_TRUE(Evaluate(Leaf(Op::kCmp, "f", {Value(-0.0)}), r));
  EXPECT_TRUE(Evaluate(Leaf(Op::kIn, "i", {Value(1.5), Value(std::int64_t{9007199254740993})}), r));
}

TEST_F(EvaluatorTest, StringsSetsAndFields) {
  auto r = Slots({{"s", Value(std::string("Stra\xc3\x9f"
                                          "e"))},
                  {"tags", Value(StringSet{"a", "c"})},
                  {"i", Value(std::int64_t{3})},
                  {"f", Value(3.0)},
                  {"odd name", Value(std::string("c"))}});
  EXPECT_TRUE(Evaluate(Leaf(Op::kContains, "s", {Value(std::string("ra\xc3\x9f"))}), r));
  EXPECT_FALSE(Evaluate(Leaf(Op::kContains, "s", {Value(std::string("str"))}), r));
  EXPECT_TRUE(Evaluate(Leaf(Op::kIContains, "s", {Value(std::string("str"))}), r));
  EXPECT_TRUE(
      Evaluate(Leaf(Op::kHasAny, "tags", {Value(std::string("b")), Value(std::string("c"))}), r));
  EXPECT_FALSE(Evaluate(Leaf(Op::kHasAny, "tags", {Value(std::string("b"))}), r));
  EXPECT_TRUE(Evaluate(Leaf(Op::kCmp, "s", {Value(std::string("R"))}, CmpOp::kGt), r));  // bytewise
  Node fields = Leaf(Op::kCmpFields, "i");
  fields.other = schema_->Find("f")->slot;
  EXPECT_TRUE(Evaluate(fields, r));
  fields.other = schema_->Find("j")->slot;  // absent here
  EXPECT_FALSE(Evaluate(fields, r));
  Node in_field = Leaf(Op::kInField, "odd name");
  in_field.other = schema_->Find("tags")->slot;
  EXPECT_TRUE(Evaluate(in_field, r));
}

TEST_F(EvaluatorTest, Junctions) {
  auto r = Slots({{"b", Value(true)}});
  Node yes = Leaf(Op::kCmp, "b", {Value(true)});
  Node no = Leaf(Op::kCmp, "b", {Value(false)});
  EXPECT_TRUE(Evaluate(MakeJunction(Op::kOr, {no, yes}), r));
  EXPECT_FALSE(Evaluate(MakeJunction(Op::kAnd, {yes, no}), r));
  EXPECT_TRUE(Evaluate(MakeConst(true), r));
  EXPECT_FALSE(Evaluate(MakeConst(false), r));
}

}  // namespace
}  // namespace engram::filter
