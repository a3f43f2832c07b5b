// Runs the data-driven query corpus (tests/corpus/README.md, "Query DSL
// corpus") through the public query API (engram/query.h): each case's AST,
// FTS5 compile and errors; every FTS5 string the corpus expects is also
// prepared and run in a real SQLite FTS5 table.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include "engram/query.h"

namespace engram {
namespace {

namespace fs = std::filesystem;

struct Case {
  std::string file, name;
  int line = 0;
  std::string query;
  bool has_query = false;
  std::optional<std::string> ast, json, fts5, error;
  // Directives in force for this case.
  std::string profile = "default", anchor, aliases;
  std::size_t max_chars = 1000;
};

std::string Trim(const std::string& s) {
  std::size_t b = s.find_first_not_of(' ');
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(' ') - b + 1);
}

// query-gen: repeat N TEXT  -> TEXT repeated N times
std::string Generate(const std::string& spec) {
  std::istringstream in(spec);
  std::string verb;
  std::size_t n = 0;
  in >> verb >> n;
  std::string text;
  std::getline(in, text);
  if (verb != "repeat" || text.size() < 2) throw std::runtime_error("bad query-gen: " + spec);
  text = text.substr(1);
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += text;
  return out;
}

std::vector<Case> ReadCases(const fs::path& file) {
  std::ifstream in(file);
  std::vector<Case> cases;
  Case defaults;
  defaults.file = file.filename().string();
  std::optional<Case> current;
  auto flush = [&] {
    if (current) cases.push_back(*current);
    current.reset();
  };
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line[0] == '#') continue;
    if (Trim(line).empty()) {
      flush();
      continue;
    }
    // `key: value`; `key:` alone has an empty value.
    std::size_t colon = line.find(": ");
    if (colon == std::string::npos && line.back() == ':') colon = line.size() - 1;
    std::string key = colon == std::string::npos ? Trim(line) : line.substr(0, colon);
    std::string value = colon + 2 > line.size() ? "" : line.substr(colon + 2);
    if (key == "profile" || key == "anchor" || key == "aliases" || key == "max-chars") {
      flush();
      if (key == "profile") defaults.profile = value;
      if (key == "anchor") defaults.anchor = value == "none" ? "" : value;
      if (key == "aliases")
        defaults.aliases = value == "none" ? "" : (file.parent_path() / value).string();
      if (key == "max-chars") defaults.max_chars = std::stoul(value);
      continue;
    }
    if (key == "case") {
      flush();
      current = defaults;
      current->name = value;
      current->line = number;
      continue;
    }
    if (!current)
      throw std::runtime_error(file.string() + ":" + std::to_string(number) + ": outside a case");
    if (key == "query") {
      current->query = value;
      current->has_query = true;
    } else if (key == "query-json") {
      current->query = nlohmann::json::parse(value).get<std::string>();
      current->has_query = true;
    } else if (key == "query-gen") {
      current->query = Generate(value);
      current->has_query = true;
    } else if (key == "ast") {
      current->ast = value;
    } else if (key == "json") {
      current->json = value;
    } else if (key == "fts5") {
      current->fts5 = value;
    } else if (key == "error") {
      current->error = value;
    } else {
      throw std::runtime_error(file.string() + ":" + std::to_string(number) + ": unknown key " +
                               key);
    }
  }
  flush();
  return cases;
}

std::vector<Case> AllCases() {
  std::vector<Case> all;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(fs::path(ENGRAM_SOURCE_DIR) / "tests/corpus/query")) {
    if (e.path().extension() == ".test") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    for (Case& c : ReadCases(f)) all.push_back(std::move(c));
  }
  return all;
}

// Whether SQLite's FTS5 accepts `match`; the error otherwise.
std::string Fts5Error(const std::string& match) {
  static sqlite3* db = [] {
    sqlite3* d = nullptr;
    sqlite3_open(":memory:", &d);
    sqlite3_exec(d, "CREATE VIRTUAL TABLE t USING fts5(body); INSERT INTO t VALUES ('a b c')",
                 nullptr, nullptr, nullptr);
    return d;
  }();
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(db, "SELECT count(*) FROM t WHERE t MATCH ?", -1, &stmt, nullptr);
  sqlite3_bind_text(stmt, 1, match.c_str(), static_cast<int>(match.size()), SQLITE_TRANSIENT);
  int rc = sqlite3_step(stmt);
  std::string error = rc == SQLITE_ROW ? "" : sqlite3_errmsg(db);
  sqlite3_finalize(stmt);
  return error;
}

class QueryCorpus : public ::testing::TestWithParam<Case> {};

TEST_P(QueryCorpus, Case) {
  const Case& c = GetParam();
  SCOPED_TRACE(c.file + ":" + std::to_string(c.line) + ": " + c.name);
  ASSERT_TRUE(c.has_query) << "a case needs query:, query-json: or query-gen:";
  ASSERT_TRUE(c.ast || c.json || c.fts5 || c.error) << "a case needs an expectation";
  QueryOptions options;
  options.profile = *QueryProfileFromName(c.profile);
  options.anchor = c.anchor;
  options.max_chars = c.max_chars;
  if (!c.aliases.empty()) {
    StatusOr<QueryAliases> aliases = QueryAliases::Load(c.aliases);
    ASSERT_TRUE(aliases.ok()) << aliases.status().message();
    options.aliases = *aliases;
  }
  Checked<ParsedQuery> q = ParsedQuery::Parse(c.query, options);
  if (c.error) {
    ASSERT_FALSE(q.ok()) << "expected " << *c.error;
    EXPECT_EQ(q.diagnostic().message, *c.error);
    return;
  }
  ASSERT_TRUE(q.ok()) << q.diagnostic().message;
  const std::string json = q.value().AstJson();
  if (c.json) {
    EXPECT_EQ(json, *c.json);
  }
  if (c.ast) {
    nlohmann::ordered_json doc = nlohmann::ordered_json::parse(json);
    ASSERT_TRUE(doc.contains("explain")) << "ast: needs the default profile";
    EXPECT_EQ(doc["explain"].get<std::string>(), *c.ast);
  }
  if (c.fts5) {
    Checked<std::string> match = q.value().CompileFts5();
    std::string got = match.ok() ? match.value() : "unsupported";
    EXPECT_EQ(got, *c.fts5);
    if (match.ok() && !match.value().empty() && c.profile == "default") {
      EXPECT_EQ(Fts5Error(match.value()), "") << "SQLite FTS5 rejects " << match.value();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, QueryCorpus, ::testing::ValuesIn(AllCases()),
                         [](const ::testing::TestParamInfo<Case>& param_info) {
                           std::string name =
                               param_info.param.file + "_" + std::to_string(param_info.param.line);
                           for (char& ch : name) {
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace engram
