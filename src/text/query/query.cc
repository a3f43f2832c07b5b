#include "text/query/query.h"

#include <cstdint>
#include <string>

#include <unicode/utf8.h>

#include "text/query/default_parser.h"
#include "text/query/fts5.h"
#include "text/tokenize/normalize.h"

namespace engram::text {
namespace {

// Code points, each ill-formed sequence counting as the one U+FFFD it becomes.
std::size_t CountCharacters(std::string_view s) {
  const auto* p = reinterpret_cast<const std::uint8_t*>(s.data());
  const auto n = static_cast<std::int32_t>(s.size());
  std::size_t count = 0;
  for (std::int32_t i = 0; i < n; ++count) {
    UChar32 c;
    U8_NEXT(p, i, n, c);
  }
  return count;
}

}  // namespace

bool Query::empty() const {
  return profile == Profile::kDefault ? !def.root.has_value() : jb.tokens.empty();
}

Checked<Query> ParseQuery(std::string_view text, const QueryOptions& options) {
  if (options.max_chars != 0 && text.size() > options.max_chars) {
    const std::size_t chars = CountCharacters(text);
    if (chars > options.max_chars) {
      return Diagnostic{400, "query.too_long", "",
                        "query.too_long: the query is " + std::to_string(chars) +
                            " characters long; the limit is " + std::to_string(options.max_chars)};
    }
  }
  Query q;
  q.profile = options.profile;
  std::string raw = Normalize(text);
  if (options.profile == Profile::kJeffsBrain) {
    q.jb = ParseJeffsBrain(std::move(raw), options.aliases);
  } else {
    q.def = ParseDefault(std::move(raw), options.anchor ? *options.anchor : TodayUtc(),
                         options.aliases);
  }
  return q;
}

nlohmann::ordered_json ToJson(const Query& query) {
  return query.profile == Profile::kDefault ? QueryJson(query.def) : JeffsBrainJson(query.jb);
}

Checked<std::string> CompileToFts5(const Query& query) {
  if (query.profile == Profile::kJeffsBrain) return CompileJeffsBrain(query.jb);
  return CompileFts5(query.def);
}

}  // namespace engram::text
