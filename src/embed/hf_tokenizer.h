// A HuggingFace `tokenizers` tokenizer read from its tokenizer.json, for the
// static-embedding models of the model2vec format: added tokens, normalizers
// (BertNormalizer, Lowercase, StripAccents, NF*, Strip, Replace, Prepend,
// Sequence), pre-tokenizers (BertPreTokenizer, WhitespaceSplit, Metaspace,
// Sequence) and the WordPiece and Unigram models. Encode gives the ids that
// `Tokenizer.encode(text, add_special_tokens=False).ids` gives in the
// reference library; a configuration outside this subset is refused with its
// location rather than approximated.
#ifndef ENGRAM_EMBED_HF_TOKENIZER_H_
#define ENGRAM_EMBED_HF_TOKENIZER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"

namespace engram::embed {

// The largest tokenizer.json read (a 250k-token multilingual vocabulary is
// about 20 MB).
inline constexpr std::size_t kMaxTokenizerBytes = std::size_t{256} << 20;

class HfTokenizer {
 public:
  // Parses tokenizer.json text. InvalidArgument "<origin>: <where>: <what>"
  // (`where` a path such as `normalizer.normalizers[3].pattern`) for invalid
  // JSON, a missing or mistyped member, an unsupported normalizer,
  // pre-tokenizer or model type, a `padding` configuration (it would make a
  // text's ids depend on the other texts of its batch), a WordPiece vocabulary
  // without its unk token, or more than 16M tokens.
  static StatusOr<HfTokenizer> Parse(std::string_view json_text, std::string_view origin);

  // The ids of `text` (valid UTF-8; other bytes are read as U+FFFD).
  std::vector<std::uint32_t> Encode(std::string_view text) const;

  // The model's unknown token, if it has one.
  std::optional<std::uint32_t> unk_id() const;
  // The distinct tokens of the vocabulary and the added tokens (the
  // reference's get_vocab()), and the largest id among them.
  std::size_t token_count() const;
  std::uint32_t max_id() const;
  // int(numpy.median(code point length of each of those tokens)): the
  // reference's `median_token_length`, which bounds how many characters it
  // reads before tokenizing.
  std::size_t median_token_length() const;

  struct Impl;

 private:
  explicit HfTokenizer(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const Impl> impl_;
};

}  // namespace engram::embed

#endif  // ENGRAM_EMBED_HF_TOKENIZER_H_
