#include "text/tokenize/tokenizer.h"

#include <cstdint>
#include <string>
#include <vector>

#include <unicode/ustring.h>

#include "text/tokenize/normalize.h"

namespace engram::text {

bool IsStrippedPunctuation(char32_t c) {
  // ispunct() in the C locale is exactly the printable ASCII characters that
  // are neither alphanumeric nor space: 0x21-0x2F, 0x3A-0x40, 0x5B-0x60,
  // 0x7B-0x7E. `_` (0x5F) is kept because it is part of identifiers.
  if (c == '_') return false;
  return (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) ||
         (c >= 0x7B && c <= 0x7E);
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

}  // namespace engram::text
