// UTF-8 helpers on top of ICU: validation, simple case folding, Unicode
// white-space trimming.
#ifndef ENGRAM_BASE_UNICODE_H_
#define ENGRAM_BASE_UNICODE_H_

#include <string>
#include <string_view>

namespace engram {

// True when `s` is well-formed UTF-8 (no surrogates, no overlong forms).
bool IsValidUtf8(std::string_view s);

// `s` with every byte that is not part of a well-formed UTF-8 sequence
// replaced by `\xNN`, so that it can be echoed in a message.
std::string EscapeInvalidUtf8(std::string_view s);

// Unicode simple case folding (CaseFolding.txt statuses C and S), code point
// by code point, as ICU's u_foldCase with U_FOLD_CASE_DEFAULT. `s` must be
// valid UTF-8. Used for case-insensitive matching.
std::string FoldCase(std::string_view s);

// `s` without leading and trailing Unicode White_Space (as Rust's str::trim).
std::string_view TrimWhitespace(std::string_view s);

// ASCII-only lower-casing; other bytes are kept.
std::string AsciiLower(std::string_view s);

// Number of Unicode code points in valid UTF-8 `s`.
std::size_t CodePointCount(std::string_view s);

}  // namespace engram

#endif  // ENGRAM_BASE_UNICODE_H_
