#include "filter/ir/verifier.h"

#include <gtest/gtest.h>

#include "filter/test_schema.h"

namespace engram::filter {
namespace {

Node Leaf(const Schema& s, Op op, const char* field, std::vector<Value> values = {}) {
  Node n;
  n.op = op;
  n.slot = s.Find(field)->slot;
  n.values = std::move(values);
  return n;
}

TEST(Verifier, AcceptsWellFormedTrees) {
  auto s = TestSchema();
  Node ok = MakeJunction(Op::kOr, {Leaf(*s, Op::kCmp, "i", {Value(2.5)}),
                                   Leaf(*s, Op::kHasAny, "tags", {Value(std::string("a"))}),
                                   MakeNot(Leaf(*s, Op::kExists, "d"))});
  EXPECT_EQ(Verify(ok, *s), std::nullopt);
}

TEST(Verifier, RejectsBrokenTrees) {
  auto s = TestSchema();
  EXPECT_TRUE(Verify(MakeJunction(Op::kAnd, {}), *s));
  Node bad_not;
  bad_not.op = Op::kNot;
  EXPECT_TRUE(Verify(bad_not, *s));
  EXPECT_TRUE(Verify(Leaf(*s, Op::kCmp, "i", {Value(std::string("x"))}), *s));
  EXPECT_TRUE(Verify(Leaf(*s, Op::kCmp, "tags", {Value(std::string("x"))}), *s));
  EXPECT_TRUE(Verify(Leaf(*s, Op::kHasAny, "s", {Value(std::string("x"))}), *s));
  EXPECT_TRUE(Verify(Leaf(*s, Op::kContains, "i", {Value(std::string("x"))}), *s));
  EXPECT_TRUE(Verify(Leaf(*s, Op::kExists, "secret"), *s));  // not filterable
  Node lt_bool = Leaf(*s, Op::kCmp, "b", {Value(true)});
  lt_bool.cmp = CmpOp::kLt;
  EXPECT_TRUE(Verify(lt_bool, *s));
  Node range = Leaf(*s, Op::kRange, "s");
  EXPECT_TRUE(Verify(range, *s));  // no bounds
  Node slot = Leaf(*s, Op::kExists, "i");
  slot.slot = 99;
  EXPECT_TRUE(Verify(slot, *s));
}

}  // namespace
}  // namespace engram::filter
