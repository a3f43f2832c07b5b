// Tests of the document-store translators (Qdrant, Pinecone, Chroma,
// MongoDB): exact outputs for each construct, hostile names and literals, and
// small executable models of each store's documented filter semantics, run
// over hand-written records and compared with the reference evaluator.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/time.h"
#include "filter/compiler.h"
#include "filter/eval/evaluator.h"
#include "schema/schema.h"

namespace engram::filter {
namespace {

std::shared_ptr<const Schema> DocSchema() {
  static const auto schema = Schema::Parse(R"({"fields":[
    {"name":"i","type":"int","optional":true},
    {"name":"f","type":"float","optional":true},
    {"name":"s","type":"string","optional":true},
    {"name":"b","type":"bool","optional":true},
    {"name":"d","type":"datetime","optional":true},
    {"name":"tags","type":"set<string>","optional":true},
    {"name":"j","type":"int","default":0},
    {"name":"r","type":"string","required":true},
    {"name":"g","type":"float","default":1.5},
    {"name":"o d","type":"string","optional":true}]})")
                                 .value();
  return schema;
}

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

// ---------------------------------------------------------------------------
// Executable models: each store's documented filter semantics over records
// laid out as the target's notes say, compared with the reference evaluator.

enum class Store { kQdrant, kPinecone, kChroma, kMongodb };

const std::uint32_t kSlots = 10;  // DocSchema()

std::vector<std::vector<Value>> Records() {
  auto rec = [](std::vector<std::pair<std::uint32_t, Value>> set) {
    std::vector<Value> slots(kSlots);
    slots[6] = std::int64_t{0};
    slots[7] = std::string("x");
    slots[8] = 1.5;
    for (auto& [slot, v] : set) slots[slot] = std::move(v);
    return slots;
  };
  const std::int64_t big = 9007199254740993;  // 2^53 + 1
  return {
      rec({}),
      rec({{0, std::int64_t{1}},
           {1, 1.0},
           {2, std::string("a")},
           {3, true},
           {4, Datetime{0}},
           {5, StringSet{"a", "b"}},
           {6, std::int64_t{3}},
           {7, std::string("a")},
           {8, 2.0},
           {9, std::string("q")}}),
      rec({{0, std::int64_t{-5}},
           {1, -0.5},
           {2, std::string("b")},
           {3, false},
           {4, Datetime{1000000000000000}},
           {5, StringSet{}},
           {6, std::int64_t{-1}},
           {7, std::string("b")},
           {8, -1.0}}),
      rec({{0, big}, {1, 2.5}, {2, std::string("")}, {5, StringSet{"c"}}, {6, big}}),
      rec({{0, std::int64_t{2}},
           {2, std::string("ab")},
           {3, false},
           {4, Datetime{-1}},
           {5, StringSet{"a"}},
           {7, std::string("")},
           {8, 3.5}}),
      rec({{0, std::int64_t{0}},
           {1, 0.0},
           {2, std::string("A")},
           {4, Datetime{1735689600000000}},
           {6, std::int64_t{1}},
           {7, std::string("c")},
           {8, 0.0}}),
      rec({{1, 1e300},
           {2, std::string("a\"b.*")},
           {5, StringSet{"x", "y"}},
           {7, std::string("a\"b.*")}}),
      rec({{0, std::int64_t{4}},
           {3, true},
           {4, Datetime{1000000}},
           {7, std::string("ab")},
           {9, std::string("a")}}),
      rec({{0, std::int64_t{9007199254740991}},
           {1, 1.0},
           {2, std::string("ab")},
           {5, StringSet{"b"}},
           {7, std::string("ab")}}),
  };
}

// A record as the target stores it.
json::Value Layout(Store store, const std::vector<Value>& slots) {
  json::Value doc = json::Value::object();
  const Schema& schema = *DocSchema();
  for (std::uint32_t k = 0; k < kSlots; ++k) {
    const Value& v = slots[k];
    const std::string& name = schema.field(k).name;
    if (std::holds_alternative<std::monostate>(v)) continue;
    if (const auto* i = std::get_if<std::int64_t>(&v)) {
      doc[name] =
          store == Store::kPinecone ? json::Value(static_cast<double>(*i)) : json::Value(*i);
    } else if (const auto* d = std::get_if<double>(&v)) {
      doc[name] = *d;
    } else if (const auto* t = std::get_if<Datetime>(&v)) {
      if (store == Store::kQdrant) {
        doc[name] = FormatDatetime(*t);
      } else {
        doc[name] = store == Store::kPinecone ? json::Value(static_cast<double>(t->micros))
                                              : json::Value(t->micros);
      }
    } else if (const auto* set = std::get_if<StringSet>(&v)) {
      // Pinecone and Chroma layouts omit the key of an empty set.
      if (set->empty() && (store == Store::kPinecone || store == Store::kChroma)) continue;
      doc[name] = *set;
    } else if (const auto* s = std::get_if<std::string>(&v)) {
      doc[name] = *s;
    } else {
      doc[name] = std::get<bool>(v);
    }
  }
  return doc;
}

// A JSON scalar as an engram value for comparing; Extended JSON longs too.
Value Scalar(const json::Value& j) {
  if (j.is_object() && j.contains("$numberLong")) {
    return std::stoll(j["$numberLong"].get<std::string>());
  }
  if (j.is_number_integer()) return j.get<std::int64_t>();
  if (j.is_number_float()) return j.get<double>();
  if (j.is_string()) return j.get<std::string>();
  if (j.is_boolean()) return j.get<bool>();
  return std::monostate{};
}

class MongoLikeModel {
 public:
  explicit MongoLikeModel(Store store) : store_(store) {}

  bool Match(const json::Value& f, const json::Value& doc) const {
    for (auto it = f.begin(); it != f.end(); ++it) {
      const std::string& k = it.key();
      const json::Value& v = it.value();
      bool ok = true;
      if (k == "$and" || k == "$or" || k == "$nor") {
        bool any = false, all = true;
        for (const json::Value& c : v) {
          bool m = Match(c, doc);
          any = any || m;
          all = all && m;
        }
        ok = k == "$and" ? all : k == "$or" ? any : !any;
      } else if (k == "$expr") {
        ok = Scalar(Expr(v, doc)) == Value(true);
      } else {
        for (auto op = v.begin(); op != v.end(); ++op) {
          ok = ok && Field(op.key(), op.value(), doc.contains(k) ? &doc[k] : nullptr);
        }
      }
      if (!ok) return false;
    }
    return true;
  }

 private:
  std::optional<int> Cmp(const json::Value& a, const json::Value& b) const {
    Value x = Scalar(a), y = Scalar(b);
    if (store_ == Store::kPinecone) {  // every number a 64-bit float
      if (auto* i = std::get_if<std::int64_t>(&x)) x = static_cast<double>(*i);
      if (auto* i = std::get_if<std::int64_t>(&y)) y = static_cast<double>(*i);
    }
    if (store_ == Store::kChroma && IsNumeric(x) && x.index() != y.index()) return std::nullopt;
    return CompareValues(x, y);
  }
  bool Eq(const json::Value& a, const json::Value& b) const { return Cmp(a, b) == 0; }
  bool InList(const json::Value& a, const json::Value& list) const {
    return std::any_of(list.begin(), list.end(), [&](const json::Value& e) { return Eq(a, e); });
  }
  // Whether some element (or the scalar itself) satisfies `p`.
  template <typename P>
  static bool Any(const json::Value& dv, P p) {
    if (!dv.is_array()) return p(dv);
    return std::any_of(dv.begin(), dv.end(), p);
  }

  bool Field(const std::string& op, const json::Value& lit, const json::Value* dv) const {
    if (op == "$exists") return (dv != nullptr) == lit.get<bool>();
    const bool missing_matches_negation = store_ != Store::kPinecone;
    if (dv == nullptr) return (op == "$ne" || op == "$nin") && missing_matches_negation;
    auto holds = [&](auto pred) { return Any(*dv, pred); };
    if (op == "$eq") return holds([&](const json::Value& e) { return Eq(e, lit); });
    if (op == "$ne") return !holds([&](const json::Value& e) { return Eq(e, lit); });
    if (op == "$in") return holds([&](const json::Value& e) { return InList(e, lit); });
    if (op == "$nin") return !holds([&](const json::Value& e) { return InList(e, lit); });
    if (op == "$contains") return dv->is_array() && InList(lit, *dv);
    if (op == "$regex")
      return dv->is_string() && dv->get<std::string>().find(Unescape(lit)) != std::string::npos;
    CmpOp c = op == "$lt"    ? CmpOp::kLt
              : op == "$lte" ? CmpOp::kLe
              : op == "$gt"  ? CmpOp::kGt
                             : CmpOp::kGe;
    return holds([&](const json::Value& e) {
      std::optional<int> r = Cmp(e, lit);
      return r && CmpHolds(c, *r);
    });
  }

  static std::string Unescape(const json::Value& re) {
    const std::string& s = re.get_ref<const std::string&>();
    std::string out;
    for (std::size_t k = 0; k < s.size(); ++k) {
      if (s[k] != '\\') {
        out += s[k];
      } else if (s.compare(k + 1, 2, "x{") == 0) {
        out += static_cast<char>(std::stoi(s.substr(k + 3, 2), nullptr, 16));
        k += 5;
      } else {
        out += s[++k];
      }
    }
    return out;
  }

  // The aggregation expressions the MongoDB translator writes.
  json::Value Expr(const json::Value& e, const json::Value& doc) const {
    static const json::Value kMissing = {{"missing", true}};
    if (e.is_string() && e.get<std::string>().rfind('$', 0) == 0) {
      std::string name = e.get<std::string>().substr(1);
      return doc.contains(name) ? doc[name] : kMissing;
    }
    if (!e.is_object() || e.contains("$numberLong")) return e;
    const std::string& op = e.begin().key();
    const json::Value& a = e.begin().value();
    if (op == "$type") return Expr(a, doc) == kMissing ? json::Value("missing") : "present";
    if (op == "$ifNull") {
      json::Value x = Expr(a[0], doc);
      return x == kMissing ? Expr(a[1], doc) : x;
    }
    if (op == "$and") {
      for (const json::Value& c : a) {
        if (Expr(c, doc) != json::Value(true)) return false;
      }
      return true;
    }
    json::Value x = Expr(a[0], doc), y = Expr(a[1], doc);
    if (op == "$in") return y.is_array() && InList(x, y);
    if (x == kMissing || y == kMissing) return op == "$ne" ? x != y : false;  // guarded
    std::optional<int> r = Cmp(x, y);
    if (op == "$ne") return !(r == 0);
    CmpOp c = op == "$eq"    ? CmpOp::kEq
              : op == "$lt"  ? CmpOp::kLt
              : op == "$lte" ? CmpOp::kLe
              : op == "$gt"  ? CmpOp::kGt
                             : CmpOp::kGe;
    return r.has_value() && CmpHolds(c, *r);
  }

  Store store_;
};

class QdrantModel {
 public:
  bool Match(const json::Value& f, const json::Value& doc) const {
    if (f.contains("must")) {
      for (const json::Value& c : f["must"]) {
        if (!Cond(c, doc)) return false;
      }
    }
    if (f.contains("should") && !f["should"].empty()) {
      bool any = false;
      for (const json::Value& c : f["should"]) any = any || Cond(c, doc);
      if (!any) return false;
    }
    if (f.contains("must_not")) {
      for (const json::Value& c : f["must_not"]) {
        if (Cond(c, doc)) return false;
      }
    }
    return true;
  }

 private:
  static std::string Unquote(const std::string& key) {
    return key.size() >= 2 && key[0] == '"' ? key.substr(1, key.size() - 2) : key;
  }
  static const json::Value* Get(const json::Value& doc, const std::string& key) {
    std::string k = Unquote(key);
    return doc.contains(k) && !doc[k].is_null() ? &doc[k] : nullptr;
  }
  // A payload value or literal as a number for `range`: floats as they are,
  // ints as 64-bit floats, RFC 3339 text as its instant.
  static std::optional<double> RangeNum(const json::Value& v, bool* is_time, std::int64_t* micros) {
    if (v.is_string()) {
      auto t = ParseDatetime(v.get<std::string>(), DatetimeForm::kStrict);
      if (!t) return std::nullopt;
      *is_time = true;
      *micros = t->value.micros;
      return 0.0;
    }
    if (v.is_number()) return v.get<double>();
    return std::nullopt;
  }
  static bool InRange(const json::Value& pv, const json::Value& range) {
    for (auto it = range.begin(); it != range.end(); ++it) {
      bool pt = false, lt = false;
      std::int64_t pm = 0, lm = 0;
      std::optional<double> p = RangeNum(pv, &pt, &pm), l = RangeNum(it.value(), &lt, &lm);
      if (!p || !l || pt != lt) return false;
      int c = pt ? (pm < lm ? -1 : pm > lm) : (*p < *l ? -1 : *p > *l);
      const std::string& op = it.key();
      bool ok = op == "gt" ? c > 0 : op == "gte" ? c >= 0 : op == "lt" ? c < 0 : c <= 0;
      if (!ok) return false;
    }
    return true;
  }
  static bool MatchValue(const json::Value& pv, const json::Value& lit) {
    if (pv.is_number_integer() != lit.is_number_integer()) return false;
    return pv.type() == lit.type() && pv == lit;
  }
  bool Cond(const json::Value& c, const json::Value& doc) const {
    if (c.contains("is_empty")) {
      const json::Value* v = Get(doc, c["is_empty"]["key"].get<std::string>());
      return v == nullptr || (v->is_array() && v->empty());
    }
    if (!c.contains("key")) return Match(c, doc);
    const json::Value* v = Get(doc, c["key"].get<std::string>());
    if (v == nullptr) return false;
    auto any = [&](auto p) {
      if (!v->is_array()) return p(*v);
      return std::any_of(v->begin(), v->end(), p);
    };
    if (c.contains("range"))
      return any([&](const json::Value& e) { return InRange(e, c["range"]); });
    const json::Value& m = c["match"];
    if (m.contains("value"))
      return any([&](const json::Value& e) { return MatchValue(e, m["value"]); });
    return any([&](const json::Value& e) {
      return std::any_of(m["any"].begin(), m["any"].end(),
                         [&](const json::Value& l) { return MatchValue(e, l); });
    });
  }
};

struct ModelCase {
  Dialect dialect;
  const char* text;
};

const ModelCase kModelCases[] = {
    {Dialect::kVectorFilter, R"({"s":"a"})"},
    {Dialect::kVectorFilter, R"({"s":{"$ne":"a"}})"},
    {Dialect::kVectorFilter, R"({"s":{"$in":["a","b"]}})"},
    {Dialect::kVectorFilter, R"({"s":{"$nin":["a","b"]}})"},
    {Dialect::kVectorFilter, R"({"s":{"$exists":true}})"},
    {Dialect::kVectorFilter, R"({"s":{"$exists":false}})"},
    {Dialect::kVectorFilter, R"({"s":{"$gt":"a"}})"},
    {Dialect::kVectorFilter, R"({"s":{"$lte":"ab","$gt":""}})"},
    {Dialect::kVectorFilter, R"({"i":1})"},
    {Dialect::kVectorFilter, R"({"i":{"$ne":1}})"},
    {Dialect::kVectorFilter, R"({"i":{"$gt":0}})"},
    {Dialect::kVectorFilter, R"({"i":{"$gte":-5,"$lt":3}})"},
    {Dialect::kVectorFilter, R"({"i":{"$in":[1,2,9007199254740993]}})"},
    {Dialect::kVectorFilter, R"({"i":{"$nin":[0,4]}})"},
    {Dialect::kVectorFilter, R"({"i":{"$exists":false}})"},
    {Dialect::kVectorFilter, R"({"i":{"$lt":9007199254740991}})"},
    {Dialect::kVectorFilter, R"({"i":{"$gte":9007199254740991}})"},
    {Dialect::kVectorFilter, R"({"f":1})"},
    {Dialect::kVectorFilter, R"({"f":{"$ne":0}})"},
    {Dialect::kVectorFilter, R"({"f":{"$gt":-1,"$lte":2.5}})"},
    {Dialect::kVectorFilter, R"({"f":{"$in":[0.0,2.5]}})"},
    {Dialect::kVectorFilter, R"({"f":{"$nin":[1.0,1e300]}})"},
    {Dialect::kVectorFilter, R"({"b":true})"},
    {Dialect::kVectorFilter, R"({"b":{"$ne":true}})"},
    {Dialect::kVectorFilter, R"({"b":{"$in":[true,false]}})"},
    {Dialect::kVectorFilter, R"({"b":{"$nin":[true,false]}})"},
    {Dialect::kVectorFilter, R"({"b":{"$exists":true}})"},
    {Dialect::kVectorFilter, R"({"d":{"$gt":"1970-01-01"}})"},
    {Dialect::kVectorFilter, R"({"d":{"$lte":"2025-01-01"}})"},
    {Dialect::kVectorFilter, R"({"d":{"$ne":"1970-01-01T00:00:01Z"}})"},
    {Dialect::kVectorFilter, R"({"d":{"$in":["1970-01-01","2025-01-01"]}})"},
    {Dialect::kVectorFilter, R"({"tags":"a"})"},
    {Dialect::kVectorFilter, R"({"tags":{"$in":["a","c"]}})"},
    {Dialect::kVectorFilter, R"({"tags":{"$ne":"a"}})"},
    {Dialect::kVectorFilter, R"({"tags":{"$nin":["a","x"]}})"},
    {Dialect::kVectorFilter, R"({"tags":{"$exists":true}})"},
    {Dialect::kVectorFilter, R"({"tags":{"$exists":false}})"},
    {Dialect::kVectorFilter, R"({"j":{"$ne":3}})"},
    {Dialect::kVectorFilter, R"({"j":{"$gt":0}})"},
    {Dialect::kVectorFilter, R"({"$or":[{"j":{"$lt":1}},{"g":{"$gte":2}}]})"},
    {Dialect::kVectorFilter, R"({"r":{"$ne":"a"}})"},
    {Dialect::kVectorFilter, R"({"r":{"$exists":true}})"},
    {Dialect::kVectorFilter, R"({"g":{"$nin":[1.5,2.0]}})"},
    {Dialect::kVectorFilter, R"({"$or":[{"s":"a"},{"i":{"$gt":1}}]})"},
    {Dialect::kVectorFilter, R"({"$and":[{"s":{"$ne":"a"}},{"i":{"$ne":2}}]})"},
    {Dialect::kVectorFilter, R"({"$or":[{"s":{"$ne":"a"}},{"b":{"$ne":false}}]})"},
    {Dialect::kVectorFilter, R"({"o d":"q"})"},
    {Dialect::kVectorFilter, R"({"o d":{"$ne":"q"}})"},
    {Dialect::kVectorFilter, R"({})"},
    {Dialect::kVectorFilter, R"({"i":{"$gt":5,"$lt":2}})"},
    {Dialect::kRetrieve, R"({"op":"ne","lhs":{"knowledge":"s"},"rhs":{"value":"a"}})"},
    {Dialect::kRetrieve, R"({"op":"ne","lhs":{"knowledge":"i"},"rhs":{"value":1}})"},
    {Dialect::kRetrieve, R"({"op":"ne","lhs":{"knowledge":"f"},"rhs":{"value":1.0}})"},
    {Dialect::kRetrieve, R"({"op":"ne","lhs":{"knowledge":"b"},"rhs":{"value":true}})"},
    {Dialect::kRetrieve, R"({"op":"ne","lhs":{"knowledge":"r"},"rhs":{"value":"a"}})"},
    {Dialect::kRetrieve,
     R"({"op":"not","arg":{"op":"ne","lhs":{"knowledge":"b"},"rhs":{"value":true}}})"},
    {Dialect::kRetrieve,
     R"({"op":"not","arg":{"op":"ne","lhs":{"knowledge":"i"},"rhs":{"value":1}}})"},
    {Dialect::kRetrieve,
     R"({"op":"not","arg":{"op":"lt","lhs":{"knowledge":"i"},"rhs":{"value":2}}})"},
    {Dialect::kRetrieve,
     R"({"op":"not","arg":{"op":"gt","lhs":{"knowledge":"j"},"rhs":{"value":0}}})"},
    {Dialect::kRetrieve,
     R"({"op":"not","arg":{"op":"or","args":[{"op":"eq","lhs":{"knowledge":"s"},"rhs":{"value":"a"}},{"op":"in","needle":{"value":"b"},"haystack":{"knowledge":"tags"}}]}})"},
    {Dialect::kRetrieve, R"({"op":"lt","lhs":{"knowledge":"i"},"rhs":{"knowledge":"f"}})"},
    {Dialect::kRetrieve, R"({"op":"ge","lhs":{"knowledge":"j"},"rhs":{"knowledge":"i"}})"},
    {Dialect::kRetrieve, R"({"op":"eq","lhs":{"knowledge":"s"},"rhs":{"knowledge":"r"}})"},
    {Dialect::kRetrieve,
     R"({"op":"in","needle":{"knowledge":"s"},"haystack":{"knowledge":"tags"}})"},
    {Dialect::kRetrieve,
     R"({"op":"not","arg":{"op":"in","needle":{"knowledge":"s"},"haystack":{"knowledge":"tags"}}})"},
    {Dialect::kExprV1,
     R"({"schema":"search_filter_expr/v1","expr":{"op":"contains","field":"s","value":"a"}})"},
    {Dialect::kExprV1,
     R"({"schema":"search_filter_expr/v1","expr":{"op":"not","expr":{"op":"contains","field":"r","value":"\".*"}}})"},
};

TEST(DocumentStores, ModelsAgreeWithTheEvaluator) {
  const std::vector<std::vector<Value>> records = Records();
  struct Entry {
    Target target;
    Store store;
    int translated = 0;
  };
  std::vector<Entry> entries = {{Target::kQdrant, Store::kQdrant},
                                {Target::kPinecone, Store::kPinecone},
                                {Target::kChroma, Store::kChroma},
                                {Target::kMongodb, Store::kMongodb}};
  for (const ModelCase& mc : kModelCases) {
    auto c = Compile(mc.dialect, mc.text, DocSchema());
    ASSERT_TRUE(c.ok()) << mc.text << ": " << c.diagnostic().message;
    for (Entry& e : entries) {
      Checked<Translation> t = TranslateCompiled(c.value(), mc.dialect, e.target);
      if (!t.ok()) continue;
      ++e.translated;
      const json::Value& f = t.value().filter;
      for (std::size_t r = 0; r < records.size(); ++r) {
        const bool want = Evaluate(c.value().optimized.root, records[r]);
        const json::Value doc = Layout(e.store, records[r]);
        const bool got = e.store == Store::kQdrant ? QdrantModel().Match(f, doc)
                                                   : MongoLikeModel(e.store).Match(f, doc);
        EXPECT_EQ(got, want) << TargetName(e.target) << " " << mc.text << "\n  -> " << json::Dump(f)
                             << "\n  record " << r << ": " << json::Dump(doc);
      }
    }
  }
  for (const Entry& e : entries) {
    EXPECT_GE(e.translated, 40) << TargetName(e.target);
  }
}

}  // namespace
}  // namespace engram::filter
