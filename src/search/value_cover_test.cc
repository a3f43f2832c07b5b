#include "search/value_cover.h"

#include <gtest/gtest.h>

namespace engram::search {
namespace {

using filter::Node;
using filter::Op;

Node Leaf(Op op, std::uint32_t slot, std::vector<Value> values) {
  Node n;
  n.op = op;
  n.slot = slot;
  n.values = std::move(values);
  return n;
}

// Slots 0 (string) and 2 (set<string>) are graph fields; slot 1 is not.
class ValueCoverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto linked = [](std::uint32_t) { return false; };
    // "a" on 10 records, "b" on 3.
    for (std::uint32_t doc = 0; doc < 13; ++doc) {
      const std::vector<std::string> keys = {ValueKey(0, Value(std::string(doc < 10 ? "a" : "b")))};
      ASSERT_TRUE(values_.SetKeys(doc, keys, linked).ok());
    }
  }
  std::optional<std::vector<std::string>> Of(const Node& n) const {
    return Cover(n, slots_, values_);
  }
  vector::VectorStore walk_{2, vector::Metric::kL2};
  vector::ValueGraphs values_{&walk_, vector::HnswOptions{}, 1000};
  std::vector<std::uint32_t> slots_ = {0, 2};
};

TEST_F(ValueCoverTest, KeysOfRecords) {
  std::vector<Value> row = {Value(std::string("a")), Value(std::int64_t{3}),
                            Value(StringSet{"x", "y"})};
  EXPECT_EQ(RecordKeys(slots_, row), (std::vector<std::string>{"0:s:a", "2:s:x", "2:s:y"}));
  row[0] = Value(true);
  EXPECT_EQ(RecordKeys(slots_, row)[0], "0:b:true");
  row[0] = Value();  // absent: no key
  EXPECT_EQ(RecordKeys(slots_, row).size(), 2u);
}

TEST_F(ValueCoverTest, LeavesOnGraphFields) {
  Node eq = Leaf(Op::kCmp, 0, {Value(std::string("a"))});
  EXPECT_EQ(Of(eq), (std::vector<std::string>{"0:s:a"}));
  Node ne = eq;
  ne.cmp = filter::CmpOp::kNe;
  EXPECT_FALSE(Of(ne));
  EXPECT_FALSE(Of(Leaf(Op::kCmp, 1, {Value(std::int64_t{3})})));  // not a graph field
  EXPECT_EQ(Of(Leaf(Op::kIn, 0, {Value(std::string("a")), Value(std::string("b"))}))->size(), 2u);
  EXPECT_EQ(Of(Leaf(Op::kHasAny, 2, {Value(std::string("x"))})),
            (std::vector<std::string>{"2:s:x"}));
  EXPECT_FALSE(Of(Leaf(Op::kExists, 0, {})));
  EXPECT_EQ(Of(filter::MakeConst(false)), std::vector<std::string>{});
  EXPECT_FALSE(Of(filter::MakeConst(true)));
  EXPECT_FALSE(Of(filter::MakeNot(eq)));
}

TEST_F(ValueCoverTest, AndTakesTheSmallestOrTakesAll) {
  const Node a = Leaf(Op::kCmp, 0, {Value(std::string("a"))});
  const Node b = Leaf(Op::kCmp, 0, {Value(std::string("b"))});
  const Node other = Leaf(Op::kCmp, 1, {Value(std::int64_t{3})});
  EXPECT_EQ(Of(filter::MakeJunction(Op::kAnd, {a, other, b})), (std::vector<std::string>{"0:s:b"}));
  EXPECT_EQ(Of(filter::MakeJunction(Op::kAnd, {other, a})), (std::vector<std::string>{"0:s:a"}));
  EXPECT_FALSE(Of(filter::MakeJunction(Op::kAnd, {other, other})));
  EXPECT_EQ(Of(filter::MakeJunction(Op::kOr, {b, a, b})),
            (std::vector<std::string>{"0:s:a", "0:s:b"}));
  EXPECT_FALSE(Of(filter::MakeJunction(Op::kOr, {a, other})));
  // Past kMaxCoverKeys: none.
  std::vector<Value> many;
  for (std::size_t i = 0; i <= kMaxCoverKeys; ++i) many.push_back(Value(std::to_string(i)));
  EXPECT_FALSE(Of(Leaf(Op::kIn, 0, many)));
}

}  // namespace
}  // namespace engram::search
