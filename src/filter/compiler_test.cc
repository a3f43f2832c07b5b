#include "filter/compiler.h"

#include <gtest/gtest.h>

#include "filter/ir/printer.h"
#include "filter/test_schema.h"

namespace engram::filter {
namespace {

std::string Error(Dialect d, std::string_view text) {
  auto c = Compile(d, text, TestSchema());
  EXPECT_FALSE(c.ok()) << text;
  return c.ok() ? "" : c.diagnostic().message;
}

TEST(Compiler, ReadingFaultsAreLocatedPerDialect) {
  EXPECT_EQ(Error(Dialect::kRetrieve, R"({"op":"eq","op":"ne"})"),
            "filter.malformed: at op: duplicate key 'op'");
  EXPECT_EQ(
      Error(Dialect::kRetrieve,
            R"({"op":"eq","lhs":{"knowledge":"i"},"rhs":{"value":9223372036854775808}})"),
      "filter.invalid_literal: at rhs: integer 9223372036854775808 is outside the int64 range");
  EXPECT_EQ(Error(Dialect::kVectorFilter, R"({"i":{"$gt":1e999}})"),
            "/i/$gt: number 1e999 is outside the range of a double");
  EXPECT_EQ(Error(Dialect::kExprV1, R"({"schema":"search_filter_expr/v1","schema":"x"})"),
            "$.filter.schema: duplicate key 'schema'.");
  EXPECT_EQ(Error(Dialect::kSearchMemory, R"([{"field":"s","field":"s"}])"),
            "filters[0].field: duplicate key 'field'");
  EXPECT_EQ(Error(Dialect::kExprV1, "{").substr(0, 36), "$.filter: filter is not valid JSON (");
  EXPECT_EQ(Error(Dialect::kRetrieve, std::string(65537, ' ')),
            "filter.too_large: at <root>: filter text of 65537 bytes exceeds the limit of 65536 "
            "bytes");
}

TEST(Compiler, KeepsCheckedAndOptimized) {
  auto c = Compile(Dialect::kRetrieve,
                   R"({"op":"and","args":[{"op":"gt","lhs":{"knowledge":"i"},"rhs":{"value":5}},
                                          {"op":"lt","lhs":{"knowledge":"i"},"rhs":{"value":3}}]})",
                   TestSchema());
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(ToSexpr(c.value().checked), "(and (gt i 5) (lt i 3))");
  EXPECT_EQ(ToSexpr(c.value().optimized), "false");
}

TEST(Compiler, OriginsNameTheOpAsWritten) {
  auto c =
      Compile(Dialect::kExprV1,
              R"({"schema":"search_filter_expr/v1","expr":{"op":"neq","field":"S","value":"a"}})",
              TestSchema());
  ASSERT_TRUE(c.ok()) << c.diagnostic().message;
  EXPECT_EQ(c.value().checked.root.op, Op::kNot);
  EXPECT_EQ(c.value().checked.root.origin, "neq:s");
  auto v = Compile(Dialect::kVectorFilter, R"({"s":"a"})", TestSchema());
  EXPECT_EQ(v.value().checked.root.origin, "$eq:s");
}

}  // namespace
}  // namespace engram::filter
