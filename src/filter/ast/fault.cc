#include "filter/ast/fault.h"

namespace engram::filter {

std::string_view FaultKind(FaultCode code) {
  switch (code) {
    case FaultCode::kSyntax:
    case FaultCode::kNestingTooDeep:
      return "parse_error";
    case FaultCode::kTextTooLarge:
    case FaultCode::kListTooLarge:
    case FaultCode::kStringTooLong:
      return "too_large";
    case FaultCode::kDuplicateKey:
    case FaultCode::kNotObject:
    case FaultCode::kNotArray:
    case FaultCode::kMissingKey:
    case FaultCode::kUnknownKey:
    case FaultCode::kWrongContainer:
    case FaultCode::kOpNotString:
    case FaultCode::kEmptyObject:
    case FaultCode::kNotAnOperator:
    case FaultCode::kBadEnvelope:
    case FaultCode::kFieldNotString:
    case FaultCode::kBetweenShape:
      return "malformed";
    case FaultCode::kUnknownOp:
      return "unknown_op";
    case FaultCode::kEmptyArgs:
      return "empty_args";
    case FaultCode::kTooDeep:
      return "too_deep";
    case FaultCode::kTooManyNodes:
      return "too_many_nodes";
    case FaultCode::kMalformedOperand:
      return "malformed_operand";
    case FaultCode::kUnknownNamespace:
      return "unknown_namespace";
    case FaultCode::kUnknownField:
      return "unknown_field";
    case FaultCode::kFieldNotFilterable:
      return "field_not_filterable";
    case FaultCode::kTypeMismatch:
    case FaultCode::kOpNotApplicable:
    case FaultCode::kBadHaystack:
    case FaultCode::kContainsNeedsString:
      return "type_mismatch";
    case FaultCode::kNumberOutOfRange:
    case FaultCode::kNullNotAllowed:
    case FaultCode::kNullNeedsOptional:
    case FaultCode::kNotALiteral:
    case FaultCode::kItemType:
    case FaultCode::kBadDatetime:
    case FaultCode::kBadBool:
    case FaultCode::kEmptyNeedle:
    case FaultCode::kEmptyList:
    case FaultCode::kBetweenOrder:
      return "invalid_literal";
    case FaultCode::kMisplacedArray:
      return "misplaced_array";
    case FaultCode::kUnsupported:
      return "unsupported";
  }
  return "malformed";
}

}  // namespace engram::filter
