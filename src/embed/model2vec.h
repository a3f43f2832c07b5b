// The model2vec static-embedding model (MinishLab/model2vec, the format of
// potion-base-2M/8M/32M and potion-retrieval-32M): a text's vector is the
// mean of its tokens' rows, then L2-normalised when the config says so,
// exactly as the reference's StaticModel.encode computes it (model2vec/model.py).
#ifndef ENGRAM_EMBED_MODEL2VEC_H_
#define ENGRAM_EMBED_MODEL2VEC_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "embed/hf_tokenizer.h"
#include "engram/embedder.h"

namespace engram::embed {

// The reference's `encode(max_length=512)` default: at most this many tokens
// per text, read from at most max_length x median_token_length characters.
inline constexpr std::size_t kModel2VecMaxTokens = 512;
// The largest model.safetensors read.
inline constexpr std::size_t kMaxModelBytes = std::size_t{4} << 30;

class Model2Vec final : public Embedder {
 public:
  // Opens the model in `dir`, in the layouts the reference tries in order:
  // config.json + model.safetensors (tensor `embeddings`) + tokenizer.json;
  // config_sentence_transformers.json + model.safetensors (tensor
  // `embedding.weight`) + tokenizer.json; the same with the last two under
  // 0_StaticEmbedding/. The vocabulary-quantised form (tensors `mapping`,
  // token -> row, and `weights`, per token) is read too. NotFound when no
  // layout is complete; InvalidArgument naming the file and the fault for a
  // malformed file or tensors that do not fit the tokenizer (row count,
  // mapping range, dimension).
  static StatusOr<std::unique_ptr<Model2Vec>> Open(const std::string& dir);

  const EmbedderIdentity& identity() const override { return identity_; }
  // InvalidArgument "texts[i]: not valid UTF-8".
  StatusOr<std::vector<std::vector<float>>> Embed(
      std::span<const std::string_view> texts) const override;

  // The token ids the reference averages for `text` (valid UTF-8): the
  // characters it reads, tokenized without special tokens, [UNK] dropped,
  // at most kModel2VecMaxTokens.
  std::vector<std::uint32_t> TokenIds(std::string_view text) const;
  // The vector of one text into `out` (identity().dimension floats).
  void EmbedOne(std::string_view text, float* out) const;

  bool normalize() const { return normalize_; }
  std::size_t max_chars() const { return max_chars_; }

 private:
  Model2Vec(HfTokenizer tokenizer) : tokenizer_(std::move(tokenizer)) {}

  HfTokenizer tokenizer_;
  std::vector<float> rows_;  // row-major, rows_ x dim
  std::size_t dim_ = 0;
  std::vector<std::uint32_t> mapping_;  // token -> row; empty: the identity
  std::vector<float> weights_;          // per token; empty: none
  bool normalize_ = false;
  std::size_t max_chars_ = 0;
  EmbedderIdentity identity_;
};

}  // namespace engram::embed

#endif  // ENGRAM_EMBED_MODEL2VEC_H_
