// Compiles a `default`-profile AST to an SQLite FTS5 MATCH string
// (QUERY_DSL.md §3, last bullet), and a small checker of the FTS5 subset the
// compiler emits, for tests and the fuzzer.
#ifndef ENGRAM_TEXT_QUERY_FTS5_H_
#define ENGRAM_TEXT_QUERY_FTS5_H_

#include <string>
#include <string_view>

#include "engram/diagnostic.h"
#include "text/query/ast.h"

namespace engram::text {

// The MATCH string for `query`: every term and phrase double-quoted
// (`"hedgehog"`, `"gardens and parks"`), prefixes as `"hedge"*`, an explicit
// `AND` between conjuncts, parentheses around every nested group, and NOT in
// FTS5's binary form: `(positives) NOT (negatives)`, the negatives of one
// conjunction OR-ed together. SQLite 3.40 accepts the result, and it selects
// what the AST does. The empty query compiles to "".
//
// A negation that has no positive conjunct beside it (`NOT urban`,
// `a OR NOT b`) cannot be written in FTS5, whose NOT is binary: that is a
// Diagnostic of kind "query.unsupported".
Checked<std::string> CompileFts5(const DefaultQuery& query);

// Whether `match` is in the FTS5 subset CompileFts5 emits:
//   expr := primary (" AND " | " OR " | " NOT ") primary ... ;
//   primary := STRING ["*"] | "(" expr ")" ;
//   STRING := '"' (any character but '"' | '""')+ '"'
// with no ASCII control character anywhere, inside strings included. The
// empty string is well formed (the empty query).
bool IsWellFormedFts5(std::string_view match);

}  // namespace engram::text

#endif  // ENGRAM_TEXT_QUERY_FTS5_H_
