#include "speed.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

#include <fmt/core.h>

#include "engram/embedder.h"
#include "text/data.h"

namespace engram::bench {
namespace {

using Clock = std::chrono::steady_clock;

template <typename T>
T Must(StatusOr<T> v, std::string_view what) {
  if (!v.ok()) throw std::runtime_error(std::string(what) + ": " + v.status().ToString());
  return std::move(v).value();
}

// Words of the SciFact abstracts, in order, to cut texts of any length from.
std::vector<std::string> Words(const std::string& data) {
  const SciFact s = LoadSciFact(data + "/scifact");
  std::vector<std::string> words;
  for (const TextDoc& d : s.docs) {
    std::istringstream in(d.text);
    for (std::string w; in >> w;) words.push_back(w);
  }
  return words;
}

std::vector<std::string> Texts(const std::vector<std::string>& words, std::size_t length,
                               std::size_t count) {
  std::vector<std::string> out;
  std::size_t at = 0;
  for (std::size_t i = 0; i < count; ++i) {
    std::string t;
    for (std::size_t j = 0; j < length; ++j) {
      if (j > 0) t += ' ';
      t += words[at++ % words.size()];
    }
    out.push_back(std::move(t));
  }
  return out;
}

// Median over `passes` of the seconds to embed every text, one call per text.
double MedianSeconds(const Embedder& e, const std::vector<std::string>& texts, std::size_t passes) {
  std::vector<double> runs;
  for (std::size_t p = 0; p < passes + 1; ++p) {  // the first pass warms up
    const auto t0 = Clock::now();
    for (const std::string& t : texts) {
      const std::string_view one[] = {t};
      if (!e.Embed(one).ok()) throw std::runtime_error("embed failed");
    }
    if (p > 0) runs.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
  }
  std::sort(runs.begin(), runs.end());
  return runs[runs.size() / 2];
}

void Throughput(const std::vector<std::unique_ptr<Embedder>>& embedders,
                const std::vector<std::string>& words, std::size_t passes) {
  fmt::print("\n## Embedding speed, one thread, one text per call, no cache\n\n");
  fmt::print(
      "Texts cut from the SciFact abstracts (consecutive words, punctuation kept); "
      "median of {} passes.\n\n",
      passes);
  fmt::print(
      "| embedder | words per text | texts | sentences/s | µs per text |\n"
      "|---|---|---|---|---|\n");
  for (const auto& e : embedders) {
    for (std::size_t length : {5, 20, 100, 500}) {
      const std::size_t count = length >= 500 ? 200 : length >= 100 ? 1000 : 5000;
      const auto texts = Texts(words, length, count);
      const double s = MedianSeconds(*e, texts, passes);
      fmt::print("| {} ({}-d) | {} | {} | {:.0f} | {:.1f} |\n", e->identity().model,
                 e->identity().dimension, length, count, count / s, 1e6 * s / count);
    }
  }
}

void QueryLatency(const std::vector<std::unique_ptr<Embedder>>& embedders,
                  const std::vector<std::string>& words) {
  fmt::print(
      "\n## Embedding one 20-word query (aim: <= 50 µs with the 256-d model2vec model "
      "of potion-base-8M's shape)\n\n");
  fmt::print("| embedder | queries | p50 | p99 | mean |\n|---|---|---|---|---|\n");
  const auto queries = Texts(words, 20, 2000);
  for (const auto& e : embedders) {
    std::vector<double> us;
    for (std::size_t pass = 0; pass < 6; ++pass) {
      for (const std::string& q : queries) {
        const std::string_view one[] = {q};
        const auto t0 = Clock::now();
        if (!e->Embed(one).ok()) throw std::runtime_error("embed failed");
        if (pass > 0)
          us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
      }
    }
    std::sort(us.begin(), us.end());
    double mean = 0;
    for (double x : us) mean += x;
    mean /= static_cast<double>(us.size());
    fmt::print("| {} ({}-d) | {} | **{:.1f} µs** | {:.1f} µs | {:.1f} µs |\n", e->identity().model,
               e->identity().dimension, us.size(), us[us.size() / 2], us[us.size() * 99 / 100],
               mean);
  }
}

}  // namespace

std::string WriteRandomPotion8M(const std::string& source_dir, const std::string& dir) {
  constexpr std::size_t kRows = 29528, kDim = 256;
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(
      source_dir + "/src/embed/testdata/model2vec/test-model-float32/tokenizer.json",
      dir + "/tokenizer.json", std::filesystem::copy_options::overwrite_existing);
  std::ofstream(dir + "/config.json")
      << R"({"model_type": "model2vec", "hidden_dim": 256, "seq_length": 1000000, )"
         R"("normalize": true})";
  const std::string header = R"({"embeddings":{"dtype":"F32","shape":[29528,256],)"
                             R"("data_offsets":[0,)" +
                             std::to_string(kRows * kDim * 4) + "]}}";
  std::ofstream out(dir + "/model.safetensors", std::ios::binary);
  const std::uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) out.put(static_cast<char>(n >> (8 * i)));
  out << header;
  std::mt19937_64 rng(8);
  std::normal_distribution<float> g(0, 1);
  std::vector<float> row(kDim);
  for (std::size_t r = 0; r < kRows; ++r) {
    for (float& x : row) x = g(rng);
    out.write(reinterpret_cast<const char*>(row.data()),
              static_cast<std::streamsize>(row.size() * sizeof(float)));
  }
  return "model2vec:" + dir;
}

void RunSpeed(const SpeedOptions& o) {
  std::vector<std::unique_ptr<Embedder>> embedders;
  for (const std::string& spec : o.embedders) {
    embedders.push_back(Must(OpenEmbedder(Must(ParseEmbedderSpec(spec), "spec"), 0), spec));
  }
  const std::vector<std::string> words = Words(o.data);
  Throughput(embedders, words, o.passes);
  QueryLatency(embedders, words);
}

}  // namespace engram::bench
