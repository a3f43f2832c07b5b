#include "schema/value.h"

#include <algorithm>

#include <gtest/gtest.h>

namespace engram {
namespace {

TEST(Value, ExactComparison) {
  EXPECT_FALSE(ValuesEqual(Value(std::int64_t{9007199254740993}), Value(9007199254740992.0)));
  EXPECT_TRUE(ValuesEqual(Value(std::int64_t{9007199254740992}), Value(9007199254740992.0)));
  EXPECT_TRUE(ValuesEqual(Value(-0.0), Value(std::int64_t{0})));
  EXPECT_EQ(CompareValues(Value(2.5), Value(std::int64_t{2})), 1);
  EXPECT_EQ(CompareValues(Value(std::string("a")), Value(std::string("b"))), -1);
  EXPECT_EQ(CompareValues(Value(std::string("\xc3\xa9")), Value(std::string("z"))), 1);  // bytes
  EXPECT_FALSE(CompareValues(Value(true), Value(std::int64_t{1})));
  EXPECT_FALSE(CompareValues(Value(std::string("1")), Value(std::int64_t{1})));
  EXPECT_FALSE(CompareValues(Value(), Value()));
}

TEST(Value, LiteralOrder) {
  std::vector<Value> v = {Value(std::string("b")), Value(2.0),
                          Value(std::int64_t{2}),  Value(true),
                          Value(std::int64_t{1}),  Value(std::string("a"))};
  std::sort(v.begin(), v.end(), LiteralLess);
  EXPECT_TRUE(std::holds_alternative<bool>(v[0]));
  EXPECT_EQ(std::get<std::int64_t>(v[1]), 1);
  EXPECT_EQ(std::get<std::int64_t>(v[2]), 2);
  EXPECT_EQ(std::get<double>(v[3]), 2.0);
  EXPECT_EQ(std::get<std::string>(v[4]), "a");
}

}  // namespace
}  // namespace engram
