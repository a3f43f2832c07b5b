// The `default` profile's parser (QUERY_DSL.md §3): temporal hints, the
// grammar with its dangling-operator rules, bare-word mode with stopwords and
// its bypass, and alias expansion, from normalised text to a DefaultQuery.
#ifndef ENGRAM_TEXT_QUERY_DEFAULT_PARSER_H_
#define ENGRAM_TEXT_QUERY_DEFAULT_PARSER_H_

#include <string>

#include "text/query/aliases.h"
#include "text/query/ast.h"
#include "text/query/temporal.h"

namespace engram::text {

// Parses `raw` (already normalised, text/tokenize/normalize.h) with temporal
// hints relative to `anchor` and `aliases` (may be null). Never fails: what
// cannot be used is dropped.
//
//   query := or ; or := and ("OR" and)* ; and := unary (["AND"] unary)* ;
//   unary := "NOT" unary | term | prefix | phrase
//
// A NOT with no operand to its right is dropped; of binary operators in a
// row the last stands; a binary operator at the start or the end is dropped.
DefaultQuery ParseDefault(std::string raw, const Date& anchor, const AliasTable* aliases);

}  // namespace engram::text

#endif  // ENGRAM_TEXT_QUERY_DEFAULT_PARSER_H_
