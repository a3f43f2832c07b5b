// The text stages of a HuggingFace `tokenizers` pipeline that static-embedding
// models use (huggingface/tokenizers, tokenizers/src/normalizers/*.rs and
// pre_tokenizers/*.rs): normalizer steps and pre-tokenizer steps over code
// points, with the character classes the reference takes from Rust's `char`
// (White_Space, general categories) computed by ICU.
#ifndef ENGRAM_EMBED_HF_TEXT_H_
#define ENGRAM_EMBED_HF_TEXT_H_

#include <string>
#include <string_view>
#include <vector>

namespace engram::embed::hf {

using Text = std::u32string;

// Valid UTF-8 to code points and back (callers check validity first).
Text DecodeUtf8(std::string_view s);
std::string EncodeUtf8(std::u32string_view s);
void AppendUtf8(char32_t c, std::string* out);

// Rust's char::is_whitespace (the White_Space property).
bool IsWhitespace(char32_t c);
// Rust's char::is_alphanumeric (Alphabetic or a Number category).
bool IsAlphanumeric(char32_t c);

struct NormalizerStep {
  enum class Kind {
    kBert,          // BertNormalizer: clean_text, handle_chinese_chars, strip_accents, lowercase
    kLowercase,     // Lowercase
    kStripAccents,  // StripAccents: drop non-spacing marks (Mn)
    kNfd,
    kNfkd,
    kNfc,
    kNfkc,
    kStrip,                  // Strip: White_Space at the left and/or right
    kReplace,                // Replace with a String pattern
    kReplaceWhitespaceRuns,  // Replace with the Regex pattern `\s+`
    kPrepend,                // Prepend
  };
  Kind kind = Kind::kBert;
  bool clean_text = true, handle_chinese_chars = true, strip_accents = true, lowercase = true;
  bool left = true, right = true;  // kStrip
  Text pattern, content;           // kReplace (pattern), kReplace* and kPrepend (content)
};

// A bound on the text normalizers can grow (Replace can lengthen it at every
// step): past it the text is cut, so a hostile configuration costs bounded
// work. Real tokenizers grow a text by a few characters at most.
inline constexpr std::size_t kMaxNormalizedChars = std::size_t{1} << 20;

// Applies the steps in order, as tokenizers' normalizers do (up to
// kMaxNormalizedChars).
void Normalize(const std::vector<NormalizerStep>& steps, Text* text);

struct PreTokenizerStep {
  enum class Kind {
    kBert,             // BertPreTokenizer: split on White_Space (removed), isolate punctuation
    kWhitespaceSplit,  // WhitespaceSplit: split on White_Space (removed)
    kMetaspace,        // Metaspace: ' ' -> replacement, prepend it, split before it
  };
  enum class Prepend { kAlways, kFirst, kNever };
  Kind kind = Kind::kBert;
  char32_t replacement = U'\u2581';
  Prepend prepend = Prepend::kAlways;
  bool split = true;
};

// A piece of the input on its way to the model; `first` when it begins the
// input (Metaspace's prepend_scheme "first").
struct Piece {
  Text text;
  bool first = false;
};

// Applies the steps in order to every piece; empty pieces are dropped.
void PreTokenize(const std::vector<PreTokenizerStep>& steps, std::vector<Piece>* pieces);

}  // namespace engram::embed::hf

#endif  // ENGRAM_EMBED_HF_TEXT_H_
