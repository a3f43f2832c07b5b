// `engram query parse|compile` end to end, in process (QUERY_DSL.md §5):
// output shape, exit codes, `--`, profiles, aliases files, anchors.
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli/cli.h"
#include "tests/integration/run_cli.h"

namespace engram::cli {
namespace {
namespace query_cli_test {

std::string WriteTemp(const std::string& name, const std::string& text) {
  std::string path = ::testing::TempDir() + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

TEST(QueryCli, ParseDefaultPrintsOneJsonLine) {
  Result r = Engram({"query", "parse", "--anchor", "2026-04-19", "hedgehog 3 days ago"});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, R"j({"raw":"hedgehog 3 days ago","hasOperators":false,"mode":"bare",)j"
                   R"j("query":{"term":"hedgehog"},"hints":[{"around":"2026-04-16"}],)j"
                   R"j("explain":"hedgehog (around 2026/04/16)"})j"
                   "\n");
  EXPECT_EQ(r.err, "");
}

TEST(QueryCli, ParseJeffsBrainPrintsTheFixtureShape) {
  Result r = Engram({"query", "parse", "--profile", "jeffs-brain", "NOT alpha bravo"});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out,
            R"({"raw":"NOT alpha bravo","tokens":[{"kind":"term","text":"alpha","operator":"NOT"},)"
            R"({"kind":"term","text":"bravo"}],"hasOperators":true})"
            "\n");
}

TEST(QueryCli, CompilePrintsTheRawMatchString) {
  Result r = Engram({"query", "compile", "--target", "fts5", "a OR b c NOT d"});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, "\"a\" OR ((\"b\" AND \"c\") NOT (\"d\"))\n");
  Result jb = Engram({"query", "compile", "--profile", "jeffs-brain", "foo AND bar NOT baz"});
  EXPECT_EQ(jb.code, 0);
  EXPECT_EQ(jb.out, "foo AND bar AND NOT baz\n");
}

TEST(QueryCli, EmptyQueryPrintsAnEmptyLine) {
  Result r = Engram({"query", "compile", "  ...  "});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, "\n");
  EXPECT_EQ(Engram({"query", "compile", ""}).out, "\n");
}

TEST(QueryCli, UnsupportedExitsOne) {
  Result r = Engram({"query", "compile", "NOT urban"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("\"kind\":\"query.unsupported\""), std::string::npos) << r.out;
  EXPECT_EQ(r.out.rfind("{\"ok\":false,\"error\":{", 0), 0u) << r.out;
  EXPECT_EQ(r.out.back(), '\n');
  EXPECT_EQ(r.out.find('\n'), r.out.size() - 1);
  // parse still shows the AST of such a query
  EXPECT_EQ(Engram({"query", "parse", "NOT urban"}).code, 0);
}

TEST(QueryCli, DoubleDashEndsOptions) {
  Result r = Engram({"query", "compile", "--", "-foo --bar"});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, "\"foo\" AND \"bar\"\n");
  Result bad = Engram({"query", "compile", "-foo"});
  EXPECT_EQ(bad.code, 2);
}

TEST(QueryCli, TooLongExitsOne) {
  Result r = Engram({"query", "parse", std::string(1001, 'x')});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("\"kind\":\"query.too_long\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("the limit is 1000"), std::string::npos) << r.out;
}

TEST(QueryCli, AliasesFile) {
  std::string path = WriteTemp("aliases.json", R"({"ts": ["typescript", "type script"]})");
  Result r = Engram({"query", "compile", "--aliases", path, "ts deep dive"});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, "(\"ts\" OR \"typescript\" OR \"type script\") AND \"deep\" AND \"dive\"\n");
  // In jeffs-brain a bare `ts` is too short to keep; in operator mode it stays and expands.
  Result jb =
      Engram({"query", "compile", "--profile", "jeffs-brain", "--aliases", path, "x OR ts"});
  EXPECT_EQ(jb.out, "x OR typescript OR \"type script\"\n");
}

TEST(QueryCli, BadAliasesFileIsAUsageErrorWithItsLocation) {
  std::string path = WriteTemp("bad_aliases.json", R"({"ts": ["typescript", 3]})");
  Result r = Engram({"query", "parse", "--aliases", path, "ts"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "engram: --aliases: " + path + ": aliases at ts[1]: expected a string, got int\n");
  std::string dup = WriteTemp("dup_aliases.json", R"({"ts": [], "ts": []})");
  Result d = Engram({"query", "parse", "--aliases", dup, "ts"});
  EXPECT_EQ(d.code, 2);
  EXPECT_NE(d.err.find("duplicate key 'ts'"), std::string::npos) << d.err;
  Result missing = Engram({"query", "parse", "--aliases", "/nonexistent/a.json", "ts"});
  EXPECT_EQ(missing.code, 2);
  Result list = Engram({"query", "parse", "--aliases", WriteTemp("list.json", "[]"), "ts"});
  EXPECT_EQ(list.code, 2);
  EXPECT_NE(list.err.find("expected an object"), std::string::npos) << list.err;
}

TEST(QueryCli, BadOptionsExitTwo) {
  EXPECT_EQ(Engram({"query", "parse", "--anchor", "2025-02-29", "x"}).code, 2);
  EXPECT_EQ(Engram({"query", "parse", "--profile", "lucene", "x"}).code, 2);
  EXPECT_EQ(Engram({"query", "compile", "--target", "tantivy", "x"}).code, 2);
  EXPECT_EQ(Engram({"query", "parse"}).code, 2);
  EXPECT_EQ(Engram({"query", "parse", "a", "b"}).code, 2);
}

}  // namespace query_cli_test
}  // namespace
}  // namespace engram::cli
