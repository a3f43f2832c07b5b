// Tests of the document-store translators (Qdrant, Pinecone, Chroma,
// MongoDB): exact outputs for each construct, hostile names and literals.
// Executable models of each store's semantics: document_store_models_test.cc.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/time.h"
#include "filter/compiler.h"
#include "filter/eval/evaluator.h"
#include "filter/translate/store_models.h"
#include "schema/schema.h"

namespace engram::filter {
namespace {
namespace document_stores_test {

using testing::DocSchema;

struct Out {
  bool ok = false;
  json::Value filter;
  std::string error;
};

Out Translate(Target target, std::string_view text, Dialect dialect = Dialect::kVectorFilter,
              std::shared_ptr<const Schema> schema = DocSchema()) {
  auto c = Compile(dialect, text, schema);
  EXPECT_TRUE(c.ok()) << text << ": " << (c.ok() ? "" : c.diagnostic().message);
  if (!c.ok()) return {};
  Checked<Translation> t = TranslateCompiled(c.value(), dialect, target);
  if (!t.ok()) return Out{false, nullptr, t.diagnostic().message};
  return Out{true, t.value().filter, ""};
}

std::string To(Target target, std::string_view text, Dialect dialect = Dialect::kVectorFilter) {
  Out o = Translate(target, text, dialect);
  return o.ok ? json::Dump(o.filter) : "error " + o.error;
}

// ---------------------------------------------------------------------------
// Exact outputs.

TEST(Pinecone, NegationIsPushedToLeavesWithAbsentBranches) {
  EXPECT_EQ(To(Target::kPinecone, R"({"s":{"$ne":"a"}})"),
            R"({"$or":[{"s":{"$ne":"a"}},{"s":{"$exists":false}}]})");
  // j has a default: never absent, no branch.
  EXPECT_EQ(To(Target::kPinecone, R"({"j":{"$ne":3}})"), R"({"j":{"$ne":3}})");
  EXPECT_EQ(To(Target::kPinecone, R"({"$or":[{"s":{"$ne":"a"}},{"i":{"$nin":[1,2]}}]})"),
            R"({"$or":[{"$or":[{"s":{"$ne":"a"}},{"s":{"$exists":false}}]},)"
            R"({"$or":[{"i":{"$nin":[1,2]}},{"i":{"$exists":false}}]}]})");
  EXPECT_EQ(To(Target::kPinecone, R"({"tags":{"$nin":["x"]}})"),
            R"({"$or":[{"tags":{"$nin":["x"]}},{"tags":{"$exists":false}}]})");
  EXPECT_EQ(To(Target::kPinecone, R"({"i":{"$exists":false}})"), R"({"i":{"$exists":false}})");
}

TEST(Pinecone, ValuesAndLimits) {
  EXPECT_EQ(To(Target::kPinecone, R"({"i":9007199254740991})"),
            R"({"i":{"$eq":9007199254740991}})");
  EXPECT_NE(To(Target::kPinecone, R"({"i":9007199254740992})").find("beyond ±(2^53-1)"),
            std::string::npos);
  EXPECT_EQ(To(Target::kPinecone, R"({"d":{"$lt":"1970-01-01T00:00:01Z"}})"),
            R"({"d":{"$lt":1000000}})");
  EXPECT_NE(To(Target::kPinecone, R"({"d":"9999-01-01"})").find("2^53-1 microseconds"),
            std::string::npos);
  EXPECT_NE(To(Target::kPinecone, R"({"s":{"$gt":"a"}})").find("cannot express order string"),
            std::string::npos);
  EXPECT_NE(To(Target::kPinecone, R"({"tags":{"$exists":true}})").find("set<string>"),
            std::string::npos);
  EXPECT_EQ(To(Target::kPinecone, R"({"b":{"$in":[true,false]}})"),
            R"({"$or":[{"b":{"$eq":false}},{"b":{"$eq":true}}]})");
}

TEST(Chroma, MissingFieldsAndPresence) {
  // $ne / $nin match records without the key (Chroma >= 0.6).
  EXPECT_EQ(To(Target::kChroma, R"({"s":{"$ne":"a"}})"), R"({"s":{"$ne":"a"}})");
  EXPECT_EQ(To(Target::kChroma, R"({"i":{"$nin":[1,2]}})"), R"({"i":{"$nin":[1,2]}})");
  EXPECT_EQ(To(Target::kChroma, R"({"i":{"$exists":true}})"),
            R"({"$or":[{"i":{"$gte":0}},{"i":{"$lt":0}}]})");
  EXPECT_EQ(To(Target::kChroma, R"({"f":{"$exists":true}})"),
            R"({"$or":[{"f":{"$gte":0.0}},{"f":{"$lt":0.0}}]})");
  EXPECT_EQ(To(Target::kChroma, R"({"b":{"$exists":false}})"), R"({"b":{"$nin":[false,true]}})");
  EXPECT_NE(To(Target::kChroma, R"({"s":{"$exists":true}})").find("presence"), std::string::npos);
  EXPECT_NE(To(Target::kChroma, R"({"i":{"$exists":false}})").find("without the field"),
            std::string::npos);
  // Ordering negated on a defaulted field: never absent, so complemented.
  EXPECT_EQ(To(Target::kChroma,
               R"({"op":"not","arg":{"op":"lt","lhs":{"knowledge":"j"},)"
               R"("rhs":{"value":1}}})",
               Dialect::kRetrieve),
            R"({"j":{"$gte":1}})");
  EXPECT_NE(To(Target::kChroma,
               R"({"op":"not","arg":{"op":"lt","lhs":{"knowledge":"i"},)"
               R"("rhs":{"value":1}}})",
               Dialect::kRetrieve)
                .find("not over order int on an optional field"),
            std::string::npos);
  EXPECT_NE(To(Target::kChroma, R"({})").find("chroma cannot express true"), std::string::npos);
  EXPECT_EQ(To(Target::kChroma, R"({"f":3})"), R"({"f":{"$eq":3.0}})");
  EXPECT_EQ(To(Target::kChroma, R"({"tags":{"$in":["a","b"]}})"),
            R"({"$or":[{"tags":{"$contains":"a"}},{"tags":{"$contains":"b"}}]})");
}

TEST(Mongodb, Constructs) {
  EXPECT_EQ(To(Target::kMongodb, R"({"s":{"$ne":"a"}})"), R"({"$nor":[{"s":{"$eq":"a"}}]})");
  EXPECT_EQ(To(Target::kMongodb, R"({"i":9223372036854775807})"),
            R"({"i":{"$eq":{"$numberLong":"9223372036854775807"}}})");
  EXPECT_EQ(To(Target::kMongodb, R"({})"), R"({})");
  EXPECT_EQ(To(Target::kMongodb, R"({"s":{"$gt":"b"}})"), R"({"s":{"$gt":"b"}})");
  // ne (present and different) via the retrieve dialect.
  EXPECT_EQ(To(Target::kMongodb, R"({"op":"ne","lhs":{"knowledge":"s"},"rhs":{"value":"a"}})",
               Dialect::kRetrieve),
            R"({"s":{"$exists":true,"$ne":"a"}})");
  EXPECT_EQ(To(Target::kMongodb, R"({"op":"lt","lhs":{"knowledge":"i"},"rhs":{"knowledge":"f"}})",
               Dialect::kRetrieve),
            R"({"$expr":{"$and":[{"$ne":[{"$type":"$i"},"missing"]},)"
            R"({"$ne":[{"$type":"$f"},"missing"]},{"$lt":["$i","$f"]}]}})");
  EXPECT_EQ(To(Target::kMongodb,
               R"({"op":"in","needle":{"knowledge":"s"},"haystack":{"knowledge":"tags"}})",
               Dialect::kRetrieve),
            R"({"$expr":{"$and":[{"$ne":[{"$type":"$s"},"missing"]},)"
            R"({"$in":["$s",{"$ifNull":["$tags",[]]}]}]}})");
  EXPECT_EQ(
      To(Target::kMongodb,
         R"({"schema":"search_filter_expr/v1","expr":{"op":"contains","field":"s","value":"a.b*"}})",
         Dialect::kExprV1),
      R"({"s":{"$regex":"a\\.b\\*"}})");
}

TEST(Qdrant, Constructs) {
  EXPECT_EQ(To(Target::kQdrant, R"({"s":{"$ne":"a"}})"),
            R"({"must_not":[{"key":"s","match":{"value":"a"}}]})");
  EXPECT_EQ(To(Target::kQdrant, R"({"f":2.5})"),
            R"({"must":[{"key":"f","range":{"gte":2.5,"lte":2.5}}]})");
  EXPECT_EQ(To(Target::kQdrant, R"({"o d":"x"})"),
            R"({"must":[{"key":"\"o d\"","match":{"value":"x"}}]})");
  EXPECT_EQ(To(Target::kQdrant, R"({"i":{"$exists":true}})"),
            R"({"must_not":[{"is_empty":{"key":"i"}}]})");
  EXPECT_EQ(To(Target::kQdrant, R"({"op":"ne","lhs":{"knowledge":"i"},"rhs":{"value":1}})",
               Dialect::kRetrieve),
            R"({"must_not":[{"is_empty":{"key":"i"}},{"key":"i","match":{"value":1}}]})");
  EXPECT_EQ(To(Target::kQdrant, R"({})"), R"({})");
  EXPECT_EQ(To(Target::kQdrant, R"({"i":{"$gt":9007199254740991}})"),
            R"({"must":[{"key":"i","range":{"gt":9007199254740991}}]})");
  EXPECT_NE(To(Target::kQdrant, R"({"i":{"$gt":9007199254740992}})").find("2^53"),
            std::string::npos);
  EXPECT_EQ(To(Target::kQdrant, R"({"i":9223372036854775807})"),
            R"({"must":[{"key":"i","match":{"value":9223372036854775807}}]})");
  EXPECT_NE(To(Target::kQdrant, R"({"tags":{"$exists":true}})").find("is_empty"),
            std::string::npos);
}

// ---------------------------------------------------------------------------
// Hostile names and literals: every literal comes out as a JSON string in a
// value position, every name as exactly one key (or a Qdrant key path that
// reads back as the name), or the translation is refused.

const char* const kHostile[] = {"\"",   "'",           "\\",    "'; DROP TABLE x; --",
                                "$ne",  "{\"$gt\":1}", "a.b",   "a[0]",
                                "|@*(", "#document",   "x\\E.*"};

void CollectStrings(const json::Value& v, std::vector<std::string>* keys,
                    std::vector<std::string>* values) {
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end(); ++it) {
      keys->push_back(it.key());
      CollectStrings(it.value(), keys, values);
    }
  } else if (v.is_array()) {
    for (const json::Value& e : v) CollectStrings(e, keys, values);
  } else if (v.is_string()) {
    values->push_back(v.get<std::string>());
  }
}

std::string WithNul(std::string s) {
  return s + std::string(1, '\0') + "z";
}

TEST(DocumentStores, HostileLiterals) {
  std::vector<std::string> literals(std::begin(kHostile), std::end(kHostile));
  literals.push_back(WithNul("a"));
  for (Target t : {Target::kQdrant, Target::kPinecone, Target::kChroma, Target::kMongodb}) {
    for (const std::string& lit : literals) {
      json::Value doc = {{"s", lit}};
      Out o = Translate(t, json::Dump(doc));
      ASSERT_TRUE(o.ok) << TargetName(t) << " " << o.error;
      std::vector<std::string> keys, values;
      CollectStrings(o.filter, &keys, &values);
      EXPECT_NE(std::find(values.begin(), values.end(), lit), values.end()) << TargetName(t);
      EXPECT_EQ(std::find(keys.begin(), keys.end(), lit), keys.end()) << TargetName(t);
    }
  }
}

TEST(DocumentStores, HostileFieldNames) {
  std::vector<std::string> names(std::begin(kHostile), std::end(kHostile));
  names.push_back("a\"b\\c");
  for (const std::string& name : names) {
    json::Value fields = json::Value::array();
    fields.push_back({{"name", name}, {"type", "string"}, {"optional", true}});
    json::Value schema_doc = {{"fields", fields}};
    auto schema = Schema::Parse(json::Dump(schema_doc));
    if (!schema.ok()) continue;  // a name the schema itself refuses
    json::Value filter = {{name, {{"$eq", "v"}}}};
    for (Target t : {Target::kQdrant, Target::kPinecone, Target::kChroma, Target::kMongodb}) {
      Out o = Translate(t, json::Dump(filter), Dialect::kVectorFilter, schema.value());
      if (!o.ok) {
        EXPECT_NE(o.error.find("cannot express"), std::string::npos) << o.error;
        continue;
      }
      std::vector<std::string> keys, values;
      CollectStrings(o.filter, &keys, &values);
      if (t == Target::kQdrant) {
        // The key path: the name itself, or the name in double quotes
        // (which then holds neither `"` nor `\`).
        const std::string& key = o.filter["must"][0]["key"].get_ref<const std::string&>();
        bool raw = key == name;
        bool quoted = key == "\"" + name + "\"" && name.find_first_of("\"\\") == std::string::npos;
        EXPECT_TRUE(raw || quoted) << key;
      } else {
        EXPECT_EQ(std::count(keys.begin(), keys.end(), name), 1) << TargetName(t) << " " << name;
      }
    }
  }
}

TEST(Mongodb, RegexEscapesEveryOperatorCharacter) {
  std::string all;
  for (int c = 1; c < 128; ++c) all += static_cast<char>(c);
  all += "é";
  json::Value doc = {{"schema", "search_filter_expr/v1"},
                     {"expr", {{"op", "contains"}, {"field", "s"}, {"value", all}}}};
  Out o = Translate(Target::kMongodb, json::Dump(doc), Dialect::kExprV1);
  ASSERT_TRUE(o.ok) << o.error;
  const std::string& re = o.filter["s"]["$regex"].get_ref<const std::string&>();
  // Read back: `\x{hh}` is a byte, `\c` is c, anything else is itself; no
  // unescaped metacharacter may remain.
  std::string back;
  for (std::size_t k = 0; k < re.size(); ++k) {
    if (re[k] != '\\') {
      EXPECT_EQ(std::string("^$.|?*+()[]{}").find(re[k]), std::string::npos) << re;
      back += re[k];
    } else if (re.compare(k + 1, 2, "x{") == 0) {
      back += static_cast<char>(std::stoi(re.substr(k + 3, 2), nullptr, 16));
      k += 5;
    } else {
      ASSERT_FALSE(std::isalnum(static_cast<unsigned char>(re[k + 1]))) << re;
      back += re[++k];
    }
  }
  // expr_v1 trims surrounding white space of string values.
  std::string trimmed = all.substr(all.find_first_not_of(" \t\n\r\f\v"));
  EXPECT_TRUE(back == all || back == trimmed) << back;
}

}  // namespace document_stores_test
}  // namespace
}  // namespace engram::filter
