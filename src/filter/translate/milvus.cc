// Milvus: a boolean filter expression (the `filter`/`expr` string of search
// and query) over one typed, nullable scalar field per engram field.
#include <cstdio>
#include <limits>

#include "filter/translate/targets.h"
#include "filter/translate/translate_util.h"

namespace engram::filter::detail {
namespace {

// Words of the expression grammar (case-insensitive in Milvus): a field
// named like one cannot be referenced.
bool IsKeyword(const std::string& name) {
  static constexpr std::string_view kWords[] = {"and",
                                                "or",
                                                "not",
                                                "in",
                                                "like",
                                                "is",
                                                "null",
                                                "true",
                                                "false",
                                                "exists",
                                                "json_contains",
                                                "json_contains_all",
                                                "json_contains_any",
                                                "array_contains",
                                                "array_contains_all",
                                                "array_contains_any",
                                                "array_length",
                                                "text_match",
                                                "phrase_match"};
  std::string lower;
  for (char c : name) lower += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  for (std::string_view w : kWords) {
    if (lower == w) return true;
  }
  return false;
}

// Milvus spells equality `==` and `!=`; the orderings as SQL does.
const char* CmpText(CmpOp op) {
  if (op == CmpOp::kEq) return " == ";
  if (op == CmpOp::kNe) return " != ";
  return SqlOp(op);
}

class MilvusWriter : public WriterBase {
 public:
  using WriterBase::WriterBase;

  TranslateResult Write(const Node& root) {
    std::string out = Expr(root);
    return Finish(std::move(out));
  }

 private:
  // Milvus field names: a letter or `_`, then letters, digits and `_`, and
  // not a word of the grammar.
  std::string Name(const Node& n, std::uint32_t slot) {
    const std::string& name = schema().field(slot).name;
    if (!IsPlainIdentifier(name) || IsKeyword(name)) {
      Fail(n, "a field name that is not an identifier");
    }
    return name;
  }

  // A double-quoted literal; the parser reads C escapes in it (its grammar
  // is ANTLR's C string literal, unquoted like a Go string).
  std::string Quote(const Node& n, const std::string& s) {
    std::string out = "\"";
    for (unsigned char c : s) {
      if (c == 0) Fail(n, "a string with U+0000");
      if (c == '"' || c == '\\') {
        out += '\\';
        out += static_cast<char>(c);
      } else if (c == '\n') {
        out += "\\n";
      } else if (c == '\r') {
        out += "\\r";
      } else if (c == '\t') {
        out += "\\t";
      } else if (c < 0x20 || c == 0x7f) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out += buf;
      } else {
        out += static_cast<char>(c);
      }
    }
    return out + "\"";
  }

  std::string Literal(const Node& n, const Value& v) {
    if (const auto* s = std::get_if<std::string>(&v)) return Quote(n, *s);
    if (const auto* i = std::get_if<std::int64_t>(&v)) {
      // -2^63 has no literal: the parser reads 2^63 before negating.
      if (*i == std::numeric_limits<std::int64_t>::min()) Fail(n, "the int -2^63");
      return std::to_string(*i);
    }
    if (const auto* d = std::get_if<double>(&v)) return FloatLiteral(*d);
    if (const auto* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
    if (const auto* t = std::get_if<Datetime>(&v)) return std::to_string(t->micros);
    return "";
  }

  // `(f IS NOT NULL and test)`: false where the field is null, whatever
  // Milvus makes of a comparison with null, so `not` inverts it exactly.
  std::string Guard(const std::string& field, const std::string& test) {
    return "(" + field + " IS NOT NULL and " + test + ")";
  }

  std::string List(const Node& n) {
    return "[" + Join(n.values, ", ", [&](const Value& v) { return Literal(n, v); }) + "]";
  }

  std::string Expr(const Node& n) {
    static constexpr Connectives kWords = {"true", "false", "not ", " and ", " or "};
    return BooleanText(n, kWords, [this](const Node& leaf) { return Leaf(leaf); });
  }

  std::string Leaf(const Node& n) {
    const std::string f = Name(n, n.slot);
    switch (n.op) {
      case Op::kExists:
        return "(" + f + " IS NOT NULL)";
      case Op::kCmp:
        return Guard(f, f + CmpText(n.cmp) + Literal(n, n.values[0]));
      case Op::kIn:
        return Guard(f, f + " in " + List(n));
      case Op::kHasAny:
        return Guard(f, "array_contains_any(" + f + ", " + List(n) + ")");
      case Op::kRange: {
        std::string test;
        if (n.lo) test = f + SqlOp(LowerBoundOp(n.lo->inclusive)) + Literal(n, n.lo->value);
        if (n.hi) {
          if (!test.empty()) test += " and ";
          test += f + SqlOp(UpperBoundOp(n.hi->inclusive)) + Literal(n, n.hi->value);
        }
        return Guard(f, test);
      }
      case Op::kContains: {
        // `like` has the wildcards % and _; escaping them is not documented.
        const auto& s = std::get<std::string>(n.values[0]);
        if (s.find_first_of("%_\\") != std::string::npos) {
          Fail(n, "a substring with '%', '_' or '\\'");
        }
        return Guard(f, f + " like " + Quote(n, "%" + s + "%"));
      }
      case Op::kCmpFields: {
        const std::string g = Name(n, n.other);
        return "(" + f + " IS NOT NULL and " + g + " IS NOT NULL and " + f + CmpText(n.cmp) + g +
               ")";
      }
      default:
        FailConstruct(n);
        return "";
    }
  }
};

}  // namespace

const TargetSpec& MilvusTarget() {
  static const TargetSpec spec{
      Target::kMilvus, "milvus",
      "A boolean expression string for the `filter` of search and query "
      "(https://milvus.io/docs/basic-operators.md). Layout: "
      "one scalar field per engram field, named as the field (names must be identifiers, "
      "`[A-Za-z_][A-Za-z0-9_]*`, and not an operator word): INT64, DOUBLE, VARCHAR, BOOL, INT64 "
      "microseconds since the Unix epoch for datetime, ARRAY<VARCHAR> for set<string>; optional "
      "fields are `nullable=True` and an absent field is null (Milvus 2.5+, "
      "https://milvus.io/docs/nullable-and-default.md). Every leaf is written as `(f IS NOT NULL "
      "and test)`, so it is false on null whatever a comparison with null yields, and `not` "
      "inverts it exactly. String literals are double-quoted with C escapes (`\\\"`, `\\\\`, "
      "`\\n`, `\\uXXXX`); VARCHAR compares bytewise. contains is `like \"%lit%\"` (a literal with "
      "`%`, `_` or `\\` is refused: escaping in patterns is not documented). Not expressible: "
      "icontains, an int field compared with a float field (no exact comparison), in_field "
      "(`array_contains` takes a constant), a string with U+0000, the int -2^63 (no literal).",
      ConstructSet::All().Without(
          {Construct::kIContains, Construct::kCmpFieldsMixed, Construct::kInField}),
      TranslateWith<MilvusWriter>};
  return spec;
}

}  // namespace engram::filter::detail
