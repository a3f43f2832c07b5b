// Elasticsearch (and OpenSearch): a query DSL `bool` query for the filter
// context, over one mapped field per engram field.
#include "filter/translate/targets.h"
#include "filter/translate/translate_util.h"

namespace engram::filter::detail {
namespace {

class ElasticsearchWriter : public WriterBase {
 public:
  using WriterBase::WriterBase;

  TranslateResult Write(const Node& root) {
    json::Value out = Expr(root);
    return Finish(std::move(out));
  }

 private:
  // A `.` is an object path and a `*` a pattern (in exists); names starting
  // with `_` are metadata fields.
  std::string Name(const Node& n, std::uint32_t slot) {
    const std::string& name = schema().field(slot).name;
    if (name.empty() || name.front() == '_' || name.find_first_of(".*") != std::string::npos) {
      Fail(n, "a field name with '.' or '*', or starting with '_'");
    }
    return name;
  }

  static json::Value Literal(const Value& v) { return JsonLiteral(v, DatetimeAs::kMicros); }

  // {kind: {field: body}}
  json::Value On(const Node& n, const char* kind, json::Value body) {
    json::Value inner = json::Value::object();
    inner[Name(n, n.slot)] = std::move(body);
    return Obj(kind, std::move(inner));
  }

  json::Value Exists(const Node& n) {
    json::Value body = json::Value::object();
    body["field"] = Name(n, n.slot);
    return Obj("exists", std::move(body));
  }

  // Lucene orders -0.0 below 0.0 and matches a double term bit for bit;
  // engram has -0.0 == 0, so equality with zero is the range [-0.0, 0.0].
  json::Value Equal(const Node& n, const Value& v) {
    if (!IsFloatZero(v)) return On(n, "term", Literal(v));
    json::Value range = json::Value::object();
    range["gte"] = -0.0;
    range["lte"] = 0.0;
    return On(n, "range", std::move(range));
  }
  // A zero bound that must take in -0.0 (gte 0, lt 0) is written -0.0.
  static json::Value Bound(const Value& v, bool lower, bool inclusive) {
    if (IsFloatZero(v)) return lower == inclusive ? -0.0 : 0.0;
    return Literal(v);
  }

  static const char* RangeKey(CmpOp op) {
    switch (op) {
      case CmpOp::kLt:
        return "lt";
      case CmpOp::kLe:
        return "lte";
      case CmpOp::kGt:
        return "gt";
      default:
        return "gte";
    }
  }

  json::Value Expr(const Node& n) {
    switch (n.op) {
      case Op::kTrue:
        return Obj("match_all", json::Value::object());
      case Op::kFalse:
        return Obj("match_none", json::Value::object());
      case Op::kAnd:
      case Op::kOr: {
        json::Value clauses = json::Value::array();
        for (const Node& c : n.children) clauses.push_back(Expr(c));
        json::Value body = json::Value::object();
        if (n.op == Op::kAnd) {
          body["filter"] = std::move(clauses);
        } else {
          body["should"] = std::move(clauses);
          body["minimum_should_match"] = 1;
        }
        return Obj("bool", std::move(body));
      }
      // must_not alone matches every document the clause does not, those
      // without the field included.
      case Op::kNot: {
        json::Value body = json::Value::object();
        body["must_not"] = json::Value::array({Expr(n.children[0])});
        return Obj("bool", std::move(body));
      }
      case Op::kExists:
        // exists skips a field whose only value is [] (no indexed value).
        if (schema().field(n.slot).type == FieldType::kStringSet) {
          Fail(n, "exists on a set<string> field (an empty array is not indexed)");
        }
        return Exists(n);
      case Op::kCmp: {
        const Value& v = n.values[0];
        if (n.cmp == CmpOp::kEq) return Equal(n, v);
        if (n.cmp == CmpOp::kNe) {
          json::Value body = json::Value::object();
          body["filter"] = json::Value::array({Exists(n)});
          body["must_not"] = json::Value::array({Equal(n, v)});
          return Obj("bool", std::move(body));
        }
        const bool lower = n.cmp == CmpOp::kGt || n.cmp == CmpOp::kGe;
        const bool inclusive = n.cmp == CmpOp::kGe || n.cmp == CmpOp::kLe;
        json::Value range = json::Value::object();
        range[RangeKey(n.cmp)] = Bound(v, lower, inclusive);
        return On(n, "range", std::move(range));
      }
      case Op::kIn:
      case Op::kHasAny: {
        // terms on an array field matches when any element is one of them.
        json::Value values = json::Value::array();
        bool zero = false;
        for (const Value& v : n.values) {
          if (IsFloatZero(v)) {
            zero = true;
          } else {
            values.push_back(Literal(v));
          }
        }
        if (!zero) return On(n, "terms", std::move(values));
        json::Value should =
            json::Value::array({On(n, "terms", std::move(values)), Equal(n, Value(0.0))});
        json::Value body = json::Value::object();
        body["should"] = std::move(should);
        body["minimum_should_match"] = 1;
        return Obj("bool", std::move(body));
      }
      case Op::kRange: {
        json::Value range = json::Value::object();
        if (n.lo) {
          range[n.lo->inclusive ? "gte" : "gt"] = Bound(n.lo->value, true, n.lo->inclusive);
        }
        if (n.hi) {
          range[n.hi->inclusive ? "lte" : "lt"] = Bound(n.hi->value, false, n.hi->inclusive);
        }
        return On(n, "range", std::move(range));
      }
      case Op::kContains: {
        // Wildcard patterns: `*`, `?`, and `\` escaping the next character.
        std::string pattern = "*";
        for (char c : std::get<std::string>(n.values[0])) {
          if (c == '*' || c == '?' || c == '\\') pattern += '\\';
          pattern += c;
        }
        pattern += '*';
        json::Value body = json::Value::object();
        body["value"] = std::move(pattern);
        return On(n, "wildcard", std::move(body));
      }
      default:
        FailConstruct(n);
        return nullptr;
    }
  }
};

}  // namespace

const TargetSpec& ElasticsearchTarget() {
  static const TargetSpec spec{
      Target::kElasticsearch, "elasticsearch",
      "A query DSL query for the filter context (a `bool` query's `filter`, or `post_filter`; "
      "also valid for OpenSearch): "
      "https://www.elastic.co/guide/en/elasticsearch/reference/current/query-dsl-bool-query.html. "
      "Layout: one field per engram field, named as the field, mapped explicitly: `keyword` (no "
      "normalizer, no ignore_above) for strings and, as an array, for set<string>; `long`, "
      "`double`, `boolean`; `long` microseconds since the Unix epoch for datetime (`date` keeps "
      "milliseconds only, `date_nanos` stops at 2262); an absent field is a missing or null "
      "value. A float 0 is written as the range [-0.0, 0.0] (Lucene orders -0.0 below 0.0 and a "
      "`term` on a double matches bits). Leaves are `term`, `terms` (on an array: any element), "
      "`range` (keyword ranges "
      "compare UTF-8 bytes), `exists` and `wildcard` for contains, with `*`, `?` and `\\` "
      "escaped by `\\` "
      "(https://www.elastic.co/guide/en/elasticsearch/reference/current/"
      "query-dsl-wildcard-query.html). "
      "`not` is a `bool` with only `must_not`, which keeps documents without the field; ne adds "
      "an `exists` filter. Constants are `match_all` / `match_none`. Not expressible: exists on "
      "a set<string> field (an empty array indexes nothing, "
      "https://www.elastic.co/guide/en/elasticsearch/reference/current/"
      "query-dsl-exists-query.html), "
      "icontains (`case_insensitive` is not Unicode simple case folding), comparisons between "
      "fields and in_field (these need scripts), field names with `.` (object paths) or `*`, or "
      "starting with `_`.",
      ConstructSet::All().Without({Construct::kIContains, Construct::kCmpFields,
                                   Construct::kCmpFieldsMixed, Construct::kInField}),
      TranslateWith<ElasticsearchWriter>};
  return spec;
}

}  // namespace engram::filter::detail
