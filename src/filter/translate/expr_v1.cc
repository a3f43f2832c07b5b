// Translation into engram's `expr_v1` dialect (FILTERS.md §2.2; dialect_writer.h).
#include <string>
#include <utility>

#include "base/unicode.h"
#include "filter/translate/dialect_writer.h"

namespace engram::filter::detail {
namespace {

using Json = json::Value;

// `expr_v1`: {"schema":"search_filter_expr/v1","expr":..}; leaves
// {"op","field","value"} typed by the field; `neq` is not(eq) and `eq null`
// / `neq null` test absence / presence of optional fields.
class ExprV1Writer : public DialectWriter {
 public:
  explicit ExprV1Writer(const Schema& schema) : DialectWriter(schema, Dialect::kExprV1) {}

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

TranslateResult TranslateExprV1(const Node& root, const Schema& schema) {
  ExprV1Writer w(schema);
  Json expr = w.Write(root, 1);
  return w.Finish(root, Json{{"schema", kExprV1Schema}, {"expr", std::move(expr)}});
}

}  // namespace

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

}  // namespace engram::filter::detail
