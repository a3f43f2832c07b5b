// Translation into engram's `retrieve` dialect (FILTERS.md §2.1; dialect_writer.h).
#include <string>
#include <utility>

#include "filter/translate/dialect_writer.h"

namespace engram::filter::detail {
namespace {

using Json = json::Value;

// `retrieve`: {"op":..,"lhs":..,"rhs":..} with {"knowledge": name} and
// {"value": literal} operands; a literal keeps its JSON type and is compared
// exactly (a string facing a datetime field reads as RFC 3339).
class RetrieveWriter : public DialectWriter {
 public:
  explicit RetrieveWriter(const Schema& schema) : DialectWriter(schema, Dialect::kRetrieve) {}

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

TranslateResult TranslateRetrieve(const Node& root, const Schema& schema) {
  RetrieveWriter w(schema);
  Json out = w.Write(root, 1);
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

}  // namespace engram::filter::detail
