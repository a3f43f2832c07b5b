#include "filter/translate/translate.h"

#include <filesystem>
#include <fstream>
#include <set>

#include <gtest/gtest.h>

#include "filter/compiler.h"
#include "filter/test_schema.h"
#include "schema/presets.h"

namespace engram::filter {
namespace {
namespace translate_test {

CompiledFilter Compiled(Dialect dialect, std::string_view text) {
  auto c = Compile(dialect, text, TestSchema());
  EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.diagnostic().message);
  return std::move(c).value();
}

// The translation as `{"filter":..,"params":..}` text, or the error message.
std::string To(Target target, std::string_view vector_filter) {
  CompiledFilter c = Compiled(Dialect::kVectorFilter, vector_filter);
  Checked<Translation> t = TranslateCompiled(c, Dialect::kVectorFilter, target);
  if (!t.ok()) return "error " + t.diagnostic().kind + " " + t.diagnostic().message;
  return json::Dump(t.value().filter) + " " + json::Dump(t.value().params);
}

TEST(Translate, TargetNamesRoundTrip) {
  std::set<std::string_view> names;
  for (Target t : kAllTargets) {
    EXPECT_EQ(TargetFromName(TargetName(t)), t);
    EXPECT_TRUE(names.insert(TargetName(t)).second) << TargetName(t);
    EXPECT_EQ(GetTarget(t).id, t);
  }
  EXPECT_FALSE(TargetFromName("oracle"));
}

TEST(Translate, ConstructOfLeaves) {
  const Schema& s = *TestSchema();
  auto construct = [&](std::string_view text) {
    return ConstructName(ConstructOf(Compiled(Dialect::kVectorFilter, text).optimized.root, s));
  };
  EXPECT_EQ(construct(R"({"s":"a"})"), "eq string");
  EXPECT_EQ(construct(R"({"i":{"$gt":1}})"), "order int");
  EXPECT_EQ(construct(R"({"f":{"$gt":1,"$lt":2}})"), "order float");
  EXPECT_EQ(construct(R"({"d":{"$lt":"2025-01-01"}})"), "order datetime");
  EXPECT_EQ(construct(R"({"s":{"$gt":"a"}})"), "order string");
  EXPECT_EQ(construct(R"({"b":{"$in":[true,false]}})"), "in bool");
  EXPECT_EQ(construct(R"({"d":{"$in":["2025-01-01","2025-01-02"]}})"), "in datetime");
  EXPECT_EQ(construct(R"({"tags":"a"})"), "has_any");
  EXPECT_EQ(construct(R"({"s":{"$exists":true}})"), "exists");
  EXPECT_EQ(construct(R"({"s":{"$ne":"a"}})"), "not");
  EXPECT_EQ(construct(R"({"$or":[{"s":"a"},{"i":1}]})"), "or");
  EXPECT_EQ(ConstructName(Construct::kInField), "in_field");
}

// The unsupported construct is reported where it was written, in the
// dialect's own path form, naming the target.
TEST(Translate, UnsupportedIsLocated) {
  CompiledFilter c = Compiled(Dialect::kSearchMemory,
                              R"([{"field":"i","operator":"is","value":1},
                                  {"field":"s","operator":"contains","value":"Ab"}])");
  Checked<Translation> t = TranslateCompiled(c, Dialect::kSearchMemory, Target::kSqlite);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.diagnostic().kind, "filter.unsupported");
  EXPECT_EQ(t.diagnostic().path, "filters[1]");
  EXPECT_NE(t.diagnostic().message.find("sqlite cannot express icontains"), std::string::npos)
      << t.diagnostic().message;
}

TEST(TranslateSql, Sqlite) {
  EXPECT_EQ(To(Target::kSqlite, R"({"s":{"$ne":"a"}})"),
            R"x("NOT COALESCE(json_extract(metadata, ?) = ?, 0)" ["$.\"s\"","a"])x");
  EXPECT_EQ(To(Target::kSqlite, R"({"i":{"$gte":1,"$lt":5},"tags":{"$in":["x","y"]}})"),
            R"x("(COALESCE(json_extract(metadata, ?) >= ? AND json_extract(metadata, ?) <= ?, 0))x"
            R"x( AND EXISTS (SELECT 1 FROM json_each(metadata, ?) AS e WHERE e.value IN (?, ?)))")x"
            R"x( ["$.\"i\"",1,"$.\"i\"",4,"$.\"tags\"","x","y"])x");
  EXPECT_EQ(To(Target::kSqlite, R"({"d":{"$exists":true}})"),
            R"x("(json_extract(metadata, ?) IS NOT NULL)" ["$.\"d\""])x");
  EXPECT_EQ(To(Target::kSqlite, R"({"s":{"$in":[]}})"), R"x("0" [])x");
}

TEST(TranslateSql, Postgres) {
  EXPECT_EQ(To(Target::kPostgres, R"({"s":{"$ne":"a"}})"),
            R"x("NOT COALESCE((metadata->>$1) COLLATE \"C\" = $2::text, false)")x"
            R"x( ["s","a"])x");
  EXPECT_EQ(To(Target::kPostgres, R"({"d":{"$gt":"2025-01-01"}})"),
            R"x("COALESCE(((metadata->>$1)::timestamptz) > $2::timestamptz, false)")x"
            R"x( ["d","2025-01-01T00:00:00Z"])x");
  EXPECT_EQ(To(Target::kPostgres, R"({"tags":{"$in":["x","y"]}})"),
            R"x("COALESCE((metadata->$1) ?| ARRAY[$2::text, $3::text]::text[], false)")x"
            R"x( ["tags","x","y"])x");
  EXPECT_EQ(To(Target::kPostgresColumns, R"({"odd name":{"$exists":false}})"),
            R"x("NOT (\"odd name\" IS NOT NULL)" [])x");
  EXPECT_EQ(To(Target::kPostgres, R"({"s":"a\u0000b"})"),
            "error filter.unsupported /s: postgres cannot express a string with U+0000 "
            "(PostgreSQL text cannot hold it)");
}

// Hostile literals and names reach SQL only as bound values: the SQL text is
// the same whatever the value, and the value comes back as a param intact.
TEST(TranslateSql, HostileValuesAreOnlyBound) {
  const std::vector<std::string> hostile = {
      "'; DROP TABLE records; --", "\"", "\\", "a'b\"c\\d", "$1", "?", "%_*", "\xe2\x80\xae"};
  for (Target target : {Target::kSqlite, Target::kPostgres, Target::kPostgresColumns}) {
    std::string sql;
    for (const std::string& h : hostile) {
      json::Value doc = {{"s", {{"$gt", h}}}};
      CompiledFilter c = Compiled(Dialect::kVectorFilter, json::Dump(doc));
      Checked<Translation> t = TranslateCompiled(c, Dialect::kVectorFilter, target);
      ASSERT_TRUE(t.ok()) << t.diagnostic().message;
      if (sql.empty()) sql = t.value().filter.get<std::string>();
      EXPECT_EQ(t.value().filter.get<std::string>(), sql) << TargetName(target);
      EXPECT_EQ(t.value().params.back(), h) << TargetName(target);
    }
  }
}

// Every target's corpus file (tests/corpus/translate/<target>.test) has a
// case for every construct: its filters, compiled and optimised, contain
// each construct of the capability matrix at least once.
void CollectConstructs(const Node& n, const Schema& schema, std::set<Construct>* seen) {
  seen->insert(ConstructOf(n, schema));
  for (const Node& c : n.children) CollectConstructs(c, schema, seen);
}

TEST(TranslateCorpus, EveryTargetFileCoversEveryConstruct) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path("tests") / "corpus" / "translate";
  for (Target target : kAllTargets) {
    const fs::path file = dir / (std::string(TargetName(target)) + ".test");
    std::ifstream in(file);
    ASSERT_TRUE(in.good()) << file;
    std::set<Construct> seen;
    std::optional<Dialect> dialect;
    std::shared_ptr<const Schema> schema;
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("dialect: ", 0) == 0) dialect = DialectFromName(line.substr(9));
      if (line.rfind("schema: ", 0) == 0) {
        std::string spec = line.substr(8);
        if (spec.rfind("preset:", 0) == 0) {
          schema = FindPreset(spec.substr(7));
        } else {
          std::ifstream s(dir / spec);
          std::string text((std::istreambuf_iterator<char>(s)), std::istreambuf_iterator<char>());
          schema = Schema::Parse(text).value();
        }
      }
      if (line.rfind("filter: ", 0) != 0 || !dialect || !schema) continue;
      auto c = Compile(*dialect, line.substr(8), schema);
      if (c.ok()) CollectConstructs(c.value().optimized.root, *schema, &seen);
    }
    for (std::size_t i = 0; i < kConstructCount; ++i) {
      EXPECT_TRUE(seen.count(static_cast<Construct>(i)))
          << file.string() << " has no case for " << ConstructName(static_cast<Construct>(i));
    }
  }
}

}  // namespace translate_test
}  // namespace
}  // namespace engram::filter
