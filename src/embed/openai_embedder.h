// An OpenAI-compatible embeddings endpoint (`POST {base}/embeddings`, the
// request and reply shapes of platform.openai.com/docs/api-reference/embeddings,
// which Ollama, llama.cpp's server, vLLM, Text Embeddings Inference and LM
// Studio serve too), through cpp-httplib's client: texts in batches, a
// timeout per request, retries with exponential backoff on 429, 5xx and
// transport failures honouring Retry-After, and every reply checked (count,
// indexes, dimension, finite numbers).
#ifndef ENGRAM_EMBED_OPENAI_EMBEDDER_H_
#define ENGRAM_EMBED_OPENAI_EMBEDDER_H_

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "engram/embedder.h"

namespace engram::embed {

// The largest reply read (a batch of 2048 texts of 3072 numbers fits).
inline constexpr std::size_t kMaxReplyBytes = std::size_t{256} << 20;

struct OpenAiOptions {
  EmbedderSpec spec;  // kind "openai": url, model, key_env, dimensions, batch, timeout_ms, retries
  // Retry delays: `backoff` before the first retry, doubling, at most
  // `max_backoff`; a Retry-After (seconds or an HTTP date) replaces the delay
  // unless it asks for more than `max_retry_after`, which ends the retries.
  std::chrono::milliseconds backoff{500};
  std::chrono::milliseconds max_backoff{8000};
  std::chrono::milliseconds max_retry_after{60000};
  // How to wait between attempts (tests record the delays instead).
  std::function<void(std::chrono::milliseconds)> sleep;
};

class OpenAiEmbedder final : public Embedder {
 public:
  // InvalidArgument for a URL that is not http(s)://host[:port][/path] or
  // out-of-range options. Without `spec.dimensions` the dimension is learnt
  // from a one-text request made here (its failures as Embed's).
  static StatusOr<std::unique_ptr<OpenAiEmbedder>> Open(OpenAiOptions options);

  const EmbedderIdentity& identity() const override { return identity_; }
  // IoError "openai <url>: HTTP 503 after 5 attempts: <reply excerpt>" (or
  // "no reply ...: <transport error>") when the endpoint fails; Corruption
  // "openai <url>: malformed reply: <where>: <what>" for a reply of the wrong
  // shape, count or dimension; FailedPrecondition when `key_env` names an
  // unset variable. The key is read from the environment on every request.
  StatusOr<std::vector<std::vector<float>>> Embed(
      std::span<const std::string_view> texts) const override;

  const std::string& endpoint() const { return endpoint_; }

 private:
  explicit OpenAiEmbedder(OpenAiOptions options) : options_(std::move(options)) {}
  StatusOr<std::vector<std::vector<float>>> Request(std::span<const std::string_view> texts,
                                                    std::size_t dim) const;

  OpenAiOptions options_;
  std::string origin_;    // scheme://host:port
  std::string path_;      // /v1/embeddings
  std::string endpoint_;  // origin_ + path_, for messages
  EmbedderIdentity identity_;
};

}  // namespace engram::embed

#endif  // ENGRAM_EMBED_OPENAI_EMBEDDER_H_
