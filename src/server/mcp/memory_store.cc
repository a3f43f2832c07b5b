#include "server/mcp/memory_store.h"

#include <functional>
#include <utility>

namespace engram::server::mcp {

Status MemoryStore::Ensure() {
  // Looked up on every call, not remembered: the collection can be dropped
  // (DELETE /collections/memories) while the server runs.
  StatusOr<CollectionInfo> info = engine_->DescribeCollection(collection_);
  if (info.ok()) return Status::Ok();
  std::lock_guard<std::mutex> lock(create_mutex_);
  if (info.status().code() != StatusCode::kNotFound) return info.status();
  StatusOr<SchemaRef> schema = SchemaRef::Load("preset:memory");
  if (!schema.ok()) return schema.status().WithContext("loading preset:memory");
  CollectionSpec spec{collection_,
                      std::move(schema).value(),
                      {{"content", 1.0}, {"title", 1.0}, {"context", 1.0}},
                      0,
                      "cosine",
                      "en",
                      "timestamp"};
  spec.embedder = embedder_;
  Status created = engine_->CreateCollection(spec);
  // AlreadyExists: another process (or `engram serve` on the same store)
  // created it between our look and our create.
  if (!created.ok() && created.code() != StatusCode::kAlreadyExists) {
    return created.WithContext("creating collection " + collection_);
  }
  return Status::Ok();
}

Status CheckMemoryEmbedder(Engine& engine, const std::string& collection,
                           const std::string& embedder) {
  if (embedder.empty()) return Status::Ok();
  StatusOr<EmbedderSpec> spec = ParseEmbedderSpec(embedder);
  if (!spec.ok()) return spec.status();
  StatusOr<CollectionInfo> info = engine.DescribeCollection(collection);
  if (!info.ok()) {
    return info.status().code() == StatusCode::kNotFound ? Status::Ok() : info.status();
  }
  const std::string fix = ": switch it with `engram collection reembed --collection " + collection +
                          " --embedder " + embedder + "` (or POST /v1/collections/" + collection +
                          "/reembed)";
  if (info->spec.embedder.empty()) {
    return Status::FailedPrecondition("collection '" + collection + "' has no embedder" + fix);
  }
  StatusOr<std::unique_ptr<Embedder>> opened = OpenEmbedder(*spec, 0);
  if (!opened.ok()) return opened.status();
  const EmbedderIdentity& have = info->spec.embedder_identity;
  if (!((*opened)->identity() == have)) {
    return Status::FailedPrecondition("collection '" + collection + "' has the embedder " +
                                      info->spec.embedder + " (" + have.kind + " " + have.model +
                                      ", " + std::to_string(have.dimension) + "-d), not " +
                                      embedder + fix);
  }
  return Status::Ok();
}

std::mutex& MemoryStore::SessionMutex(std::string_view agent, std::string_view session) {
  const std::size_t agent_hash = std::hash<std::string_view>{}(agent);
  const std::size_t session_hash = std::hash<std::string_view>{}(session);
  return session_mutexes_[(agent_hash * 31 + session_hash) % session_mutexes_.size()];
}

}  // namespace engram::server::mcp
