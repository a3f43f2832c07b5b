#include "engine/embedding.h"

#include <filesystem>
#include <utility>

#include "base/status.h"

namespace engram::engine {

CollectionEmbedder::CollectionEmbedder(std::string collection, std::string spec,
                                       EmbedderIdentity identity,
                                       std::shared_ptr<const Embedder> opened)
    : collection_(std::move(collection)),
      spec_(std::move(spec)),
      identity_(std::move(identity)),
      embedder_(std::move(opened)) {}

StatusOr<std::shared_ptr<const Embedder>> CollectionEmbedder::Get() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (embedder_) return embedder_;
  const std::string where = "collection '" + collection_ + "': embedder " + spec_ + ": ";
  StatusOr<EmbedderSpec> parsed = ParseEmbedderSpec(spec_);
  if (!parsed.ok()) return Status::FailedPrecondition(where + parsed.status().message());
  StatusOr<std::unique_ptr<Embedder>> opened = OpenEmbedder(*parsed);
  if (!opened.ok()) return Status::FailedPrecondition(where + opened.status().message());
  const EmbedderIdentity& got = (*opened)->identity();
  if (!(got == identity_)) {
    return Status::FailedPrecondition(
        where + "the model is not the one the collection was built with (" + got.kind + " " +
        got.model + ", " + std::to_string(got.dimension) + "-d, " +
        (got.fingerprint.empty() ? "no fingerprint" : got.fingerprint) + "; the collection has " +
        identity_.kind + " " + identity_.model + ", " + std::to_string(identity_.dimension) +
        "-d, " + (identity_.fingerprint.empty() ? "no fingerprint" : identity_.fingerprint) +
        "): restore that model or switch with `engram collection reembed`");
  }
  embedder_ = std::move(opened).value();
  return embedder_;
}

StatusOr<std::vector<std::vector<float>>> CollectionEmbedder::Embed(
    std::span<const std::string_view> texts) const {
  ASSIGN_OR_RETURN(std::shared_ptr<const Embedder> embedder, Get());
  StatusOr<std::vector<std::vector<float>>> vectors = embedder->Embed(texts);
  if (!vectors.ok()) {
    return vectors.status().WithContext("collection '" + collection_ + "': embedder " +
                                        identity_.kind);
  }
  return vectors;
}

std::string EmbeddingText(const PreparedRecord& record) {
  std::string text;
  for (const std::string& t : record.texts) {
    if (t.empty()) continue;
    if (!text.empty()) text += '\n';
    text += t;
  }
  return text;
}

StatusOr<std::optional<std::pair<Diagnostic, std::size_t>>> EmbedRecords(
    const Collection& collection, std::span<PreparedRecord> records) {
  std::optional<std::pair<Diagnostic, std::size_t>> none;
  if (collection.embedder() == nullptr) return none;
  std::vector<std::string> texts;
  std::vector<std::size_t> at;
  for (std::size_t i = 0; i < records.size(); ++i) {
    if (!records[i].embed) continue;
    texts.push_back(EmbeddingText(records[i]));
    at.push_back(i);
  }
  if (texts.empty()) return none;
  const std::vector<std::string_view> views(texts.begin(), texts.end());
  ASSIGN_OR_RETURN(std::vector<std::vector<float>> vectors, collection.embedder()->Embed(views));
  for (std::size_t j = 0; j < at.size(); ++j) {
    std::vector<float>& v = vectors[j];
    bool zero = true;
    for (float x : v) zero = zero && x == 0;
    if (zero) {
      return std::optional<std::pair<Diagnostic, std::size_t>>(
          {Diagnostic{
               400, "record.invalid", "vector",
               "field 'vector': required here: the embedder gives no vector for this "
               "record's text (" +
                   std::string(texts[j].empty() ? "it has none" : "no word the model knows") + ")"},
           at[j]});
    }
    if (Status s = collection.CheckVector(v); !s.ok()) {
      return Status::Internal("collection '" + collection.spec().name +
                              "': the embedder gave an invalid vector: " + s.message());
    }
    records[at[j]].vector = std::move(v);
    records[at[j]].embed = false;
  }
  return none;
}

StatusOr<std::optional<std::vector<float>>> QueryVector(const Collection& collection,
                                                        std::string_view query) {
  std::optional<std::vector<float>> none;
  if (collection.embedder() == nullptr) return none;
  const std::string_view texts[] = {query};
  ASSIGN_OR_RETURN(std::vector<std::vector<float>> vectors, collection.embedder()->Embed(texts));
  for (float x : vectors[0]) {
    if (x != 0) return std::optional<std::vector<float>>(std::move(vectors[0]));
  }
  return none;
}

StatusOr<std::shared_ptr<const Embedder>> OpenForCollection(CollectionSpec* spec) {
  ASSIGN_OR_RETURN(EmbedderSpec parsed, ParseEmbedderSpec(spec->embedder));
  if (parsed.kind != "openai") {
    std::error_code ec;
    const std::filesystem::path p = std::filesystem::absolute(parsed.path, ec);
    if (ec) return Status::InvalidArgument("embedder: " + parsed.path + ": " + ec.message());
    parsed.path = p.lexically_normal().string();
    while (parsed.path.size() > 1 && parsed.path.back() == '/') parsed.path.pop_back();
  }
  ASSIGN_OR_RETURN(std::unique_ptr<Embedder> opened, OpenEmbedder(parsed));
  const EmbedderIdentity& identity = opened->identity();
  if (spec->vector_dim != 0 && spec->vector_dim != identity.dimension) {
    return Status::InvalidArgument("vectors: dimension " + std::to_string(spec->vector_dim) +
                                   " is not the embedder's (" + std::to_string(identity.dimension) +
                                   ")");
  }
  spec->embedder = EmbedderSpecText(parsed);
  spec->embedder_identity = identity;
  spec->vector_dim = identity.dimension;
  return std::shared_ptr<const Embedder>(std::move(opened));
}

}  // namespace engram::engine
