#include "filter/dialects/dialect.h"

#include <string>

#include "filter/dialects/parse_util.h"

namespace engram::filter {

std::string_view DialectName(Dialect d) {
  switch (d) {
    case Dialect::kRetrieve:
      return "retrieve";
    case Dialect::kExprV1:
      return "expr_v1";
    case Dialect::kVectorFilter:
      return "vector_filter";
    case Dialect::kSearchMemory:
      return "search_memory";
  }
  return "?";
}

std::optional<Dialect> DialectFromName(std::string_view name) {
  for (Dialect d : kAllDialects) {
    if (DialectName(d) == name) return d;
  }
  return std::nullopt;
}

const DialectSpec& GetDialect(Dialect d) {
  switch (d) {
    case Dialect::kRetrieve:
      return detail::RetrieveSpec();
    case Dialect::kExprV1:
      return detail::ExprV1Spec();
    case Dialect::kVectorFilter:
      return detail::VectorFilterSpec();
    case Dialect::kSearchMemory:
      return detail::SearchMemorySpec();
  }
  return detail::RetrieveSpec();
}

namespace detail {

std::string DefaultDetail(const Fault& f) {
  const std::string n = std::to_string(f.n), m = std::to_string(f.m);
  switch (f.code) {
    case FaultCode::kSyntax:
    case FaultCode::kNestingTooDeep:
      return "invalid JSON: " + f.a;
    case FaultCode::kTextTooLarge:
      return "filter text of " + n + " bytes exceeds the limit of " + m + " bytes";
    case FaultCode::kDuplicateKey:
      return "duplicate key '" + f.a + "'";
    case FaultCode::kNumberOutOfRange:
      return f.b;
    case FaultCode::kNotObject:
      return "a filter node must be an object, got " + f.a;
    case FaultCode::kNotArray:
      return "expected an array, got " + f.a;
    case FaultCode::kMissingKey:
      return f.b.empty() ? "missing key '" + f.a + "'" : f.b + " node requires '" + f.a + "'";
    case FaultCode::kUnknownKey:
      return f.b.empty() ? "unknown key '" + f.a + "'"
                         : "unknown key '" + f.a + "' in " + f.b + " node";
    case FaultCode::kWrongContainer:
      return f.a + " must be an array, got " + f.b;
    case FaultCode::kOpNotString:
      return "op must be a string, got " + f.a;
    case FaultCode::kEmptyObject:
      return "empty object: name at least one field or operator";
    case FaultCode::kNotAnOperator:
      return "expected an operator, got '" + f.a + "'";
    case FaultCode::kBadEnvelope:
      return "bad envelope";
    case FaultCode::kUnknownOp:
      return "unknown op '" + f.a + "'";
    case FaultCode::kEmptyArgs:
      return f.a + " needs at least one arg";
    case FaultCode::kTooDeep:
      return "filter depth " + n + " exceeds the limit of " + m;
    case FaultCode::kTooManyNodes:
      return "filter has more than " + m + " nodes";
    case FaultCode::kMalformedOperand:
      if (f.a == "key_count") {
        return "an operand must have exactly one key (knowledge or value), got " + n;
      }
      if (f.a == "field_name") return "knowledge must name a field (a string), got " + f.b;
      return "an operand must be an object, got " + f.b;
    case FaultCode::kUnknownNamespace:
      if (f.a == "agent") {
        return "the agent namespace is reserved and not implemented; embed agent state as "
               "{\"value\": ...}";
      }
      return "unknown namespace '" + f.a + "' (expected knowledge or value)";
    case FaultCode::kFieldNotString:
      return "a field name must be a string, got " + f.a;
    case FaultCode::kUnknownField:
      return "unknown field '" + f.a + "'";
    case FaultCode::kFieldNotFilterable:
      return "field '" + f.a + "' is not filterable";
    case FaultCode::kTypeMismatch:
      return "cannot compare " + f.a + " with " + f.b;
    case FaultCode::kOpNotApplicable:
      if (!f.c.empty()) {
        return "cannot compare " + f.b + " with " + f.c + " using " + f.a + " (" + f.a +
               " needs numbers or datetimes)";
      }
      return f.a + " does not apply to " + f.b + " field '" + f.d + "'";
    case FaultCode::kBadHaystack:
      return "the haystack of in must be a set<string> field or a string array, got " + f.a;
    case FaultCode::kContainsNeedsString:
      return "contains needs a string, got " + f.a;
    case FaultCode::kNullNotAllowed:
      return "null is not allowed with " + f.a;
    case FaultCode::kNullNeedsOptional:
      return "null (absent) can only match an optional field, and '" + f.a + "' is not";
    case FaultCode::kNotALiteral:
      return "a literal must be an int, float, string or bool, got " + f.a;
    case FaultCode::kItemType:
      return "expected " + f.a + ", got " + f.b;
    case FaultCode::kBadDatetime:
      return "'" + f.a + "' is not an RFC 3339 datetime";
    case FaultCode::kBadBool:
      return "expected true or false, got " + f.a;
    case FaultCode::kEmptyNeedle:
      return "contains needs a non-empty string";
    case FaultCode::kEmptyList:
      return f.a + " needs at least one value";
    case FaultCode::kBetweenShape:
      return "between expects [min, max] or {\"from\": min, \"to\": max}";
    case FaultCode::kBetweenOrder:
      return "between: min is greater than max";
    case FaultCode::kMisplacedArray:
      return "an array literal is allowed only as the haystack of in";
    case FaultCode::kListTooLarge:
      return "array literal of " + n + " items exceeds the limit of " + m;
    case FaultCode::kStringTooLong:
      return "string of " + n + " bytes exceeds the limit of " + m + " bytes";
    case FaultCode::kUnsupported:
      return f.a + " cannot express " + f.b;
  }
  return "invalid filter";
}

}  // namespace detail
}  // namespace engram::filter
