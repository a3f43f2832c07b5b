// The text query DSL's entry point (QUERY_DSL.md): normalise, check the
// length limit, and parse in one of the two profiles; print the AST and
// compile it to FTS5. Front-ends reach this through include/engram/query.h.
#ifndef ENGRAM_TEXT_QUERY_QUERY_H_
#define ENGRAM_TEXT_QUERY_QUERY_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "engram/diagnostic.h"
#include "text/query/aliases.h"
#include "text/query/ast.h"
#include "text/query/jeffs_brain.h"
#include "text/query/temporal.h"

namespace engram::text {

enum class Profile { kDefault, kJeffsBrain };

// The SearchMemory limit on a query's length (QUERY_DSL.md §6).
inline constexpr std::size_t kDefaultMaxQueryChars = 1000;

struct QueryOptions {
  Profile profile = Profile::kDefault;
  std::optional<Date> anchor;                     // temporal hints; absent: today (UTC)
  const AliasTable* aliases = nullptr;            // not owned; may be null
  std::size_t max_chars = kDefaultMaxQueryChars;  // 0: no limit
};

struct Query {
  Profile profile = Profile::kDefault;
  DefaultQuery def;  // Profile::kDefault
  JbQuery jb;        // Profile::kJeffsBrain
  bool empty() const;
};

// Parses `text` (any bytes: invalid UTF-8 becomes U+FFFD). The only failure
// is a text longer than `options.max_chars` characters (Unicode code points
// of the input, an ill-formed byte sequence counting one), a Diagnostic of
// kind "query.too_long". Everything else in the text is used or dropped.
Checked<Query> ParseQuery(std::string_view text, const QueryOptions& options);

// The AST as JSON: QueryJson (default) or the fixtures' shape (jeffs-brain).
nlohmann::ordered_json ToJson(const Query& query);

// The FTS5 MATCH string: CompileFts5 (default; may be "query.unsupported")
// or CompileJeffsBrain (jeffs-brain; never fails).
Checked<std::string> CompileToFts5(const Query& query);

}  // namespace engram::text

#endif  // ENGRAM_TEXT_QUERY_QUERY_H_
