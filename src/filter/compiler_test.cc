#include "filter/compiler.h"

#include <random>

#include <gtest/gtest.h>

#include "filter/eval/evaluator.h"
#include "filter/ir/printer.h"
#include "filter/largest_filters.h"
#include "filter/test_schema.h"
#include "schema/presets.h"

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

// The largest filters the limits allow (largest_filters.h), the worst cases
// for the optimiser: each compiles, and its optimised form and Program agree
// with the checked IR on records drawn from the same values. (Each limit
// one past is in the dialect corpora: tests/corpus/filter/*/limits.test.)
TEST(Compiler, LargestFiltersCompileAndKeepTheirMeaning) {
  const std::shared_ptr<const Schema> schema = MemorySchema();
  auto slot = [&](const char* name) { return schema->Find(name)->slot; };
  std::mt19937_64 rng(18);
  std::vector<std::vector<Value>> rows;
  for (int i = 0; i < 400; ++i) {
    std::vector<Value> row(schema->fields().size());
    row[slot("session_id")] = "s" + std::to_string(i % 7 == 0 ? 0 : rng() % 1000);
    row[slot("tool")] = "t" + std::to_string(rng() % 4);
    const auto& words = kLargestFilterWords;
    row[slot("title")] = words[rng() % words.size()] + " " + words[rng() % words.size()];
    row[slot("context")] = words[rng() % words.size()];
    row[slot("sequence_order")] = static_cast<std::int64_t>(1 + rng() % 300);
    rows.push_back(std::move(row));
  }
  for (const LargestFilter& f : LargestFilters()) {
    ASSERT_LE(f.text.size(), 65536u) << f.name;
    Checked<CompiledFilter> c = Compile(f.dialect, f.text, schema);
    ASSERT_TRUE(c.ok()) << f.name << ": " << c.diagnostic().message;
    std::size_t matched = 0;
    for (const std::vector<Value>& row : rows) {
      const bool want = Evaluate(c.value().checked.root, row);
      ASSERT_EQ(Evaluate(c.value().optimized.root, row), want) << f.name;
      ASSERT_EQ(c.value().program.Matches(row), want) << f.name;
      matched += want ? 1 : 0;
    }
    std::printf("%-60s %6zu bytes, %3zu of %zu records\n", f.name.c_str(), f.text.size(), matched,
                rows.size());
  }
}

}  // namespace
}  // namespace engram::filter
