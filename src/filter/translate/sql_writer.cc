#include "filter/translate/sql_writer.h"

#include <string_view>

#include "base/time.h"

namespace engram::filter {
namespace {

std::string_view SqlOp(CmpOp op) {
  switch (op) {
    case CmpOp::kEq:
      return " = ";
    case CmpOp::kNe:
      return " <> ";
    case CmpOp::kLt:
      return " < ";
    case CmpOp::kLe:
      return " <= ";
    case CmpOp::kGt:
      return " > ";
    case CmpOp::kGe:
      return " >= ";
  }
  return " = ";
}

}  // namespace

json::Value BoundValue(const Value& v, DatetimeAs datetime_as) {
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  if (const auto* i = std::get_if<std::int64_t>(&v)) return *i;
  if (const auto* d = std::get_if<double>(&v)) return *d;
  if (const auto* b = std::get_if<bool>(&v)) return *b;
  if (const auto* t = std::get_if<Datetime>(&v)) {
    if (datetime_as == DatetimeAs::kMicros) return t->micros;
    return FormatDatetime(*t);
  }
  return nullptr;
}

bool HasNul(const std::string& s) {
  return s.find('\0') != std::string::npos;
}

std::string SqlWriter::Bind(json::Value v) {
  params_.push_back(std::move(v));
  return Placeholder(params_.size());
}

TranslateResult SqlWriter::Write(const Node& root) {
  std::string sql = Expr(root);
  if (failed_) return *failed_;
  Translation t;
  t.filter = std::move(sql);
  t.params = std::move(params_);
  return t;
}

std::string SqlWriter::Expr(const Node& n) {
  switch (n.op) {
    case Op::kTrue:
      return TrueSql();
    case Op::kFalse:
      return FalseSql();
    case Op::kNot:
      return "NOT " + Expr(n.children[0]);
    case Op::kAnd:
    case Op::kOr: {
      std::string out = "(";
      for (std::size_t i = 0; i < n.children.size(); ++i) {
        if (i > 0) out += n.op == Op::kAnd ? " AND " : " OR ";
        out += Expr(n.children[i]);
      }
      return out + ")";
    }
    default:
      return Leaf(n);
  }
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
        out += n.lo->inclusive ? " >= " : " > ";
        out += Literal(n, n.slot, n.lo->value);
      }
      if (n.hi) {
        if (!out.empty()) out += " AND ";
        out += Field(n, n.slot);
        out += n.hi->inclusive ? " <= " : " < ";
        out += Literal(n, n.slot, n.hi->value);
      }
      return NotNull(out);
    }
    case Op::kIn: {
      if (n.values.empty()) return FalseSql();
      std::string out = Field(n, n.slot) + " IN (";
      for (std::size_t i = 0; i < n.values.size(); ++i) {
        if (i > 0) out += ", ";
        out += Literal(n, n.slot, n.values[i]);
      }
      return NotNull(out + ")");
    }
    default:
      Fail(n, std::string(ConstructName(ConstructOf(n, schema_))));
      return "";
  }
}

}  // namespace engram::filter
