// Splits a normalised query into words and phrases (QUERY_DSL.md §2): a
// phrase runs from `"` to the next `"` or the end, a word runs to a space or
// `"`. Both profiles start here.
#ifndef ENGRAM_TEXT_QUERY_LEXER_H_
#define ENGRAM_TEXT_QUERY_LEXER_H_

#include <string>
#include <string_view>
#include <vector>

namespace engram::text {

struct Lexeme {
  enum class Kind { kWord, kPhrase };
  Kind kind = Kind::kWord;
  std::string text;  // a word as written; a phrase's content without the quotes
  bool operator==(const Lexeme&) const = default;
};

// The lexemes of `normalized` (text/tokenize/normalize.h) in order. An empty
// phrase (`""`, or a `"` at the end) is a lexeme with empty text.
std::vector<Lexeme> Lex(std::string_view normalized);

// The operator a word is, when it is exactly `AND`, `OR` or `NOT` (upper case).
enum class Operator { kNone, kAnd, kOr, kNot };
Operator OperatorOf(const Lexeme& lexeme);
std::string_view OperatorName(Operator op);  // "AND", "OR", "NOT"

// `hasOperators` (QUERY_DSL.md §2): an operator word, or a `"` anywhere.
bool HasOperators(const std::vector<Lexeme>& lexemes);

}  // namespace engram::text

#endif  // ENGRAM_TEXT_QUERY_LEXER_H_
