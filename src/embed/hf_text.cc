#include "embed/hf_text.h"

#include <cstdint>
#include <utility>

#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>
#include <unicode/utf8.h>

namespace engram::embed::hf {
namespace {

// Rust's char::is_control as tokenizers' BertNormalizer uses it: the Other
// categories (Cc, Cf, Cn, Co, Cs) except tab, newline and carriage return.
bool IsControl(char32_t c) {
  if (c == U'\t' || c == U'\n' || c == U'\r') return false;
  switch (u_charType(static_cast<UChar32>(c))) {
    case U_CONTROL_CHAR:
    case U_FORMAT_CHAR:
    case U_UNASSIGNED:
    case U_PRIVATE_USE_CHAR:
    case U_SURROGATE:
      return true;
    default:
      return false;
  }
}

bool IsBertWhitespace(char32_t c) {
  return c == U'\t' || c == U'\n' || c == U'\r' || IsWhitespace(c);
}

// The CJK Unified Ideographs blocks (bert.rs is_chinese_char).
bool IsChineseChar(char32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) ||
         (c >= 0x20000 && c <= 0x2A6DF) || (c >= 0x2A700 && c <= 0x2B73F) ||
         (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

// ASCII punctuation (which includes symbols such as $ + < = > ^ ` |) or a
// Unicode punctuation category (bert.rs is_bert_punc).
bool IsBertPunctuation(char32_t c) {
  if (c < 0x80) {
    return (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) ||
           (c >= 0x7B && c <= 0x7E);
  }
  switch (u_charType(static_cast<UChar32>(c))) {
    case U_CONNECTOR_PUNCTUATION:
    case U_DASH_PUNCTUATION:
    case U_START_PUNCTUATION:
    case U_END_PUNCTUATION:
    case U_INITIAL_PUNCTUATION:
    case U_FINAL_PUNCTUATION:
    case U_OTHER_PUNCTUATION:
      return true;
    default:
      return false;
  }
}

bool IsNonspacingMark(char32_t c) {
  return u_charType(static_cast<UChar32>(c)) == U_NON_SPACING_MARK;
}

// Rust's char::to_lowercase: the simple mapping, except U+0130 whose full
// (unconditional) lower case is two code points.
void AppendLower(char32_t c, Text* out) {
  if (c < 0x80) {
    out->push_back(c >= U'A' && c <= U'Z' ? c + 32 : c);
  } else if (c == 0x130) {
    out->push_back(U'i');
    out->push_back(0x307);
  } else {
    out->push_back(static_cast<char32_t>(u_tolower(static_cast<UChar32>(c))));
  }
}

bool IsAscii(const Text& t) {
  for (char32_t c : t) {
    if (c >= 0x80) return false;
  }
  return true;
}

void IcuNormalize(const icu::Normalizer2* (*instance)(UErrorCode&), Text* text) {
  if (IsAscii(*text)) return;  // every normal form leaves ASCII as it is
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* n = instance(status);
  if (U_FAILURE(status)) return;
  const icu::UnicodeString in = icu::UnicodeString::fromUTF32(
      reinterpret_cast<const UChar32*>(text->data()), static_cast<std::int32_t>(text->size()));
  icu::UnicodeString out = n->normalize(in, status);
  if (U_FAILURE(status)) return;
  Text result;
  result.reserve(static_cast<std::size_t>(out.length()));
  for (std::int32_t i = 0; i < out.length();) {
    const UChar32 c = out.char32At(i);
    result.push_back(static_cast<char32_t>(c));
    i += U16_LENGTH(c);
  }
  *text = std::move(result);
}

void Bert(const NormalizerStep& s, Text* text) {
  Text out;
  out.reserve(text->size());
  for (char32_t c : *text) {
    if (s.clean_text) {
      if (c == 0 || c == 0xFFFD || IsControl(c)) continue;
      if (IsBertWhitespace(c)) c = U' ';
    }
    if (s.handle_chinese_chars && IsChineseChar(c)) {
      out.push_back(U' ');
      out.push_back(c);
      out.push_back(U' ');
    } else {
      out.push_back(c);
    }
  }
  *text = std::move(out);
  if (s.strip_accents) {
    IcuNormalize(&icu::Normalizer2::getNFDInstance, text);
    std::erase_if(*text, IsNonspacingMark);
  }
  if (s.lowercase) {
    Text lower;
    lower.reserve(text->size());
    for (char32_t c : *text) AppendLower(c, &lower);
    *text = std::move(lower);
  }
}

void Replace(const Text& pattern, const Text& content, Text* text) {
  if (pattern.empty()) return;
  Text out;
  out.reserve(text->size());
  std::size_t at = 0;
  for (std::size_t hit; (hit = text->find(pattern, at)) != Text::npos; at = hit + pattern.size()) {
    out.append(*text, at, hit - at);
    out += content;
  }
  out.append(*text, at, Text::npos);
  *text = std::move(out);
}

void ReplaceWhitespaceRuns(const Text& content, Text* text) {
  Text out;
  out.reserve(text->size());
  for (std::size_t i = 0; i < text->size();) {
    if (!IsWhitespace((*text)[i])) {
      out.push_back((*text)[i++]);
      continue;
    }
    while (i < text->size() && IsWhitespace((*text)[i])) ++i;
    out += content;
  }
  *text = std::move(out);
}

// tokenizers' SplitDelimiterBehavior for a one-character pattern: each
// matching character is one match.
enum class Delimiter { kRemoved, kIsolated, kMergedWithNext };

template <typename Match>
void Split(const Piece& piece, Match match, Delimiter behaviour, std::vector<Piece>* out) {
  const Text& t = piece.text;
  std::size_t start = 0;
  bool previous_match = false;
  std::size_t merged_from = out->size();  // kMergedWithNext: the piece being extended
  auto emit = [&](std::size_t b, std::size_t e, bool is_match) {
    if (b == e) return;
    const bool first = piece.first && b == 0;
    switch (behaviour) {
      case Delimiter::kRemoved:
        if (!is_match) out->push_back({t.substr(b, e - b), first});
        break;
      case Delimiter::kIsolated:
        out->push_back({t.substr(b, e - b), first});
        break;
      case Delimiter::kMergedWithNext:
        if ((is_match && !previous_match) || out->size() == merged_from) {
          out->push_back({t.substr(b, e - b), first});
        } else {
          out->back().text.append(t, b, e - b);
        }
        previous_match = is_match;
        break;
    }
  };
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (!match(t[i])) continue;
    emit(start, i, false);
    emit(i, i + 1, true);
    start = i + 1;
  }
  emit(start, t.size(), false);
}

void Metaspace(const PreTokenizerStep& s, const Piece& piece, std::vector<Piece>* out) {
  Piece p = piece;
  for (char32_t& c : p.text) {
    if (c == U' ') c = s.replacement;
  }
  const bool starts = !p.text.empty() && p.text.front() == s.replacement;
  if (!starts && (s.prepend == PreTokenizerStep::Prepend::kAlways ||
                  (s.prepend == PreTokenizerStep::Prepend::kFirst && p.first))) {
    p.text.insert(p.text.begin(), s.replacement);
  }
  if (!s.split) {
    if (!p.text.empty()) out->push_back(std::move(p));
    return;
  }
  const char32_t r = s.replacement;
  Split(
      p, [r](char32_t c) { return c == r; }, Delimiter::kMergedWithNext, out);
}

}  // namespace

Text DecodeUtf8(std::string_view s) {
  const auto* p = reinterpret_cast<const std::uint8_t*>(s.data());
  const auto n = static_cast<std::int32_t>(s.size());
  Text out;
  out.reserve(s.size());
  for (std::int32_t i = 0; i < n;) {
    UChar32 c;
    U8_NEXT(p, i, n, c);
    out.push_back(c < 0 ? char32_t{0xFFFD} : static_cast<char32_t>(c));
  }
  return out;
}

void AppendUtf8(char32_t c, std::string* out) {
  std::uint8_t buf[4];
  std::int32_t len = 0;
  U8_APPEND_UNSAFE(buf, len, static_cast<UChar32>(c));
  out->append(reinterpret_cast<const char*>(buf), static_cast<std::size_t>(len));
}

std::string EncodeUtf8(std::u32string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char32_t c : s) {
    if (c < 0x80) {
      out.push_back(static_cast<char>(c));
    } else {
      AppendUtf8(c, &out);
    }
  }
  return out;
}

bool IsWhitespace(char32_t c) {
  if (c < 0x80) return c == U' ' || (c >= U'\t' && c <= U'\r');
  return u_isUWhiteSpace(static_cast<UChar32>(c));
}

bool IsAlphanumeric(char32_t c) {
  if (u_isUAlphabetic(static_cast<UChar32>(c))) return true;
  const std::int8_t type = u_charType(static_cast<UChar32>(c));
  return type == U_DECIMAL_DIGIT_NUMBER || type == U_LETTER_NUMBER || type == U_OTHER_NUMBER;
}

void Normalize(const std::vector<NormalizerStep>& steps, Text* text) {
  using Kind = NormalizerStep::Kind;
  for (const NormalizerStep& s : steps) {
    switch (s.kind) {
      case Kind::kBert:
        Bert(s, text);
        break;
      case Kind::kLowercase: {
        Text lower;
        lower.reserve(text->size());
        for (char32_t c : *text) AppendLower(c, &lower);
        *text = std::move(lower);
        break;
      }
      case Kind::kStripAccents:
        std::erase_if(*text, IsNonspacingMark);
        break;
      case Kind::kNfd:
        IcuNormalize(&icu::Normalizer2::getNFDInstance, text);
        break;
      case Kind::kNfkd:
        IcuNormalize(&icu::Normalizer2::getNFKDInstance, text);
        break;
      case Kind::kNfc:
        IcuNormalize(&icu::Normalizer2::getNFCInstance, text);
        break;
      case Kind::kNfkc:
        IcuNormalize(&icu::Normalizer2::getNFKCInstance, text);
        break;
      case Kind::kStrip: {
        std::size_t b = 0, e = text->size();
        if (s.left) {
          while (b < e && IsWhitespace((*text)[b])) ++b;
        }
        if (s.right) {
          while (e > b && IsWhitespace((*text)[e - 1])) --e;
        }
        *text = text->substr(b, e - b);
        break;
      }
      case Kind::kReplace:
        Replace(s.pattern, s.content, text);
        break;
      case Kind::kReplaceWhitespaceRuns:
        ReplaceWhitespaceRuns(s.content, text);
        break;
      case Kind::kPrepend:
        if (!text->empty()) text->insert(0, s.content);
        break;
    }
    if (text->size() > kMaxNormalizedChars) text->resize(kMaxNormalizedChars);
  }
}

void PreTokenize(const std::vector<PreTokenizerStep>& steps, std::vector<Piece>* pieces) {
  using Kind = PreTokenizerStep::Kind;
  for (const PreTokenizerStep& s : steps) {
    std::vector<Piece> next;
    next.reserve(pieces->size() * 2);
    for (const Piece& p : *pieces) {
      switch (s.kind) {
        case Kind::kBert: {
          std::vector<Piece> words;
          Split(p, IsWhitespace, Delimiter::kRemoved, &words);
          for (const Piece& w : words) Split(w, IsBertPunctuation, Delimiter::kIsolated, &next);
          break;
        }
        case Kind::kWhitespaceSplit:
          Split(p, IsWhitespace, Delimiter::kRemoved, &next);
          break;
        case Kind::kMetaspace:
          Metaspace(s, p, &next);
          break;
      }
    }
    *pieces = std::move(next);
  }
}

}  // namespace engram::embed::hf
