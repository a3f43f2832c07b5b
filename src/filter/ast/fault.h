// Fault: one reason a filter is rejected, with the words its message needs,
// before any dialect has rendered it. Parsers and the checker produce faults;
// each dialect renders them its own way (FILTERS.md §2) into a Diagnostic.
#ifndef ENGRAM_FILTER_AST_FAULT_H_
#define ENGRAM_FILTER_AST_FAULT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "base/path.h"

namespace engram::filter {

enum class FaultCode : std::uint8_t {
  // Reading the text (kind in parentheses).
  kSyntax,            // (parse_error) a: the reader's detail
  kNestingTooDeep,    // (parse_error) a: detail
  kTextTooLarge,      // (too_large) n: bytes, m: limit
  kDuplicateKey,      // (malformed) a: key
  kNumberOutOfRange,  // (invalid_literal) a: lexeme, b: detail
  // Shape.
  kNotObject,       // (malformed) a: JSON type found; the node/entry/root is not an object
  kNotArray,        // (malformed) a: JSON type found; the root is not an array (search_memory)
  kMissingKey,      // (malformed) a: key, b: op of the node ("" when unknown)
  kUnknownKey,      // (malformed) a: key, b: op of the node
  kWrongContainer,  // (malformed) a: key, b: JSON type found, c: op
  kOpNotString,     // (malformed) a: JSON type found, "" when missing
  kEmptyObject,     // (malformed) a nested filter object or operator object is {}
  kNotAnOperator,   // (malformed) a: key that should have been an operator
  kBadEnvelope,     // (malformed) a: "schema" missing | the schema string found; expr_v1
  kUnknownOp,       // (unknown_op) a: op
  kEmptyArgs,       // (empty_args) a: op
  kTooDeep,         // (too_deep) n: depth, m: limit
  kTooManyNodes,    // (too_many_nodes) n: nodes, m: limit
  // Operands and fields.
  kMalformedOperand,    // (malformed_operand) a: JSON type found or "keys", n: key count
  kUnknownNamespace,    // (unknown_namespace) a: namespace key
  kFieldNotString,      // (malformed) a: JSON type found
  kUnknownField,        // (unknown_field) a: name, b: filterable fields joined by ", "
  kFieldNotFilterable,  // (field_not_filterable) a: name, b: filterable fields
  // Types and literals.
  kTypeMismatch,     // (type_mismatch) a: first type, b: second type, c: op
  kOpNotApplicable,  // (type_mismatch) a: op, b: field (or first) type, c: second type, d: field
  kBadHaystack,      // (type_mismatch) a: haystack type
  kContainsNeedsString,  // (type_mismatch) a: JSON type found
  kNullNotAllowed,       // (invalid_literal) a: op; null with an op other than eq
  kNullNeedsOptional,    // (invalid_literal) a: field; null on a field that is never absent
  kNotALiteral,          // (invalid_literal) a: JSON type found
  kItemType,             // (invalid_literal) a: expected type, b: JSON type found
  kBadDatetime,          // (invalid_literal) a: the text
  kBadBool,              // (invalid_literal) a: JSON type found ($exists)
  kEmptyNeedle,          // (invalid_literal) contains with ""
  kEmptyList,            // (invalid_literal) a: op (any_of [])
  kBetweenShape,         // (malformed) a: JSON type found
  kBetweenOrder,         // (invalid_literal) min > max
  kMisplacedArray,       // (misplaced_array) a: op
  kListTooLarge,         // (too_large) a: op, n: items, m: limit
  kStringTooLong,        // (too_large) n: bytes, m: limit
  // Translation.
  kUnsupported,  // (unsupported) a: target, b: the construct it cannot express
};

// "malformed", "type_mismatch", ... (FILTERS.md §1.4), without "filter.".
std::string_view FaultKind(FaultCode code);

struct Fault {
  FaultCode code;
  Path path;
  std::string a, b, c, d;
  std::int64_t n = 0, m = 0;
};

inline Fault MakeFault(FaultCode code, Path path, std::string a = "", std::string b = "",
                       std::string c = "", std::string d = "") {
  return Fault{code, std::move(path), std::move(a), std::move(b), std::move(c), std::move(d), 0, 0};
}

// A fault about a count `n` against a limit `m`.
inline Fault CountFault(FaultCode code, Path path, std::size_t n, std::size_t m,
                        std::string a = "") {
  Fault f = MakeFault(code, std::move(path), std::move(a));
  f.n = static_cast<std::int64_t>(n);
  f.m = static_cast<std::int64_t>(m);
  return f;
}

}  // namespace engram::filter

#endif  // ENGRAM_FILTER_AST_FAULT_H_
