#include "text/query/lexer.h"

namespace engram::text {

std::vector<Lexeme> Lex(std::string_view s) {
  std::vector<Lexeme> out;
  std::size_t i = 0;
  while (i < s.size()) {
    if (s[i] == ' ') {
      ++i;
      continue;
    }
    if (s[i] == '"') {
      std::size_t close = s.find('"', i + 1);
      std::size_t end = close == std::string_view::npos ? s.size() : close;
      out.push_back({Lexeme::Kind::kPhrase, std::string(s.substr(i + 1, end - i - 1))});
      i = close == std::string_view::npos ? s.size() : close + 1;
      continue;
    }
    std::size_t end = s.find_first_of(" \"", i);
    if (end == std::string_view::npos) end = s.size();
    out.push_back({Lexeme::Kind::kWord, std::string(s.substr(i, end - i))});
    i = end;
  }
  return out;
}

Operator OperatorOf(const Lexeme& lexeme) {
  if (lexeme.kind != Lexeme::Kind::kWord) return Operator::kNone;
  if (lexeme.text == "AND") return Operator::kAnd;
  if (lexeme.text == "OR") return Operator::kOr;
  if (lexeme.text == "NOT") return Operator::kNot;
  return Operator::kNone;
}

std::string_view OperatorName(Operator op) {
  switch (op) {
    case Operator::kAnd:
      return "AND";
    case Operator::kOr:
      return "OR";
    case Operator::kNot:
      return "NOT";
    case Operator::kNone:
      break;
  }
  return "";
}

bool HasOperators(const std::vector<Lexeme>& lexemes) {
  for (const Lexeme& l : lexemes) {
    if (l.kind == Lexeme::Kind::kPhrase || OperatorOf(l) != Operator::kNone) return true;
  }
  return false;
}

}  // namespace engram::text
