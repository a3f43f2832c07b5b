// Redis Query Engine (RediSearch): an FT.SEARCH query string (DIALECT 2)
// over an index of JSON documents, TAG and NUMERIC fields.
#include "filter/translate/targets.h"
#include "filter/translate/translate_util.h"

namespace engram::filter::detail {
namespace {

class RedisWriter : public WriterBase {
 public:
  using WriterBase::WriterBase;

  TranslateResult Write(const Node& root) {
    std::string out = Expr(root);
    return Finish(std::move(out));
  }

 private:
  std::string Field(const Node& n, std::uint32_t slot) {
    // Field names are written bare after `@`: letters, digits and `_`.
    const std::string& name = schema().field(slot).name;
    if (!IsPlainIdentifier(name)) Fail(n, "a field name other than [A-Za-z_][A-Za-z0-9_]*");
    return "@" + name;
  }

  // One tag inside `{...}`: every ASCII character other than a letter or a
  // digit is escaped with `\` (punctuation and spaces end or split a tag).
  // Tags are trimmed when indexed and need INDEXEMPTY when empty: an empty
  // tag or one with surrounding whitespace cannot be matched exactly.
  std::string Tag(const Node& n, const std::string& s) {
    if (!IsTrimmedNonEmpty(s)) {
      Fail(n, "an empty tag or one with surrounding whitespace");
    }
    std::string out;
    for (unsigned char c : s) {
      if (c < 0x20 || c == 0x7f) Fail(n, "a tag with a control character");
      const bool alnum = (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
      if (c < 0x80 && !alnum) out += '\\';
      out += static_cast<char>(c);
    }
    return out;
  }

  // NUMERIC fields hold doubles.
  std::string Number(const Node& n, const Value& v) {
    if (const auto* i = std::get_if<std::int64_t>(&v)) {
      if (Exceeds(*i, kDoubleExactInt)) Fail(n, "an int beyond ±2^53");
      return std::to_string(*i);
    }
    if (const auto* t = std::get_if<Datetime>(&v)) {
      if (Exceeds(t->micros, kDoubleExactInt)) Fail(n, "a datetime beyond ±2^53 microseconds");
      return std::to_string(t->micros);
    }
    return DoubleText(std::get<double>(v));
  }

  bool IsTag(std::uint32_t slot) const {
    FieldType t = schema().field(slot).type;
    return t == FieldType::kString || t == FieldType::kStringSet || t == FieldType::kBool;
  }

  std::string TagValue(const Node& n, const Value& v) {
    if (const auto* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
    return Tag(n, std::get<std::string>(v));
  }

  // f = v: a tag, or the one-point numeric range.
  std::string Equal(const Node& n, const Value& v) {
    const std::string f = Field(n, n.slot);
    if (IsTag(n.slot)) return f + ":{" + TagValue(n, v) + "}";
    const std::string x = Number(n, v);
    return f + ":[" + x + " " + x + "]";
  }

  std::string Range(const Node& n, const std::optional<Bound>& lo, const std::optional<Bound>& hi) {
    std::string out = Field(n, n.slot) + ":[";
    out += lo ? (lo->inclusive ? "" : "(") + Number(n, lo->value) : "-inf";
    out += " ";
    out += hi ? (hi->inclusive ? "" : "(") + Number(n, hi->value) : "+inf";
    return out + "]";
  }

  // Presence: INDEXMISSING makes `ismissing` find documents without it.
  std::string Present(const Node& n) { return "-ismissing(" + Field(n, n.slot) + ")"; }

  std::string Expr(const Node& n) {
    switch (n.op) {
      case Op::kTrue:
        return "*";
      case Op::kFalse:
        return "-*";
      // Negation is the complement over all indexed documents: documents
      // without the field are kept.
      case Op::kNot:
        return "-(" + Expr(n.children[0]) + ")";
      case Op::kAnd:
      case Op::kOr:
        return "(" +
               Join(n.children, n.op == Op::kAnd ? " " : " | ",
                    [&](const Node& c) { return Expr(c); }) +
               ")";
      case Op::kExists:
        return Present(n);
      case Op::kCmp: {
        const Value& v = n.values[0];
        switch (n.cmp) {
          case CmpOp::kEq:
            return Equal(n, v);
          case CmpOp::kNe:
            return "(" + Present(n) + " -" + Equal(n, v) + ")";
          case CmpOp::kLt:
            return Range(n, std::nullopt, Bound{v, false});
          case CmpOp::kLe:
            return Range(n, std::nullopt, Bound{v, true});
          case CmpOp::kGt:
            return Range(n, Bound{v, false}, std::nullopt);
          case CmpOp::kGe:
            return Range(n, Bound{v, true}, std::nullopt);
        }
        return "";
      }
      case Op::kIn:
      case Op::kHasAny: {
        if (IsTag(n.slot)) {
          // A tag list matches when any tag (of any element) is one of them.
          std::string out = Field(n, n.slot) + ":{";
          out += Join(n.values, " | ", [&](const Value& v) { return TagValue(n, v); });
          return out + "}";
        }
        return "(" + Join(n.values, " | ", [&](const Value& v) { return Equal(n, v); }) + ")";
      }
      case Op::kRange:
        return Range(n, n.lo, n.hi);
      default:
        FailConstruct(n);
        return "";
    }
  }
};

}  // namespace

const TargetSpec& RedisTarget() {
  static const TargetSpec spec{
      Target::kRedis, "redis",
      "An FT.SEARCH query string, to be run with DIALECT 2 or later "
      "(https://redis.io/docs/interact/search-and-query/advanced-concepts/query_syntax). "
      "Layout: JSON documents indexed ON JSON, one index field per engram field named as the "
      "field (names must be `[A-Za-z_][A-Za-z0-9_]*`, written bare after `@`): strings as `TAG "
      "CASESENSITIVE`, set<string> as `$.name[*]` TAG CASESENSITIVE, bool as TAG (`true` / "
      "`false`), int, float and datetime (microseconds since the Unix epoch) as NUMERIC; every "
      "field declared INDEXMISSING (Redis 7.4 / RediSearch 2.10) so that `ismissing(@f)` finds "
      "documents without it. Tags are written in `{...}` with every ASCII character other than "
      "a letter or digit escaped by `\\` "
      "(https://redis.io/docs/interact/search-and-query/advanced-concepts/tags/). "
      "Negation `-(...)` is the complement over all documents, so it keeps documents without "
      "the field; ne is `(-ismissing(@f) -@f:{v})`. Constants are `*` and `-*`. NUMERIC values "
      "are doubles: int literals beyond ±2^53 and datetimes beyond ±2^53 µs are refused and "
      "stored ints are assumed within ±2^53. Tags are trimmed of surrounding whitespace when "
      "indexed and an empty tag needs INDEXEMPTY: empty literals, literals with surrounding "
      "whitespace or control characters are refused and stored strings are assumed to have "
      "none. Not expressible: string ordering (TAG has none), contains and icontains (TAG has no "
      "exact substring match), comparisons between fields, in_field.",
      ConstructSet::All().Without({Construct::kOrderString, Construct::kContains,
                                   Construct::kIContains, Construct::kCmpFields,
                                   Construct::kCmpFieldsMixed, Construct::kInField}),
      TranslateWith<RedisWriter>};
  return spec;
}

}  // namespace engram::filter::detail
