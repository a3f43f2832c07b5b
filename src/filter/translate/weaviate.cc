// Weaviate: a `where` filter (the JSON of the REST/GraphQL `where` argument)
// over one property per field.
#include "base/time.h"
#include "filter/translate/targets.h"
#include "filter/translate/translate_util.h"

namespace engram::filter::detail {
namespace {

class WeaviateWriter : public WriterBase {
 public:
  using WriterBase::WriterBase;

  TranslateResult Write(const Node& root) {
    if (root.op == Op::kTrue) return Translation{nullptr};
    if (root.op == Op::kFalse) {
      return Unsupported{&root, "an always-false filter (Weaviate has no constant filter)"};
    }
    json::Value out = Expr(root);
    return Finish(std::move(out));
  }

 private:
  static json::Value Junction(const char* op, json::Value operands) {
    json::Value out = json::Value::object();
    out["operator"] = op;
    out["operands"] = std::move(operands);
    return out;
  }

  json::Value Path(const Node& n, std::uint32_t slot) {
    // GraphQL names: /[_A-Za-z][_0-9A-Za-z]*/ (Weaviate property names).
    const std::string& name = schema().field(slot).name;
    if (!IsPlainIdentifier(name)) Fail(n, "a field name that is not a GraphQL name");
    return json::Value::array({name});
  }

  // Text is indexed with tokenization `field`: one token, the whole value
  // with surrounding whitespace trimmed; an empty string is indexed as null.
  // So only a non-empty, trimmed literal matches exactly.
  void CheckText(const Node& n, const std::string& s) {
    if (!IsTrimmedNonEmpty(s)) Fail(n, "an empty string or one with surrounding whitespace");
  }

  // {"path":[name],"operator":op,"value<Type>":v}
  json::Value Leaf(const Node& n, const char* op, const Value& v) {
    json::Value out = json::Value::object();
    out["path"] = Path(n, n.slot);
    out["operator"] = op;
    if (const auto* s = std::get_if<std::string>(&v)) {
      CheckText(n, *s);
      out["valueText"] = *s;
    } else if (const auto* i = std::get_if<std::int64_t>(&v)) {
      // Weaviate reads JSON numbers as float64 on the way in.
      if (Exceeds(*i, kDoubleExactInt)) Fail(n, "an int beyond ±2^53");
      out["valueInt"] = *i;
    } else if (const auto* d = std::get_if<double>(&v)) {
      out["valueNumber"] = *d;
    } else if (const auto* b = std::get_if<bool>(&v)) {
      out["valueBoolean"] = *b;
    } else if (const auto* t = std::get_if<Datetime>(&v)) {
      out["valueDate"] = FormatDatetime(*t);
    }
    return out;
  }

  json::Value Present(const Node& n) {
    json::Value out = json::Value::object();
    out["path"] = Path(n, n.slot);
    out["operator"] = "IsNull";
    out["valueBoolean"] = false;
    return out;
  }

  static const char* CmpName(CmpOp op) {
    switch (op) {
      case CmpOp::kEq:
        return "Equal";
      case CmpOp::kNe:
        return "NotEqual";
      case CmpOp::kLt:
        return "LessThan";
      case CmpOp::kLe:
        return "LessThanEqual";
      case CmpOp::kGt:
        return "GreaterThan";
      case CmpOp::kGe:
        return "GreaterThanEqual";
    }
    return "Equal";
  }

  json::Value Expr(const Node& n) {
    switch (n.op) {
      case Op::kAnd:
      case Op::kOr: {
        json::Value operands = json::Value::array();
        for (const Node& c : n.children) operands.push_back(Expr(c));
        return Junction(n.op == Op::kAnd ? "And" : "Or", std::move(operands));
      }
      // Not is the complement over all objects: it keeps objects without
      // the property, as engram's `not` does.
      case Op::kNot:
        return Junction("Not", json::Value::array({Expr(n.children[0])}));
      case Op::kExists: {
        FieldType t = schema().field(n.slot).type;
        if (t == FieldType::kString || t == FieldType::kStringSet) {
          Fail(n, "exists on a text field (Weaviate indexes \"\" and [] as null)");
        }
        return Present(n);
      }
      case Op::kCmp: {
        if (n.cmp != CmpOp::kNe) return Leaf(n, CmpName(n.cmp), n.values[0]);
        // NotEqual also matches objects without the property.
        if (schema().field(n.slot).type == FieldType::kString) {
          Fail(n, "ne on a text field (Weaviate indexes \"\" as null)");
        }
        return Junction("And", json::Value::array({Present(n), Leaf(n, "NotEqual", n.values[0])}));
      }
      case Op::kIn: {
        json::Value operands = json::Value::array();
        for (const Value& v : n.values) operands.push_back(Leaf(n, "Equal", v));
        if (operands.size() == 1) return operands[0];
        return Junction("Or", std::move(operands));
      }
      case Op::kHasAny: {
        json::Value out = json::Value::object();
        out["path"] = Path(n, n.slot);
        out["operator"] = "ContainsAny";
        json::Value items = json::Value::array();
        for (const Value& v : n.values) {
          const auto& s = std::get<std::string>(v);
          CheckText(n, s);
          items.push_back(s);
        }
        out["valueTextArray"] = std::move(items);
        return out;
      }
      case Op::kRange: {
        json::Value operands = json::Value::array();
        if (n.lo) {
          operands.push_back(
              Leaf(n, n.lo->inclusive ? "GreaterThanEqual" : "GreaterThan", n.lo->value));
        }
        if (n.hi) {
          operands.push_back(Leaf(n, n.hi->inclusive ? "LessThanEqual" : "LessThan", n.hi->value));
        }
        if (operands.size() == 1) return operands[0];
        return Junction("And", std::move(operands));
      }
      case Op::kContains: {
        // Like has the wildcards `*` and `?` and no escape for them.
        const auto& s = std::get<std::string>(n.values[0]);
        if (s.find_first_of("*?") != std::string::npos) Fail(n, "a substring with '*' or '?'");
        json::Value out = json::Value::object();
        out["path"] = Path(n, n.slot);
        out["operator"] = "Like";
        out["valueText"] = "*" + s + "*";
        return out;
      }
      default:
        FailConstruct(n);
        return nullptr;
    }
  }
};

}  // namespace

const TargetSpec& WeaviateTarget() {
  static const TargetSpec spec{
      Target::kWeaviate, "weaviate",
      "A `where` filter as the REST and GraphQL APIs take it "
      "(https://docs.weaviate.io/weaviate/api/graphql/filters), `null` meaning \"no filter\". "
      "Layout: one property per field, named as the field (so names must be GraphQL names, "
      "`[_A-Za-z][_0-9A-Za-z]*`): `int` (valueInt), `number` (valueNumber), `boolean`, `date` "
      "(valueDate, RFC 3339 with microseconds), `text` with tokenization `field` and `text[]` for "
      "set<string>; an absent field is an unset property; the collection has "
      "`invertedIndexConfig.indexNullState: true` so that `IsNull` can test presence. Negation "
      "uses the `Not` operator (Weaviate 1.33+), the complement over all objects, so objects "
      "without the property are kept; `NotEqual` (a complement since 1.24, "
      "https://github.com/weaviate/weaviate/issues/3319) also matches unset properties, so ne is "
      "`And[IsNull false, NotEqual]`. Tokenization `field` indexes the whole value as one token "
      "but trims surrounding whitespace, and an empty string or array is indexed as null "
      "(https://docs.weaviate.io/weaviate/api/graphql/filters, "
      "https://github.com/weaviate/weaviate-io/pull/276): string literals "
      "that are empty or have surrounding whitespace are refused, stored strings are assumed "
      "to have neither, and exists/ne on text fields are not expressible. contains is `Like "
      "*lit*`, which has no escape for its wildcards `*` and `?` (such literals are refused). "
      "Not expressible: ints beyond ±2^53 (JSON numbers pass through float64), string ordering "
      "(not documented as bytewise), icontains, comparisons between fields, in_field, and an "
      "always-false filter (no constant).",
      ConstructSet::All().Without({Construct::kFalse, Construct::kNeString, Construct::kOrderString,
                                   Construct::kIContains, Construct::kCmpFields,
                                   Construct::kCmpFieldsMixed, Construct::kInField}),
      TranslateWith<WeaviateWriter>};
  return spec;
}

}  // namespace engram::filter::detail
