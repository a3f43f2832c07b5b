// Translations into engram's own dialects: the exact output for each
// construct, what is Unsupported and where, and that every output compiles
// back (in its dialect, against the same schema) to a filter with the same
// meaning. tests/differential/translate_dialects_diff_test.cc checks the
// meaning on random filters and records.
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "filter/compiler.h"
#include "filter/ir/printer.h"
#include "filter/test_schema.h"
#include "filter/translate/translate.h"

namespace engram::filter {
namespace {
namespace dialects_test {

Dialect DialectOf(Target t) {
  return t == Target::kRetrieve ? Dialect::kRetrieve
         : t == Target::kExprV1 ? Dialect::kExprV1
                                : Dialect::kVectorFilter;
}

// The translation of `text` (in `dialect`) as compact JSON, or "error " and
// the rendered message. A translation must compile back in the target's
// dialect to the same optimised IR (or, for the tautologies the writers use
// for constants, to a filter that the same records pass: checked below).
std::string To(Target target, std::string_view text, Dialect dialect = Dialect::kVectorFilter,
               std::shared_ptr<const Schema> schema = TestSchema()) {
  auto c = Compile(dialect, text, schema);
  if (!c.ok()) return "compile error " + c.diagnostic().message;
  Checked<Translation> t = TranslateCompiled(c.value(), dialect, target);
  if (!t.ok()) return "error " + t.diagnostic().message;
  std::string out = json::Dump(t.value().filter);
  EXPECT_EQ(t.value().params, json::Value::array());
  auto back = Compile(DialectOf(target), out, schema);
  EXPECT_TRUE(back.ok()) << out << ": " << (back.ok() ? "" : back.diagnostic().message);
  return out;
}

// The same, also requiring the re-compiled IR to equal the original.
std::string Same(Target target, std::string_view text, Dialect dialect = Dialect::kVectorFilter,
                 std::shared_ptr<const Schema> schema = TestSchema()) {
  std::string out = To(target, text, dialect, schema);
  auto a = Compile(dialect, text, schema);
  auto b = Compile(DialectOf(target), out, schema);
  if (a.ok() && b.ok()) {
    EXPECT_TRUE(SameNode(a.value().optimized.root, b.value().optimized.root))
        << text << " -> " << out << "\n"
        << ToSexpr(a.value().optimized) << "\n"
        << ToSexpr(b.value().optimized);
  }
  return out;
}

constexpr Target kRetrieve = Target::kRetrieve;
constexpr Target kExpr = Target::kExprV1;
constexpr Target kVector = Target::kVectorFilter;

TEST(TranslateDialects, Retrieve) {
  EXPECT_EQ(Same(kRetrieve, R"({"i":{"$gt":1}})"),
            R"({"op":"gt","lhs":{"knowledge":"i"},"rhs":{"value":1}})");
  EXPECT_EQ(Same(kRetrieve, R"({"f":{"$lte":2}})"),
            R"({"op":"le","lhs":{"knowledge":"f"},"rhs":{"value":2.0}})");
  EXPECT_EQ(Same(kRetrieve, R"({"s":{"$ne":"a"}})"),
            R"({"op":"not","arg":{"op":"eq","lhs":{"knowledge":"s"},"rhs":{"value":"a"}}})");
  EXPECT_EQ(
      Same(kRetrieve, R"({"d":{"$gte":"2025-01-01","$lt":"2025-02-01T10:00:00.5+01:00"}})"),
      R"({"op":"and","args":[)"
      R"({"op":"ge","lhs":{"knowledge":"d"},"rhs":{"value":"2025-01-01T00:00:00Z"}},)"
      R"({"op":"lt","lhs":{"knowledge":"d"},"rhs":{"value":"2025-02-01T09:00:00.500000Z"}}]})");
  EXPECT_EQ(Same(kRetrieve, R"({"s":{"$in":["a","b"]}})"),
            R"({"op":"in","needle":{"knowledge":"s"},"haystack":{"value":["a","b"]}})");
  EXPECT_EQ(Same(kRetrieve, R"({"tags":"x"})"),
            R"({"op":"in","needle":{"value":"x"},"haystack":{"knowledge":"tags"}})");
  // Lists of other types and has_any of several values are or-ed tests.
  EXPECT_EQ(To(kRetrieve, R"({"b":{"$in":[true,false]}})"),
            R"({"op":"or","args":[{"op":"eq","lhs":{"knowledge":"b"},"rhs":{"value":false}},)"
            R"({"op":"eq","lhs":{"knowledge":"b"},"rhs":{"value":true}}]})");
  EXPECT_EQ(
      To(kRetrieve, R"({"tags":{"$in":["x","y"]}})"),
      R"({"op":"or","args":[{"op":"in","needle":{"value":"x"},"haystack":{"knowledge":"tags"}},)"
      R"({"op":"in","needle":{"value":"y"},"haystack":{"knowledge":"tags"}}]})");
  // No exists op: equal or "present and not equal".
  EXPECT_EQ(To(kRetrieve, R"({"b":{"$exists":true}})"),
            R"({"op":"or","args":[{"op":"eq","lhs":{"knowledge":"b"},"rhs":{"value":true}},)"
            R"({"op":"ne","lhs":{"knowledge":"b"},"rhs":{"value":true}}]})");
  EXPECT_EQ(To(kRetrieve, R"({"tags":{"$exists":false}})"),
            "error /tags/$exists: retrieve cannot express exists on an optional set<string> field");
  // Two-field comparisons and in_field come from retrieve itself.
  const char* fields = R"({"op":"le","lhs":{"knowledge":"i"},"rhs":{"knowledge":"f"}})";
  EXPECT_EQ(Same(kRetrieve, fields, Dialect::kRetrieve), fields);
  const char* in_field =
      R"({"op":"in","needle":{"knowledge":"s"},"haystack":{"knowledge":"tags"}})";
  EXPECT_EQ(Same(kRetrieve, in_field, Dialect::kRetrieve), in_field);
  EXPECT_EQ(To(kRetrieve, R"({"s":{"$gt":"a"}})"),
            "error /s/$gt: retrieve cannot express order string");
  // Constants: a literal compared with a literal.
  EXPECT_EQ(Same(kRetrieve, "{}"), R"({"op":"eq","lhs":{"value":1},"rhs":{"value":1}})");
  EXPECT_EQ(Same(kRetrieve, R"({"s":{"$in":[]}})"),
            R"({"op":"eq","lhs":{"value":1},"rhs":{"value":2}})");
}

TEST(TranslateDialects, ExprV1) {
  EXPECT_EQ(Same(kExpr, R"({"i":{"$gt":1}})"),
            R"({"schema":"search_filter_expr/v1","expr":{"op":"gt","field":"i","value":1}})");
  EXPECT_EQ(Same(kExpr, R"({"s":{"$ne":"a"}})"),
            R"({"schema":"search_filter_expr/v1","expr":{"op":"neq","field":"s","value":"a"}})");
  EXPECT_EQ(Same(kExpr, R"({"s":{"$exists":false}})"),
            R"({"schema":"search_filter_expr/v1","expr":{"op":"eq","field":"s","value":null}})");
  // "present and not equal" on an optional field; on a default field neq suffices.
  const char* ne = R"({"op":"ne","lhs":{"knowledge":"s"},"rhs":{"value":"a"}})";
  EXPECT_EQ(To(kExpr, ne, Dialect::kRetrieve),
            R"({"schema":"search_filter_expr/v1","expr":{"op":"and","args":[)"
            R"({"op":"neq","field":"s","value":null},{"op":"neq","field":"s","value":"a"}]}})");
  EXPECT_EQ(
      To(kExpr, R"({"op":"ne","lhs":{"knowledge":"j"},"rhs":{"value":3}})", Dialect::kRetrieve),
      R"({"schema":"search_filter_expr/v1","expr":{"op":"neq","field":"j","value":3}})");
  EXPECT_EQ(Same(kExpr, R"({"f":{"$gt":1,"$lte":2.5},"d":{"$in":["2025-01-01","2025-01-02"]}})"),
            R"({"schema":"search_filter_expr/v1","expr":{"op":"and","args":[)"
            R"({"op":"and","args":[{"op":"gt","field":"f","value":1.0},)"
            R"({"op":"lte","field":"f","value":2.5}]},{"op":"in","field":"d","value":)"
            R"(["2025-01-01T00:00:00Z","2025-01-02T00:00:00Z"]}]}})");
  EXPECT_EQ(Same(kExpr, R"({"tags":{"$nin":["x","y"]}})"),
            R"({"schema":"search_filter_expr/v1","expr":{"op":"not","expr":)"
            R"({"op":"in","field":"tags","value":["x","y"]}}})");
  const char* contains = R"([{"field":"s","operator":"contains","value":"ab"}])";
  EXPECT_EQ(To(kExpr, contains, Dialect::kSearchMemory),
            "error filters[0]: expr_v1 cannot express icontains");
  EXPECT_EQ(
      Same(kExpr,
           R"({"schema":"search_filter_expr/v1","expr":{"op":"contains","field":"S","value":"b"}})",
           Dialect::kExprV1),
      R"({"schema":"search_filter_expr/v1","expr":{"op":"contains","field":"s","value":"b"}})");
  // Constants: `in f []` and its negation.
  EXPECT_EQ(Same(kExpr, "{}"), R"({"schema":"search_filter_expr/v1","expr":{"op":"not","expr":)"
                               R"({"op":"in","field":"i","value":[]}}})");
  EXPECT_EQ(Same(kExpr, R"({"i":{"$in":[]}})"),
            R"({"schema":"search_filter_expr/v1","expr":{"op":"in","field":"i","value":[]}})");
  // A default field is always there.
  EXPECT_EQ(To(kExpr, R"({"j":{"$exists":true}})"),
            R"({"schema":"search_filter_expr/v1","expr":{"op":"not","expr":)"
            R"({"op":"in","field":"i","value":[]}}})");
  // String values are trimmed and bounded.
  EXPECT_EQ(To(kExpr, R"({"s":" a"})"),
            "error /s: expr_v1 cannot express a string with leading or trailing white space "
            "(expr_v1 trims string values)");
  EXPECT_EQ(To(kExpr, R"({"s":{"$in":["a","b\u2003"]}})"),
            "error /s/$in: expr_v1 cannot express a string with leading or trailing white space "
            "(expr_v1 trims string values)");
  EXPECT_EQ(To(kExpr, json::Dump(json::Value{{"s", std::string(513, 'a')}})),
            "error /s: expr_v1 cannot express a string of more than 512 bytes (expr_v1's limit)");
  json::Value many = json::Value::array();
  for (int i = 0; i < 129; ++i) many.push_back(i);
  EXPECT_EQ(
      To(kExpr, json::Dump(json::Value{{"i", {{"$in", many}}}})),
      "error /i/$in: expr_v1 cannot express a list of more than 128 values (expr_v1's limit)");
  EXPECT_EQ(To(kExpr, R"({"s":{"$gt":"a"}})"), "error /s/$gt: expr_v1 cannot express order string");
}

TEST(TranslateDialects, ExprV1FieldNamesIgnoreCase) {
  // Schema documents reject such pairs; schemas built in code may hold them.
  Field upper, lower;
  upper.name = "Name";
  lower.name = "name";
  auto schema = std::make_shared<const Schema>(std::vector<Field>{upper, lower});
  EXPECT_EQ(Same(kExpr, R"({"Name":"a"})", Dialect::kVectorFilter, schema),
            R"({"schema":"search_filter_expr/v1","expr":{"op":"eq","field":"Name","value":"a"}})");
  EXPECT_EQ(To(kExpr, R"({"name":"a"})", Dialect::kVectorFilter, schema),
            "error /name: expr_v1 cannot express a field whose name another field matches "
            "ignoring ASCII case");
}

TEST(TranslateDialects, VectorFilter) {
  EXPECT_EQ(Same(kVector, R"({"s":{"$ne":"a"}})"), R"({"s":{"$ne":"a"}})");
  EXPECT_EQ(Same(kVector, R"({"s":{"$gt":"a","$lt":"b"}})"), R"({"s":{"$gt":"a","$lt":"b"}})");
  EXPECT_EQ(Same(kVector, R"({"tags":"x"})"), R"({"tags":{"$in":["x"]}})");
  EXPECT_EQ(Same(kVector, R"({"d":null})"), R"({"d":{"$exists":false}})");
  EXPECT_EQ(Same(kVector, "{}"), "{}");
  EXPECT_EQ(Same(kVector, R"({"b":{"$in":[]}})"), R"({"i":{"$in":[]}})");
  EXPECT_EQ(Same(kVector, R"({"$or":[{"b":true},{"i":{"$nin":[1,2]}}]})"),
            R"({"$or":[{"b":{"$eq":true}},{"i":{"$nin":[1,2]}}]})");
  // ne "present and not equal" is an implicit and.
  EXPECT_EQ(
      To(kVector, R"({"op":"ne","lhs":{"knowledge":"i"},"rhs":{"value":3}})", Dialect::kRetrieve),
      R"({"i":{"$exists":true,"$ne":3}})");
  // not is pushed to the leaves; an ordering's complement keeps missing fields.
  EXPECT_EQ(To(kVector,
               R"({"op":"not","arg":{"op":"and","args":[)"
               R"({"op":"lt","lhs":{"knowledge":"i"},"rhs":{"value":3}},)"
               R"({"op":"ne","lhs":{"knowledge":"s"},"rhs":{"value":"a"}}]}})",
               Dialect::kRetrieve),
            R"({"$or":[{"$or":[{"i":{"$exists":false}},{"i":{"$gte":3}}]},)"
            R"({"$or":[{"s":{"$exists":false}},{"s":{"$eq":"a"}}]}]})");
  EXPECT_EQ(To(kVector,
               R"({"op":"not","arg":{"op":"and","args":[)"
               R"({"op":"gt","lhs":{"knowledge":"f"},"rhs":{"value":1.5}},)"
               R"({"op":"le","lhs":{"knowledge":"f"},"rhs":{"value":2.5}}]}})",
               Dialect::kRetrieve),
            R"({"$or":[{"f":{"$exists":false}},{"f":{"$lte":1.5}},{"f":{"$gt":2.5}}]})");
  EXPECT_EQ(
      To(kVector, R"([{"field":"s","operator":"contains","value":"ab"}])", Dialect::kSearchMemory),
      "error filters[0]: vector_filter cannot express icontains");
  const char* in_field =
      R"({"op":"in","needle":{"knowledge":"s"},"haystack":{"knowledge":"tags"}})";
  EXPECT_EQ(To(kVector, in_field, Dialect::kRetrieve),
            "error filter.unsupported: at <root>: vector_filter cannot express in_field");
}

TEST(TranslateDialects, LimitsAreUnsupported) {
  // 70 `$nin`s fit vector_filter's 256 nodes; retrieve spells each with four
  // (not, or, eq, eq).
  json::Value args = json::Value::array();
  for (int i = 0; i < 70; ++i) args.push_back({{"i", {{"$nin", {2 * i, 2 * i + 1}}}}});
  std::string text = json::Dump(json::Value{{"$and", args}});
  EXPECT_EQ(To(kRetrieve, text),
            "error /$and/63/i/$nin: retrieve cannot express more than 256 "
            "nodes (retrieve's limit)");
  EXPECT_EQ(To(kVector, text).rfind("{", 0), 0u);
  // and/or alternating nine deep fit vector_filter's depth 16, not expr_v1's 8.
  std::string deep = R"({"i":{"$gt":1}})";
  for (int i = 0; i < 8; ++i) {
    deep = std::string(R"({")") + (i % 2 ? "$and" : "$or") + R"(":[{"s":"x)" + std::to_string(i) +
           R"("},)" + deep + "]}";
  }
  EXPECT_EQ(To(kExpr, deep),
            "error /$and/1/$or/1/$and/1/$or/1/$and/1/$or/1/$and/1/$or/0/s: "
            "expr_v1 cannot express a depth of more than 8 (expr_v1's limit)");
  EXPECT_EQ(To(kVector, deep).rfind("{\"$and\"", 0), 0u);
}

// Hostile names and values land in value or field positions only, and come
// back exactly when the output is compiled again.
TEST(TranslateDialects, HostileValues) {
  const std::vector<std::string> names = {
      "q\"uote", "it's",  "back\\slash", "'; DROP TABLE x; --", "a$b{c}|d@e*(f)",
      "op",      "value", "knowledge",   "dot.ted name"};
  json::Value fields = json::Value::array();
  for (const std::string& n : names) {
    fields.push_back({{"name", n}, {"type", "string"}, {"optional", true}});
  }
  auto schema = Schema::FromJson(json::Value{{"fields", fields}}).value();
  const std::vector<std::string> values = {
      "\"",      "'",           "\\",   std::string("a\0b", 3), "'; DROP TABLE x; --",
      "$eq",     "{\"$ne\":1}", "|@*(", "\xe2\x80\xae",         "\\u0000",
      "$.filter"};
  for (Target target : {kRetrieve, kExpr, kVector}) {
    for (const std::string& name : names) {
      for (const std::string& v : values) {
        json::Value doc = {{name, {{"$in", {v, "x"}}}}};
        std::string out = Same(target, json::Dump(doc), Dialect::kVectorFilter, schema);
        ASSERT_NE(out.rfind("error", 0), 0u) << out;
        // The value is a JSON string in the output, never a key.
        json::ReadResult r = json::Read(out);
        ASSERT_TRUE(r.ok());
        bool as_value = false, as_key = false;
        std::function<void(const json::Value&)> walk = [&](const json::Value& j) {
          if (j.is_string() && j.get<std::string>() == v) as_value = true;
          if (j.is_object()) {
            for (const auto& item : j.items()) {
              if (item.key() == v && v != name) as_key = true;
              walk(item.value());
            }
          }
          if (j.is_array()) {
            for (const auto& item : j) walk(item);
          }
        };
        walk(r.value);
        EXPECT_TRUE(as_value) << out;
        EXPECT_FALSE(as_key) << out;
      }
    }
  }
}

}  // namespace dialects_test
}  // namespace
}  // namespace engram::filter
