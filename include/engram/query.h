// engram's text query DSL for front-ends (CLI, server, bindings): parse a
// full-text query in one of two profiles, print its AST, and compile it to
// an SQLite FTS5 MATCH string (docs/query-language.md, QUERY_DSL.md).
//
// Thread-safety: every type here is immutable once built and may be shared
// between threads.
#ifndef ENGRAM_QUERY_H_
#define ENGRAM_QUERY_H_

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engram/diagnostic.h"
#include "engram/status.h"

namespace engram {

namespace text {
struct Query;
class AliasTable;
}  // namespace text

// `default` follows the seed's prose (implicit AND, temporal hints);
// `jeffs-brain` reproduces the Jeffs Brain reference implementation.
enum class QueryProfile { kDefault, kJeffsBrain };

// "default", "jeffs-brain".
std::string_view QueryProfileName(QueryProfile profile);
std::optional<QueryProfile> QueryProfileFromName(std::string_view name);

// Aliases: a map from a term to its alternatives, applied to bare terms.
class QueryAliases {
 public:
  QueryAliases();  // no aliases

  // A JSON object `{"term": ["alternative", ...]}` (at most 1 MiB, read
  // strictly: no duplicate keys). Diagnostic kind "query.aliases", located
  // by the JSON path of the offending member.
  static Checked<QueryAliases> Parse(std::string_view json_text);
  // Parse on the contents of the file at `path`: NotFound when it cannot be
  // opened, InvalidArgument with the located message when it is malformed.
  static StatusOr<QueryAliases> Load(const std::string& path);

 private:
  explicit QueryAliases(std::shared_ptr<const text::AliasTable> table) : table_(std::move(table)) {}
  std::shared_ptr<const text::AliasTable> table_;
  friend class ParsedQuery;
};

struct QueryOptions {
  QueryProfile profile = QueryProfile::kDefault;
  // The anchor date of temporal hints, `YYYY-MM-DD`; empty: today (UTC).
  std::string anchor;
  QueryAliases aliases;
  // Longest accepted query, in characters (code points); 0: no limit.
  std::size_t max_chars = 1000;
};

// Whether `anchor` is a valid QueryOptions::anchor (a real `YYYY-MM-DD` day
// in years 0001-9999).
bool IsValidQueryAnchor(std::string_view anchor);

// A parsed query.
class ParsedQuery {
 public:
  // Parses `text`. The DSL never rejects user text (what it cannot use is
  // dropped); the Diagnostics are "query.too_long" (longer than
  // options.max_chars) and "query.invalid_anchor".
  static Checked<ParsedQuery> Parse(std::string_view text, const QueryOptions& options);

  // The AST as one line of JSON. `default`: {"raw","hasOperators","mode",
  // "query","hints","explain"}; `jeffs-brain`: {"raw","tokens","hasOperators"}.
  std::string AstJson() const;

  // True when nothing is left to search for: the caller returns no results
  // without touching an index.
  bool empty() const;

  // The FTS5 MATCH string ("" for an empty query). In `default`, a query
  // FTS5 cannot express (only negative) is a "query.unsupported" Diagnostic.
  Checked<std::string> CompileFts5() const;

 private:
  explicit ParsedQuery(std::shared_ptr<const text::Query> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const text::Query> impl_;
};

}  // namespace engram

#endif  // ENGRAM_QUERY_H_
