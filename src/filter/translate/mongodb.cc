// MongoDB: a query filter document (the argument of find), in Extended JSON
// v2 so that int64 values keep every digit. MongoDB has `$nor`, so `not`
// is `{"$nor":[child]}`, which keeps the documents without the field exactly
// as engram does; only `ne` ("present and different") needs an explicit
// `$exists: true`, since MongoDB's `$ne` also matches missing fields.
#include <cstdint>
#include <string>
#include <utility>

#include "filter/translate/targets.h"
#include "filter/translate/translate_util.h"

namespace engram::filter::detail {
namespace {

json::Value Arr(json::Value a, json::Value b) {
  json::Value arr = json::Value::array();
  arr.push_back(std::move(a));
  arr.push_back(std::move(b));
  return arr;
}

// A byte string as a PCRE pattern that matches exactly it: ASCII letters and
// digits stand for themselves, other printable ASCII is escaped with `\`
// (always literal in PCRE), control bytes as `\x{hh}`, and the bytes of
// non-ASCII UTF-8 characters are left as they are (literal).
std::string RegexLiteral(const std::string& s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80) {
      out += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7f) {
      out += "\\x{";
      out += kHex[c >> 4];
      out += kHex[c & 15];
      out += '}';
    } else {
      out += '\\';
      out += static_cast<char>(c);
    }
  }
  return out;
}

class MongoWriter : public WriterBase {
 public:
  using WriterBase::WriterBase;

  TranslateResult Write(const Node& root) {
    json::Value out = Expr(root);
    return Finish(std::move(out));
  }

 private:
  // A field name as a query path: a `.` would name a nested field, and BSON
  // keys cannot hold U+0000.
  const std::string& Key(const Node& n, std::uint32_t slot) {
    const std::string& name = schema().field(slot).name;
    if (name.find('.') != std::string::npos) Fail(n, "a field name with '.'");
    if (HasNul(name)) Fail(n, "a field name with U+0000");
    return name;
  }

  // Extended JSON: int64 as {"$numberLong":"…"} (a plain JSON integer may be
  // read as a double or an int32), doubles as JSON numbers with a fraction or
  // exponent, datetimes as int64 microseconds since the epoch.
  static json::Value Lit(const Value& v) {
    if (const auto* s = std::get_if<std::string>(&v)) return *s;
    if (const auto* b = std::get_if<bool>(&v)) return *b;
    if (const auto* d = std::get_if<double>(&v)) return *d;
    if (const auto* i = std::get_if<std::int64_t>(&v)) return Long(*i);
    if (const auto* t = std::get_if<Datetime>(&v)) return Long(t->micros);
    return nullptr;
  }
  static json::Value Long(std::int64_t i) { return Obj("$numberLong", std::to_string(i)); }

  json::Value Cond(const Node& n, const char* op, json::Value v) {
    return Obj(Key(n, n.slot), Obj(op, std::move(v)));
  }

  // In an aggregation expression: a field reference, and "it is present"
  // (a missing field is of $type "missing" and compares below everything).
  json::Value Ref(const Node& n, std::uint32_t slot) { return "$" + Key(n, slot); }
  json::Value PresentExpr(const Node& n, std::uint32_t slot) {
    return Obj("$ne", Arr(Obj("$type", Ref(n, slot)), "missing"));
  }

  json::Value Expr(const Node& n) {
    switch (n.op) {
      case Op::kTrue:
        return json::Value::object();
      case Op::kFalse:
        return Obj("$nor", json::Value::array({json::Value::object()}));
      case Op::kNot:
        return Obj("$nor", json::Value::array({Expr(n.children[0])}));
      case Op::kAnd:
      case Op::kOr: {
        std::vector<json::Value> items;
        for (const Node& c : n.children) items.push_back(Expr(c));
        return Junction(n.op == Op::kAnd ? "$and" : "$or", std::move(items));
      }
      default:
        return Leaf(n);
    }
  }

  json::Value Leaf(const Node& n) {
    switch (n.op) {
      case Op::kExists:
        return Cond(n, "$exists", true);
      case Op::kCmp: {
        if (n.cmp != CmpOp::kNe) return Cond(n, QueryOp(n.cmp), Lit(n.values[0]));
        json::Value ops = json::Value::object();
        ops["$exists"] = true;
        ops["$ne"] = Lit(n.values[0]);
        return Obj(Key(n, n.slot), std::move(ops));
      }
      case Op::kRange: {
        json::Value ops = json::Value::object();
        if (n.lo) ops[QueryOp(LowerBoundOp(n.lo->inclusive))] = Lit(n.lo->value);
        if (n.hi) ops[QueryOp(UpperBoundOp(n.hi->inclusive))] = Lit(n.hi->value);
        return Obj(Key(n, n.slot), std::move(ops));
      }
      case Op::kIn:
      case Op::kHasAny: {
        // On an array field $in matches when any element is in the list.
        json::Value arr = json::Value::array();
        for (const Value& v : n.values) arr.push_back(Lit(v));
        return Cond(n, "$in", std::move(arr));
      }
      case Op::kContains: {
        const std::string& s = std::get<std::string>(n.values[0]);
        if (HasNul(s)) Fail(n, "a substring with U+0000 ($regex)");
        return Cond(n, "$regex", RegexLiteral(s));
      }
      case Op::kCmpFields: {
        json::Value all = json::Value::array();
        all.push_back(PresentExpr(n, n.slot));
        all.push_back(PresentExpr(n, n.other));
        all.push_back(Obj(QueryOp(n.cmp), Arr(Ref(n, n.slot), Ref(n, n.other))));
        return Obj("$expr", Obj("$and", std::move(all)));
      }
      case Op::kInField: {
        // $in (aggregation) fails on a non-array: a missing set reads as [].
        json::Value set = Obj("$ifNull", Arr(Ref(n, n.other), json::Value::array()));
        return Obj("$expr", Obj("$and", Arr(PresentExpr(n, n.slot),
                                            Obj("$in", Arr(Ref(n, n.slot), std::move(set))))));
      }
      default:
        FailConstruct(n);
        return nullptr;
    }
  }
};

}  // namespace

const TargetSpec& MongodbTarget() {
  static const TargetSpec spec{
      Target::kMongodb, "mongodb",
      "A MongoDB query filter document in Extended JSON v2 (relaxed; read it with `EJSON.parse` "
      "or PyMongo's `json_util.loads`, https://www.mongodb.com/docs/manual/reference/"
      "mongodb-extended-json/). Layout: one top-level document field per engram field; string "
      "as string, bool as boolean, int as int64 (literals `{\"$numberLong\":\"…\"}`, so no digit "
      "is lost), float as double, datetime as int64 microseconds since the Unix epoch (a BSON "
      "Date holds only milliseconds), set<string> as an array of strings; an absent field is a "
      "missing field (never null). `not` is `$nor` (https://www.mongodb.com/docs/manual/"
      "reference/operator/query/nor/), which matches documents without the field, as engram's "
      "`not` does; ne (present and different) is `{\"$exists\":true,\"$ne\":v}` because `$ne` "
      "alone matches missing fields (https://www.mongodb.com/docs/manual/reference/operator/"
      "query/ne/). `$in` on an array field matches when any element is in the list (has_any). "
      "Strings compare by simple binary comparison, as engram does, provided the collection "
      "and query use no collation; numbers compare by value across int64 and double. "
      "contains is a `$regex` with every non-alphanumeric ASCII character escaped (PCRE, "
      "UTF-8: a substring of valid UTF-8 text is the same in bytes and in characters). "
      "cmp_fields and in_field use `$expr` with `$type` guards, since in an aggregation "
      "expression a missing field compares below every value. Match-all is `{}`, match-nothing "
      "`{\"$nor\":[{}]}`. Not expressible: icontains (MongoDB's case-insensitive regex is not "
      "Unicode simple case folding), field names with `.` (a path into a subdocument) or "
      "U+0000, and a contains literal with U+0000.",
      ConstructSet::All().Without({Construct::kIContains}), TranslateWith<MongoWriter>};
  return spec;
}

}  // namespace engram::filter::detail
