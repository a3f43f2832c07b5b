#include "embed/fasttext_embedder.h"

#include <filesystem>
#include <sstream>
#include <stdexcept>

#include <fasttext/fasttext.h>
#include <fasttext/vector.h>

#include "base/status.h"
#include "base/unicode.h"
#include "embed/digest.h"

namespace engram::embed {
namespace {

// Large public models (cc.en.300.bin) are about 7 GB.
constexpr std::size_t kMaxFastTextBytes = std::size_t{16} << 30;

}  // namespace

FastTextEmbedder::~FastTextEmbedder() = default;

StatusOr<std::unique_ptr<FastTextEmbedder>> FastTextEmbedder::Open(const std::string& path) {
  // One read for the fingerprint; libfasttext reads the file again itself.
  ASSIGN_OR_RETURN(const std::string fingerprint, FileSha256(path, kMaxFastTextBytes));
  auto out = std::unique_ptr<FastTextEmbedder>(new FastTextEmbedder());
  out->model_ = std::make_unique<fasttext::FastText>();
  try {
    out->model_->loadModel(path);
  } catch (const std::exception& e) {
    return Status::InvalidArgument("fasttext: " + path + ": " + e.what());
  }
  const int dim = out->model_->getDimension();
  if (dim <= 0)
    return Status::InvalidArgument("fasttext: " + path + ": dimension " + std::to_string(dim));
  out->identity_ = {"fasttext", std::filesystem::path(path).filename().string(),
                    static_cast<std::size_t>(dim), "sha256:" + Hex(fingerprint)};
  return out;
}

StatusOr<std::vector<std::vector<float>>> FastTextEmbedder::Embed(
    std::span<const std::string_view> texts) const {
  const std::size_t dim = identity_.dimension;
  std::vector<std::vector<float>> out;
  out.reserve(texts.size());
  fasttext::Vector v(static_cast<std::int64_t>(dim));
  for (std::size_t i = 0; i < texts.size(); ++i) {
    if (!IsValidUtf8(texts[i])) {
      return Status::InvalidArgument("texts[" + std::to_string(i) + "]: not valid UTF-8");
    }
    std::string line(texts[i]);
    for (char& c : line) {
      if (c == '\n' || c == '\r') c = ' ';
    }
    line += '\n';
    std::istringstream in(line);
    try {
      // Reads only const state of the model (the words' subwords and input
      // rows), so concurrent calls are safe.
      model_->getSentenceVector(in, v);
    } catch (const std::exception& e) {
      return Status::Internal(std::string("fasttext: getSentenceVector: ") + e.what());
    }
    out.emplace_back(v.data(), v.data() + dim);
  }
  return out;
}

}  // namespace engram::embed
