#include "text/tokenize/tokenizer.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <unicode/ustring.h>

#include "text/tokenize/normalize.h"

namespace engram::text {
namespace {

constexpr bool StrippedPunctuation(char32_t c) {
  // ispunct() in the C locale is exactly the printable ASCII characters that
  // are neither alphanumeric nor space: 0x21-0x2F, 0x3A-0x40, 0x5B-0x60,
  // 0x7B-0x7E. `_` (0x5F) is kept because it is part of identifiers.
  if (c == '_') return false;
  return (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) ||
         (c >= 0x7B && c <= 0x7E);
}

}  // namespace

bool IsStrippedPunctuation(char32_t c) {
  return StrippedPunctuation(c);
}

std::string StripWord(std::string_view word, ControlChars controls) {
  std::string out;
  out.reserve(word.size());
  for (char ch : word) {
    const auto b = static_cast<unsigned char>(ch);
    // Bytes >= 0x80 belong to multi-byte sequences and are never ASCII.
    if (b < 0x80) {
      if (IsStrippedPunctuation(b)) continue;
      const bool control = b < 0x20 || b == 0x7F;
      if (controls == ControlChars::kRemove && control && !IsEcmaWhitespace(b)) continue;
    }
    out += ch;
  }
  return out;
}

std::string ToLower(std::string_view s) {
  bool ascii = true;
  for (char c : s) ascii = ascii && static_cast<unsigned char>(c) < 0x80;
  if (ascii) {
    std::string out(s);
    for (char& c : out) {
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
    }
    return out;
  }
  UErrorCode status = U_ZERO_ERROR;
  std::vector<UChar> src(s.size() + 1);
  std::int32_t src_len = 0;
  u_strFromUTF8WithSub(src.data(), static_cast<std::int32_t>(src.size()), &src_len, s.data(),
                       static_cast<std::int32_t>(s.size()), 0xFFFD, nullptr, &status);
  if (U_FAILURE(status)) return std::string(s);
  // Full lower-casing can lengthen a string (İ -> i + U+0307); ask ICU for
  // the size when the first guess is short.
  std::vector<UChar> dst(static_cast<std::size_t>(src_len) * 2 + 4);
  std::int32_t n = u_strToLower(dst.data(), static_cast<std::int32_t>(dst.size()), src.data(),
                                src_len, "en", &status);
  if (status == U_BUFFER_OVERFLOW_ERROR) {
    status = U_ZERO_ERROR;
    dst.resize(static_cast<std::size_t>(n));
    n = u_strToLower(dst.data(), n, src.data(), src_len, "en", &status);
  }
  if (U_FAILURE(status)) return std::string(s);
  std::string out(static_cast<std::size_t>(n) * 3, '\0');
  std::int32_t out_len = 0;
  u_strToUTF8WithSub(out.data(), static_cast<std::int32_t>(out.size()), &out_len, dst.data(), n,
                     0xFFFD, nullptr, &status);
  if (U_FAILURE(status)) return std::string(s);
  out.resize(static_cast<std::size_t>(out_len));
  return out;
}

std::vector<std::string> TokenizeNormalized(std::string_view normalized) {
  std::vector<std::string> terms;
  std::size_t i = 0;
  while (i < normalized.size()) {
    std::size_t end = normalized.find_first_of(" \"", i);
    if (end == std::string_view::npos) end = normalized.size();
    if (end > i) {
      std::string term = ToLower(StripWord(normalized.substr(i, end - i), ControlChars::kRemove));
      if (!term.empty()) terms.push_back(std::move(term));
    }
    i = end + 1;
  }
  return terms;
}

std::vector<std::string> TokenizeDocument(std::string_view text) {
  return TokenizeNormalized(Normalize(text));
}

namespace {

// What the ASCII fast path does with each byte: kEnd ends a word (ECMAScript
// whitespace U+0009-U+000D and U+0020, which Normalize turns into word-
// splitting spaces, and `"`), kDrop removes it (the stripped punctuation and
// the control characters that are not whitespace), kOther marks a byte of a
// multi-byte sequence; any other value is the byte lower-cased.
constexpr char kEnd = 0;
constexpr char kDrop = 1;
constexpr char kOther = 2;

constexpr std::array<char, 256> MakeByteClasses() {
  std::array<char, 256> t{};
  for (int b = 0; b < 256; ++b) {
    char c;
    if (b >= 0x80) {
      c = kOther;
    } else if ((b >= 0x09 && b <= 0x0D) || b == 0x20 || b == '"') {
      c = kEnd;
    } else if (b < 0x20 || b == 0x7F || StrippedPunctuation(static_cast<char32_t>(b))) {
      c = kDrop;
    } else if (b >= 'A' && b <= 'Z') {
      c = static_cast<char>(b + 32);
    } else {
      c = static_cast<char>(b);
    }
    t[static_cast<std::size_t>(b)] = c;
  }
  return t;
}

constexpr std::array<char, 256> kByteClass = MakeByteClasses();

}  // namespace

void TokenizeDocumentInto(std::string_view text, TermList* out) {
  // Why cutting is exact: NFC decomposes character by character, reorders
  // only runs of non-starters, and composes a starter with what follows only
  // where a primary composite exists. The cut characters are starters with
  // no decomposition that begin and end no canonical composition, so NFC of
  // the whole is the NFC of the pieces joined by them. U+FFFD replacement of
  // ill-formed UTF-8 never swallows an ASCII byte (ICU substitutes maximal
  // subparts), and the cut characters end words in TokenizeNormalized.
  const char* p = text.data();
  const std::size_t n = text.size();
  std::string& chars = out->chars;
  std::size_t used = chars.size();
  // Room for the rest of the text: a plain ASCII word is never longer than
  // its input, so the loop writes through a pointer without checks.
  chars.resize(used + n);
  std::size_t i = 0;
  while (i < n) {
    const std::size_t start = i;
    char* const begin = chars.data() + used;
    char* w = begin;
    bool ascii = true;
    for (; i < n; ++i) {
      const char c = kByteClass[static_cast<unsigned char>(p[i])];
      if (c > kOther) {
        *w++ = c;
      } else if (c == kEnd) {
        break;
      } else if (c == kOther) {
        ascii = false;
      }
    }
    if (ascii) {
      if (w != begin) {
        used += static_cast<std::size_t>(w - begin);
        out->ends.push_back(static_cast<std::uint32_t>(used));
      }
    } else {
      chars.resize(used);
      for (const std::string& term : TokenizeDocument(text.substr(start, i - start))) {
        chars += term;
        out->ends.push_back(static_cast<std::uint32_t>(chars.size()));
      }
      used = chars.size();
      chars.resize(used + (n - i));
    }
    ++i;  // past the word's end (or n)
  }
  chars.resize(used);
}

}  // namespace engram::text
