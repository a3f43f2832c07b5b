#include "text/query/default_parser.h"

#include <optional>
#include <utility>
#include <vector>

#include "text/query/lexer.h"
#include "text/query/stopwords.h"
#include "text/tokenize/tokenizer.h"

namespace engram::text {
namespace {

// What a lexeme becomes: a term, prefix or phrase, or nothing when it strips
// to nothing (`-`, `*`, `""`).
std::optional<Node> Operand(const Lexeme& l) {
  if (l.kind == Lexeme::Kind::kPhrase) {
    std::vector<std::string> words = TokenizeNormalized(l.text);
    if (words.empty()) return std::nullopt;
    return Node::Phrase(std::move(words));
  }
  // One trailing `*` on the raw word makes a prefix; any other `*` is
  // stripped with the punctuation (`kube**` is the prefix `kube`).
  const bool prefix = !l.text.empty() && l.text.back() == '*';
  std::string_view base(l.text);
  if (prefix) base.remove_suffix(1);
  std::string cleaned = StripWord(base, ControlChars::kRemove);
  if (cleaned.empty()) return std::nullopt;
  std::string lowered = ToLower(cleaned);
  return prefix ? Node::Prefix(std::move(lowered)) : Node::Term(std::move(lowered));
}

// One operator or operand of the boolean-mode token stream.
struct Item {
  Operator op = Operator::kNone;  // kNone: an operand
  std::optional<Node> operand;
  bool is_binary() const { return op == Operator::kAnd || op == Operator::kOr; }
};

// Applies the dangling-operator rules, so that the result always parses:
// every NOT is followed by NOTs and then an operand, and every binary
// operator stands between an operand and a NOT or operand.
std::vector<Item> CleanOperators(std::vector<Item> items) {
  // A NOT is kept when the next item that is not a NOT is an operand.
  std::vector<bool> keep(items.size(), true);
  bool operand_follows = false;
  for (std::size_t i = items.size(); i-- > 0;) {
    if (items[i].op == Operator::kNone) {
      operand_follows = true;
    } else if (items[i].op == Operator::kNot) {
      keep[i] = operand_follows;
    } else {
      operand_follows = false;
    }
  }
  std::vector<Item> out;
  Operator pending = Operator::kNone;  // the last binary operator of the current run
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (!keep[i]) continue;
    if (items[i].is_binary()) {
      pending = items[i].op;
      continue;
    }
    // A binary operator before anything else has no left operand: dropped.
    if (pending != Operator::kNone && !out.empty()) out.push_back(Item{pending, std::nullopt});
    pending = Operator::kNone;
    out.push_back(std::move(items[i]));
  }
  return out;  // a trailing binary operator is left in `pending` and dropped
}

// Recursive descent over a cleaned item stream; cannot fail.
class Parser {
 public:
  explicit Parser(std::vector<Item> items) : items_(std::move(items)) {}

  std::optional<Node> Parse() {
    if (items_.empty()) return std::nullopt;
    return ParseOr();
  }

 private:
  bool Peek(Operator op) const { return pos_ < items_.size() && items_[pos_].op == op; }

  Node ParseOr() {
    std::vector<Node> terms{ParseAnd()};
    while (Peek(Operator::kOr)) {
      ++pos_;
      terms.push_back(ParseAnd());
    }
    return Node::Group(Node::Kind::kOr, std::move(terms));
  }

  Node ParseAnd() {
    std::vector<Node> factors{ParseUnary()};
    while (pos_ < items_.size() && !Peek(Operator::kOr)) {
      if (Peek(Operator::kAnd)) ++pos_;  // explicit AND; juxtaposition is the same
      factors.push_back(ParseUnary());
    }
    return Node::Group(Node::Kind::kAnd, std::move(factors));
  }

  // Iterative, so that a long run of NOTs cannot exhaust the stack.
  Node ParseUnary() {
    bool negated = false;
    for (; Peek(Operator::kNot); ++pos_) negated = !negated;  // NOT NOT x is x
    Node operand = std::move(*items_[pos_++].operand);
    return negated ? Node::Not(std::move(operand)) : operand;
  }

  std::vector<Item> items_;
  std::size_t pos_ = 0;
};

// `term` and its aliases as `(term OR alt ...)`; an alternative of several
// words is a phrase; alternatives that tokenise to nothing and duplicates
// are left out.
Node ExpandTerm(Node term, const AliasTable& aliases) {
  const std::vector<std::string>* alts = aliases.FindTerm(term.text);
  if (alts == nullptr) return term;
  std::vector<Node> group{std::move(term)};
  for (const std::string& alt : *alts) {
    std::vector<std::string> words = TokenizeDocument(alt);
    if (words.empty()) continue;
    Node n = words.size() == 1 ? Node::Term(std::move(words[0])) : Node::Phrase(std::move(words));
    bool seen = false;
    for (const Node& g : group) seen = seen || g == n;
    if (!seen) group.push_back(std::move(n));
  }
  return Node::Group(Node::Kind::kOr, std::move(group));
}

// Aliases apply to terms only: never inside phrases, never to prefixes.
Node ExpandAliases(Node node, const AliasTable& aliases) {
  switch (node.kind) {
    case Node::Kind::kTerm:
      return ExpandTerm(std::move(node), aliases);
    case Node::Kind::kPrefix:
    case Node::Kind::kPhrase:
      return node;
    case Node::Kind::kNot:
      return Node::Not(ExpandAliases(std::move(node.children[0]), aliases));
    case Node::Kind::kAnd:
    case Node::Kind::kOr: {
      std::vector<Node> children;
      for (Node& c : node.children) children.push_back(ExpandAliases(std::move(c), aliases));
      return Node::Group(node.kind, std::move(children));
    }
  }
  return node;
}

bool IsBooleanWord(const std::string& lowered) {
  return lowered == "and" || lowered == "or" || lowered == "not";
}

// Bare-word mode: every word is a term or prefix, joined by AND, without
// stopwords and lower-case boolean words, unless that would leave nothing.
std::optional<Node> ParseBare(const std::vector<Lexeme>& lexemes) {
  std::vector<Node> all, kept;
  for (const Lexeme& l : lexemes) {
    if (std::optional<Node> n = Operand(l)) all.push_back(std::move(*n));
  }
  if (all.empty()) return std::nullopt;
  for (const Node& n : all) {
    if (!IsBooleanWord(n.text) && !IsStopword(n.text)) kept.push_back(n);
  }
  return Node::Group(Node::Kind::kAnd, kept.empty() ? std::move(all) : std::move(kept));
}

std::optional<Node> ParseBoolean(const std::vector<Lexeme>& lexemes) {
  std::vector<Item> items;
  for (const Lexeme& l : lexemes) {
    Operator op = OperatorOf(l);
    if (op != Operator::kNone) {
      items.push_back(Item{op, std::nullopt});
    } else if (std::optional<Node> n = Operand(l)) {
      items.push_back(Item{Operator::kNone, std::move(n)});
    }
  }
  return Parser(CleanOperators(std::move(items))).Parse();
}

}  // namespace

DefaultQuery ParseDefault(std::string raw, const Date& anchor, const AliasTable* aliases) {
  DefaultQuery q;
  q.raw = std::move(raw);
  std::vector<Lexeme> lexemes = Lex(q.raw);
  q.has_operators = HasOperators(lexemes);
  q.hints = ExtractTemporalHints(&lexemes, anchor);
  q.root = q.has_operators ? ParseBoolean(lexemes) : ParseBare(lexemes);
  if (q.root && aliases != nullptr && !aliases->empty()) {
    q.root = ExpandAliases(std::move(*q.root), *aliases);
  }
  return q;
}

}  // namespace engram::text
