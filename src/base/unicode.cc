#include "base/unicode.h"

#include <cstdint>
#include <cstdio>
#include <string>

#include <unicode/uchar.h>
#include <unicode/utf8.h>

namespace engram {

bool IsValidUtf8(std::string_view s) {
  const auto* p = reinterpret_cast<const std::uint8_t*>(s.data());
  const auto n = static_cast<std::int32_t>(s.size());
  std::int32_t i = 0;
  while (i < n) {
    UChar32 c;
    U8_NEXT(p, i, n, c);
    if (c < 0) return false;
  }
  return true;
}

std::string EscapeInvalidUtf8(std::string_view s) {
  const auto* p = reinterpret_cast<const std::uint8_t*>(s.data());
  const auto n = static_cast<std::int32_t>(s.size());
  std::string out;
  std::int32_t i = 0;
  while (i < n) {
    std::int32_t start = i;
    UChar32 c;
    U8_NEXT(p, i, n, c);
    if (c < 0) {
      for (std::int32_t j = start; j < i; ++j) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\x%02X", p[j]);
        out += buf;
      }
    } else {
      out.append(s.data() + start, static_cast<std::size_t>(i - start));
    }
  }
  return out;
}

std::string FoldCase(std::string_view s) {
  const auto* p = reinterpret_cast<const std::uint8_t*>(s.data());
  const auto n = static_cast<std::int32_t>(s.size());
  std::string out;
  out.reserve(s.size());
  std::int32_t i = 0;
  while (i < n) {
    UChar32 c;
    U8_NEXT(p, i, n, c);
    if (c < 0) c = 0xFFFD;
    if (c < 0x80) {
      out += static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
      continue;
    }
    UChar32 f = u_foldCase(c, U_FOLD_CASE_DEFAULT);
    std::uint8_t buf[4];
    std::int32_t len = 0;
    U8_APPEND_UNSAFE(buf, len, f);
    out.append(reinterpret_cast<const char*>(buf), static_cast<std::size_t>(len));
  }
  return out;
}

std::string_view TrimWhitespace(std::string_view s) {
  const auto* p = reinterpret_cast<const std::uint8_t*>(s.data());
  const auto n = static_cast<std::int32_t>(s.size());
  std::int32_t begin = 0;
  while (begin < n) {
    std::int32_t next = begin;
    UChar32 c;
    U8_NEXT(p, next, n, c);
    if (c < 0 || !u_isUWhiteSpace(c)) break;
    begin = next;
  }
  std::int32_t end = n;
  while (end > begin) {
    std::int32_t prev = end;
    UChar32 c;
    U8_PREV(p, 0, prev, c);
    if (c < 0 || !u_isUWhiteSpace(c)) break;
    end = prev;
  }
  return s.substr(static_cast<std::size_t>(begin), static_cast<std::size_t>(end - begin));
}

std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  }
  return out;
}

std::size_t CodePointCount(std::string_view s) {
  std::size_t count = 0;
  for (char c : s) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++count;
  }
  return count;
}

}  // namespace engram
