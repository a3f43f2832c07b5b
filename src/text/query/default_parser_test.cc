// The `default` profile (QUERY_DSL.md §3): grammar and precedence, dangling
// operators, bare-word mode, aliases, the AST's JSON, the length limit. The
// data-driven corpus (tests/corpus/query/) covers each rule more widely.
#include "text/query/default_parser.h"

#include <string>

#include <gtest/gtest.h>

#include "base/json.h"
#include "text/query/query.h"

namespace engram::text {
namespace {

std::string X(std::string_view text, const AliasTable* aliases = nullptr) {
  QueryOptions o;
  o.anchor = ParseDate("2026-04-19");
  o.aliases = aliases;
  Checked<Query> q = ParseQuery(text, o);
  EXPECT_TRUE(q.ok());
  return Explain(q.value().def);
}

TEST(DefaultParser, GrammarAndPrecedence) {
  EXPECT_EQ(X("hedgehog winter"), "(and hedgehog winter)");
  EXPECT_EQ(X("hedgehog AND winter"), "(and hedgehog winter)");
  EXPECT_EQ(X("a OR b c"), "(or a (and b c))");
  EXPECT_EQ(X("a b OR c"), "(or (and a b) c)");
  EXPECT_EQ(X("NOT a OR b"), "(or (not a) b)");
  EXPECT_EQ(X("NOT urban"), "(not urban)");
  EXPECT_EQ(X("NOT NOT x"), "x");
  EXPECT_EQ(X("NOT NOT NOT x"), "(not x)");
}

TEST(DefaultParser, DanglingOperators) {
  EXPECT_EQ(X("a AND OR b"), "(or a b)");
  EXPECT_EQ(X("OR a b"), "(and a b)");
  EXPECT_EQ(X("a b AND"), "(and a b)");
  EXPECT_EQ(X("a NOT"), "a");
  EXPECT_EQ(X("a NOT OR b"), "(or a b)");
  EXPECT_EQ(X("AND"), "()");
  EXPECT_EQ(X("NOT AND NOT"), "()");
}

TEST(DefaultParser, BareWords) {
  EXPECT_EQ(X("The Kubernetes Deployment"), "(and kubernetes deployment)");
  EXPECT_EQ(X("AI Go C"), "(and ai go c)");        // any length
  EXPECT_EQ(X("to do list"), "(and to do list)");  // all stopwords: bypass
  EXPECT_EQ(X("not cocktail and snacks"), "(and cocktail snacks)");
  EXPECT_EQ(X("\"to do list\""), "\"to do list\"");
}

TEST(DefaultParser, Aliases) {
  AliasTable aliases({{"TS", {"typescript", "type script", "TypeScript", "ts", "--"}}});
  EXPECT_EQ(X("ts deep dive", &aliases), "(and (or ts typescript \"type script\") deep dive)");
  EXPECT_EQ(X("\"ts deep dive\" ts*", &aliases), "(and \"ts deep dive\" ts*)");
  EXPECT_EQ(X("a OR ts", &aliases), "(or a ts typescript \"type script\")");
  EXPECT_EQ(X("x NOT ts", &aliases), "(and x (not (or ts typescript \"type script\")))");
}

TEST(DefaultParser, JsonShape) {
  QueryOptions o;
  o.anchor = ParseDate("2026-04-19");
  Checked<Query> q = ParseQuery("hedge* \"Big Parks\" yesterday", o);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(json::Dump(ToJson(q.value())),
            R"j({"raw":"hedge* \"Big Parks\" yesterday","hasOperators":true,"mode":"boolean",)j"
            R"j("query":{"and":[{"prefix":"hedge"},{"phrase":["big","parks"]}]},)j"
            R"j("hints":[{"around":"2026-04-18"}],)j"
            R"j("explain":"(and hedge* \"big parks\") (around 2026/04/18)"})j");
  EXPECT_FALSE(q.value().empty());
}

TEST(DefaultParser, LengthLimit) {
  QueryOptions o;
  EXPECT_TRUE(ParseQuery(std::string(1000, 'a'), o).ok());
  Checked<Query> q = ParseQuery(std::string(1001, 'a'), o);
  ASSERT_FALSE(q.ok());
  EXPECT_EQ(q.diagnostic().kind, "query.too_long");
  EXPECT_EQ(q.diagnostic().message,
            "query.too_long: the query is 1001 characters long; the limit is 1000");
  std::string accents;
  for (int i = 0; i < 1000; ++i) accents += "\xc3\xa9";  // 2000 bytes, 1000 characters
  EXPECT_TRUE(ParseQuery(accents, o).ok());
  o.max_chars = 10;
  EXPECT_FALSE(ParseQuery("eleven char", o).ok());
  o.max_chars = 0;
  EXPECT_TRUE(ParseQuery(std::string(5000, 'a'), o).ok());
}

}  // namespace
}  // namespace engram::text
