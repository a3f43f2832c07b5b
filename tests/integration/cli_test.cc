// `engram filter check|eval|translate` end to end, in process: output shape, exit
// codes, stdin, record errors with their line.
#include "cli/cli.h"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/integration/run_cli.h"

namespace engram::cli {
namespace {
namespace cli_test {

std::string Examples() {
  return std::string(ENGRAM_SOURCE_DIR) + "/examples/";
}

TEST(Cli, CheckPrintsTheCanonicalIr) {
  Result r = Engram({"filter", "check", "--dialect", "retrieve", "--schema",
                     Examples() + "knowledge.schema.json",
                     R"({"op":"ge","lhs":{"value":12},"rhs":{"knowledge":"min_level"}})"});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, "{\"ok\":true,\"ir\":{\"op\":\"le\",\"field\":\"min_level\",\"value\":12}}\n");
  EXPECT_EQ(r.err, "");
}

TEST(Cli, CheckSexprAndUnoptimized) {
  std::string f = R"({"v":{"$gt":5,"$lt":3}})";
  std::string schema = "preset:notes";
  Result opt = Engram({"filter", "check", "--dialect", "vector_filter", "--schema", schema, "--ir",
                       "sexpr", R"({"hit_count":{"$gt":5,"$lt":3}})"});
  EXPECT_EQ(opt.out, "{\"ok\":true,\"ir\":\"false\"}\n");
  Result raw = Engram({"filter", "check", "--dialect", "vector_filter", "--schema", schema, "--ir",
                       "sexpr", "--unoptimized", R"({"hit_count":{"$gt":5,"$lt":3}})"});
  EXPECT_EQ(raw.out, "{\"ok\":true,\"ir\":\"(and (gt hit_count 5) (lt hit_count 3))\"}\n");
}

TEST(Cli, RejectedFilterExitsOne) {
  Result r = Engram(
      {"filter", "check", "--dialect", "retrieve", "--schema", Examples() + "knowledge.schema.json",
       R"({"op":"and","args":[{"op":"ge","lhs":{"value":12},"rhs":{"knowledge":"min_level"}},)"  // NOLINT
       R"({"op":"eq","lhs":{"value":"warrior"},"rhs":{"knowledge":"min_level"}}]})"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out,
            "{\"ok\":false,\"error\":{\"code\":3007,\"kind\":\"filter.type_mismatch\",\"path\":"
            "\"args[1].rhs\",\"message\":\"filter.type_mismatch: at args[1].rhs: cannot compare "
            "string with int\"}}\n");
}

TEST(Cli, ReadsTheFilterFromStdin) {
  std::string f =
      R"({"schema":"search_filter_expr/v1","expr":{"op":"eq","field":"scope","value":"x"}})";
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"filter", "check", "--dialect", "expr_v1", "--schema",
                                 "preset:notes"},
        std::vector<std::string>{"filter", "check", "--dialect", "expr_v1", "--schema",
                                 "preset:notes", "-"}}) {
    Result r = Engram(args, f);
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_EQ(r.out, "{\"ok\":true,\"ir\":{\"op\":\"eq\",\"field\":\"scope\",\"value\":\"x\"}}\n");
  }
}

TEST(Cli, EvalPrintsMatchesInInputOrder) {
  Result r = Engram({"filter", "eval", "--dialect", "search_memory", "--schema", "preset:memory",
                     "--records", Examples() + "memories.jsonl",
                     R"([{"field":"preceding_memory_id","operator":"is_not","value":"nothing"}])"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out,
            "{\"ok\":true,\"matches\":[\"3f1c9a52-6b7e-4c1d-9a0e-1f2b3c4d5e01\","
            "\"3f1c9a52-6b7e-4c1d-9a0e-1f2b3c4d5e02\",\"3f1c9a52-6b7e-4c1d-9a0e-1f2b3c4d5e03\","
            "\"3f1c9a52-6b7e-4c1d-9a0e-1f2b3c4d5e04\"]}\n");
}

TEST(Cli, EvalNamesTheLineAndFieldOfABadRecord) {
  std::string path = ::testing::TempDir() + "/engram_cli_records.jsonl";
  {
    std::ofstream f(path);
    f << R"({"id":"a","min_level":1})"
      << "\n\n"
      << R"({"id":"b","min_level":"high"})"
      << "\n";
  }
  Result r = Engram({"filter", "eval", "--dialect", "vector_filter", "--schema",
                     Examples() + "knowledge.schema.json", "--records", path, "{}"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out,
            "{\"ok\":false,\"error\":{\"code\":400,\"kind\":\"record.invalid\",\"path\":"
            "\"min_level\",\"message\":\"" +
                path + ":3: field 'min_level': expected int, got string\",\"line\":3}}\n");
  std::remove(path.c_str());
}

TEST(Cli, TranslatePrintsTargetFilterAndParams) {
  Result r = Engram({"filter", "translate", "--dialect", "retrieve", "--schema",
                     Examples() + "knowledge.schema.json", "--to", "sqlite",
                     R"({"op":"ge","lhs":{"value":12},"rhs":{"knowledge":"min_level"}})"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(
      r.out,
      R"x({"ok":true,"target":"sqlite","filter":"COALESCE(json_extract(metadata, ?) <= ?, 0)",)x"
      R"x("params":["$.\"min_level\"",12]})x"
      "\n");
}

TEST(Cli, TranslateRejectsWhatTheTargetCannotExpress) {
  Result r = Engram({"filter", "translate", "--dialect", "search_memory", "--schema",
                     "preset:memory", "--to", "postgres",
                     R"([{"field":"title","operator":"contains","value":"Kitchen"}])"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out,
            R"({"ok":false,"error":{"code":400,"kind":"filter.unsupported","path":"filters[0]",)"
            R"("message":"filters[0]: postgres cannot express icontains"}})"
            "\n");
  Result unknown = Engram({"filter", "translate", "--dialect", "retrieve", "--schema",
                           "preset:memory", "--to", "oracle", "{}"});
  EXPECT_EQ(unknown.code, 2);
}

TEST(Cli, UsageErrorsGoToStderrWithExitTwo) {
  Result missing = Engram({"filter", "check", "--schema", "preset:notes", "{}"});
  EXPECT_EQ(missing.code, 2);
  EXPECT_EQ(missing.out, "");
  EXPECT_NE(missing.err.find("--dialect"), std::string::npos);
  Result dialect =
      Engram({"filter", "check", "--dialect", "sql", "--schema", "preset:notes", "{}"});
  EXPECT_EQ(dialect.code, 2);
  EXPECT_NE(dialect.err.find("unknown dialect 'sql'"), std::string::npos);
  Result schema =
      Engram({"filter", "check", "--dialect", "retrieve", "--schema", "preset:nope", "{}"});
  EXPECT_EQ(schema.code, 2);
  EXPECT_NE(schema.err.find("unknown schema preset 'nope'"), std::string::npos);
  Result records = Engram({"filter", "eval", "--dialect", "retrieve", "--schema", "preset:notes",
                           "--records", "/nonexistent.jsonl", "{\"op\":\"and\",\"args\":[]}"});
  EXPECT_EQ(records.code, 1);  // the filter is checked first, and is rejected
  Result none = Engram({});
  EXPECT_EQ(none.code, 2);
  Result help = Engram({"--help"});
  EXPECT_EQ(help.code, 0);
}

TEST(Cli, BadSchemaFileIsLocated) {
  std::string path = ::testing::TempDir() + "/engram_cli_schema.json";
  {
    std::ofstream f(path);
    f << R"({"fields":[{"name":"a","type":"integer","optional":true}]})";
  }
  Result r = Engram({"filter", "check", "--dialect", "retrieve", "--schema", path, "{}"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("fields[0].type: unknown type \"integer\""), std::string::npos) << r.err;
  std::remove(path.c_str());
}

}  // namespace cli_test
}  // namespace
}  // namespace engram::cli
