// The four JSON filter dialects engram reads (FILTERS.md §2). Each turns its
// JSON into the shared AST, says how the checker should type it (a Policy),
// and renders faults the way its own document shows them.
#ifndef ENGRAM_FILTER_DIALECTS_DIALECT_H_
#define ENGRAM_FILTER_DIALECTS_DIALECT_H_

#include <cstdint>
#include <optional>
#include <string_view>

#include "base/diagnostic.h"
#include "base/json.h"
#include "filter/ast/ast.h"
#include "filter/check/policy.h"

namespace engram::filter {

enum class Dialect : std::uint8_t { kRetrieve, kExprV1, kVectorFilter, kSearchMemory };

inline constexpr Dialect kAllDialects[] = {Dialect::kRetrieve, Dialect::kExprV1,
                                           Dialect::kVectorFilter, Dialect::kSearchMemory};

// "retrieve", "expr_v1", "vector_filter", "search_memory".
std::string_view DialectName(Dialect d);
std::optional<Dialect> DialectFromName(std::string_view name);

// Global limits (FILTERS.md §1.5).
inline constexpr std::size_t kMaxFilterBytes = std::size_t{64} * 1024;
inline constexpr std::size_t kMaxJsonDepth = 64;
inline constexpr std::size_t kMaxArrayLiteral = 1024;

// expr_v1's envelope and its own limits (FILTERS.md §2.2).
inline constexpr std::string_view kExprV1Schema = "search_filter_expr/v1";
inline constexpr std::size_t kExprV1MaxInList = 128;
inline constexpr std::size_t kExprV1MaxStringBytes = 512;

// What makes a dialect: its JSON -> AST parser, the typing Policy the one
// checker applies to it, and how it words and locates errors.
struct DialectSpec {
  Dialect id;
  // The error code of every diagnostic: 3007 (InvalidParamValue) for
  // `retrieve`, 400 for the others.
  int code;
  Policy policy;
  // The filter document -> AST. Never fails: what cannot be parsed becomes
  // a fault inside the tree, where it occurred.
  ast::Tree (*parse)(const json::Value& doc);
  // A fault as this dialect words and locates it.
  Diagnostic (*render)(const Fault& fault);
  // Where a reading fault at a path (a duplicate key, an out-of-range
  // number) is reported; nullptr: at that path.
  Path (*locate_read_fault)(const Path& p) = nullptr;

  Path LocateReadFault(const Path& p) const { return locate_read_fault ? locate_read_fault(p) : p; }
};

const DialectSpec& GetDialect(Dialect d);

}  // namespace engram::filter

#endif  // ENGRAM_FILTER_DIALECTS_DIALECT_H_
