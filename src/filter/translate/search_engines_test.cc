// Translations for the search engines and vector stores with their own
// filter languages: Weaviate, Milvus, Elasticsearch, Redis, LanceDB. Each
// hostile-values test reads the output back with the target's own literal
// grammar (a small unescaper here) and checks the value survives intact.
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "filter/compiler.h"
#include "filter/test_schema.h"
#include "filter/translate/translate.h"

namespace engram::filter {
namespace {
namespace search_engines_test {

std::string Render(Target target, std::string_view text, std::shared_ptr<const Schema> schema) {
  auto c = Compile(Dialect::kVectorFilter, text, schema);
  if (!c.ok()) return "compile error " + c.diagnostic().message;
  Checked<Translation> t = TranslateCompiled(c.value(), Dialect::kVectorFilter, target);
  if (!t.ok()) return "error " + t.diagnostic().message;
  const json::Value& f = t.value().filter;
  return f.is_string() ? f.get<std::string>() : json::Dump(f);
}

std::string To(Target target, std::string_view text) {
  return Render(target, text, TestSchema());
}

std::string Filter(std::string_view field, const std::string& op, const std::string& value) {
  json::Value doc = {{std::string(field), {{op, value}}}};
  return json::Dump(doc);
}

const std::vector<std::string>& Hostile() {
  static const std::vector<std::string> values = {"'; DROP TABLE x; --",
                                                  "\"",
                                                  "'",
                                                  "\\",
                                                  "a\"b'c\\d",
                                                  "$eq",
                                                  "{a}",
                                                  "a|b",
                                                  "@s:{x}",
                                                  "(x)",
                                                  "*",
                                                  "%_",
                                                  "`",
                                                  "\\\"",
                                                  "x\ny",
                                                  "\xe2\x80\xae",
                                                  "a b"};
  return values;
}

// A schema whose field names are hostile.
std::shared_ptr<const Schema> HostileNames() {
  static const auto schema = Schema::Parse(R"({"fields":[
    {"name":"a\"b","type":"string","optional":true},
    {"name":"a'b","type":"string","optional":true},
    {"name":"a`b","type":"string","optional":true},
    {"name":"a.b","type":"string","optional":true},
    {"name":"a b","type":"string","optional":true},
    {"name":"a\\b","type":"string","optional":true},
    {"name":"and","type":"string","optional":true},
    {"name":"x@{|}","type":"string","optional":true}]})")
                                 .value();
  return schema;
}

// --- Weaviate ---

TEST(TranslateWeaviate, Leaves) {
  EXPECT_EQ(To(Target::kWeaviate, R"({"s":"a"})"),
            R"({"path":["s"],"operator":"Equal","valueText":"a"})");
  EXPECT_EQ(To(Target::kWeaviate, R"({"s":{"$ne":"a"}})"),
            R"({"operator":"Not","operands":[{"path":["s"],"operator":"Equal","valueText":"a"}]})");
  EXPECT_EQ(
      To(Target::kWeaviate, R"({"i":{"$gt":1,"$lte":5}})"),
      R"({"operator":"And","operands":[{"path":["i"],"operator":"GreaterThanEqual","valueInt":2},)"
      R"({"path":["i"],"operator":"LessThanEqual","valueInt":5}]})");
  EXPECT_EQ(To(Target::kWeaviate, R"({"f":{"$gt":1.5}})"),
            R"({"path":["f"],"operator":"GreaterThan","valueNumber":1.5})");
  EXPECT_EQ(To(Target::kWeaviate, R"({"tags":{"$in":["x","y"]}})"),
            R"({"path":["tags"],"operator":"ContainsAny","valueTextArray":["x","y"]})");
  EXPECT_EQ(To(Target::kWeaviate, R"({"d":{"$exists":true}})"),
            R"({"path":["d"],"operator":"IsNull","valueBoolean":false})");
  EXPECT_EQ(To(Target::kWeaviate, R"({"d":"2025-01-02T03:04:05.000006Z"})"),
            R"({"path":["d"],"operator":"Equal","valueDate":"2025-01-02T03:04:05.000006Z"})");
  EXPECT_EQ(To(Target::kWeaviate, R"({})"), "null");
  EXPECT_EQ(To(Target::kWeaviate, R"({"i":9007199254740993})"),
            "error /i: weaviate cannot express an int beyond ±2^53");
  EXPECT_EQ(To(Target::kWeaviate, R"({"s":{"$exists":true}})"),
            "error /s/$exists: weaviate cannot express exists on a text field (Weaviate indexes "
            "\"\" and [] as null)");
  EXPECT_EQ(To(Target::kWeaviate, R"({"s":" a"})"),
            "error /s: weaviate cannot express an empty string or one with surrounding whitespace");
  EXPECT_EQ(To(Target::kWeaviate, R"({"s":{"$gt":"a"}})"),
            "error /s/$gt: weaviate cannot express order string");
}

TEST(TranslateWeaviate, HostileValues) {
  for (const std::string& h : Hostile()) {
    auto c = Compile(Dialect::kVectorFilter, Filter("s", "$eq", h), TestSchema());
    ASSERT_TRUE(c.ok());
    Checked<Translation> t =
        TranslateCompiled(c.value(), Dialect::kVectorFilter, Target::kWeaviate);
    ASSERT_TRUE(t.ok()) << h;
    const json::Value& f = t.value().filter;
    EXPECT_EQ(f.size(), 3u);
    EXPECT_EQ(f["operator"], "Equal");
    EXPECT_EQ(f["valueText"], h);
  }
  for (const Field& field : HostileNames()->fields()) {
    json::Value doc = {{field.name, "v"}};
    const std::string out = Render(Target::kWeaviate, json::Dump(doc), HostileNames());
    if (field.name == "and") {
      EXPECT_EQ(out, R"({"path":["and"],"operator":"Equal","valueText":"v"})");
    } else {
      EXPECT_EQ(out.rfind("error ", 0), 0u) << field.name;
    }
  }
  EXPECT_EQ(To(Target::kWeaviate, R"({"s":"a\u0000b"})"),
            R"({"path":["s"],"operator":"Equal","valueText":"a\u0000b"})");
}

// --- Milvus ---

// Reads a Milvus double-quoted literal at `pos` (C escapes); advances pos.
std::string MilvusUnquote(const std::string& s, std::size_t* pos) {
  EXPECT_EQ(s[*pos], '"');
  std::string out;
  for (std::size_t i = *pos + 1; i < s.size(); ++i) {
    char c = s[i];
    if (c == '"') {
      *pos = i + 1;
      return out;
    }
    EXPECT_NE(c, '\n');
    if (c != '\\') {
      out += c;
      continue;
    }
    c = s[++i];
    switch (c) {
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u':
        out += static_cast<char>(std::stoi(s.substr(i + 1, 4), nullptr, 16));
        i += 4;
        break;
      default:
        out += c;
    }
  }
  ADD_FAILURE() << "unterminated literal in " << s;
  return out;
}

TEST(TranslateMilvus, Leaves) {
  EXPECT_EQ(To(Target::kMilvus, R"({"s":{"$ne":"a"}})"), R"(not (s IS NOT NULL and s == "a"))");
  EXPECT_EQ(To(Target::kMilvus, R"({"f":{"$gte":1,"$lt":5},"b":true})"),
            "((f IS NOT NULL and f >= 1.0 and f < 5.0) and (b IS NOT NULL and b == true))");
  EXPECT_EQ(To(Target::kMilvus, R"({"tags":{"$in":["x","y"]},"f":{"$in":[1,2.5]}})"),
            R"(((tags IS NOT NULL and array_contains_any(tags, ["x", "y"])) and )"
            R"((f IS NOT NULL and f in [1.0, 2.5])))");
  EXPECT_EQ(To(Target::kMilvus, R"({"d":{"$lt":"2025-01-01T00:00:00.000001Z"}})"),
            "(d IS NOT NULL and d < 1735689600000001)");
  EXPECT_EQ(To(Target::kMilvus, R"({"d":{"$exists":false}})"), "not (d IS NOT NULL)");
  EXPECT_EQ(To(Target::kMilvus, R"({"$or":[{"s":{"$in":[]}},{"s":{"$exists":true}}]})"),
            "(s IS NOT NULL)");
  EXPECT_EQ(To(Target::kMilvus, R"({"i":-9223372036854775808})"),
            "error /i: milvus cannot express the int -2^63");
  EXPECT_EQ(Render(Target::kMilvus, R"({"and":"v"})", HostileNames()),
            "error /and: milvus cannot express a field name that is not an identifier");
}

TEST(TranslateMilvus, HostileValues) {
  for (const std::string& h : Hostile()) {
    const std::string out = To(Target::kMilvus, Filter("s", "$eq", h));
    const std::string prefix = "(s IS NOT NULL and s == ";
    ASSERT_EQ(out.rfind(prefix, 0), 0u) << out;
    std::size_t pos = prefix.size();
    EXPECT_EQ(MilvusUnquote(out, &pos), h) << out;
    EXPECT_EQ(out.substr(pos), ")") << out;
  }
  EXPECT_EQ(To(Target::kMilvus, R"({"s":"a\u0000"})"),
            "error /s: milvus cannot express a string with U+0000");
  for (const Field& field : HostileNames()->fields()) {
    json::Value doc = {{field.name, "v"}};
    EXPECT_EQ(Render(Target::kMilvus, json::Dump(doc), HostileNames()).rfind("error ", 0), 0u)
        << field.name;
  }
}

// --- Elasticsearch ---

TEST(TranslateElasticsearch, Leaves) {
  EXPECT_EQ(To(Target::kElasticsearch, R"({"s":{"$ne":"a"}})"),
            R"({"bool":{"must_not":[{"term":{"s":"a"}}]}})");
  EXPECT_EQ(To(Target::kElasticsearch, R"({"$or":[{"i":{"$gt":1}},{"tags":{"$in":["x","y"]}}]})"),
            R"({"bool":{"should":[{"range":{"i":{"gt":1}}},{"terms":{"tags":["x","y"]}}],)"
            R"("minimum_should_match":1}})");
  EXPECT_EQ(To(Target::kElasticsearch, R"({"f":0})"), R"({"range":{"f":{"gte":-0.0,"lte":0.0}}})");
  EXPECT_EQ(To(Target::kElasticsearch, R"({"f":{"$gte":0,"$lt":1}})"),
            R"({"range":{"f":{"gte":-0.0,"lt":1.0}}})");
  EXPECT_EQ(To(Target::kElasticsearch, R"({"d":{"$gte":"2025-01-01"}})"),
            R"({"range":{"d":{"gte":1735689600000000}}})");
  EXPECT_EQ(To(Target::kElasticsearch, R"({"$and":[{"s":{"$in":[]}}]})"), R"({"match_none":{}})");
  EXPECT_EQ(To(Target::kElasticsearch, R"({})"), R"({"match_all":{}})");
  EXPECT_EQ(To(Target::kElasticsearch, R"({"tags":{"$exists":true}})"),
            "error /tags/$exists: elasticsearch cannot express exists on a set<string> field (an "
            "empty array is not indexed)");
}

TEST(TranslateElasticsearch, HostileValues) {
  for (const std::string& h : Hostile()) {
    auto c = Compile(Dialect::kVectorFilter, Filter("s", "$eq", h), TestSchema());
    ASSERT_TRUE(c.ok());
    Checked<Translation> t =
        TranslateCompiled(c.value(), Dialect::kVectorFilter, Target::kElasticsearch);
    ASSERT_TRUE(t.ok());
    const json::Value expected = {{"term", {{"s", h}}}};
    EXPECT_EQ(t.value().filter, expected);
  }
  // Names are keys by necessity; those ES reads as paths or patterns are refused.
  EXPECT_EQ(Render(Target::kElasticsearch, R"({"a.b":"v"})", HostileNames()),
            "error /a.b: elasticsearch cannot express a field name with '.' or '*', or starting "
            "with '_'");
  EXPECT_EQ(Render(Target::kElasticsearch, R"({"x@{|}":"v"})", HostileNames()),
            R"({"term":{"x@{|}":"v"}})");
}

// --- Redis ---

// The tags inside `@f:{...}`, unescaped; fails on an unescaped `}` or `|`.
std::vector<std::string> RedisTags(const std::string& q, const std::string& field) {
  const std::string prefix = "@" + field + ":{";
  EXPECT_EQ(q.rfind(prefix, 0), 0u) << q;
  std::vector<std::string> tags(1);
  for (std::size_t i = prefix.size(); i < q.size(); ++i) {
    const char c = q[i];
    if (c == '\\') {
      tags.back() += q[++i];
    } else if (c == '}') {
      EXPECT_EQ(i + 1, q.size()) << q;
      return tags;
    } else if (c == '|') {
      tags.emplace_back();
    } else if (c == ' ') {
      // separators around `|`
    } else {
      EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(c)) || (c & 0x80)) << q;
      tags.back() += c;
    }
  }
  ADD_FAILURE() << "unterminated tag list " << q;
  return tags;
}

TEST(TranslateRedis, Leaves) {
  EXPECT_EQ(To(Target::kRedis, R"({"s":{"$ne":"a"}})"), "-(@s:{a})");
  EXPECT_EQ(To(Target::kRedis, R"({"f":{"$gt":1,"$lte":5},"b":false})"), "(@f:[(1 5] @b:{false})");
  EXPECT_EQ(To(Target::kRedis, R"({"$or":[{"f":1.5},{"d":{"$lt":"2025-01-01"}}]})"),
            "(@f:[1.5 1.5] | @d:[-inf (1735689600000000])");
  EXPECT_EQ(To(Target::kRedis, R"({"i":{"$in":[1,2]}})"), "(@i:[1 1] | @i:[2 2])");
  EXPECT_EQ(To(Target::kRedis, R"({"tags":{"$nin":["x","y z"]}})"), "-(@tags:{x | y\\ z})");
  EXPECT_EQ(To(Target::kRedis, R"({"s":{"$exists":true}})"), "-ismissing(@s)");
  EXPECT_EQ(To(Target::kRedis, R"({})"), "*");
  EXPECT_EQ(To(Target::kRedis, R"({"i":9007199254740993})"),
            "error /i: redis cannot express an int beyond ±2^53");
  EXPECT_EQ(To(Target::kRedis, R"({"s":{"$gt":"a"}})"),
            "error /s/$gt: redis cannot express order string");
}

TEST(TranslateRedis, HostileValues) {
  for (const std::string& h : Hostile()) {
    const std::string out = To(Target::kRedis, Filter("s", "$eq", h));
    if (h.find('\n') != std::string::npos) {
      EXPECT_EQ(out, "error /s/$eq: redis cannot express a tag with a control character");
      continue;
    }
    EXPECT_EQ(RedisTags(out, "s"), std::vector<std::string>{h}) << out;
  }
  for (const Field& field : HostileNames()->fields()) {
    json::Value doc = {{field.name, "v"}};
    const std::string out = Render(Target::kRedis, json::Dump(doc), HostileNames());
    if (field.name == "and") {
      EXPECT_EQ(out, "@and:{v}");
    } else {
      EXPECT_EQ(out.rfind("error ", 0), 0u) << field.name;
    }
  }
}

// --- LanceDB ---

// Reads a SQL literal ('' doubling) at `pos`; advances pos.
std::string SqlUnquote(const std::string& s, std::size_t* pos) {
  EXPECT_EQ(s[*pos], '\'');
  std::string out;
  for (std::size_t i = *pos + 1; i < s.size(); ++i) {
    if (s[i] == '\'') {
      if (i + 1 < s.size() && s[i + 1] == '\'') {
        out += '\'';
        ++i;
        continue;
      }
      *pos = i + 1;
      return out;
    }
    out += s[i];
  }
  ADD_FAILURE() << "unterminated literal in " << s;
  return out;
}

TEST(TranslateLancedb, Leaves) {
  EXPECT_EQ(To(Target::kLancedb, R"({"s":{"$ne":"a"}})"), "NOT (`s` IS NOT NULL AND `s` = 'a')");
  EXPECT_EQ(To(Target::kLancedb, R"({"i":{"$gte":-1,"$lt":5},"tags":{"$in":["x","y"]}})"),
            "((`i` IS NOT NULL AND `i` >= (-1) AND `i` <= 4) AND "
            "(`tags` IS NOT NULL AND array_has_any(`tags`, ['x', 'y'])))");
  EXPECT_EQ(To(Target::kLancedb, R"({"d":{"$gt":"2025-01-01"}})"),
            "(`d` IS NOT NULL AND `d` > arrow_cast(1735689600000000, "
            "'Timestamp(Microsecond, Some(\"UTC\"))'))");
  EXPECT_EQ(To(Target::kLancedb, R"({"f":0})"),
            "(`f` IS NOT NULL AND (`f` >= (-0.0) AND `f` <= 0.0))");
  EXPECT_EQ(Render(Target::kLancedb, R"({"a b":"v"})", HostileNames()),
            "(`a b` IS NOT NULL AND `a b` = 'v')");
  EXPECT_EQ(Render(Target::kLancedb, R"({"a`b":"v"})", HostileNames()),
            "error /a`b: lancedb cannot express a field name with '`'");
  EXPECT_EQ(To(Target::kLancedb, R"({})"), "TRUE");
}

TEST(TranslateLancedb, HostileValues) {
  for (const std::string& h : Hostile()) {
    const std::string out = To(Target::kLancedb, Filter("s", "$eq", h));
    if (h.find('\\') != std::string::npos) {
      EXPECT_EQ(out, "error /s/$eq: lancedb cannot express a string with '\\'");
      continue;
    }
    const std::string prefix = "(`s` IS NOT NULL AND `s` = ";
    ASSERT_EQ(out.rfind(prefix, 0), 0u) << out;
    std::size_t pos = prefix.size();
    EXPECT_EQ(SqlUnquote(out, &pos), h) << out;
    EXPECT_EQ(out.substr(pos), ")") << out;
  }
}

}  // namespace search_engines_test
}  // namespace
}  // namespace engram::filter
