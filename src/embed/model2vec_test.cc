#include "embed/model2vec.h"

#include <cmath>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "embed/digest.h"

namespace engram::embed {
namespace {

const std::string kDir = "src/embed/testdata/model2vec/";

std::unique_ptr<Model2Vec> Open(const std::string& dir) {
  StatusOr<std::unique_ptr<Model2Vec>> m = Model2Vec::Open(dir);
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return m.ok() ? std::move(m).value() : nullptr;
}

std::vector<float> Embed1(const Model2Vec& m, std::string_view text) {
  const std::string_view texts[] = {text};
  StatusOr<std::vector<std::vector<float>>> v = m.Embed(texts);
  EXPECT_TRUE(v.ok()) << v.status().ToString();
  return v.ok() ? v.value()[0] : std::vector<float>{};
}

// The reference library's output (embeddings_*.json beside the models).
std::vector<float> Expected(const std::string& file) {
  std::ifstream in(kDir + file);
  return nlohmann::json::parse(in)[0].get<std::vector<float>>();
}

// model2vec-rs's criterion: every component within 1e-5 relative.
void ExpectRelativelyNear(const std::vector<float>& got, const std::vector<float>& want,
                          double tolerance) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_LE(std::fabs(got[i] - want[i]), tolerance * std::fabs(want[i]))
        << "component " << i << ": " << got[i] << " vs " << want[i];
  }
}

std::string Repeat(std::string_view word, std::size_t n) {
  std::string s;
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0) s += ' ';
    s += word;
  }
  return s;
}

TEST(Model2VecTest, MatchesTheReferenceOutputs) {
  auto f32 = Open(kDir + "test-model-float32");
  ASSERT_NE(f32, nullptr);
  ExpectRelativelyNear(Embed1(*f32, "hello world"), Expected("embeddings_short.json"), 1e-5);
  ExpectRelativelyNear(Embed1(*f32, Repeat("hello", 1000)), Expected("embeddings_long.json"), 1e-5);
  auto quantized = Open(kDir + "test-model-vocab-quantized");
  ASSERT_NE(quantized, nullptr);
  ExpectRelativelyNear(Embed1(*quantized, Repeat("hello", 1000)),
                       Expected("embeddings_vocab_quantized.json"), 1e-5);
  EXPECT_EQ(quantized->identity().dimension, 64u);
}

TEST(Model2VecTest, EveryStoredFormGivesTheFloatModelsVectors) {
  auto f32 = Open(kDir + "test-model-float32");
  auto st = Open(kDir + "test-model-sentence-transformers");
  auto f16 = Open(kDir + "test-model-float16");
  auto i8 = Open(kDir + "test-model-int8");
  ASSERT_TRUE(f32 && st && f16 && i8);
  for (const char* text : {"hello world", "The quick brown fox", "embeddings, tokenizers!"}) {
    SCOPED_TRACE(text);
    const std::vector<float> want = Embed1(*f32, text);
    // The sentence-transformers layout holds the same float32 tensor.
    EXPECT_EQ(Embed1(*st, text), want);
    // F16 rounds each weight to 11 significant bits: the same vector within
    // that precision. I8 quantises the matrix to 255 levels: about the same
    // direction.
    ExpectRelativelyNear(Embed1(*f16, text), want, 2e-3);
    const std::vector<float> q = Embed1(*i8, text);
    EXPECT_GT(q[0] * want[0] + q[1] * want[1], 0.97);
  }
  // One token: the vector is the token's row normalised; I8 rows are used as
  // their integer values, as the reference does.
  const std::vector<std::uint32_t> hello = i8->TokenIds("hello");
  ASSERT_EQ(hello.size(), 1u);
  StatusOr<std::string> bytes = ReadFile(kDir + "test-model-int8/model.safetensors", 1 << 20);
  ASSERT_TRUE(bytes.ok());
  // The header is 72 bytes (safetensors_test reads it); rows are 2 bytes.
  const auto* row = reinterpret_cast<const std::int8_t*>(bytes->data() + 8 + 72 + 2 * hello[0]);
  const double norm = std::hypot(static_cast<double>(row[0]), static_cast<double>(row[1]));
  EXPECT_EQ(Embed1(*i8, "hello"), (std::vector<float>{static_cast<float>(row[0] / norm),
                                                      static_cast<float>(row[1] / norm)}));
  EXPECT_EQ(f16->identity().kind, "model2vec");
  EXPECT_EQ(f16->identity().model, "test-model-float16");
  EXPECT_EQ(f16->identity().dimension, 2u);
  EXPECT_EQ(f16->identity().fingerprint.substr(0, 7), "sha256:");
  EXPECT_NE(f16->identity().fingerprint, f32->identity().fingerprint);
}

TEST(Model2VecTest, TruncatesLikeTheReference) {
  auto m = Open(kDir + "test-model-float32");
  ASSERT_NE(m, nullptr);
  // At most 512 tokens ...
  EXPECT_EQ(m->TokenIds(Repeat("hello", 600)).size(), 512u);
  // ... read from at most 512 x median_token_length characters: a word
  // after that many characters of unknown emoji is never read.
  EXPECT_EQ(m->max_chars() % 512, 0u);
  const std::size_t n = m->max_chars() / 2;  // "🙂 " is two characters
  EXPECT_EQ(m->TokenIds(Repeat("\U0001F642", n - 3) + " hello"), m->TokenIds("hello"));
  EXPECT_TRUE(m->TokenIds(Repeat("\U0001F642", n) + " hello").empty());
  // Unknown tokens are dropped, not averaged.
  EXPECT_EQ(m->TokenIds("hello \U0001F642 world"), m->TokenIds("hello world"));
  EXPECT_EQ(Embed1(*m, "hello \U0001F642 world"), Embed1(*m, "hello world"));
}

TEST(Model2VecTest, NoKnownTokenGivesZeros) {
  auto m = Open(kDir + "test-model-float32");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Embed1(*m, ""), std::vector<float>(2, 0.0f));
  EXPECT_EQ(Embed1(*m, "\U0001F642"), std::vector<float>(2, 0.0f));
}

TEST(Model2VecTest, NormalizeFollowsTheConfig) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("m2v_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  for (const char* f : {"model.safetensors", "tokenizer.json"}) {
    std::filesystem::copy_file(kDir + "test-model-float32/" + f, dir / f,
                               std::filesystem::copy_options::overwrite_existing);
  }
  std::ofstream(dir / "config.json") << R"({"normalize": false})";
  auto raw = Open(dir.string());
  auto unit = Open(kDir + "test-model-float32");
  ASSERT_TRUE(raw && unit);
  EXPECT_FALSE(raw->normalize());
  const std::vector<float> a = Embed1(*raw, "hello world"), b = Embed1(*unit, "hello world");
  const double norm = std::hypot(a[0], a[1]);
  EXPECT_GT(std::fabs(norm - 1.0), 1e-3);
  EXPECT_NEAR(a[0] / norm, b[0], 1e-6);
  EXPECT_NE(raw->identity().fingerprint, unit->identity().fingerprint);  // the config counts

  std::ofstream(dir / "config.json") << R"({"normalize": "yes"})";
  StatusOr<std::unique_ptr<Model2Vec>> bad = Model2Vec::Open(dir.string());
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            (dir / "config.json").string() + ": normalize: expected a boolean, got \"yes\"");
  std::filesystem::remove_all(dir);
}

TEST(Model2VecTest, RefusesWhatDoesNotFit) {
  StatusOr<std::unique_ptr<Model2Vec>> none = Model2Vec::Open("src/embed/testdata");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::kNotFound);

  // The float32 matrix with the other vocabulary: rows do not match tokens.
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("m2v_bad_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(kDir + "test-model-float32/model.safetensors",
                             dir / "model.safetensors");
  std::filesystem::copy_file(kDir + "test-model-vocab-quantized/tokenizer.json",
                             dir / "tokenizer.json");
  std::ofstream(dir / "config.json") << "{}";
  StatusOr<std::unique_ptr<Model2Vec>> bad = Model2Vec::Open(dir.string());
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), (dir / "model.safetensors").string() +
                                        ": tensor 'embeddings': 29528 rows for 29524 tokens (ids "
                                        "up to 29523) in the tokenizer");
  std::filesystem::remove_all(dir);
}

TEST(Model2VecTest, RefusesInvalidUtf8) {
  auto m = Open(kDir + "test-model-float32");
  ASSERT_NE(m, nullptr);
  const std::string_view texts[] = {"ok", "bad \xff"};
  StatusOr<std::vector<std::vector<float>>> v = m->Embed(texts);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().message(), "texts[1]: not valid UTF-8");
}

}  // namespace
}  // namespace engram::embed
