#include "filter/optimize/optimize.h"

#include <gtest/gtest.h>

#include "filter/compiler.h"
#include "filter/ir/printer.h"
#include "filter/test_schema.h"

namespace engram::filter {
namespace {

// The optimised IR of a vector_filter filter.
std::string Opt(std::string_view text) {
  auto c = Compile(Dialect::kVectorFilter, text, TestSchema());
  EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.diagnostic().message);
  return c.ok() ? ToSexpr(c.value().optimized) : "";
}

TEST(Optimize, Flatten) {
  EXPECT_EQ(Opt(R"({"$and":[{"$and":[{"s":"a"},{"b":true}]},{"i":1}]})"),
            "(and (eq s \"a\") (eq b true) (eq i 1))");
  EXPECT_EQ(Opt(R"({"$or":[{"s":"a"}]})"), "(eq s \"a\")");
  EXPECT_EQ(Opt(R"({"s":{"$nin":["a"]}})"), "(not (eq s \"a\"))");
}

TEST(Optimize, FoldConstants) {
  EXPECT_EQ(Opt(R"({"s":{"$in":[]}})"), "false");
  EXPECT_EQ(Opt(R"({"$or":[{"s":{"$in":[]}},{"b":true}]})"), "(eq b true)");
  EXPECT_EQ(Opt(R"({"s":{"$nin":[]}})"), "true");
  EXPECT_EQ(Opt(R"({"$and":[{"s":{"$nin":[]}},{"b":true}]})"), "(eq b true)");
}

TEST(Optimize, SortAndDedupeLiterals) {
  EXPECT_EQ(Opt(R"({"s":{"$in":["b","a","b"]}})"), "(in s \"a\" \"b\")");
  EXPECT_EQ(Opt(R"({"f":{"$in":[2.0,1,2,1.0]}})"), "(in f 1.0 2.0)");
  EXPECT_EQ(Opt(R"({"tags":{"$in":["d","c","d"]}})"), "(has_any tags \"c\" \"d\")");
}

TEST(Optimize, MergeRanges) {
  EXPECT_EQ(Opt(R"({"f":{"$gte":2,"$lt":10}})"), "(range f (ge 2.0) (lt 10.0))");
  EXPECT_EQ(Opt(R"({"f":{"$gt":2,"$gte":3,"$lte":5,"$lt":5}})"), "(range f (ge 3.0) (lt 5.0))");
  EXPECT_EQ(Opt(R"({"i":{"$gt":2.5,"$lt":7}})"), "(range i (ge 3) (le 6))");
  EXPECT_EQ(Opt(R"({"i":{"$gte":3,"$lte":3.5}})"), "(eq i 3)");
  EXPECT_EQ(Opt(R"({"d":{"$gte":"2025-01-01","$lt":"2025-02-01"}})"),
            "(range d (ge 2025-01-01T00:00:00Z) (lt 2025-02-01T00:00:00Z))");
  EXPECT_EQ(Opt(R"({"s":{"$gte":"a","$lt":"b"}})"), "(range s (ge \"a\") (lt \"b\"))");
  // A bound no int64 can meet, and one every int64 meets.
  EXPECT_EQ(Opt(R"({"i":{"$gt":1e300}})"), "false");
  EXPECT_EQ(Opt(R"({"i":{"$lt":1e300}})"), "(exists i)");
}

// Literals take their field's number type, exactly: 2^53 + 1 is no double,
// 2.5 no int64.
TEST(Optimize, ExactLiterals) {
  EXPECT_EQ(Opt(R"({"f":3})"), "(eq f 3.0)");
  EXPECT_EQ(Opt(R"({"f":9007199254740993})"), "false");
  // $ne is not(eq): true on every record when no value can be equal.
  EXPECT_EQ(Opt(R"({"f":{"$ne":9007199254740993}})"), "true");
  EXPECT_EQ(Opt(R"({"f":{"$lt":9007199254740993}})"), "(le f 9007199254740992.0)");
  EXPECT_EQ(Opt(R"({"f":{"$gt":9007199254740993}})"), "(ge f 9007199254740994.0)");
  EXPECT_EQ(Opt(R"({"f":{"$in":[1,9007199254740993]}})"), "(eq f 1.0)");
  EXPECT_EQ(Opt(R"({"i":2.0})"), "(eq i 2)");
  EXPECT_EQ(Opt(R"({"i":2.5})"), "false");
  EXPECT_EQ(Opt(R"({"i":{"$ne":2.5}})"), "true");
  EXPECT_EQ(Opt(R"({"i":{"$ne":2.0}})"), "(not (eq i 2))");
  EXPECT_EQ(Opt(R"({"i":{"$in":[1.5,2.0,3]}})"), "(in i 2 3)");
  EXPECT_EQ(Opt(R"({"i":{"$lte":2.5}})"), "(le i 2)");
}

TEST(Optimize, Contradictions) {
  // x > 5 and x < 3 folds to false.
  EXPECT_EQ(Opt(R"({"f":{"$gt":5,"$lt":3}})"), "false");
  EXPECT_EQ(Opt(R"({"i":{"$gt":2,"$lt":3}})"), "false");
  EXPECT_EQ(Opt(R"({"$and":[{"s":"a"},{"s":"b"}]})"), "false");
  EXPECT_EQ(Opt(R"({"$and":[{"s":"a"},{"s":{"$ne":"a"}}]})"), "false");
  EXPECT_EQ(Opt(R"({"$and":[{"s":{"$in":["a","b"]}},{"s":{"$in":["c"]}}]})"), "false");
  EXPECT_EQ(Opt(R"({"$and":[{"b":true},{"b":false}]})"), "false");
  EXPECT_EQ(Opt(R"({"$and":[{"s":null},{"s":{"$gt":"a"}}]})"), "false");
  EXPECT_EQ(Opt(R"({"$or":[{"s":"a"},{"s":{"$ne":"a"}}]})"), "true");
  // Not contradictions: a missing field satisfies $ne, and sets may hold both.
  EXPECT_EQ(Opt(R"({"$and":[{"s":{"$ne":"a"}},{"s":{"$ne":"b"}}]})"),
            "(and (not (eq s \"a\")) (not (eq s \"b\")))");
  EXPECT_EQ(Opt(R"({"$and":[{"tags":"a"},{"tags":"b"}]})"),
            "(and (has_any tags \"a\") (has_any tags \"b\"))");
  EXPECT_EQ(Opt(R"({"$and":[{"s":{"$in":["a","b"]}},{"s":{"$in":["b","c"]}}]})"),
            "(and (in s \"a\" \"b\") (in s \"b\" \"c\"))");
}

}  // namespace
}  // namespace engram::filter
