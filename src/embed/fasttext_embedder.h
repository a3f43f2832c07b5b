// A fastText model (.bin or quantised .ftz, facebookresearch/fastText) through
// Debian's libfasttext: a text's vector is what FastText::getSentenceVector
// gives for it as one line (unsupervised models: the mean of the
// L2-normalised word vectors of its whitespace-separated words, words with a
// zero vector skipped; supervised models: the mean of the input vectors of
// its words, n-grams and end of line).
#ifndef ENGRAM_EMBED_FASTTEXT_EMBEDDER_H_
#define ENGRAM_EMBED_FASTTEXT_EMBEDDER_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engram/embedder.h"

namespace fasttext {
class FastText;
}  // namespace fasttext

namespace engram::embed {

class FastTextEmbedder final : public Embedder {
 public:
  // NotFound for a missing file; InvalidArgument naming the file when
  // libfasttext refuses it (wrong magic or version, truncated).
  static StatusOr<std::unique_ptr<FastTextEmbedder>> Open(const std::string& path);
  ~FastTextEmbedder() override;

  const EmbedderIdentity& identity() const override { return identity_; }
  // Line breaks inside a text are read as spaces (getSentenceVector reads one
  // line). InvalidArgument "texts[i]: not valid UTF-8".
  StatusOr<std::vector<std::vector<float>>> Embed(
      std::span<const std::string_view> texts) const override;

 private:
  FastTextEmbedder() = default;
  std::unique_ptr<fasttext::FastText> model_;
  EmbedderIdentity identity_;
};

}  // namespace engram::embed

#endif  // ENGRAM_EMBED_FASTTEXT_EMBEDDER_H_
