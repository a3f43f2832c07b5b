#include "text/query/jeffs_brain.h"

#include <cstdint>
#include <utility>

#include <unicode/uchar.h>
#include <unicode/utf8.h>

#include "text/query/stopwords.h"
#include "text/tokenize/normalize.h"
#include "text/tokenize/tokenizer.h"

namespace engram::text {
namespace {

using Json = nlohmann::ordered_json;

std::string TrimSpaces(std::string_view s) {
  // Normalised text has no whitespace but U+0020.
  std::size_t b = s.find_first_not_of(' ');
  if (b == std::string_view::npos) return "";
  std::size_t e = s.find_last_not_of(' ');
  return std::string(s.substr(b, e - b + 1));
}

// The pieces of an alias alternative: lower-cased, trimmed, split on runs of
// characters that are not letters or digits (JavaScript /[^\p{L}\p{N}]+/u).
std::vector<std::string> AlternativePieces(std::string_view alt) {
  std::string lowered = ToLower(alt);
  std::vector<std::string> pieces;
  std::string current;
  const auto* p = reinterpret_cast<const std::uint8_t*>(lowered.data());
  const auto n = static_cast<std::int32_t>(lowered.size());
  for (std::int32_t i = 0; i < n;) {
    const std::int32_t start = i;
    UChar32 c;
    U8_NEXT(p, i, n, c);
    const bool keep = c >= 0 && (U_GET_GC_MASK(c) & (U_GC_L_MASK | U_GC_N_MASK)) != 0;
    if (keep) {
      current.append(lowered, static_cast<std::size_t>(start), static_cast<std::size_t>(i - start));
    } else if (!current.empty()) {
      pieces.push_back(std::move(current));
      current.clear();
    }
  }
  if (!current.empty()) pieces.push_back(std::move(current));
  return pieces;
}

// The tokens `token` becomes under `aliases`: its alternatives (the first
// carrying its operator), or `token` itself.
std::vector<JbToken> Expand(const JbToken& token, const AliasTable& aliases) {
  const std::vector<std::string>* alts = aliases.FindExact(token.cleaned);
  if (alts == nullptr) alts = aliases.FindExact(token.text);
  if (alts == nullptr) return {token};
  std::vector<JbToken> out;
  for (const std::string& alt : *alts) {
    std::vector<std::string> pieces = AlternativePieces(alt);
    if (pieces.empty()) continue;
    JbToken t;
    if (pieces.size() == 1) {
      t.kind = JbToken::Kind::kTerm;
      t.text = pieces[0];
    } else {
      t.kind = JbToken::Kind::kPhrase;
      for (std::size_t i = 0; i < pieces.size(); ++i) t.text += (i ? " " : "") + pieces[i];
    }
    bool seen = false;
    for (const JbToken& o : out) seen = seen || (o.kind == t.kind && o.text == t.text);
    if (!seen) out.push_back(std::move(t));
  }
  if (out.empty()) return {token};
  out[0].op = token.op;
  return out;
}

}  // namespace

JbQuery ParseJeffsBrain(std::string raw, const AliasTable* aliases) {
  JbQuery q;
  q.raw = std::move(raw);
  std::vector<Lexeme> lexemes = Lex(q.raw);
  q.has_operators = HasOperators(lexemes);
  Operator pending = Operator::kNone;
  for (const Lexeme& l : lexemes) {
    if (l.kind == Lexeme::Kind::kPhrase) {
      std::string phrase = ToLower(TrimSpaces(l.text));
      if (phrase.empty()) continue;  // an empty phrase keeps the pending operator
      q.tokens.push_back(JbToken{JbToken::Kind::kPhrase, std::move(phrase), pending, {}});
      pending = Operator::kNone;
      continue;
    }
    if (Operator op = OperatorOf(l); op != Operator::kNone) {
      pending = op;  // a later operator overwrites
      continue;
    }
    const bool prefix = l.text.back() == '*';
    std::string_view base(l.text);
    if (prefix) base.remove_suffix(1);
    std::string cleaned = StripWord(base, ControlChars::kKeep);
    if (cleaned.empty()) {
      pending = Operator::kNone;
      continue;
    }
    std::string lowered = ToLower(cleaned);
    if (!q.has_operators) {
      const bool boolean_word = lowered == "and" || lowered == "or" || lowered == "not";
      if (boolean_word || Utf16Length(lowered) <= 2 || IsStopword(lowered)) {
        pending = Operator::kNone;
        continue;
      }
    }
    q.tokens.push_back(JbToken{prefix ? JbToken::Kind::kPrefix : JbToken::Kind::kTerm,
                               std::move(lowered), pending, std::move(cleaned)});
    pending = Operator::kNone;
  }
  if (aliases != nullptr && !aliases->empty()) {
    std::vector<JbToken> expanded;
    for (const JbToken& t : q.tokens) {
      if (t.kind != JbToken::Kind::kTerm) {
        expanded.push_back(t);
        continue;
      }
      for (JbToken& e : Expand(t, *aliases)) expanded.push_back(std::move(e));
    }
    q.tokens = std::move(expanded);
  }
  return q;
}

std::string CompileJeffsBrain(const JbQuery& query) {
  std::string out;
  for (const JbToken& t : query.tokens) {
    if (t.text.empty()) continue;
    std::string r = t.kind == JbToken::Kind::kPhrase   ? "\"" + t.text + "\""
                    : t.kind == JbToken::Kind::kPrefix ? t.text + "*"
                                                       : t.text;
    if (out.empty()) {
      out = std::move(r);  // a leading operator is dropped
      continue;
    }
    std::string_view op = t.op == Operator::kNone  ? "OR"
                          : t.op == Operator::kNot ? "AND NOT"
                                                   : OperatorName(t.op);
    out += " ";
    out += op;
    out += " ";
    out += r;
  }
  return out;
}

Json JeffsBrainJson(const JbQuery& query) {
  Json tokens = Json::array();
  for (const JbToken& t : query.tokens) {
    Json j = Json::object();
    j["kind"] = t.kind == JbToken::Kind::kTerm     ? "term"
                : t.kind == JbToken::Kind::kPhrase ? "phrase"
                                                   : "prefix";
    j["text"] = t.text;
    if (t.op != Operator::kNone) j["operator"] = std::string(OperatorName(t.op));
    tokens.push_back(std::move(j));
  }
  Json j = Json::object();
  j["raw"] = query.raw;
  j["tokens"] = std::move(tokens);
  j["hasOperators"] = query.has_operators;
  return j;
}

}  // namespace engram::text
