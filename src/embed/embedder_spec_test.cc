#include <gtest/gtest.h>

#include "engram/embedder.h"

namespace engram {
namespace {

TEST(EmbedderSpecTest, ParsesEachKindAndPrintsItBack) {
  for (const char* text :
       {"model2vec:/models/potion-base-8M", "fasttext:cc.en.300.bin",
        "openai:http://localhost:11434/v1#nomic-embed-text:latest",
        "openai:https://api.openai.com/v1#text-embedding-3-small?key_env=OPENAI_API_KEY&"
        "dimensions=256&batch=128&timeout_ms=5000&retries=2"}) {
    StatusOr<EmbedderSpec> spec = ParseEmbedderSpec(text);
    ASSERT_TRUE(spec.ok()) << spec.status().ToString();
    EXPECT_EQ(EmbedderSpecText(*spec), text);
  }
  const EmbedderSpec s =
      ParseEmbedderSpec("openai:http://h:1/v1#org/model?dimensions=8&key_env=K").value();
  EXPECT_EQ(s.kind, "openai");
  EXPECT_EQ(s.url, "http://h:1/v1");
  EXPECT_EQ(s.model, "org/model");
  EXPECT_EQ(s.dimensions, 8u);
  EXPECT_EQ(s.key_env, "K");
  EXPECT_EQ(s.batch, 64u);
  EXPECT_EQ(s.timeout_ms, 30000u);
  EXPECT_EQ(s.retries, 4u);
}

TEST(EmbedderSpecTest, RefusalsNameThePart) {
  struct Case {
    const char* text;
    const char* message;
  } cases[] = {
      {"potion",
       "embedder: expected model2vec:DIR, fasttext:FILE or "
       "openai:URL#MODEL[?key_env=VAR&dimensions=N], got 'potion'"},
      {"onnx:/m", "embedder: kind: unknown 'onnx' (known: model2vec, fasttext, openai)"},
      {"model2vec:", "embedder: model2vec: missing the model's path"},
      {"openai:http://h/v1", "embedder: openai: expected URL#MODEL"},
      {"openai:#m", "embedder: openai: url: missing"},
      {"openai:http://h/v1#", "embedder: openai: model: missing"},
      {"openai:http://h/v1#m?dimensions=0",
       "embedder: openai: dimensions: expected an integer in 1..65536, got '0'"},
      {"openai:http://h/v1#m?batch=x",
       "embedder: openai: batch: expected an integer in 1..2048, got 'x'"},
      {"openai:http://h/v1#m?key_env=A-B",
       "embedder: openai: key_env: expected an environment variable name, got 'A-B'"},
      {"openai:http://h/v1#m?key=sk-123",
       "embedder: openai: key: unknown parameter (known: key_env, dimensions, batch, "
       "timeout_ms, retries)"},
      {"openai:http://h/v1#m?retries=1&retries=2", "embedder: openai: retries: given twice"},
      {"openai:http://h/v1#m?retries", "embedder: openai: expected NAME=VALUE, got 'retries'"},
  };
  for (const Case& c : cases) {
    StatusOr<EmbedderSpec> spec = ParseEmbedderSpec(c.text);
    ASSERT_FALSE(spec.ok()) << c.text;
    EXPECT_EQ(spec.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(spec.status().message(), c.message);
  }
}

TEST(EmbedderSpecTest, OpenEmbedderCachesByDefault) {
  StatusOr<std::unique_ptr<Embedder>> e = OpenEmbedder(
      ParseEmbedderSpec("model2vec:src/embed/testdata/model2vec/test-model-float32").value());
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  const std::string_view texts[] = {"hello world", "hello world"};
  auto v = (*e)->Embed(texts);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ((*v)[0], (*v)[1]);
  StatusOr<std::unique_ptr<Embedder>> missing =
      OpenEmbedder(ParseEmbedderSpec("fasttext:/nonexistent/model.bin").value());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace engram
