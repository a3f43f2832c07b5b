// A collection's embedder inside the engine: opened on first use from the
// spec the collection stores, checked against the identity stored with it,
// and the text of a record it embeds. Writes embed records that came without
// a vector before they take the collection's writer; searches embed a query
// given without a vector (writes.cc, reads.cc); reembed.cc switches models.
#ifndef ENGRAM_ENGINE_EMBEDDING_H_
#define ENGRAM_ENGINE_EMBEDDING_H_

#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/collection.h"
#include "engram/embedder.h"
#include "engram/status.h"

namespace engram::engine {

class CollectionEmbedder {
 public:
  // `opened`, when given, is the embedder already opened for `spec` (a
  // collection just created); otherwise it is opened on first use.
  CollectionEmbedder(std::string collection, std::string spec, EmbedderIdentity identity,
                     std::shared_ptr<const Embedder> opened = nullptr);

  // The vectors of `texts`. FailedPrecondition naming the collection when
  // the embedder cannot be opened or its identity is not the stored one (a
  // changed model file); the embedder's own failures otherwise (IoError for
  // an endpoint, InvalidArgument for a text). Thread-safe.
  StatusOr<std::vector<std::vector<float>>> Embed(std::span<const std::string_view> texts) const;

  const std::string& spec() const { return spec_; }
  const EmbedderIdentity& identity() const { return identity_; }

 private:
  StatusOr<std::shared_ptr<const Embedder>> Get() const;

  std::string collection_;
  std::string spec_;
  EmbedderIdentity identity_;
  mutable std::mutex mutex_;
  mutable std::shared_ptr<const Embedder> embedder_;
};

// The text of a record its collection's embedder reads: the record's text
// fields in the collection's order, the non-empty ones joined by "\n".
std::string EmbeddingText(const PreparedRecord& record);

// Fills `vector` of each record marked `embed` (no vector given) with the
// embedding of its text by `collection`'s embedder (none: nothing to do). A
// text that gives a zero vector (empty, or no word the model knows) is
// refused with the record's position: the record must bring its own vector
// then. Returns that Diagnostic; a Status for an embedder failure, or
// Internal for a vector the store's checks refuse (a model with non-finite
// weights).
StatusOr<std::optional<std::pair<Diagnostic, std::size_t>>> EmbedRecords(
    const Collection& collection, std::span<PreparedRecord> records);

// The query vector of a search given `query` without a vector on
// `collection`: its embedder's embedding of the query text, or nullopt when
// the collection has no embedder. A query whose embedding is zero (no word
// the model knows) gives nullopt too: the search is then text only. Failures
// as CollectionEmbedder::Embed.
StatusOr<std::optional<std::vector<float>>> QueryVector(const Collection& collection,
                                                        std::string_view query);

// Opens the embedder `spec->embedder` names for a new collection (or a
// switch): stores its canonical text with a local model's path made absolute
// (the stored spec must not depend on the directory a command ran in) and
// its identity in `*spec`, and sets `vector_dim` to its dimension (a
// different non-zero one is InvalidArgument). Failures as OpenEmbedder's.
StatusOr<std::shared_ptr<const Embedder>> OpenForCollection(CollectionSpec* spec);

}  // namespace engram::engine

#endif  // ENGRAM_ENGINE_EMBEDDING_H_
