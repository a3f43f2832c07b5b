// What the document-store translator tests share (document_stores_test.cc,
// document_store_models_test.cc; tests only): the schema of every field type
// and presence, and small executable models of each store's documented
// filter semantics (Qdrant; the Mongo-like Pinecone, Chroma and MongoDB) over
// hand-written records laid out as the target's notes say, for comparing
// with the reference evaluator.
#ifndef ENGRAM_FILTER_TRANSLATE_STORE_MODELS_H_
#define ENGRAM_FILTER_TRANSLATE_STORE_MODELS_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/json.h"
#include "base/time.h"
#include "schema/schema.h"
#include "schema/value.h"

namespace engram::filter::testing {

inline std::shared_ptr<const Schema> DocSchema() {
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

enum class Store { kQdrant, kPinecone, kChroma, kMongodb };

inline constexpr std::uint32_t kSlots = 10;  // DocSchema()

inline std::vector<std::vector<Value>> Records() {
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
inline json::Value Layout(Store store, const std::vector<Value>& slots) {
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
inline Value Scalar(const json::Value& j) {
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

}  // namespace engram::filter::testing

#endif  // ENGRAM_FILTER_TRANSLATE_STORE_MODELS_H_
