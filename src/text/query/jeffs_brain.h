// The `jeffs-brain` profile: the Jeffs Brain TypeScript reference's parser,
// aliases and FTS compile reproduced exactly (QUERY_DSL_JEFFS_BRAIN.md), so
// that its canonical fixtures pass byte for byte.
#ifndef ENGRAM_TEXT_QUERY_JEFFS_BRAIN_H_
#define ENGRAM_TEXT_QUERY_JEFFS_BRAIN_H_

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "text/query/aliases.h"
#include "text/query/lexer.h"

namespace engram::text {

struct JbToken {
  enum class Kind { kTerm, kPhrase, kPrefix };
  Kind kind = Kind::kTerm;
  std::string text;               // lower-cased; a prefix without `*`
  Operator op = Operator::kNone;  // the pending operator it carries
  std::string cleaned;            // kTerm: stripped, before lower-casing (alias lookup)
};

struct JbQuery {
  std::string raw;
  std::vector<JbToken> tokens;  // flat; not de-duplicated
  bool has_operators = false;
};

// Scans `raw` (already normalised; control characters kept) and applies
// `aliases` (may be null) the reference's way. Never fails.
JbQuery ParseJeffsBrain(std::string raw, const AliasTable* aliases);

// The reference's FTS string: tokens joined by their operator (default OR,
// NOT as `AND NOT`, a leading operator dropped), no quoting of terms, no
// parentheses. Not always valid FTS5 (`foo AND bar AND NOT baz`), by design.
std::string CompileJeffsBrain(const JbQuery& query);

// {"raw":..,"tokens":[{"kind":..,"text":..,"operator":..}],"hasOperators":..},
// `operator` omitted when absent: the fixtures' shape.
nlohmann::ordered_json JeffsBrainJson(const JbQuery& query);

}  // namespace engram::text

#endif  // ENGRAM_TEXT_QUERY_JEFFS_BRAIN_H_
