// Qdrant: a filter object ({"must":…,"should":…,"must_not":…}) over point
// payloads. Qdrant's clauses nest, so and/or/not map one to one; a field
// condition on a missing key is false and `must_not` inverts it, which is
// exactly engram's rule for absent fields.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/time.h"
#include "filter/translate/targets.h"
#include "filter/translate/translate_util.h"

namespace engram::filter::detail {
namespace {

// Qdrant's clauses keep a list of one as it is.
json::Value Clause(const char* clause, std::vector<json::Value> items) {
  return Obj(clause, Array(std::move(items)));
}

// A payload key as Qdrant's key syntax reads it: letters, digits, `_` and `-`
// as they are; anything else inside double quotes, which cannot hold `"` or
// `\` (there is no escape).
std::optional<std::string> KeyPath(const std::string& name) {
  bool raw = !name.empty();
  for (unsigned char c : name) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
          c == '-')) {
      raw = false;
    }
    if (c == '"' || c == '\\') return std::nullopt;
  }
  if (raw) return name;
  return "\"" + name + "\"";
}

class QdrantWriter : public WriterBase {
 public:
  using WriterBase::WriterBase;

  TranslateResult Write(const Node& root) {
    json::Value out = Expr(root);
    // A field condition alone is not a filter: it goes in a `must`.
    if (out.is_object() && (out.contains("key") || out.contains("is_empty"))) {
      out = Clause("must", {std::move(out)});
    }
    return Finish(std::move(out));
  }

 private:
  std::string Key(const Node& n) { return Key(n, n.slot); }
  std::string Key(const Node& n, std::uint32_t slot) {
    std::optional<std::string> key = KeyPath(schema().field(slot).name);
    if (!key) {
      Fail(n, "a field name with '\"' or '\\' (Qdrant's quoted keys have no escapes)");
      return "";
    }
    return *key;
  }

  json::Value Num(const Node& n, const Value& v) {
    if (const auto* d = std::get_if<double>(&v)) return *d;
    if (const auto* t = std::get_if<Datetime>(&v)) return FormatDatetime(*t);
    // `range` reads numbers as 64-bit floats; rounding is monotonic, so
    // stored ints beyond ±2^53 still compare correctly with smaller literals.
    const std::int64_t i = std::get<std::int64_t>(v);
    if (Exceeds(i, kMaxSafeInt)) {
      Fail(n, "an int beyond ±(2^53-1) in an order (Qdrant's range reads 64-bit floats)");
    }
    return i;
  }

  static json::Value Match(const Value& v) {
    if (const auto* s = std::get_if<std::string>(&v)) return *s;
    if (const auto* b = std::get_if<bool>(&v)) return *b;
    return std::get<std::int64_t>(v);
  }

  json::Value FieldCond(const Node& n, const char* kind, json::Value body) {
    json::Value out = json::Value::object();
    out["key"] = Key(n);
    out[kind] = std::move(body);
    return out;
  }

  json::Value Range(const Node& n, const char* lo_op, const Value* lo, const char* hi_op,
                    const Value* hi) {
    json::Value r = json::Value::object();
    if (lo) r[lo_op] = Num(n, *lo);
    if (hi) r[hi_op] = Num(n, *hi);
    return FieldCond(n, "range", std::move(r));
  }

  // Equality: `match` for keywords, ints and bools (exact); floats and
  // datetimes have no `match`, so a closed range [v, v].
  json::Value Eq(const Node& n, const Value& v) {
    if (std::holds_alternative<double>(v) || std::holds_alternative<Datetime>(v)) {
      return Range(n, "gte", &v, "lte", &v);
    }
    return FieldCond(n, "match", Obj("value", Match(v)));
  }

  json::Value Empty(const Node& n, std::uint32_t slot) {
    return Obj("is_empty", Obj("key", Key(n, slot)));
  }
  json::Value Empty(const Node& n) { return Empty(n, n.slot); }

  json::Value Expr(const Node& n) {
    switch (n.op) {
      case Op::kTrue:
        return json::Value::object();
      case Op::kFalse: {
        // A contradiction on any key: no point is both empty and not.
        if (schema().fields().empty()) {
          Fail(n, "a constant filter over a schema without fields");
          return nullptr;
        }
        json::Value out = Clause("must", {Empty(n, 0)});
        out["must_not"] = json::Value::array({Empty(n, 0)});
        return out;
      }
      case Op::kNot:
        return Clause("must_not", {Expr(n.children[0])});
      case Op::kAnd:
      case Op::kOr: {
        std::vector<json::Value> items;
        for (const Node& c : n.children) items.push_back(Expr(c));
        return Clause(n.op == Op::kAnd ? "must" : "should", std::move(items));
      }
      default:
        return Leaf(n);
    }
  }

  json::Value Leaf(const Node& n) {
    const FieldType type = schema().field(n.slot).type;
    switch (n.op) {
      case Op::kExists:
        // is_empty is true for a missing key, null and []: an empty set is
        // present in engram but empty to Qdrant.
        if (type == FieldType::kStringSet) {
          Fail(n, "exists on a set<string> field (Qdrant's is_empty is true for [])");
        }
        return Clause("must_not", {Empty(n)});
      case Op::kCmp:
        switch (n.cmp) {
          case CmpOp::kEq:
            return Eq(n, n.values[0]);
          case CmpOp::kNe:
            return Clause("must_not", {Empty(n), Eq(n, n.values[0])});
          case CmpOp::kLt:
            return Range(n, "lt", &n.values[0], "", nullptr);
          case CmpOp::kLe:
            return Range(n, "lte", &n.values[0], "", nullptr);
          case CmpOp::kGt:
            return Range(n, "gt", &n.values[0], "", nullptr);
          case CmpOp::kGe:
            return Range(n, "gte", &n.values[0], "", nullptr);
        }
        return nullptr;
      case Op::kRange:
        return Range(n, n.lo && n.lo->inclusive ? "gte" : "gt", n.lo ? &n.lo->value : nullptr,
                     n.hi && n.hi->inclusive ? "lte" : "lt", n.hi ? &n.hi->value : nullptr);
      case Op::kIn:
        if (type == FieldType::kString || type == FieldType::kInt) return Any(n);
        {
          std::vector<json::Value> items;
          for (const Value& v : n.values) items.push_back(Eq(n, v));
          return Clause("should", std::move(items));
        }
      case Op::kHasAny:
        // `match` on an array payload holds when any element matches.
        return Any(n);
      default:
        FailConstruct(n);
        return nullptr;
    }
  }

  json::Value Any(const Node& n) {
    json::Value arr = json::Value::array();
    for (const Value& v : n.values) arr.push_back(Match(v));
    return FieldCond(n, "match", Obj("any", std::move(arr)));
  }
};

}  // namespace

const TargetSpec& QdrantTarget() {
  static const TargetSpec spec{
      Target::kQdrant, "qdrant",
      "A Qdrant `filter` object (https://qdrant.tech/documentation/concepts/filtering/). Layout: "
      "one top-level payload key per field; string as string, bool as boolean, int as a JSON "
      "integer, float as a JSON number, datetime as RFC 3339 text (Qdrant's datetime payload, "
      "https://qdrant.tech/documentation/concepts/payload/), set<string> as an array of strings; "
      "an absent field is a missing key. and/or/not are `must`/`should`/`must_not`, nested as "
      "filters. A condition on a missing key is false and `must_not` inverts it, so `not` keeps "
      "the points without the field as engram does. Equality is `match.value` (exact for "
      "keywords, int64 and bools); floats and datetimes have no `match`, so equality is a closed "
      "`range` [v, v]; `in` is `match.any` (strings, ints) or a `should` of equalities; `match` "
      "on an array holds when any element matches (has_any). exists is `must_not is_empty`, and "
      "ne (present and different) `must_not [is_empty, eq]`. Keys that are not plain "
      "identifiers are written quoted (`\"odd name\"`), Qdrant's key syntax. Match-all is `{}`; "
      "match-nothing is `is_empty` and `must_not is_empty` on one key. Not expressible: string "
      "ordering (`range` is numeric or datetime), substring tests (`match.text` depends on the "
      "full-text index), comparing two fields, in_field, exists on a set<string> field "
      "(`is_empty` is also true for an empty array, which engram counts as present), field names "
      "with `\"` or `\\` (a quoted key has no escapes), and int bounds of an order beyond "
      "±(2^53-1) (`range` reads 64-bit floats; smaller bounds stay exact since rounding is "
      "monotonic).",
      ConstructSet::All().Without({Construct::kOrderString, Construct::kContains,
                                   Construct::kIContains, Construct::kCmpFields,
                                   Construct::kCmpFieldsMixed, Construct::kInField}),
      TranslateWith<QdrantWriter>};
  return spec;
}

}  // namespace engram::filter::detail
