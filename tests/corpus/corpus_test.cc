// Runs the data-driven filter corpus (tests/corpus/README.md) through the
// public filter API.
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "engram/filter.h"

namespace engram {
namespace {

namespace fs = std::filesystem;

fs::path CorpusRoot() {
  return fs::path(ENGRAM_SOURCE_DIR) / "tests" / "corpus";
}

// `to TARGET: ...` and the `params:` after it.
struct ExpectedTranslation {
  std::string target;
  std::string expected;  // the filter JSON, or `error <message>`
  std::string params = "[]";
};

struct Case {
  std::string name;
  int line = 0;
  std::string filter;
  bool has_filter = false;
  std::optional<std::size_t> pad;
  std::optional<std::string> ir, optimized, matches, error, message;
  std::optional<int> code;
  std::vector<ExpectedTranslation> translations;
  std::string schema, records;  // as in force for this case
  std::string dialect;          // `dialect:` in force, else the directory's name
};

std::vector<std::string> SplitSpaces(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  std::string tok;
  while (in >> tok) out.push_back(tok);
  return out;
}

std::string ReplaceAll(std::string s, const std::string& what, const std::string& with) {
  for (std::size_t pos = 0; (pos = s.find(what, pos)) != std::string::npos; pos += with.size()) {
    s.replace(pos, what.size(), with);
  }
  return s;
}

// filter-gen: nest N OUTER INNER | list N OUTER ITEM
std::string Generate(const std::string& spec) {
  std::vector<std::string> t = SplitSpaces(spec);
  if (t.size() != 4) throw std::runtime_error("filter-gen needs 4 tokens: " + spec);
  std::size_t n = std::stoul(t[1]);
  if (t[0] == "nest") {
    std::string text = t[3];
    for (std::size_t i = 0; i < n; ++i) text = ReplaceAll(t[2], "%", text);
    return text;
  }
  if (t[0] == "list") {
    std::string items;
    for (std::size_t i = 0; i < n; ++i) {
      if (i) items += ',';
      items += ReplaceAll(t[3], "#", std::to_string(i));
    }
    return ReplaceAll(t[2], "%", items);
  }
  throw std::runtime_error("unknown filter-gen: " + t[0]);
}

std::vector<Case> ReadCases(const fs::path& file) {
  std::ifstream in(file);
  std::vector<Case> cases;
  std::string schema, records, dialect, line;
  std::optional<Case> current;
  int number = 0;
  auto finish = [&] {
    if (current) cases.push_back(std::move(*current));
    current.reset();
  };
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) {
      finish();
      continue;
    }
    if (line[0] == '#') continue;
    std::size_t colon = line.find(':');
    std::string key = line.substr(0, colon);
    if (key.rfind("filter<<", 0) == 0) {
      std::string end = key.substr(8), text, l;
      while (std::getline(in, l) && l != end) {
        ++number;
        text += l + "\n";
      }
      ++number;
      current->filter = text;
      current->has_filter = true;
      continue;
    }
    if (colon == std::string::npos)
      throw std::runtime_error(file.string() + ":" + std::to_string(number) + ": no key");
    std::string value = line.substr(colon + 1);
    if (!value.empty() && value[0] == ' ') value.erase(0, 1);
    if (key == "schema") {
      schema = value;
    } else if (key == "records") {
      records = value;
    } else if (key == "dialect") {
      dialect = value;
    } else if (key == "case") {
      finish();
      current = Case{};
      current->name = value;
      current->line = number;
      current->schema = schema;
      current->records = records;
      current->dialect = dialect;
    } else if (!current) {
      throw std::runtime_error(file.string() + ":" + std::to_string(number) + ": " + key +
                               " outside a case");
    } else if (key == "filter") {
      current->filter = value;
      current->has_filter = true;
    } else if (key == "filter-gen") {
      current->filter = Generate(value);
      current->has_filter = true;
    } else if (key == "pad") {
      current->pad = std::stoul(value);
    } else if (key == "ir") {
      current->ir = value;
    } else if (key == "optimized") {
      current->optimized = value;
    } else if (key == "matches") {
      current->matches = value;
    } else if (key == "error") {
      current->error = value;
    } else if (key == "message") {
      current->message = value;
    } else if (key == "code") {
      current->code = std::stoi(value);
    } else if (key.rfind("to ", 0) == 0) {
      current->translations.push_back(ExpectedTranslation{key.substr(3), value});
    } else if (key == "params" && !current->translations.empty()) {
      current->translations.back().params = value;
    } else {
      throw std::runtime_error(file.string() + ":" + std::to_string(number) + ": unknown key " +
                               key);
    }
  }
  finish();
  return cases;
}

std::string ResolveSchema(const fs::path& dir, const std::string& schema) {
  if (schema.rfind("preset:", 0) == 0) return schema;
  return (dir / schema).string();
}

std::vector<MetadataRecord> LoadRecords(const SchemaRef& schema, const fs::path& file) {
  std::vector<MetadataRecord> out;
  std::ifstream in(file);
  EXPECT_TRUE(in.good()) << "cannot open " << file;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    Checked<MetadataRecord> r = MetadataRecord::Parse(schema, line);
    EXPECT_TRUE(r.ok()) << file << ": " << (r.ok() ? "" : r.diagnostic().message);
    if (r.ok()) out.push_back(r.value());
  }
  return out;
}

// JSON text as engram prints it (compact; 1.0 stays a float).
std::string Canonical(const std::string& json_text) {
  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(json_text, nullptr, false);
  if (doc.is_discarded()) return "<not JSON: " + json_text + ">";
  return doc.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::strict);
}

class CorpusTest : public testing::TestWithParam<fs::path> {};

TEST_P(CorpusTest, Cases) {
  const fs::path file = GetParam();
  std::vector<Case> cases = ReadCases(file);
  ASSERT_FALSE(cases.empty()) << file;
  std::map<std::string, SchemaRef> schemas;
  for (const Case& c : cases) {
    SCOPED_TRACE(file.filename().string() + ":" + std::to_string(c.line) + ": " + c.name);
    std::optional<FilterDialect> dialect = FilterDialectFromName(
        c.dialect.empty() ? file.parent_path().filename().string() : c.dialect);
    ASSERT_TRUE(dialect) << "no dialect: a `dialect:` line or a dialect's directory";
    ASSERT_TRUE(c.has_filter) << "case without filter";
    ASSERT_FALSE(c.schema.empty()) << "no schema in force";
    ASSERT_TRUE(c.ir || c.optimized || c.matches || c.error || !c.translations.empty())
        << "case without expectation";
    std::string schema_spec = ResolveSchema(file.parent_path(), c.schema);
    if (!schemas.count(schema_spec)) {
      StatusOr<SchemaRef> s = SchemaRef::Load(schema_spec);
      ASSERT_TRUE(s.ok()) << s.status().ToString();
      schemas.emplace(schema_spec, *s);
    }
    const SchemaRef& schema = schemas.at(schema_spec);
    std::string text = c.filter;
    if (c.pad) {
      ASSERT_LE(text.size(), *c.pad);
      text.append(*c.pad - text.size(), ' ');
    }
    Checked<CompiledFilterRef> compiled = CompiledFilterRef::Compile(*dialect, schema, text);
    if (c.error || c.message) {
      ASSERT_FALSE(compiled.ok()) << "compiled to " << compiled.value().IrSexpr(false);
      const Diagnostic& d = compiled.diagnostic();
      if (c.error) {
        EXPECT_EQ(d.kind + " " + d.path, *c.error);
      }
      if (c.message) {
        EXPECT_EQ(d.message, *c.message);
      }
      if (c.code) {
        EXPECT_EQ(d.code, *c.code);
      }
      continue;
    }
    ASSERT_TRUE(compiled.ok()) << compiled.diagnostic().message;
    if (c.ir) {
      EXPECT_EQ(compiled.value().IrSexpr(false), *c.ir);
    }
    if (c.optimized) {
      EXPECT_EQ(compiled.value().IrSexpr(true), *c.optimized);
    }
    if (c.matches) {
      ASSERT_FALSE(c.records.empty()) << "matches: without records:";
      std::string ids_optimized;
      for (const MetadataRecord& r : LoadRecords(schema, file.parent_path() / c.records)) {
        if (compiled.value().Matches(r))
          ids_optimized += (ids_optimized.empty() ? "" : " ") + r.id();
      }
      EXPECT_EQ(ids_optimized, *c.matches);
    }
    for (const ExpectedTranslation& t : c.translations) {
      Checked<FilterTranslation> got = compiled.value().Translate(t.target);
      if (t.expected.rfind("error ", 0) == 0) {
        ASSERT_FALSE(got.ok()) << "to " << t.target << ": translated to " << got.value().filter;
        EXPECT_EQ(got.diagnostic().kind, "filter.unsupported");
        EXPECT_EQ("error " + got.diagnostic().message, t.expected) << "to " << t.target;
        continue;
      }
      ASSERT_TRUE(got.ok()) << "to " << t.target << ": " << got.diagnostic().message;
      EXPECT_EQ(got.value().filter, Canonical(t.expected)) << "to " << t.target;
      EXPECT_EQ(got.value().params, Canonical(t.params)) << "to " << t.target << " (params)";
    }
  }
}

std::vector<fs::path> CorpusFiles() {
  std::vector<fs::path> files;
  for (const char* dir : {"filter", "translate"}) {
    for (const auto& entry : fs::recursive_directory_iterator(CorpusRoot() / dir)) {
      if (entry.path().extension() == ".test") files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string TestName(const testing::TestParamInfo<fs::path>& info) {
  std::string name =
      info.param.parent_path().filename().string() + "_" + info.param.stem().string();
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Filter, CorpusTest, testing::ValuesIn(CorpusFiles()), TestName);

}  // namespace
}  // namespace engram
