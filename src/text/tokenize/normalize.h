// The normal form that queries and documents share (QUERY_DSL.md §2): NFC,
// zero-width characters deleted, whitespace runs collapsed to one space,
// trimmed. Everything else in src/text tokenises text in this form.
#ifndef ENGRAM_TEXT_TOKENIZE_NORMALIZE_H_
#define ENGRAM_TEXT_TOKENIZE_NORMALIZE_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace engram::text {

// True for the ECMAScript `\s` class (WhiteSpace and LineTerminator of
// ECMA-262 §12.2-12.3, with the Zs list of Unicode 15): U+0009-U+000D, U+0020,
// U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000 and
// U+FEFF. U+0085 and U+001C-U+001F are not whitespace here (unlike
// Unicode's White_Space), which is what the reference implementation does.
bool IsEcmaWhitespace(char32_t c);

// `text` in the normal form, in this order: NFC (ICU); delete U+200B, U+200C,
// U+200D and U+FEFF; U+00A0 becomes a space; every run of whitespace becomes
// one U+0020; leading and trailing spaces are removed. Bytes that are not
// well-formed UTF-8 become U+FFFD first, so the result is always valid UTF-8.
// Never fails. The result of a query is its `raw`.
std::string Normalize(std::string_view text);

// The length of valid UTF-8 `s` in UTF-16 code units (what JavaScript's
// `String.length` counts: a code point above U+FFFF counts two).
std::size_t Utf16Length(std::string_view s);

}  // namespace engram::text

#endif  // ENGRAM_TEXT_TOKENIZE_NORMALIZE_H_
