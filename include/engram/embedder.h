// Embedders for front-ends and the engine: turn texts into the vectors a
// collection stores, locally (model2vec static embeddings, fastText) or
// through an OpenAI-compatible HTTP endpoint (docs/embedders.md). src/embed
// implements them.
//
// Thread-safety: an Embedder is immutable once opened; Embed may be called
// from many threads at once.
#ifndef ENGRAM_EMBEDDER_H_
#define ENGRAM_EMBEDDER_H_

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"

namespace engram {

// What an embedder is, as a collection stores it: two embedders with the
// same identity give the same vector for the same text.
struct EmbedderIdentity {
  std::string kind;   // "model2vec", "fasttext" or "openai"
  std::string model;  // the model directory's or file's name; the endpoint's model name
  std::size_t dimension = 0;
  // "sha256:<hex>" of the model's files (model2vec: model.safetensors,
  // tokenizer.json and the config; fasttext: the .bin). Empty for openai: a
  // remote model has no file here, its name and dimension are its identity.
  std::string fingerprint;
  bool operator==(const EmbedderIdentity&) const = default;
};

// How to open an embedder: the text form `model2vec:DIR`, `fasttext:FILE` or
// `openai:URL#MODEL[?key_env=VAR&dimensions=N&batch=N&timeout_ms=N&retries=N]`.
struct EmbedderSpec {
  std::string kind;     // model2vec | fasttext | openai
  std::string path;     // model2vec: the model directory; fasttext: the .bin file
  std::string url;      // openai: the base URL (`.../v1`); requests go to URL/embeddings
  std::string model;    // openai: the model name sent with each request
  std::string key_env;  // openai: the environment variable holding the API key (read on use)
  std::optional<std::size_t> dimensions;  // openai: asked of the endpoint and checked
  std::size_t batch = 64;                 // openai: texts per request, 1..2048
  std::size_t timeout_ms = 30000;         // openai: per request, 1..600000
  std::size_t retries = 4;                // openai: on 429, 5xx and transport errors, 0..10
};

// Parses the text form. InvalidArgument naming the bad part
// ("embedder: openai: dimensions: expected an integer in 1..65536, got 'x'").
StatusOr<EmbedderSpec> ParseEmbedderSpec(std::string_view text);
// The canonical text form (ParseEmbedderSpec of it gives `spec` back).
std::string EmbedderSpecText(const EmbedderSpec& spec);

class Embedder {
 public:
  virtual ~Embedder() = default;
  virtual const EmbedderIdentity& identity() const = 0;
  // One vector of identity().dimension floats per text, in order; all or
  // nothing. Local embedders give an all-zero vector for a text with no known
  // token. openai: Unavailable-like failures come back as IoError naming the
  // provider, the URL and the HTTP status ("openai http://h/v1/embeddings:
  // HTTP 500 after 5 attempts: ..."); a reply of the wrong shape, count or
  // dimension is Corruption.
  virtual StatusOr<std::vector<std::vector<float>>> Embed(
      std::span<const std::string_view> texts) const = 0;
};

// Opens the embedder `spec` names, reading and checking its files (NotFound
// for a missing file, InvalidArgument with the file and the located fault for
// a malformed one). openai's dimension is `dimensions` when given, else
// learnt from a one-text request made here (failing as Embed fails). The
// result caches embeddings by content hash (at most `cache_bytes` of vectors;
// 0: no cache), so the same text is not sent to the model twice.
StatusOr<std::unique_ptr<Embedder>> OpenEmbedder(const EmbedderSpec& spec,
                                                 std::size_t cache_bytes = std::size_t{64} << 20);

}  // namespace engram

#endif  // ENGRAM_EMBEDDER_H_
