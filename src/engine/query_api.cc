// Implements include/engram/query.h on top of src/text/query.
#include <fstream>
#include <sstream>
#include <utility>

#include "base/json.h"
#include "engine/internal.h"
#include "engram/query.h"
#include "text/query/aliases.h"
#include "text/query/query.h"

namespace engram {

std::string_view QueryProfileName(QueryProfile profile) {
  return profile == QueryProfile::kDefault ? "default" : "jeffs-brain";
}

std::optional<QueryProfile> QueryProfileFromName(std::string_view name) {
  for (QueryProfile p : {QueryProfile::kDefault, QueryProfile::kJeffsBrain}) {
    if (QueryProfileName(p) == name) return p;
  }
  return std::nullopt;
}

QueryAliases::QueryAliases() : table_(std::make_shared<const text::AliasTable>()) {}

Checked<QueryAliases> QueryAliases::Parse(std::string_view json_text) {
  Checked<text::AliasTable> table = text::AliasTable::Parse(json_text);
  if (!table.ok()) return table.diagnostic();
  return QueryAliases(std::make_shared<const text::AliasTable>(std::move(table).value()));
}

StatusOr<QueryAliases> QueryAliases::Load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound("cannot open aliases file '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Status::IoError("cannot read aliases file '" + path + "'");
  Checked<QueryAliases> parsed = Parse(text.str());
  if (!parsed.ok()) return Status::InvalidArgument(path + ": " + parsed.diagnostic().message);
  return std::move(parsed).value();
}

std::optional<Diagnostic> SetQueryAnchor(std::string_view anchor, std::string_view path,
                                         text::QueryOptions* options) {
  if (anchor.empty()) return std::nullopt;
  options->anchor = text::ParseDate(anchor);
  if (options->anchor) return std::nullopt;
  return Diagnostic{400, "query.invalid_anchor", std::string(path),
                    "query.invalid_anchor: '" + std::string(anchor) +
                        "' is not a date YYYY-MM-DD (years 0001-9999)"};
}

bool IsValidQueryAnchor(std::string_view anchor) {
  return text::ParseDate(anchor).has_value();
}

Checked<ParsedQuery> ParsedQuery::Parse(std::string_view query_text, const QueryOptions& options) {
  text::QueryOptions o;
  o.profile = options.profile == QueryProfile::kDefault ? text::Profile::kDefault
                                                        : text::Profile::kJeffsBrain;
  if (std::optional<Diagnostic> bad = SetQueryAnchor(options.anchor, "", &o)) return *bad;
  o.aliases = options.aliases.table_.get();
  o.max_chars = options.max_chars;
  Checked<text::Query> q = text::ParseQuery(query_text, o);
  if (!q.ok()) return q.diagnostic();
  return ParsedQuery(std::make_shared<const text::Query>(std::move(q).value()));
}

std::string ParsedQuery::AstJson() const {
  return json::Dump(text::ToJson(*impl_));
}

bool ParsedQuery::empty() const {
  return impl_->empty();
}

Checked<std::string> ParsedQuery::CompileFts5() const {
  return text::CompileToFts5(*impl_);
}

}  // namespace engram
