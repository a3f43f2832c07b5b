// The shared part of engram's own dialects' writers (dialect_writer.h).
#include "filter/translate/dialect_writer.h"

#include <cmath>
#include <optional>

#include "base/time.h"
#include "base/unicode.h"

namespace engram::filter::detail {

DialectWriter::Json DialectWriter::Literal(const Node& n, const Value& v) {
  if (const auto* b = std::get_if<bool>(&v)) return *b;
  if (const auto* i = std::get_if<std::int64_t>(&v)) return *i;
  if (const auto* d = std::get_if<double>(&v)) {
    // A double always prints with a fraction or exponent: read back as a float.
    if (!std::isfinite(*d)) return Fail(n, "a float that is not finite");
    return *d;
  }
  if (const auto* s = std::get_if<std::string>(&v)) {
    if (!IsValidUtf8(*s)) return Fail(n, "a string that is not valid UTF-8");
    CheckString(n, *s);
    return *s;
  }
  if (const auto* t = std::get_if<Datetime>(&v)) {
    std::string text = FormatDatetime(*t);
    std::optional<ParsedDatetime> back = ParseDatetime(text, DatetimeForm::kStrict);
    if (!back || back->value != *t) return Fail(n, "a datetime outside the years 0000-9999");
    CheckString(n, text);
    return text;
  }
  return Fail(n, "a literal of no scalar type");
}

const char* CmpName(CmpOp op, Spelling spelling) {
  static constexpr const char* kNames[3][6] = {{"eq", "ne", "lt", "le", "gt", "ge"},
                                               {"eq", "neq", "lt", "lte", "gt", "gte"},
                                               {"$eq", "$ne", "$lt", "$lte", "$gt", "$gte"}};
  return kNames[spelling][static_cast<int>(op)];
}

CmpOp Opposite(CmpOp op) {
  static constexpr CmpOp kOpposite[] = {CmpOp::kNe, CmpOp::kEq, CmpOp::kGe,
                                        CmpOp::kGt, CmpOp::kLe, CmpOp::kLt};
  return kOpposite[static_cast<int>(op)];
}

CmpOp BoundOp(const Bound& b, bool lower) {
  return lower ? LowerBoundOp(b.inclusive) : UpperBoundOp(b.inclusive);
}

}  // namespace engram::filter::detail
