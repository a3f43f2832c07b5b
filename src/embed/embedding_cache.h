// An embedding cache by content hash: an Embedder that asks the one it wraps
// only for texts it has not embedded lately, so re-ingesting the same text
// (or repeating a query) does not call the model again. Keys are the SHA-256
// of the text; the least recently used vectors go first once the cache holds
// more than its byte budget.
#ifndef ENGRAM_EMBED_EMBEDDING_CACHE_H_
#define ENGRAM_EMBED_EMBEDDING_CACHE_H_

#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "engram/embedder.h"

namespace engram::embed {

class CachingEmbedder final : public Embedder {
 public:
  CachingEmbedder(std::unique_ptr<Embedder> inner, std::size_t max_bytes)
      : inner_(std::move(inner)), max_bytes_(max_bytes) {}

  const EmbedderIdentity& identity() const override { return inner_->identity(); }
  // The cached vectors, and the wrapped embedder's for the others (asked
  // once per distinct text, in one call); its failure is returned as is and
  // nothing is cached then. Thread-safe; the wrapped call runs unlocked.
  StatusOr<std::vector<std::vector<float>>> Embed(
      std::span<const std::string_view> texts) const override;

  struct Counts {
    std::size_t hits = 0, misses = 0, entries = 0, bytes = 0;
  };
  Counts counts() const;
  const Embedder& inner() const { return *inner_; }

 private:
  using Entry = std::pair<std::string, std::vector<float>>;  // key, vector
  static std::size_t Cost(const Entry& e) { return e.first.size() + e.second.size() * 4 + 64; }

  std::unique_ptr<Embedder> inner_;
  std::size_t max_bytes_;
  mutable std::mutex mutex_;
  mutable std::list<Entry> lru_;  // most recent first
  mutable std::unordered_map<std::string, std::list<Entry>::iterator> index_;
  mutable Counts counts_;
};

}  // namespace engram::embed

#endif  // ENGRAM_EMBED_EMBEDDING_CACHE_H_
