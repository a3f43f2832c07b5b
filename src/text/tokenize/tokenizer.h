// Words to terms (QUERY_DSL.md §2): stripping the 31 ASCII punctuation
// characters, optionally ASCII control characters, and full Unicode lower
// casing. The document tokeniser here is the one the text index uses, so a
// query term and a document term compare equal exactly when the same word
// produced them.
#ifndef ENGRAM_TEXT_TOKENIZE_TOKENIZER_H_
#define ENGRAM_TEXT_TOKENIZE_TOKENIZER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace engram::text {

// Whether a word keeps ASCII control characters that are not whitespace
// (U+0000-U+0008, U+000E-U+001F, U+007F). The `default` profile and
// documents remove them; the `jeffs-brain` profile keeps them.
enum class ControlChars { kRemove, kKeep };

// True for the 31 characters for which C's `ispunct` is true in the C locale,
// except `_`: ! " # $ % & ' ( ) * + , - . / : ; < = > ? @ [ \ ] ^ ` { | } ~
bool IsStrippedPunctuation(char32_t c);

// `word` without any stripped punctuation (and, with kRemove, without ASCII
// control characters), wherever they occur: `get-together` -> `gettogether`,
// `c++` -> `c`. `word` must be valid UTF-8; other characters are kept.
std::string StripWord(std::string_view word, ControlChars controls);

// Full Unicode lower-casing, ICU `u_strToLower` with the `en` locale
// (SpecialCasing and Final_Sigma: `ΟΔΟΣ` -> `οδος` with a final sigma, `İ` ->
// `i̇`). `s` must be valid UTF-8.
std::string ToLower(std::string_view s);

// The terms of normalised text (text/tokenize/normalize.h): words run to a
// space or `"`; each is stripped (control characters removed) and
// lower-cased; words that strip to nothing are dropped. Phrases in the
// `default` profile are tokenised this way too.
std::vector<std::string> TokenizeNormalized(std::string_view normalized);

// TokenizeNormalized(Normalize(text)): the terms a document contributes to
// the text index. Never fails; invalid UTF-8 becomes U+FFFD.
std::vector<std::string> TokenizeDocument(std::string_view text);

// A list of terms in one buffer, without a string per term: term i is
// chars[ends[i - 1] .. ends[i]) (ends[-1] = 0). Reused across documents by
// the text index's Put, so tokenising allocates nothing in the steady state.
struct TermList {
  std::string chars;
  std::vector<std::uint32_t> ends;

  std::size_t size() const { return ends.size(); }
  std::string_view operator[](std::size_t i) const {
    const std::uint32_t begin = i == 0 ? 0 : ends[i - 1];
    return std::string_view(chars).substr(begin, ends[i] - begin);
  }
  void clear() {
    chars.clear();
    ends.clear();
  }
};

// Appends the terms of TokenizeDocument(text) to *out: the same terms, byte
// for byte. Fast path: the text is cut at ASCII whitespace and `"`, which
// end words and which NFC never combines with a neighbour, so each piece
// can be tokenised alone; a piece of plain ASCII (NFC is the identity on it)
// is stripped and lower-cased in one pass without ICU, and only pieces with
// a byte >= 0x80 go through Normalize and TokenizeNormalized.
void TokenizeDocumentInto(std::string_view text, TermList* out);

}  // namespace engram::text

#endif  // ENGRAM_TEXT_TOKENIZE_TOKENIZER_H_
