// Chroma: a `where` metadata filter. Chroma has no `$not` and no presence
// test, and since 0.6 its `$ne`/`$nin` also match records without the key.
// Negations are pushed down to the leaves (De Morgan); a negated leaf is
// written only where Chroma can say exactly "absent or not matching", and a
// presence test only where the field's type allows one.
#include <string>
#include <utility>
#include <vector>

#include "filter/translate/targets.h"
#include "filter/translate/translate_util.h"

namespace engram::filter::detail {
namespace {

// Chroma's $and/$or want two or more clauses: Junction writes one alone.
class ChromaWriter : public WriterBase {
 public:
  using WriterBase::WriterBase;

  TranslateResult Write(const Node& root) {
    json::Value out =
        PushNegation(root, false, [this](const Node& n, bool negated) { return Leaf(n, negated); });
    return Finish(std::move(out));
  }

 private:
  const Field& F(const Node& n) const { return schema().field(n.slot); }

  const std::string& Key(const Node& n) {
    const std::string& name = F(n).name;
    // `#document`, `#embedding`... are Chroma's own keys in a where clause.
    if (!name.empty() && name[0] == '#') Fail(n, "a field name starting with '#'");
    return name;
  }

  // An empty set<string> is stored without the key (Chroma keeps no empty
  // arrays), so a set field may be absent whatever its presence.
  bool MaybeAbsent(const Node& n) const {
    return F(n).presence == Presence::kOptional || F(n).type == FieldType::kStringSet;
  }

  // ints (and datetimes, as microseconds) are Chroma ints (i64), floats are
  // written with a fraction or exponent, so Chroma reads them as floats.
  static json::Value Lit(const Value& v) { return JsonLiteral(v, DatetimeAs::kMicros); }

  json::Value List(const Node& n) {
    json::Value arr = json::Value::array();
    for (const Value& v : n.values) arr.push_back(Lit(v));
    return arr;
  }

  // A value of the field's type, for tautologies and presence tests.
  json::Value Zero(const Node& n) {
    switch (F(n).type) {
      case FieldType::kFloat:
        return 0.0;
      case FieldType::kString:
        return "";
      case FieldType::kBool:
        return false;
      default:
        return 0;
    }
  }

  bool IsNumeric(const Node& n) const {
    FieldType t = F(n).type;
    return t == FieldType::kInt || t == FieldType::kFloat || t == FieldType::kDatetime;
  }

  // Presence, where the type allows: a present number is >= 0 or < 0, a
  // present bool is one of the two; a field that is never absent is always
  // present ($eq z or $ne z holds for every record).
  json::Value Present(const Node& n, const char* what) {
    if (IsNumeric(n)) {
      return Junction("$or", {Cond(Key(n), "$gte", Zero(n)), Cond(Key(n), "$lt", Zero(n))});
    }
    if (F(n).type == FieldType::kBool) return Cond(Key(n), "$in", json::Value{false, true});
    if (!MaybeAbsent(n)) {
      return Junction("$or", {Cond(Key(n), "$eq", Zero(n)), Cond(Key(n), "$ne", Zero(n))});
    }
    Fail(n, std::string(what) +
                " on an optional string or set<string> field (Chroma has no "
                "presence test for them)");
    return nullptr;
  }

  json::Value Leaf(const Node& n, bool negated) {
    if (n.IsConst()) {
      FailConstruct(n);
      return nullptr;
    }
    return negated ? Negative(n) : Positive(n);
  }

  json::Value Positive(const Node& n) {
    switch (n.op) {
      case Op::kExists:
        return Present(n, "exists");
      case Op::kCmp:
        if (n.cmp == CmpOp::kNe) return PresentAndNot(n);
        return Cond(Key(n), QueryOp(n.cmp), Lit(n.values[0]));
      case Op::kRange:
        return Junction("$and", BoundConds(Key(n), n, false, Lit));
      case Op::kIn:
        return Cond(Key(n), "$in", List(n));
      case Op::kHasAny: {
        std::vector<json::Value> items;
        for (const Value& v : n.values) items.push_back(Cond(Key(n), "$contains", Lit(v)));
        return Junction("$or", std::move(items));
      }
      default:
        FailConstruct(n);
        return nullptr;
    }
  }

  // ne: present and not equal. Chroma's $ne also matches absent records.
  json::Value PresentAndNot(const Node& n) {
    const json::Value v = Lit(n.values[0]);
    if (F(n).type == FieldType::kBool) return Cond(Key(n), "$eq", !v.get<bool>());
    if (IsNumeric(n)) return Junction("$or", {Cond(Key(n), "$lt", v), Cond(Key(n), "$gt", v)});
    if (!MaybeAbsent(n)) return Cond(Key(n), "$ne", v);
    Fail(n,
         "ne on an optional string field (Chroma's $ne also matches records without the "
         "field, and Chroma has no presence test for strings)");
    return nullptr;
  }

  void FailNegated(const Node& n) {
    Fail(n, "not over " + std::string(ConstructName(ConstructOf(n, schema()))) +
                " on an optional field (Chroma cannot select the records without the field)");
  }

  json::Value Negative(const Node& n) {
    switch (n.op) {
      case Op::kExists:
        // Present bools are in [false, true]; $nin keeps exactly the absent.
        if (F(n).type == FieldType::kBool) return Cond(Key(n), "$nin", json::Value{false, true});
        if (!MaybeAbsent(n)) {
          return Junction("$and", {Cond(Key(n), "$eq", Zero(n)), Cond(Key(n), "$ne", Zero(n))});
        }
        FailNegated(n);
        return nullptr;
      case Op::kCmp:
        // $ne (Chroma >= 0.6) matches a different value or no key at all.
        if (n.cmp == CmpOp::kEq) return Cond(Key(n), "$ne", Lit(n.values[0]));
        if (n.cmp == CmpOp::kNe && F(n).type == FieldType::kBool) {
          return Cond(Key(n), "$ne", !Lit(n.values[0]).get<bool>());
        }
        if (!MaybeAbsent(n)) return Cond(Key(n), QueryOp(n.cmp, true), Lit(n.values[0]));
        FailNegated(n);
        return nullptr;
      case Op::kRange: {
        if (MaybeAbsent(n)) {
          FailNegated(n);
          return nullptr;
        }
        return Junction("$or", BoundConds(Key(n), n, true, Lit));
      }
      case Op::kIn:
        // $nin, like $ne, also matches records without the key.
        return Cond(Key(n), "$nin", List(n));
      case Op::kHasAny:
        Fail(n,
             "not over has_any (what Chroma's $not_contains does on records without the key "
             "is not documented)");
        return nullptr;
      default:
        FailConstruct(n);
        return nullptr;
    }
  }
};

}  // namespace

const TargetSpec& ChromaTarget() {
  static const TargetSpec spec{
      Target::kChroma, "chroma",
      "A `where` filter for Chroma 0.6 or later "
      "(https://docs.trychroma.com/reference/where-filter, "
      "https://docs.trychroma.com/docs/querying-collections/metadata-filtering). Layout: one "
      "metadata key per field; string as str, bool as bool, int as int (Chroma ints are 64-bit), "
      "float as float (literals are written with a fraction, `3.0`, because Chroma compares ints "
      "with ints and floats with floats), datetime as an int of microseconds since the Unix "
      "epoch, set<string> as a string array (Chroma's array metadata) with an empty set stored "
      "by omitting the key; an absent field is an absent key. Since Chroma 0.6 `$ne` and `$nin` "
      "also match records without the key (https://github.com/chroma-core/chroma/pull/4315), so "
      "`not(eq)` is `$ne` and `not(in)` is `$nin`; Chroma has no `$not`, so negations are pushed "
      "to the leaves by De Morgan's laws. Chroma has no presence test either: presence is written "
      "as `>= 0 or < 0` for numbers and `$in [false,true]` for bools (absence of a bool as `$nin "
      "[false,true]`), and ne (present and different) as `< v or > v` for numbers. A `$and` or "
      "`$or` of one clause is written as the clause. Not expressible: a filter that is always "
      "true or false (Chroma has no match-all clause: omit `where`), string ordering and "
      "substring tests (Chroma orders numbers only; `$contains` is array membership), comparing "
      "two fields, in_field, exists/ne on an optional string or set<string> field, the negation "
      "of an order, range, ne or exists on an optional field (no clause selects exactly the "
      "records without the key), the negation of has_any (`$not_contains` on a missing key is "
      "undocumented), and field names starting with `#` (Chroma's own keys).",
      ConstructSet::All().Without({Construct::kTrue, Construct::kFalse, Construct::kOrderString,
                                   Construct::kContains, Construct::kIContains,
                                   Construct::kCmpFields, Construct::kCmpFieldsMixed,
                                   Construct::kInField}),
      TranslateWith<ChromaWriter>};
  return spec;
}

}  // namespace engram::filter::detail
