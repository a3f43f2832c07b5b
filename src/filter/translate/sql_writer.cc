#include "filter/translate/sql_writer.h"

namespace engram::filter {

using detail::Join;
using detail::LowerBoundOp;
using detail::SqlOp;
using detail::UpperBoundOp;

std::string SqlWriter::Bind(json::Value v) {
  params_.push_back(std::move(v));
  return Placeholder(params_.size());
}

TranslateResult SqlWriter::Write(const Node& root) {
  std::string sql = Expr(root);
  return Finish(std::move(sql), std::move(params_));
}

std::string SqlWriter::Expr(const Node& n) {
  const std::string t = TrueSql(), f = FalseSql();
  return detail::BooleanText(n, detail::Connectives{t, f, "NOT ", " AND ", " OR "},
                             [this](const Node& leaf) { return Leaf(leaf); });
}

std::string SqlWriter::Leaf(const Node& n) {
  switch (n.op) {
    case Op::kExists:
      return Exists(n);
    case Op::kHasAny:
      return HasAny(n);
    case Op::kInField:
      return InField(n);
    case Op::kContains:
      return NotNull(Contains(n));
    // Placeholders are numbered as they are bound: bind left to right, one
    // statement each (the operands of + are unsequenced).
    case Op::kCmp: {
      std::string out = Field(n, n.slot);
      out += SqlOp(n.cmp);
      out += Literal(n, n.slot, n.values[0]);
      return NotNull(out);
    }
    case Op::kCmpFields: {
      std::string out = Field(n, n.slot);
      out += SqlOp(n.cmp);
      out += Field(n, n.other);
      return NotNull(out);
    }
    case Op::kRange: {
      // The field is read once per bound: `?` placeholders bind by position.
      std::string out;
      if (n.lo) {
        out = Field(n, n.slot);
        out += SqlOp(LowerBoundOp(n.lo->inclusive));
        out += Literal(n, n.slot, n.lo->value);
      }
      if (n.hi) {
        if (!out.empty()) out += " AND ";
        out += Field(n, n.slot);
        out += SqlOp(UpperBoundOp(n.hi->inclusive));
        out += Literal(n, n.slot, n.hi->value);
      }
      return NotNull(out);
    }
    case Op::kIn: {
      if (n.values.empty()) return FalseSql();
      std::string out = Field(n, n.slot) + " IN (";
      out += Join(n.values, ", ", [&](const Value& v) { return Literal(n, n.slot, v); });
      return NotNull(out + ")");
    }
    default:
      FailConstruct(n);
      return "";
  }
}

}  // namespace engram::filter
