// LanceDB: a SQL predicate (the `where` of a search or query, parsed by
// Lance into a DataFusion expression) over typed Arrow columns.
#include <cmath>
#include <limits>

#include "filter/translate/targets.h"
#include "filter/translate/translate_util.h"

namespace engram::filter::detail {
namespace {

class LanceDbWriter : public WriterBase {
 public:
  using WriterBase::WriterBase;

  TranslateResult Write(const Node& root) {
    std::string out = Expr(root);
    return Finish(std::move(out));
  }

 private:
  // Lance quotes identifiers with backticks only; a backtick inside one
  // has no documented escape.
  std::string Column(const Node& n, std::uint32_t slot) {
    const std::string& name = schema().field(slot).name;
    if (name.find('`') != std::string::npos) Fail(n, "a field name with '`'");
    return "`" + name + "`";
  }

  // A single-quoted literal, quotes doubled. Lance's SQL dialect may read
  // backslash escapes in strings, so a backslash is refused; so is U+0000.
  std::string Quote(const Node& n, const std::string& s) {
    std::string out = "'";
    for (char c : s) {
      if (c == '\0') Fail(n, "a string with U+0000");
      if (c == '\\') Fail(n, "a string with '\\'");
      out += c;
      if (c == '\'') out += '\'';
    }
    return out + "'";
  }

  std::string Literal(const Node& n, const Value& v) {
    if (const auto* s = std::get_if<std::string>(&v)) return Quote(n, *s);
    if (const auto* i = std::get_if<std::int64_t>(&v)) {
      // -2^63 has no literal: the parser reads 2^63 before negating.
      if (*i == std::numeric_limits<std::int64_t>::min()) Fail(n, "the int -2^63");
      return *i < 0 ? "(" + std::to_string(*i) + ")" : std::to_string(*i);
    }
    if (const auto* d = std::get_if<double>(&v)) {
      return std::signbit(*d) ? "(" + FloatLiteral(*d) + ")" : FloatLiteral(*d);
    }
    if (const auto* b = std::get_if<bool>(&v)) return *b ? "TRUE" : "FALSE";
    if (const auto* t = std::get_if<Datetime>(&v)) {
      return "arrow_cast(" + std::to_string(t->micros) +
             ", 'Timestamp(Microsecond, Some(\"UTC\"))')";
    }
    return "";
  }

  // Arrow compares floats by total order (-0.0 < 0.0); engram has -0.0 == 0.
  std::string Equal(const Node& n, const std::string& col, const Value& v) {
    if (IsFloatZero(v)) return "(" + col + " >= (-0.0) AND " + col + " <= 0.0)";
    return col + " = " + Literal(n, v);
  }
  // A zero bound that must take in -0.0 (>= 0, < 0) is written -0.0.
  std::string Bound(const Node& n, const Value& v, bool lower, bool inclusive) {
    if (IsFloatZero(v)) return lower == inclusive ? "(-0.0)" : "0.0";
    return Literal(n, v);
  }

  // `(c IS NOT NULL AND test)`: false where the column is null, never
  // unknown, so NOT inverts it exactly.
  static std::string Guard(const std::string& col, const std::string& test) {
    return "(" + col + " IS NOT NULL AND " + test + ")";
  }

  std::string Cmp(const Node& n, const std::string& col, CmpOp op, const Value& v) {
    switch (op) {
      case CmpOp::kEq:
        return Equal(n, col, v);
      case CmpOp::kNe:
        return "NOT " + Equal(n, col, v);
      case CmpOp::kLt:
      case CmpOp::kLe:
        return col + SqlOp(op) + Bound(n, v, false, op == CmpOp::kLe);
      case CmpOp::kGt:
      case CmpOp::kGe:
        return col + SqlOp(op) + Bound(n, v, true, op == CmpOp::kGe);
    }
    return "";
  }

  std::string Expr(const Node& n) {
    static constexpr Connectives kWords = {"TRUE", "FALSE", "NOT ", " AND ", " OR "};
    return BooleanText(n, kWords, [this](const Node& leaf) { return Leaf(leaf); });
  }

  std::string Leaf(const Node& n) {
    const std::string c = Column(n, n.slot);
    switch (n.op) {
      case Op::kExists:
        return "(" + c + " IS NOT NULL)";
      case Op::kCmp:
        return Guard(c, Cmp(n, c, n.cmp, n.values[0]));
      case Op::kIn: {
        std::string test = Join(n.values, " OR ", [&](const Value& v) { return Equal(n, c, v); });
        return Guard(c, "(" + test + ")");
      }
      case Op::kHasAny: {
        std::string list = Join(n.values, ", ", [&](const Value& v) { return Literal(n, v); });
        return Guard(c, "array_has_any(" + c + ", [" + list + "])");
      }
      case Op::kRange: {
        std::string test;
        if (n.lo)
          test = c + SqlOp(LowerBoundOp(n.lo->inclusive)) +
                 Bound(n, n.lo->value, true, n.lo->inclusive);
        if (n.hi) {
          if (!test.empty()) test += " AND ";
          test += c + SqlOp(UpperBoundOp(n.hi->inclusive)) +
                  Bound(n, n.hi->value, false, n.hi->inclusive);
        }
        return Guard(c, test);
      }
      // strpos counts characters, but is > 0 exactly when the bytes occur.
      case Op::kContains:
        return Guard(c, "strpos(" + c + ", " + Literal(n, n.values[0]) + ") > 0");
      case Op::kCmpFields: {
        const std::string d = Column(n, n.other);
        // Two float columns: -0.0 and 0.0 must compare equal.
        if (schema().field(n.slot).type == FieldType::kFloat) {
          Fail(n, "a comparison between float fields (Arrow orders -0.0 below 0.0)");
        }
        return "(" + c + " IS NOT NULL AND " + d + " IS NOT NULL AND " + c + SqlOp(n.cmp) + d + ")";
      }
      case Op::kInField: {
        const std::string d = Column(n, n.other);
        return "(" + c + " IS NOT NULL AND " + d + " IS NOT NULL AND array_has(" + d + ", " + c +
               "))";
      }
      default:
        FailConstruct(n);
        return "";
    }
  }
};

}  // namespace

const TargetSpec& LancedbTarget() {
  static const TargetSpec spec{
      Target::kLancedb, "lancedb",
      "A SQL predicate for `where(...)` of a LanceDB search or query, which Lance parses into a "
      "DataFusion expression (https://docs.lancedb.com/sql/dql/operators.md, "
      "https://datafusion.apache.org/user-guide/sql/scalar_functions.html). Layout: one Arrow "
      "column per field, named as the field and quoted with backticks (Lance's only identifier "
      "quote, https://docs.rs/crate/lancedb/latest/source/src/expr/sql.rs): Int64, Float64, Utf8, "
      "Boolean, Timestamp(Microsecond, \"UTC\") for datetime, "
      "List<Utf8> for set<string>; an absent field is NULL. SQL logic is three-valued, so every "
      "leaf is `(c IS NOT NULL AND test)`, false on NULL, and NOT inverts it exactly. Strings "
      "are single-quoted with `''` and compare bytewise (Utf8); datetimes are "
      "`arrow_cast(<micros>, 'Timestamp(Microsecond, Some(\"UTC\"))')`; set fields use "
      "`array_has_any` and `array_has`; contains is `strpos(c, lit) > 0`. Arrow orders floats "
      "totally (-0.0 < 0.0), so equality with a float 0 is the range [-0.0, 0.0]. Not "
      "expressible: icontains (`lower()` is not Unicode simple case folding), an int column "
      "compared with a float column (DataFusion casts the int to double) or two float columns "
      "(-0.0 vs 0.0), string literals with U+0000 or `\\` (Lance's SQL dialect may read "
      "backslash escapes), field names with a backtick, the int -2^63 (no literal).",
      ConstructSet::All().Without({Construct::kIContains, Construct::kCmpFieldsMixed}),
      TranslateWith<LanceDbWriter>};
  return spec;
}

}  // namespace engram::filter::detail
