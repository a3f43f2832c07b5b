// Translations back into engram's own dialects (FILTERS.md §2.1-2.3):
// `retrieve`, `expr_v1` and `vector_filter`. Each writer emits the dialect's
// JSON so that compiling it against the same schema gives a filter the
// evaluator agrees with on every record; where a dialect has no construct
// for a node, it is spelled with ones the dialect has (a tautology over a
// field for a constant, De Morgan for `not` in vector_filter), and where that
// is impossible or a dialect limit would be crossed, the node is Unsupported.
#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "base/time.h"
#include "base/unicode.h"
#include "filter/dialects/dialect.h"
#include "filter/translate/targets.h"
#include "filter/translate/translate_util.h"

namespace engram::filter::detail {
namespace {

using Json = json::Value;

// What every writer shares: the first failure in pre-order, the dialect's
// node and depth limits (counted as its parser counts, as nodes are written),
// and literals in the JSON type the dialect reads back as the same Value.
class Writer : public WriterBase {
 public:
  // The limits are the dialect's own (its Policy), so whatever is written
  // here compiles back.
  Writer(const Schema& schema, Dialect dialect)
      : WriterBase(schema),
        dialect_(DialectName(dialect)),
        max_depth_(GetDialect(dialect).policy.max_depth),
        max_nodes_(GetDialect(dialect).policy.max_nodes) {}

  TranslateResult Finish(const Node& root, Json out) {
    if (json::Dump(out).size() > kMaxFilterBytes) {
      Fail(root, "a filter text of more than " + std::to_string(kMaxFilterBytes) + " bytes (" +
                     std::string(dialect_) + "'s limit)");
    }
    return WriterBase::Finish(std::move(out));
  }

 protected:
  // WriterBase::Fail, as the null the writer puts where the node would go.
  Json Fail(const Node& n, std::string what) {
    WriterBase::Fail(n, std::move(what));
    return nullptr;
  }

  // One written node at `depth` (the root is 1), for IR node `n`.
  void Count(const Node& n, std::size_t depth) {
    if (++nodes_ > max_nodes_) {
      Fail(n, "more than " + std::to_string(max_nodes_) + " nodes (" + std::string(dialect_) +
                  "'s limit)");
    } else if (depth > max_depth_) {
      Fail(n, "a depth of more than " + std::to_string(max_depth_) + " (" + std::string(dialect_) +
                  "'s limit)");
    }
  }

  const Field& FieldOf(std::uint32_t slot) const { return schema().field(slot); }

  // Dialect-specific rules on string literals (expr_v1 trims and bounds them).
  virtual void CheckString(const Node&, const std::string&) {}

  Json Literal(const Node& n, const Value& v) {
    if (const auto* b = std::get_if<bool>(&v)) return *b;
    if (const auto* i = std::get_if<std::int64_t>(&v)) return *i;
    if (const auto* d = std::get_if<double>(&v)) {
      // A double always prints with a fraction or exponent: read back as a float.
      if (!std::isfinite(*d)) return Fail(n, "a float that is not finite");
      return *d;
    }
    if (const auto* s = std::get_if<std::string>(&v)) {
      if (!IsValidUtf8(*s)) return Fail(n, "a string that is not valid UTF-8");
      CheckString(n, *s);
      return *s;
    }
    if (const auto* t = std::get_if<Datetime>(&v)) {
      std::string text = FormatDatetime(*t);
      std::optional<ParsedDatetime> back = ParseDatetime(text, DatetimeForm::kStrict);
      if (!back || back->value != *t) return Fail(n, "a datetime outside the years 0000-9999");
      CheckString(n, text);
      return text;
    }
    return Fail(n, "a literal of no scalar type");
  }

  Json List(const Node& n, std::size_t limit) {
    if (n.values.size() > limit) {
      return Fail(n, "a list of more than " + std::to_string(limit) + " values (" +
                         std::string(dialect_) + "'s limit)");
    }
    Json out = Json::array();
    for (const Value& v : n.values) out.push_back(Literal(n, v));
    return out;
  }

  // A filterable field the dialect can name, for writing a constant as a
  // test that holds (or fails) on every record.
  const Field* ConstantField(const Node& n) {
    for (const Field& f : schema().fields()) {
      if (f.filterable && Nameable(f)) return &f;
    }
    Fail(n, "a constant over a schema with no filterable field");
    return nullptr;
  }
  virtual bool Nameable(const Field&) const { return true; }

 private:
  std::string_view dialect_;
  std::size_t max_depth_, max_nodes_;
  std::size_t nodes_ = 0;
};

// Each dialect's name for a comparison, indexed by CmpOp (eq ne lt le gt ge).
enum Spelling { kRetrieveOps, kExprV1Ops, kVectorFilterOps };
const char* CmpName(CmpOp op, Spelling spelling) {
  static constexpr const char* kNames[3][6] = {{"eq", "ne", "lt", "le", "gt", "ge"},
                                               {"eq", "neq", "lt", "lte", "gt", "gte"},
                                               {"$eq", "$ne", "$lt", "$lte", "$gt", "$gte"}};
  return kNames[spelling][static_cast<int>(op)];
}

// The ordering that holds exactly where `op` does not, on a present value
// (engram's values are totally ordered within a type; records hold no NaN).
CmpOp Opposite(CmpOp op) {
  static constexpr CmpOp kOpposite[] = {CmpOp::kNe, CmpOp::kEq, CmpOp::kGe,
                                        CmpOp::kGt, CmpOp::kLe, CmpOp::kLt};
  return kOpposite[static_cast<int>(op)];
}

// The comparison a range bound makes.
CmpOp BoundOp(const Bound& b, bool lower) {
  return lower ? LowerBoundOp(b.inclusive) : UpperBoundOp(b.inclusive);
}

// `retrieve`: {"op":..,"lhs":..,"rhs":..} with {"knowledge": name} and
// {"value": literal} operands; a literal keeps its JSON type and is compared
// exactly (a string facing a datetime field reads as RFC 3339).
class RetrieveWriter : public Writer {
 public:
  explicit RetrieveWriter(const Schema& schema) : Writer(schema, Dialect::kRetrieve) {}

  Json Write(const Node& n, std::size_t depth) {
    Count(n, depth);
    switch (n.op) {
      case Op::kTrue:
      case Op::kFalse:  // literal against literal folds to a constant
        return Cmp("eq", Value1(1), Value1(n.op == Op::kTrue ? 1 : 2));
      case Op::kAnd:
      case Op::kOr: {
        Json args = Json::array();
        for (const Node& c : n.children) args.push_back(Write(c, depth + 1));
        return Json{{"op", n.op == Op::kAnd ? "and" : "or"}, {"args", std::move(args)}};
      }
      case Op::kNot:
        return Json{{"op", "not"}, {"arg", Write(n.children[0], depth + 1)}};
      case Op::kExists:
        return Exists(n, depth);
      case Op::kCmp:
        if (FieldOf(n.slot).type == FieldType::kStringSet) return Fail(n, "eq on a set<string>");
        return Cmp(CmpName(n.cmp, kRetrieveOps), Knowledge(n.slot),
                   Value1(Literal(n, n.values[0])));
      case Op::kRange:
        return Range(n, depth);
      case Op::kIn:
        if (FieldOf(n.slot).type == FieldType::kString) {
          return In(Knowledge(n.slot), Value1(List(n, kMaxArrayLiteral)));
        }
        return AnyOf(n, depth, [&](const Value& v) {
          return Cmp("eq", Knowledge(n.slot), Value1(Literal(n, v)));
        });
      case Op::kHasAny:
        return AnyOf(n, depth,
                     [&](const Value& v) { return In(Value1(Literal(n, v)), Knowledge(n.slot)); });
      case Op::kCmpFields: {
        FieldType t = FieldOf(n.slot).type;
        if (IsOrdering(n.cmp) && !IsNumeric(t) && t != FieldType::kDatetime) {
          return Fail(n, "an ordering of two " + std::string(FieldTypeName(t)) + " fields");
        }
        return Cmp(CmpName(n.cmp, kRetrieveOps), Knowledge(n.slot), Knowledge(n.other));
      }
      case Op::kInField:
        return In(Knowledge(n.slot), Knowledge(n.other));
      default:
        return Fail(n, "this node");
    }
  }

 private:
  Json Knowledge(std::uint32_t slot) const { return Json{{"knowledge", FieldOf(slot).name}}; }
  static Json Value1(Json v) { return Json{{"value", std::move(v)}}; }
  static Json Cmp(const char* op, Json lhs, Json rhs) {
    return Json{{"op", op}, {"lhs", std::move(lhs)}, {"rhs", std::move(rhs)}};
  }
  static Json In(Json needle, Json haystack) {
    return Json{{"op", "in"}, {"needle", std::move(needle)}, {"haystack", std::move(haystack)}};
  }

  // One test per value, or-ed (an empty list is false).
  template <typename Each>
  Json AnyOf(const Node& n, std::size_t depth, Each each) {
    if (n.values.empty()) return Cmp("eq", Value1(1), Value1(2));
    if (n.values.size() == 1) return each(n.values[0]);
    Json args = Json::array();
    for (const Value& v : n.values) {
      Count(n, depth + 1);
      args.push_back(each(v));
    }
    return Json{{"op", "or"}, {"args", std::move(args)}};
  }

  // No exists op: a present scalar either equals a value of its type or is
  // "present and not equal" to it (`ne` is false on a missing field).
  Json Exists(const Node& n, std::size_t depth) {
    const Field& f = FieldOf(n.slot);
    if (f.type == FieldType::kStringSet) {
      // Only the schema can say a set is there: then exists always holds.
      if (f.presence != Presence::kOptional) return Cmp("eq", Value1(1), Value1(1));
      return Fail(n, "exists on an optional set<string> field");
    }
    // Any value of the field's type; strings facing a datetime read as one.
    const Json v = f.type == FieldType::kInt        ? Json(0)
                   : f.type == FieldType::kFloat    ? Json(0.0)
                   : f.type == FieldType::kBool     ? Json(true)
                   : f.type == FieldType::kDatetime ? Json("1970-01-01T00:00:00Z")
                                                    : Json("");
    Count(n, depth + 1);
    Count(n, depth + 1);
    Json eq = Cmp("eq", Knowledge(n.slot), Value1(v));
    Json ne = Cmp("ne", Knowledge(n.slot), Value1(v));
    return Json{{"op", "or"}, {"args", Json::array({std::move(eq), std::move(ne)})}};
  }

  Json Range(const Node& n, std::size_t depth) {
    auto bound = [&](const Bound& b, bool lower) {
      return Cmp(CmpName(BoundOp(b, lower), kRetrieveOps), Knowledge(n.slot),
                 Value1(Literal(n, b.value)));
    };
    if (!n.lo || !n.hi) return n.lo ? bound(*n.lo, true) : bound(*n.hi, false);
    Count(n, depth + 1);
    Count(n, depth + 1);
    return Json{{"op", "and"}, {"args", Json::array({bound(*n.lo, true), bound(*n.hi, false)})}};
  }
};

// `expr_v1`: {"schema":"search_filter_expr/v1","expr":..}; leaves
// {"op","field","value"} typed by the field; `neq` is not(eq) and `eq null`
// / `neq null` test absence / presence of optional fields.
class ExprV1Writer : public Writer {
 public:
  explicit ExprV1Writer(const Schema& schema) : Writer(schema, Dialect::kExprV1) {}

  Json Write(const Node& n, std::size_t depth) {
    Count(n, depth);
    switch (n.op) {
      case Op::kTrue:
      case Op::kFalse:
        return Constant(n, depth, n.op == Op::kTrue);
      case Op::kAnd:
      case Op::kOr: {
        Json args = Json::array();
        for (const Node& c : n.children) args.push_back(Write(c, depth + 1));
        return Json{{"op", n.op == Op::kAnd ? "and" : "or"}, {"args", std::move(args)}};
      }
      case Op::kNot:
        return Not(n, depth);
      case Op::kExists:
        if (Optional(n)) return Leaf("neq", n, nullptr);
        return Constant(n, depth, true);  // a default or required field is always there
      case Op::kCmp:
        if (n.cmp != CmpOp::kNe)
          return Leaf(CmpName(n.cmp, kExprV1Ops), n, Literal(n, n.values[0]));
        // neq alone is also true where the field is missing.
        if (!Optional(n)) return Leaf("neq", n, Literal(n, n.values[0]));
        Count(n, depth + 1);
        Count(n, depth + 1);
        return Junction("and", Leaf("neq", n, nullptr), Leaf("neq", n, Literal(n, n.values[0])));
      case Op::kRange: {
        auto bound = [&](const Bound& b, bool lower) {
          return Leaf(CmpName(BoundOp(b, lower), kExprV1Ops), n, Literal(n, b.value));
        };
        if (!n.lo || !n.hi) return n.lo ? bound(*n.lo, true) : bound(*n.hi, false);
        Count(n, depth + 1);
        Count(n, depth + 1);
        return Junction("and", bound(*n.lo, true), bound(*n.hi, false));
      }
      case Op::kIn:
      case Op::kHasAny:  // `in` on a set<string> field shares an element
        return Leaf("in", n, List(n, kExprV1MaxInList));
      case Op::kContains:
        return Leaf("contains", n, Literal(n, n.values[0]));
      default:
        return Fail(n, "this node");
    }
  }

 private:
  void CheckString(const Node& n, const std::string& s) override {
    if (s.size() > kExprV1MaxStringBytes) {
      Fail(n, "a string of more than " + std::to_string(kExprV1MaxStringBytes) +
                  " bytes (expr_v1's limit)");
    }
    if (TrimWhitespace(s).size() != s.size()) {
      Fail(n, "a string with leading or trailing white space (expr_v1 trims string values)");
    }
  }
  // Names match ignoring ASCII case: the name must find this field first.
  bool Nameable(const Field& f) const override { return schema().FindIgnoringCase(f.name) == &f; }
  bool Optional(const Node& n) const { return FieldOf(n.slot).presence == Presence::kOptional; }

  Json Leaf(const char* op, const Node& n, Json value) {
    const Field& f = FieldOf(n.slot);
    if (!Nameable(f)) {
      return Fail(n, "a field whose name another field matches ignoring ASCII case");
    }
    return Json{{"op", op}, {"field", f.name}, {"value", std::move(value)}};
  }
  static Json Junction(const char* op, Json a, Json b) {
    return Json{{"op", op}, {"args", Json::array({std::move(a), std::move(b)})}};
  }

  // `in f []` is false on every record, `not(in f [])` true.
  Json Constant(const Node& n, std::size_t depth, bool value) {
    const Field* f = ConstantField(n);
    if (!f) return nullptr;
    Json in = Json{{"op", "in"}, {"field", f->name}, {"value", Json::array()}};
    if (!value) return in;
    Count(n, depth + 1);
    return Json{{"op", "not"}, {"expr", std::move(in)}};
  }

  // not(eq) is `neq`, not(exists) is `eq null`: one node each.
  Json Not(const Node& n, std::size_t depth) {
    const Node& c = n.children[0];
    if (c.op == Op::kCmp && c.cmp == CmpOp::kEq) return Leaf("neq", c, Literal(c, c.values[0]));
    if (c.op == Op::kExists && Optional(c)) return Leaf("eq", c, nullptr);
    return Json{{"op", "not"}, {"expr", Write(c, depth + 1)}};
  }
};

// `vector_filter`: Mongo-style {field: {$op: value}}. It has no `not`, so
// negations are pushed to the leaves (De Morgan), where each has an exact
// complement: `$ne`/`$nin`/`$exists:false` are true on a missing field, and
// the complement of an ordering is the opposite ordering or a missing field.
class VectorFilterWriter : public Writer {
 public:
  explicit VectorFilterWriter(const Schema& schema) : Writer(schema, Dialect::kVectorFilter) {}

  Json Write(const Node& n, std::size_t depth, bool negated) {
    if (depth == 1 && (n.op == Op::kTrue || n.op == Op::kFalse) && (n.op == Op::kTrue) != negated) {
      Count(n, depth);
      return Json::object();  // `{}`, the whole filter, matches everything
    }
    switch (n.op) {
      case Op::kTrue:
      case Op::kFalse: {
        Count(n, depth);
        const Field* f = ConstantField(n);
        if (!f) return nullptr;
        // `$in []` is false on every record, `$nin []` true.
        bool value = (n.op == Op::kTrue) != negated;
        return Json{{f->name, Json{{value ? "$nin" : "$in", Json::array()}}}};
      }
      case Op::kAnd:
      case Op::kOr: {
        Count(n, depth);
        Json args = Json::array();
        for (const Node& c : n.children) args.push_back(Write(c, depth + 1, negated));
        bool conjunction = (n.op == Op::kAnd) != negated;
        return Json{{conjunction ? "$and" : "$or", std::move(args)}};
      }
      case Op::kNot:
        return Write(n.children[0], depth, !negated);
      case Op::kExists:
        Count(n, depth);
        return Pred(n, "$exists", !negated);
      case Op::kCmp:
        return Cmp(n, depth, negated);
      case Op::kRange:
        return Range(n, depth, negated);
      case Op::kIn:
      case Op::kHasAny:  // on a set<string> field `$in` shares an element
        Count(n, depth);
        return Pred(n, negated ? "$nin" : "$in", List(n, kMaxArrayLiteral));
      default:
        Count(n, depth);
        return Fail(n, "this node");
    }
  }

 private:
  static const char* OpName(CmpOp op) { return CmpName(op, kVectorFilterOps); }

  Json Pred(const Node& n, const char* op, Json value) {
    return Json{{FieldOf(n.slot).name, Json{{op, std::move(value)}}}};
  }
  Json Missing(const Node& n) { return Pred(n, "$exists", false); }

  // `{"$or":[{x missing}, ...]}`: each part written as one predicate.
  Json MissingOr(const Node& n, std::size_t depth, Json parts) {
    Json args = Json::array({Missing(n)});
    for (Json& p : parts) args.push_back(std::move(p));
    for (std::size_t i = 0; i < args.size(); ++i) Count(n, depth + 1);
    return Json{{"$or", std::move(args)}};
  }

  Json Cmp(const Node& n, std::size_t depth, bool negated) {
    Count(n, depth);
    if (FieldOf(n.slot).type == FieldType::kStringSet) return Fail(n, "a comparison of a set");
    Json v = Literal(n, n.values[0]);
    if (n.cmp == CmpOp::kEq) return Pred(n, negated ? "$ne" : "$eq", std::move(v));
    if (n.cmp == CmpOp::kNe) {
      if (negated) return MissingOr(n, depth, Json::array({Pred(n, "$eq", std::move(v))}));
      // $ne alone is true where the field is missing: an implicit and of two.
      Count(n, depth + 1);
      Count(n, depth + 1);
      return Json{{FieldOf(n.slot).name, Json{{"$exists", true}, {"$ne", std::move(v)}}}};
    }
    if (!negated) return Pred(n, OpName(n.cmp), std::move(v));
    return MissingOr(n, depth, Json::array({Pred(n, OpName(Opposite(n.cmp)), std::move(v))}));
  }

  Json Range(const Node& n, std::size_t depth, bool negated) {
    Count(n, depth);
    auto op = BoundOp;
    if (negated) {
      Json parts = Json::array();
      if (n.lo)
        parts.push_back(Pred(n, OpName(Opposite(op(*n.lo, true))), Literal(n, n.lo->value)));
      if (n.hi)
        parts.push_back(Pred(n, OpName(Opposite(op(*n.hi, false))), Literal(n, n.hi->value)));
      return MissingOr(n, depth, std::move(parts));
    }
    if (!n.lo || !n.hi) {
      const Bound& b = n.lo ? *n.lo : *n.hi;
      return Pred(n, OpName(op(b, n.lo.has_value())), Literal(n, b.value));
    }
    Count(n, depth + 1);
    Count(n, depth + 1);
    Json ops = Json{{OpName(op(*n.lo, true)), Literal(n, n.lo->value)},
                    {OpName(op(*n.hi, false)), Literal(n, n.hi->value)}};
    return Json{{FieldOf(n.slot).name, std::move(ops)}};
  }
};

TranslateResult TranslateRetrieve(const Node& root, const Schema& schema) {
  RetrieveWriter w(schema);
  Json out = w.Write(root, 1);
  return w.Finish(root, std::move(out));
}

TranslateResult TranslateExprV1(const Node& root, const Schema& schema) {
  ExprV1Writer w(schema);
  Json expr = w.Write(root, 1);
  return w.Finish(root, Json{{"schema", kExprV1Schema}, {"expr", std::move(expr)}});
}

TranslateResult TranslateVectorFilter(const Node& root, const Schema& schema) {
  VectorFilterWriter w(schema);
  Json out = w.Write(root, 1, false);
  return w.Finish(root, std::move(out));
}

}  // namespace

const TargetSpec& RetrieveTarget() {
  static const TargetSpec spec{
      Target::kRetrieve, "retrieve",
      "engram's own `retrieve` dialect (FILTERS.md §2.1, docs/filter-language.md): one node per "
      "comparison, fields as `{\"knowledge\": name}`, literals as `{\"value\": v}` in their JSON "
      "type: ints as JSON integers, floats always with a fraction or exponent, bools as "
      "true/false, datetimes as RFC 3339 UTC text (which retrieve reads as a datetime when it "
      "faces a datetime field), set<string> fields as the haystack of `in`. `ne` is \"present and "
      "not equal\" as in the IR and `not` inverts, so missing fields need no extra care. What "
      "retrieve has no op for is spelled exactly with ops it has: `in` over a list of ints, "
      "floats, bools or datetimes, and has_any of several values, as an `or` of one test per "
      "value; `exists` on a scalar field as `or(eq f v, ne f v)` (a present value equals v or "
      "does not; both are false where f is missing); on a required or default set<string> field, "
      "which every stored record has, `exists` is always true; `true`/`false` as `eq` of two "
      "literals (1 = 1, 1 = 2), which retrieve folds to a constant. Not expressible: string "
      "ordering (lt/le/gt/ge take numbers and datetimes), contains and icontains (no such ops), "
      "`exists` on an optional set<string> field (no op tests a set's presence), an ordering of "
      "two string fields, and a filter that, as spelled, exceeds retrieve's limits (depth 16, "
      "256 nodes, lists of 1,024 strings, 64 KiB of text).",
      ConstructSet::All().Without(
          {Construct::kOrderString, Construct::kContains, Construct::kIContains}),
      TranslateRetrieve};
  return spec;
}

const TargetSpec& ExprV1Target() {
  static const TargetSpec spec{
      Target::kExprV1, "expr_v1",
      "engram's own `expr_v1` dialect (FILTERS.md §2.2, docs/filter-language.md) in its "
      "`search_filter_expr/v1` envelope: leaves `{op, field, value}` with the value typed by the "
      "field: ints as JSON integers, floats always with a fraction or exponent, bools as "
      "true/false, datetimes as RFC 3339 UTC text (the strict form expr_v1 requires); `in` on a "
      "set<string> field is has_any. Field names are written as the schema spells them; expr_v1 "
      "matches them ignoring ASCII case, so a field whose name an earlier field matches that way "
      "cannot be named. `neq` is not(eq), true where the field is missing, so IR not(eq) is "
      "`neq`; `eq f null` / `neq f null` test absence / presence of an optional field, so IR "
      "\"present and not equal\" on an optional field is `and(neq f null, neq f v)`. A required "
      "or default field is present in every stored record: there `exists` is always true and "
      "`neq f v` alone is \"present and not equal\". `true`/`false` are `not(in f [])` / "
      "`in f []` over the first field that can be named. Not expressible: string ordering "
      "(gt/gte/lt/lte take numbers and datetimes), icontains, comparisons of two fields and "
      "in_field (a leaf compares a field with a literal), a string value with leading or "
      "trailing Unicode white space (expr_v1 trims string values) or of more than 512 bytes, an "
      "`in` list of more than 128 values, and a filter that, as spelled, exceeds depth 8, 128 "
      "nodes or 64 KiB of text.",
      ConstructSet::All().Without({Construct::kOrderString, Construct::kIContains,
                                   Construct::kCmpFields, Construct::kCmpFieldsMixed,
                                   Construct::kInField}),
      TranslateExprV1};
  return spec;
}

const TargetSpec& VectorFilterTarget() {
  static const TargetSpec spec{
      Target::kVectorFilter, "vector_filter",
      "engram's own `vector_filter` dialect (FILTERS.md §2.3, docs/filter-language.md): "
      "`{field: {$op: value}}` and `$and`/`$or` arrays, values typed by the field: ints as JSON "
      "integers, floats always with a fraction or exponent, bools as true/false, datetimes as "
      "RFC 3339 UTC text; on a set<string> field `$in` is has_any. The dialect has no `not`, so "
      "negations are pushed to the leaves (De Morgan) and each leaf's complement is written "
      "exactly: not(eq) is `$ne`, not(in) and not(has_any) `$nin`, not(exists) `$exists: false` "
      "(all true where the field is missing, as the IR's `not` is); the complement of an "
      "ordering or range is `{$or: [{f: {$exists: false}}, the opposite orderings]}` (values of "
      "one type are totally ordered; records hold no NaN). IR \"present and not equal\" is "
      "`{f: {$exists: true, $ne: v}}`, since `$ne` alone keeps records without f. `true` is `{}` "
      "(at the root; `{f: {$nin: []}}` elsewhere), `false` `{f: {$in: []}}` over the first "
      "filterable field. Not expressible: contains and icontains (no such operators), "
      "comparisons of two fields and in_field, and a filter that, as spelled, exceeds depth 16, "
      "256 nodes, lists of 1,024 values or 64 KiB of text.",
      ConstructSet::All().Without({Construct::kContains, Construct::kIContains,
                                   Construct::kCmpFields, Construct::kCmpFieldsMixed,
                                   Construct::kInField}),
      TranslateVectorFilter};
  return spec;
}

}  // namespace engram::filter::detail
