// The AST of a `default`-profile query (QUERY_DSL.md §3): terms, prefixes and
// phrases combined by AND, OR and NOT, plus the temporal hints recognised in
// the text. The native index evaluates this tree; fts5.h compiles it.
#ifndef ENGRAM_TEXT_QUERY_AST_H_
#define ENGRAM_TEXT_QUERY_AST_H_

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "text/query/temporal.h"

namespace engram::text {

struct Node {
  enum class Kind { kTerm, kPrefix, kPhrase, kAnd, kOr, kNot };

  Kind kind = Kind::kTerm;
  // kTerm, kPrefix: one lower-cased, stripped word (never empty, never with
  // a space or `"`); a prefix's text has no `*`.
  std::string text;
  // kPhrase: its words, tokenised like a document (never empty).
  std::vector<std::string> words;
  // kAnd, kOr: two or more children; kNot: exactly one, never a kNot.
  std::vector<Node> children;

  static Node Term(std::string t) { return Node{Kind::kTerm, std::move(t), {}, {}}; }
  static Node Prefix(std::string t) { return Node{Kind::kPrefix, std::move(t), {}, {}}; }
  static Node Phrase(std::vector<std::string> w) {
    return Node{Kind::kPhrase, {}, std::move(w), {}};
  }
  // A group of `kind` over `children`; one child is returned as is.
  static Node Group(Kind kind, std::vector<Node> children);
  // NOT `child`; NOT NOT x is x.
  static Node Not(Node child);

  bool is_leaf() const {
    return kind == Kind::kTerm || kind == Kind::kPrefix || kind == Kind::kPhrase;
  }
  bool operator==(const Node&) const = default;
};

struct DefaultQuery {
  std::string raw;             // the normalised text (before temporal hints are removed)
  bool has_operators = false;  // an upper-case AND/OR/NOT word, or a `"`
  // Bare-word mode (no operators): ranking may relax the implicit AND
  // (QUERY_DSL.md §3 "Ranked retrieval").
  bool bare() const { return !has_operators; }
  std::optional<Node> root;  // absent: the query is empty and selects nothing
  std::vector<TemporalHint> hints;
};

// {"term":"x"}, {"prefix":"x"}, {"phrase":["a","b"]}, {"and":[...]},
// {"or":[...]}, {"not":{...}}.
nlohmann::ordered_json NodeJson(const Node& node);

// {"raw":..,"hasOperators":..,"mode":"bare"|"boolean","query":<node>|null,
//  "hints":[{"around":"YYYY-MM-DD"}|{"ordinal":N}],"explain":..}
nlohmann::ordered_json QueryJson(const DefaultQuery& query);

// The compact form tests and `explain` print: `hedge*`, `"gardens and parks"`,
// `(and a (or b c) (not d))`, then the hints as the seed writes them:
// `(around 2026/04/16)`, `(ordinal 1)`, separated by spaces. The empty query
// prints `()`.
std::string Explain(const DefaultQuery& query);
std::string Explain(const Node& node);

}  // namespace engram::text

#endif  // ENGRAM_TEXT_QUERY_AST_H_
