// FTS5 compile (QUERY_DSL.md §3): the exact shape of the output, the
// `unsupported` cases, the well-formedness checker, and a small differential
// test: random queries compiled to FTS5 run in a real SQLite FTS5 table and
// select exactly what a direct evaluation of the AST selects.
#include "text/query/fts5.h"

#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "text/query/query.h"
#include "text/tokenize/tokenizer.h"

namespace engram::text {
namespace {

Query Parse(std::string_view text) {
  QueryOptions o;
  o.anchor = ParseDate("2026-04-19");
  Checked<Query> q = ParseQuery(text, o);
  EXPECT_TRUE(q.ok());
  return q.value();
}

std::string Compile(std::string_view text) {
  Checked<std::string> s = CompileToFts5(Parse(text));
  return s.ok() ? s.value() : "unsupported";
}

TEST(Fts5, Shapes) {
  EXPECT_EQ(Compile("hedgehog winter"), "\"hedgehog\" AND \"winter\"");
  EXPECT_EQ(Compile("\"gardens and parks\""), "\"gardens and parks\"");
  EXPECT_EQ(Compile("hedge*"), "\"hedge\"*");
  EXPECT_EQ(Compile("a NOT b"), "(\"a\") NOT (\"b\")");
  EXPECT_EQ(Compile("a b NOT c NOT d"), "(\"a\" AND \"b\") NOT (\"c\" OR \"d\")");
  EXPECT_EQ(Compile("a OR b c"), "\"a\" OR (\"b\" AND \"c\")");
  EXPECT_EQ(Compile("a OR b AND NOT c"), "\"a\" OR ((\"b\") NOT (\"c\"))");
  EXPECT_EQ(Compile(""), "");
}

TEST(Fts5, OnlyNegativeIsUnsupported) {
  EXPECT_EQ(Compile("NOT urban"), "unsupported");
  EXPECT_EQ(Compile("NOT a NOT b"), "unsupported");
  EXPECT_EQ(Compile("a OR NOT b"), "unsupported");
  Checked<std::string> s = CompileToFts5(Parse("NOT urban"));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.diagnostic().kind, "query.unsupported");
}

TEST(Fts5, Checker) {
  EXPECT_TRUE(IsWellFormedFts5(""));
  EXPECT_TRUE(IsWellFormedFts5("\"a\" AND (\"b\"* OR \"c d\")"));
  EXPECT_TRUE(IsWellFormedFts5("(\"a\") NOT (\"b\")"));
  EXPECT_TRUE(IsWellFormedFts5("\"say \"\"hi\"\"\""));
  EXPECT_FALSE(IsWellFormedFts5("a"));
  EXPECT_FALSE(IsWellFormedFts5("\"a\" \"b\""));
  EXPECT_FALSE(IsWellFormedFts5("(\"a\""));
  EXPECT_FALSE(IsWellFormedFts5("\"\""));
  EXPECT_FALSE(IsWellFormedFts5("\"a\x01\""));
  EXPECT_FALSE(IsWellFormedFts5("\"a\" AND"));
}

// A reference evaluation of the AST over one tokenised document.
bool Matches(const Node& n, const std::vector<std::string>& doc) {
  switch (n.kind) {
    case Node::Kind::kTerm:
      for (const std::string& t : doc) {
        if (t == n.text) return true;
      }
      return false;
    case Node::Kind::kPrefix:
      for (const std::string& t : doc) {
        if (t.rfind(n.text, 0) == 0) return true;
      }
      return false;
    case Node::Kind::kPhrase:
      for (std::size_t i = 0; i + n.words.size() <= doc.size(); ++i) {
        bool all = true;
        for (std::size_t k = 0; k < n.words.size() && all; ++k) all = doc[i + k] == n.words[k];
        if (all) return true;
      }
      return false;
    case Node::Kind::kAnd:
      for (const Node& c : n.children) {
        if (!Matches(c, doc)) return false;
      }
      return true;
    case Node::Kind::kOr:
      for (const Node& c : n.children) {
        if (Matches(c, doc)) return true;
      }
      return false;
    case Node::Kind::kNot:
      return !Matches(n.children[0], doc);
  }
  return false;
}

class Sqlite {
 public:
  Sqlite() {
    sqlite3_open(":memory:", &db_);
    Exec("CREATE VIRTUAL TABLE docs USING fts5(body, tokenize = 'unicode61 remove_diacritics 0')");
  }
  ~Sqlite() { sqlite3_close(db_); }
  void Exec(const std::string& sql) {
    char* message = nullptr;
    ASSERT_EQ(sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message), SQLITE_OK) << message;
  }
  // The rowids MATCH selects, or an error.
  std::set<std::int64_t> Select(const std::string& match, std::string* error) {
    std::set<std::int64_t> rows;
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db_, "SELECT rowid FROM docs WHERE docs MATCH ?", -1, &stmt, nullptr) !=
        SQLITE_OK) {
      *error = sqlite3_errmsg(db_);
      return rows;
    }
    sqlite3_bind_text(stmt, 1, match.c_str(), static_cast<int>(match.size()), SQLITE_TRANSIENT);
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) rows.insert(sqlite3_column_int64(stmt, 0));
    if (rc != SQLITE_DONE) *error = sqlite3_errmsg(db_);
    sqlite3_finalize(stmt);
    return rows;
  }

 private:
  sqlite3* db_ = nullptr;
};

TEST(Fts5, RandomQueriesSelectWhatTheAstSelects) {
  const std::vector<std::string> vocab = {"apple", "apricot", "banana", "cherry",
                                          "date",  "elder",   "fig",    "grape"};
  std::mt19937 rng(20260419);
  auto pick = [&rng](std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
  };
  Sqlite db;
  std::vector<std::vector<std::string>> docs;
  for (int i = 0; i < 60; ++i) {
    std::string text;
    for (std::size_t w = 0, n = 2 + pick(5); w < n; ++w) text += vocab[pick(vocab.size())] + " ";
    docs.push_back(TokenizeDocument(text));
    db.Exec("INSERT INTO docs(rowid, body) VALUES (" + std::to_string(i + 1) + ", '" + text + "')");
  }
  const std::vector<std::string> pieces = {"AND", "OR", "NOT", "\"", "ap*", "b*", "-", "the"};
  int compared = 0;
  for (int round = 0; round < 400; ++round) {
    std::string text;
    for (std::size_t w = 0, n = 1 + pick(7); w < n; ++w) {
      text += pick(3) == 0 ? pieces[pick(pieces.size())] : vocab[pick(vocab.size())];
      text += pick(6) == 0 ? "" : " ";
    }
    Query q = Parse(text);
    Checked<std::string> match = CompileToFts5(q);
    if (!match.ok() || match.value().empty()) continue;
    SCOPED_TRACE(text + "  ->  " + match.value());
    EXPECT_TRUE(IsWellFormedFts5(match.value()));
    std::string error;
    std::set<std::int64_t> fts = db.Select(match.value(), &error);
    ASSERT_EQ(error, "");
    std::set<std::int64_t> native;
    for (std::size_t i = 0; i < docs.size(); ++i) {
      if (Matches(*q.def.root, docs[i])) native.insert(static_cast<std::int64_t>(i + 1));
    }
    EXPECT_EQ(fts, native);
    ++compared;
  }
  EXPECT_GT(compared, 250);
}

}  // namespace
}  // namespace engram::text
