#include "embed/model2vec.h"

#include <cmath>

#include <sys/stat.h>

#include "base/json.h"
#include "base/status.h"
#include "base/unicode.h"
#include "embed/digest.h"
#include "embed/safetensors.h"

namespace engram::embed {
namespace {

constexpr std::size_t kMaxConfigBytes = std::size_t{1} << 20;
constexpr std::size_t kMaxDimension = 65536;

bool Exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

struct Layout {
  std::string config, model, tokenizer;
  std::string tensor;  // the embeddings' name
};

// The layouts of model2vec/persistence/datamodels.py, in its order.
std::optional<Layout> FindLayout(const std::string& dir) {
  const Layout layouts[] = {
      {dir + "/config.json", dir + "/model.safetensors", dir + "/tokenizer.json", "embeddings"},
      {dir + "/config_sentence_transformers.json", dir + "/model.safetensors",
       dir + "/tokenizer.json", "embedding.weight"},
      {dir + "/config_sentence_transformers.json", dir + "/0_StaticEmbedding/model.safetensors",
       dir + "/0_StaticEmbedding/tokenizer.json", "embedding.weight"},
  };
  for (const Layout& l : layouts) {
    if (Exists(l.config) && Exists(l.model) && Exists(l.tokenizer)) return l;
  }
  return std::nullopt;
}

std::string BaseName(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

Status Bad(const std::string& file, std::string_view what) {
  return Status::InvalidArgument(file + ": " + std::string(what));
}

bool IsFloat(Dtype d) {
  return d == Dtype::kF64 || d == Dtype::kF32 || d == Dtype::kF16 || d == Dtype::kBF16;
}

}  // namespace

StatusOr<std::unique_ptr<Model2Vec>> Model2Vec::Open(const std::string& dir) {
  const std::optional<Layout> layout = FindLayout(dir);
  if (!layout) {
    return Status::NotFound(
        "model2vec: " + dir +
        ": no model there (config.json, model.safetensors and tokenizer.json; or "
        "config_sentence_transformers.json with them, or with them under 0_StaticEmbedding/)");
  }
  ASSIGN_OR_RETURN(std::string config_text, ReadFile(layout->config, kMaxConfigBytes));
  ASSIGN_OR_RETURN(std::string tokenizer_text, ReadFile(layout->tokenizer, kMaxTokenizerBytes));
  ASSIGN_OR_RETURN(std::string model_bytes, ReadFile(layout->model, kMaxModelBytes));
  Sha256 fingerprint;
  for (const std::string* part : {&model_bytes, &tokenizer_text, &config_text}) {
    fingerprint.Update(std::to_string(part->size()) + ":");
    fingerprint.Update(*part);
  }

  json::ReadOptions options;
  options.max_bytes = kMaxConfigBytes;
  const json::ReadResult config = json::Read(config_text, options);
  if (!config.ok()) return Bad(layout->config, "not valid JSON: " + config.error->detail);
  if (!config.value.is_object()) return Bad(layout->config, "expected a JSON object");
  bool normalize = false;  // config.get("normalize", False)
  if (config.value.contains("normalize") && !config.value["normalize"].is_null()) {
    if (!config.value["normalize"].is_boolean()) {
      return Bad(layout->config,
                 "normalize: expected a boolean, got " + json::Dump(config.value["normalize"]));
    }
    normalize = config.value["normalize"].get<bool>();
  }

  ASSIGN_OR_RETURN(HfTokenizer tokenizer, HfTokenizer::Parse(tokenizer_text, layout->tokenizer));
  ASSIGN_OR_RETURN(Safetensors st, Safetensors::Parse(std::move(model_bytes), layout->model));
  const TensorInfo* emb = st.Find(layout->tensor);
  if (emb == nullptr) return Bad(layout->model, "no tensor '" + layout->tensor + "'");
  const std::string where = layout->model + ": tensor '" + layout->tensor + "'";
  if (emb->shape.size() != 2) {
    return Status::InvalidArgument(where + ": expected 2 dimensions (rows x dimension), got " +
                                   std::to_string(emb->shape.size()));
  }
  if (!IsFloat(emb->dtype) && emb->dtype != Dtype::kI8) {
    return Status::InvalidArgument(where + ": dtype " + std::string(DtypeName(emb->dtype)) +
                                   " is not an embedding type (F64, F32, F16, BF16, I8)");
  }
  const std::size_t rows = emb->shape[0], dim = emb->shape[1];
  if (dim == 0 || dim > kMaxDimension || rows == 0) {
    return Status::InvalidArgument(where + ": shape " + std::to_string(rows) + " x " +
                                   std::to_string(dim) + " is empty or wider than " +
                                   std::to_string(kMaxDimension));
  }
  const std::size_t ids = std::size_t{tokenizer.max_id()} + 1;
  auto model = std::unique_ptr<Model2Vec>(new Model2Vec(std::move(tokenizer)));
  const TensorInfo* mapping = st.Find("mapping");
  const TensorInfo* weights = st.Find("weights");
  if (mapping != nullptr) {
    if (mapping->shape.size() != 1 ||
        (mapping->dtype != Dtype::kI32 && mapping->dtype != Dtype::kI64)) {
      return Bad(layout->model, "tensor 'mapping': expected one dimension of I32 or I64");
    }
    if (mapping->shape[0] < ids) {
      return Bad(layout->model, "tensor 'mapping': " + std::to_string(mapping->shape[0]) +
                                    " entries, the tokenizer has ids up to " +
                                    std::to_string(ids - 1));
    }
    for (std::int64_t row : st.ToInts(*mapping)) {
      if (row < 0 || static_cast<std::size_t>(row) >= rows) {
        return Bad(layout->model, "tensor 'mapping': row " + std::to_string(row) +
                                      " is outside the " + std::to_string(rows) +
                                      " embedding rows");
      }
      model->mapping_.push_back(static_cast<std::uint32_t>(row));
    }
  } else if (rows != model->tokenizer_.token_count() || rows < ids) {
    // The reference's check: one row per token of the vocabulary.
    return Status::InvalidArgument(where + ": " + std::to_string(rows) + " rows for " +
                                   std::to_string(model->tokenizer_.token_count()) +
                                   " tokens (ids up to " + std::to_string(ids - 1) +
                                   ") in the tokenizer");
  }
  if (weights != nullptr) {
    if (weights->shape.size() != 1 || !IsFloat(weights->dtype)) {
      return Bad(layout->model, "tensor 'weights': expected one dimension of floats");
    }
    if (weights->shape[0] < ids) {
      return Bad(layout->model, "tensor 'weights': " + std::to_string(weights->shape[0]) +
                                    " entries, the tokenizer has ids up to " +
                                    std::to_string(ids - 1));
    }
    model->weights_ = st.ToFloats(*weights);
  }
  model->rows_ = st.ToFloats(*emb);
  model->dim_ = dim;
  model->normalize_ = normalize;
  model->max_chars_ = kModel2VecMaxTokens * model->tokenizer_.median_token_length();
  model->identity_ = {"model2vec", BaseName(dir), dim, "sha256:" + Hex(fingerprint.Digest())};
  return model;
}

std::vector<std::uint32_t> Model2Vec::TokenIds(std::string_view text) const {
  // text[:max_length * median_token_length], in code points.
  std::size_t cut = text.size(), chars = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) continue;
    if (chars++ == max_chars_) {
      cut = i;
      break;
    }
  }
  std::vector<std::uint32_t> ids = tokenizer_.Encode(text.substr(0, cut));
  if (const auto unk = tokenizer_.unk_id()) std::erase(ids, *unk);
  if (ids.size() > kModel2VecMaxTokens) ids.resize(kModel2VecMaxTokens);
  return ids;
}

void Model2Vec::EmbedOne(std::string_view text, float* out) const {
  const std::vector<std::uint32_t> ids = TokenIds(text);
  std::vector<double> sum(dim_, 0.0);
  for (std::uint32_t id : ids) {
    const std::size_t row = mapping_.empty() ? id : mapping_[id];
    const float* r = rows_.data() + row * dim_;
    const double w = weights_.empty() ? 1.0 : weights_[id];
    for (std::size_t j = 0; j < dim_; ++j) sum[j] += w * r[j];
  }
  const double count = static_cast<double>(std::max<std::size_t>(ids.size(), 1));
  double norm2 = 0;
  for (double& x : sum) {
    x /= count;
    norm2 += x * x;
  }
  // model.py: out / (norm + 1e-32); a text with no known token stays zero.
  const double scale = normalize_ ? 1.0 / (std::sqrt(norm2) + 1e-32) : 1.0;
  for (std::size_t j = 0; j < dim_; ++j) out[j] = static_cast<float>(sum[j] * scale);
}

StatusOr<std::vector<std::vector<float>>> Model2Vec::Embed(
    std::span<const std::string_view> texts) const {
  for (std::size_t i = 0; i < texts.size(); ++i) {
    if (!IsValidUtf8(texts[i])) {
      return Status::InvalidArgument("texts[" + std::to_string(i) + "]: not valid UTF-8");
    }
  }
  std::vector<std::vector<float>> out(texts.size(), std::vector<float>(dim_));
  for (std::size_t i = 0; i < texts.size(); ++i) EmbedOne(texts[i], out[i].data());
  return out;
}

}  // namespace engram::embed
