// The FTS5 differential of issue 3: for random default-profile queries over
// text the repository ships (each line of README.md and of the Markdown
// pages under docs/ and src/ a document, titled by the heading above it:
// engram's own prose, with its tables, code and JSON), every
// MATCH string CompileToFts5 emits is accepted by real SQLite FTS5 and selects
// exactly the documents the native index selects for the same AST (strict
// boolean form: relax off), with stemming off so that the test checks query
// semantics. Both sides see the same tokens: the table stores
// TokenizeDocument's terms joined by spaces, and a tokenizer registered
// through fts5_api splits at spaces only (unicode61 would also split at
// characters engram keeps inside terms, such as `_` or `·`).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "text/index/text_index.h"
#include "text/query/query.h"
#include "text/tokenize/tokenizer.h"

namespace engram::text {
namespace {

struct Doc {
  std::vector<std::string> title, body;
};

// The lines of the repository's README and docs pages, in a fixed order.
std::vector<Doc> ReadShippedText() {
  const std::filesystem::path root(ENGRAM_SOURCE_DIR);
  std::vector<std::filesystem::path> pages;
  for (const auto& dir : {root / "docs", root / "src"}) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
      if (entry.path().extension() == ".md") pages.push_back(entry.path());
    }
  }
  std::sort(pages.begin(), pages.end());
  pages.insert(pages.begin(), root / "README.md");
  std::vector<Doc> docs;
  for (const std::filesystem::path& page : pages) {
    std::ifstream in(page);
    EXPECT_TRUE(in.good()) << "cannot read " << page;
    std::vector<std::string> heading;
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("#", 0) == 0) {
        heading = TokenizeDocument(line);
        continue;
      }
      std::vector<std::string> body = TokenizeDocument(line);
      if (!body.empty()) docs.push_back({heading, std::move(body)});
    }
  }
  return docs;
}

// FTS5 tokenizer "spaces": every maximal run of non-space bytes is a token.
int SpacesCreate(void*, const char**, int, Fts5Tokenizer** out) {
  static int dummy;
  *out = reinterpret_cast<Fts5Tokenizer*>(&dummy);
  return SQLITE_OK;
}
void SpacesDelete(Fts5Tokenizer*) {}
int SpacesTokenize(Fts5Tokenizer*, void* ctx, int, const char* text, int n,
                   int (*token)(void*, int, const char*, int, int, int)) {
  int i = 0;
  while (i < n) {
    while (i < n && text[i] == ' ') ++i;
    int start = i;
    while (i < n && text[i] != ' ') ++i;
    if (i > start) {
      int rc = token(ctx, 0, text + start, i - start, start, i);
      if (rc != SQLITE_OK) return rc;
    }
  }
  return SQLITE_OK;
}

void RegisterSpaces(sqlite3* db) {
  fts5_api* api = nullptr;
  sqlite3_stmt* stmt = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &stmt, nullptr), SQLITE_OK);
  sqlite3_bind_pointer(stmt, 1, &api, "fts5_api_ptr", nullptr);
  sqlite3_step(stmt);
  sqlite3_finalize(stmt);
  ASSERT_NE(api, nullptr);
  static fts5_tokenizer tokenizer{SpacesCreate, SpacesDelete, SpacesTokenize};
  ASSERT_EQ(api->xCreateTokenizer(api, "spaces", nullptr, &tokenizer, nullptr), SQLITE_OK);
}

std::string Join(const std::vector<std::string>& words) {
  std::string s;
  for (const std::string& w : words) s += (s.empty() ? "" : " ") + w;
  return s;
}

// A random query string from the corpus's own words, so that queries hit.
std::string RandomQuery(const std::vector<Doc>& docs, std::mt19937_64& rng) {
  auto pick = [&]() -> const std::vector<std::string>& {
    const Doc& d = docs[rng() % docs.size()];
    return d.body.empty() || rng() % 4 == 0 ? d.title : d.body;
  };
  std::string q;
  int parts = 1 + static_cast<int>(rng() % 4);
  for (int i = 0; i < parts; ++i) {
    const std::vector<std::string>& words = pick();
    if (words.empty()) continue;
    std::size_t at = rng() % words.size();
    if (!q.empty()) {
      static const char* kOps[] = {" ", " ", " AND ", " OR ", " NOT ", " OR NOT "};
      q += kOps[rng() % 6];
    }
    switch (rng() % 4) {
      case 0:  // a phrase of 2-3 consecutive words
        q += "\"" + words[at];
        for (std::size_t j = at + 1; j < words.size() && j < at + 1 + rng() % 3; ++j)
          q += " " + words[j];
        q += "\"";
        break;
      case 1:
        q += words[at].substr(0, 1 + rng() % words[at].size()) + "*";
        break;
      default:
        q += words[at];
    }
  }
  return q;
}

TEST(Fts5Diff, CompiledQueriesSelectWhatTheIndexSelects) {
  std::vector<Doc> docs = ReadShippedText();
  ASSERT_GE(docs.size(), 800u);
  TextIndexOptions o;
  o.fields = {{"title", 1.0}, {"body", 1.0}};
  o.stemmer = Stemmer::kNone;
  o.relax = false;
  TextIndex index(o);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(":memory:", &db), SQLITE_OK);
  RegisterSpaces(db);
  ASSERT_EQ(sqlite3_exec(db, "CREATE VIRTUAL TABLE t USING fts5(title, body, tokenize = 'spaces')",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_stmt* insert = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "INSERT INTO t(rowid, title, body) VALUES (?, ?, ?)", -1,
                               &insert, nullptr),
            SQLITE_OK);
  for (std::uint32_t d = 0; d < docs.size(); ++d) {
    std::string title = Join(docs[d].title), body = Join(docs[d].body);
    index.Put(d, {title, body});  // already terms: tokenising again is the identity
    sqlite3_bind_int64(insert, 1, d);
    sqlite3_bind_text(insert, 2, title.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(insert, 3, body.c_str(), -1, SQLITE_TRANSIENT);
    ASSERT_EQ(sqlite3_step(insert), SQLITE_DONE);
    sqlite3_reset(insert);
  }
  sqlite3_finalize(insert);

  std::mt19937_64 rng(2026);
  int compared = 0, unsupported = 0, nonempty = 0;
  for (int i = 0; i < 1500; ++i) {
    std::string text = RandomQuery(docs, rng);
    QueryOptions qo;
    qo.anchor = ParseDate("2026-04-19");
    Checked<Query> q = ParseQuery(text, qo);
    ASSERT_TRUE(q.ok()) << text;
    Checked<std::string> match = CompileToFts5(q.value());
    if (!match.ok()) {
      ++unsupported;  // purely negative somewhere: FTS5 cannot say it
      continue;
    }
    if (match.value().empty()) continue;
    std::set<std::uint32_t> native;
    for (const TextHit& h : index.Search(q.value().def, docs.size())) native.insert(h.doc);
    std::set<std::uint32_t> fts5;
    sqlite3_stmt* stmt = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT rowid FROM t WHERE t MATCH ?", -1, &stmt, nullptr),
              SQLITE_OK);
    sqlite3_bind_text(stmt, 1, match.value().c_str(), -1, SQLITE_TRANSIENT);
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
      fts5.insert(static_cast<std::uint32_t>(sqlite3_column_int64(stmt, 0)));
    }
    sqlite3_finalize(stmt);
    ASSERT_EQ(rc, SQLITE_DONE) << "FTS5 rejected `" << match.value() << "` from `" << text
                               << "`: " << sqlite3_errmsg(db);
    ASSERT_EQ(native, fts5) << "query `" << text << "` compiled to `" << match.value() << "`";
    ++compared;
    if (!native.empty()) ++nonempty;
  }
  sqlite3_close(db);
  std::printf(
      "FTS5 differential: %d queries compared (%d with hits), %d unsupported, 0 disagreements\n",
      compared, nonempty, unsupported);
  EXPECT_GT(compared, 500);
  EXPECT_GT(nonempty, 300);
}

}  // namespace
}  // namespace engram::text
