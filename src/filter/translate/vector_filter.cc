// Translation into engram's `vector_filter` dialect (FILTERS.md §2.3; dialect_writer.h).
#include <string>
#include <utility>

#include "filter/translate/dialect_writer.h"

namespace engram::filter::detail {
namespace {

using Json = json::Value;

// `vector_filter`: Mongo-style {field: {$op: value}}. It has no `not`, so
// negations are pushed to the leaves (De Morgan), where each has an exact
// complement: `$ne`/`$nin`/`$exists:false` are true on a missing field, and
// the complement of an ordering is the opposite ordering or a missing field.
class VectorFilterWriter : public DialectWriter {
 public:
  explicit VectorFilterWriter(const Schema& schema)
      : DialectWriter(schema, Dialect::kVectorFilter) {}

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

TranslateResult TranslateVectorFilter(const Node& root, const Schema& schema) {
  VectorFilterWriter w(schema);
  Json out = w.Write(root, 1, false);
  return w.Finish(root, std::move(out));
}

}  // namespace

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
