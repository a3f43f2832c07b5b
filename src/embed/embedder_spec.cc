// The embedder spec's text form and OpenEmbedder (include/engram/embedder.h).
#include <charconv>
#include <set>

#include "base/status.h"
#include "embed/embedding_cache.h"
#include "embed/fasttext_embedder.h"
#include "embed/model2vec.h"
#include "embed/openai_embedder.h"
#include "engram/embedder.h"

namespace engram {
namespace {

Status Bad(std::string_view where, std::string_view what) {
  return Status::InvalidArgument("embedder: " + std::string(where) + ": " + std::string(what));
}

StatusOr<std::size_t> Number(std::string_view name, std::string_view value, std::size_t lo,
                             std::size_t hi) {
  std::size_t n = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
  if (ec != std::errc() || end != value.data() + value.size() || n < lo || n > hi) {
    return Bad("openai: " + std::string(name), "expected an integer in " + std::to_string(lo) +
                                                   ".." + std::to_string(hi) + ", got '" +
                                                   std::string(value) + "'");
  }
  return n;
}

bool IsEnvName(std::string_view s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  for (char c : s) {
    if (!(c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) {
      return false;
    }
  }
  return true;
}

Status ParseParams(std::string_view query, EmbedderSpec* spec) {
  std::set<std::string, std::less<>> seen;
  while (!query.empty()) {
    const std::size_t amp = query.find('&');
    const std::string_view param = query.substr(0, amp);
    query = amp == std::string_view::npos ? "" : query.substr(amp + 1);
    const std::size_t eq = param.find('=');
    if (eq == std::string_view::npos)
      return Bad("openai", "expected NAME=VALUE, got '" + std::string(param) + "'");
    const std::string_view name = param.substr(0, eq), value = param.substr(eq + 1);
    if (!seen.emplace(name).second) {
      return Bad("openai: " + std::string(name), "given twice");
    }
    if (name == "key_env") {
      if (!IsEnvName(value)) {
        return Bad("openai: key_env",
                   "expected an environment variable name, got '" + std::string(value) + "'");
      }
      spec->key_env = value;
    } else if (name == "dimensions") {
      ASSIGN_OR_RETURN(spec->dimensions, Number(name, value, 1, 65536));
    } else if (name == "batch") {
      ASSIGN_OR_RETURN(spec->batch, Number(name, value, 1, 2048));
    } else if (name == "timeout_ms") {
      ASSIGN_OR_RETURN(spec->timeout_ms, Number(name, value, 1, 600000));
    } else if (name == "retries") {
      ASSIGN_OR_RETURN(spec->retries, Number(name, value, 0, 10));
    } else {
      return Bad("openai: " + std::string(name),
                 "unknown parameter (known: key_env, dimensions, batch, timeout_ms, retries)");
    }
  }
  return Status::Ok();
}

}  // namespace

StatusOr<EmbedderSpec> ParseEmbedderSpec(std::string_view text) {
  const std::size_t colon = text.find(':');
  if (colon == std::string_view::npos) {
    return Status::InvalidArgument(
        "embedder: expected model2vec:DIR, fasttext:FILE or "
        "openai:URL#MODEL[?key_env=VAR&dimensions=N], got '" +
        std::string(text) + "'");
  }
  EmbedderSpec spec;
  spec.kind = text.substr(0, colon);
  const std::string_view rest = text.substr(colon + 1);
  if (spec.kind == "model2vec" || spec.kind == "fasttext") {
    if (rest.empty()) return Bad(spec.kind, "missing the model's path");
    spec.path = rest;
    return spec;
  }
  if (spec.kind != "openai") {
    return Bad("kind", "unknown '" + spec.kind + "' (known: model2vec, fasttext, openai)");
  }
  const std::size_t hash = rest.find('#');
  if (hash == std::string_view::npos) return Bad("openai", "expected URL#MODEL");
  spec.url = rest.substr(0, hash);
  std::string_view model = rest.substr(hash + 1);
  const std::size_t q = model.find('?');
  if (q != std::string_view::npos) {
    RETURN_IF_ERROR(ParseParams(model.substr(q + 1), &spec));
    model = model.substr(0, q);
  }
  if (spec.url.empty()) return Bad("openai: url", "missing");
  if (model.empty()) return Bad("openai: model", "missing");
  spec.model = model;
  return spec;
}

std::string EmbedderSpecText(const EmbedderSpec& spec) {
  if (spec.kind != "openai") return spec.kind + ":" + spec.path;
  const EmbedderSpec defaults;
  std::string params;
  auto add = [&](std::string_view name, const std::string& value) {
    params += params.empty() ? "?" : "&";
    params += name;
    params += "=";
    params += value;
  };
  if (!spec.key_env.empty()) add("key_env", spec.key_env);
  if (spec.dimensions) add("dimensions", std::to_string(*spec.dimensions));
  if (spec.batch != defaults.batch) add("batch", std::to_string(spec.batch));
  if (spec.timeout_ms != defaults.timeout_ms) add("timeout_ms", std::to_string(spec.timeout_ms));
  if (spec.retries != defaults.retries) add("retries", std::to_string(spec.retries));
  return "openai:" + spec.url + "#" + spec.model + params;
}

StatusOr<std::unique_ptr<Embedder>> OpenEmbedder(const EmbedderSpec& spec,
                                                 std::size_t cache_bytes) {
  std::unique_ptr<Embedder> embedder;
  if (spec.kind == "model2vec") {
    ASSIGN_OR_RETURN(embedder, embed::Model2Vec::Open(spec.path));
  } else if (spec.kind == "fasttext") {
    ASSIGN_OR_RETURN(embedder, embed::FastTextEmbedder::Open(spec.path));
  } else if (spec.kind == "openai") {
    embed::OpenAiOptions options;
    options.spec = spec;
    ASSIGN_OR_RETURN(embedder, embed::OpenAiEmbedder::Open(std::move(options)));
  } else {
    return Bad("kind", "unknown '" + spec.kind + "' (known: model2vec, fasttext, openai)");
  }
  if (cache_bytes == 0) return embedder;
  return std::unique_ptr<Embedder>(
      std::make_unique<embed::CachingEmbedder>(std::move(embedder), cache_bytes));
}

}  // namespace engram
