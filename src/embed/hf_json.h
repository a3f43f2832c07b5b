// tokenizer.json (HuggingFace `tokenizers`) read into the parts of the
// pipeline of hf_text.h and hf_model.h: the model and its vocabulary, the
// added tokens, the normalizer and pre-tokenizer steps and the optional
// truncation. Every member is checked; a refusal names the file (`origin`)
// and the member's path, and unsupported types are listed with the
// supported ones. `padding` is refused (it makes a text's ids depend on the
// other texts of its batch).
#ifndef ENGRAM_EMBED_HF_JSON_H_
#define ENGRAM_EMBED_HF_JSON_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "base/status.h"
#include "embed/hf_model.h"
#include "embed/hf_text.h"

namespace engram::embed::hf {

struct AddedToken {
  std::string content;
  std::uint32_t id = 0;
  bool single_word = false, lstrip = false, rstrip = false, normalized = true;
};

struct TokenizerJson {
  explicit TokenizerJson(std::variant<WordPiece, Unigram> m) : model(std::move(m)) {}
  std::variant<WordPiece, Unigram> model;
  std::optional<std::uint32_t> unk_id;
  std::vector<AddedToken> added;  // as listed
  std::vector<NormalizerStep> normalizer;
  std::vector<PreTokenizerStep> pre_tokenizer;
  std::optional<std::size_t> truncate_to;  // `truncation.max_length`
  bool truncate_left = false;
};

// Reads `json_text` (at most kMaxTokenizerBytes); InvalidArgument, located,
// when it is not a tokenizer engram can run exactly.
StatusOr<TokenizerJson> ReadTokenizerJson(std::string_view json_text, std::string_view origin);

}  // namespace engram::embed::hf

#endif  // ENGRAM_EMBED_HF_JSON_H_
