#include "text/tokenize/normalize.h"

#include <cstdint>
#include <string>
#include <vector>

#include <unicode/unorm2.h>
#include <unicode/ustring.h>
#include <unicode/utf16.h>
#include <unicode/utf8.h>

namespace engram::text {
namespace {

// UTF-8 to UTF-16, ill-formed bytes replaced by U+FFFD (ICU's "WithSub").
std::vector<UChar> ToUtf16(std::string_view s) {
  std::vector<UChar> out(s.size() + 1);
  std::int32_t length = 0;
  UErrorCode status = U_ZERO_ERROR;
  u_strFromUTF8WithSub(out.data(), static_cast<std::int32_t>(out.size()), &length, s.data(),
                       static_cast<std::int32_t>(s.size()), 0xFFFD, nullptr, &status);
  // A UTF-16 string never has more units than the UTF-8 it came from, so the
  // buffer is always large enough; U+FFFD replaces at most one byte each.
  if (U_FAILURE(status)) return {};
  out.resize(static_cast<std::size_t>(length));
  return out;
}

std::vector<UChar> Nfc(const std::vector<UChar>& in) {
  UErrorCode status = U_ZERO_ERROR;
  const UNormalizer2* nfc = unorm2_getNFCInstance(&status);
  if (U_FAILURE(status)) return in;
  // NFC can grow a string (up to 3x for some compatibility-free expansions);
  // retry with the size ICU asks for.
  std::vector<UChar> out(in.size() * 3 + 16);
  std::int32_t n = unorm2_normalize(nfc, in.data(), static_cast<std::int32_t>(in.size()),
                                    out.data(), static_cast<std::int32_t>(out.size()), &status);
  if (status == U_BUFFER_OVERFLOW_ERROR) {
    status = U_ZERO_ERROR;
    out.resize(static_cast<std::size_t>(n));
    n = unorm2_normalize(nfc, in.data(), static_cast<std::int32_t>(in.size()), out.data(),
                         static_cast<std::int32_t>(out.size()), &status);
  }
  if (U_FAILURE(status)) return in;
  out.resize(static_cast<std::size_t>(n));
  return out;
}

void AppendUtf8(UChar32 c, std::string* out) {
  std::uint8_t buf[4];
  std::int32_t len = 0;
  U8_APPEND_UNSAFE(buf, len, c);
  out->append(reinterpret_cast<const char*>(buf), static_cast<std::size_t>(len));
}

bool IsZeroWidth(UChar32 c) {
  return c == 0x200B || c == 0x200C || c == 0x200D || c == 0xFEFF;
}

}  // namespace

bool IsEcmaWhitespace(char32_t c) {
  if (c >= 0x09 && c <= 0x0D) return true;
  if (c < 0x80) return c == 0x20;
  if (c >= 0x2000 && c <= 0x200A) return true;
  switch (c) {
    case 0x00A0:
    case 0x1680:
    case 0x2028:
    case 0x2029:
    case 0x202F:
    case 0x205F:
    case 0x3000:
    case 0xFEFF:
      return true;
    default:
      return false;
  }
}

std::string Normalize(std::string_view text) {
  std::vector<UChar> units = Nfc(ToUtf16(text));
  std::string out;
  out.reserve(text.size());
  bool pending_space = false;  // a whitespace run seen since the last kept character
  const auto n = static_cast<std::int32_t>(units.size());
  for (std::int32_t i = 0; i < n;) {
    UChar32 c;
    U16_NEXT(units.data(), i, n, c);
    if (IsZeroWidth(c)) continue;
    if (c == 0x00A0 || IsEcmaWhitespace(static_cast<char32_t>(c))) {
      pending_space = true;
      continue;
    }
    if (pending_space && !out.empty()) out += ' ';
    pending_space = false;
    AppendUtf8(c, &out);
  }
  return out;
}

std::size_t Utf16Length(std::string_view s) {
  std::size_t n = 0;
  for (char c : s) {
    const auto b = static_cast<unsigned char>(c);
    if ((b & 0xC0) != 0x80) n += b >= 0xF0 ? 2 : 1;
  }
  return n;
}

}  // namespace engram::text
