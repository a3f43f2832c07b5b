#include "speed.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <stdexcept>

#include <fmt/core.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "common/must.h"
#include "engram/embedder.h"
#include "engram/engine.h"
#include "text/data.h"

namespace engram::bench {
namespace {

using Clock = std::chrono::steady_clock;

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

struct Latency {
  double p50 = 0, p99 = 0;
};

Latency Percentiles(std::vector<double> us) {
  std::sort(us.begin(), us.end());
  return {us[us.size() / 2], us[us.size() * 99 / 100]};
}

// Ingest of the Debian packages into a collection (title and description as
// text fields) with `embedder` (empty: text only, the baseline), in batches
// of 1,000, then hybrid searches of 3-5 consecutive words of a description
// with the query embedded by the collection.
void IngestAndSearch(const std::string& data, const std::vector<std::string>& embedders,
                     std::size_t limit) {
  std::vector<Package> packages = LoadDebian(data + "/debian/packages.jsonl.gz");
  if (limit != 0 && packages.size() > limit) packages.resize(limit);
  std::vector<std::string> records;
  for (const Package& p : packages) {
    records.push_back(nlohmann::json{{"id", p.id}, {"title", p.title}, {"text", p.text}}.dump());
  }
  std::mt19937_64 rng(19);
  std::vector<std::string> queries;
  while (queries.size() < 1000) {
    const Package& p = packages[rng() % packages.size()];
    std::istringstream in(p.text);
    std::vector<std::string> words;
    for (std::string w; in >> w;) words.push_back(w);
    if (words.size() < 5) continue;
    const std::size_t len = 3 + rng() % 3;
    const std::size_t start = rng() % (words.size() - len + 1);
    std::string q;
    for (std::size_t k = 0; k < len; ++k) q += (k ? " " : "") + words[start + k];
    queries.push_back(q);
  }
  fmt::print("\n## Ingest and hybrid search with an embedder (Debian packages, {} records)\n\n",
             records.size());
  fmt::print(
      "Records `{{id, title, text}}` without vectors through `Engine::Upsert` in batches "
      "of 1,000 (durable, one thread embedding); the embedder embeds title + text. "
      "Searches: {} queries of 3-5 consecutive words of a description, k = 10, one "
      "thread; `query only` is what a user runs (the query embedded by the "
      "collection, then hybrid with the collection's default fusion), `vector given` "
      "the same hybrid search with the query vector computed beforehand, `text` BM25 "
      "alone.\n\n",
      queries.size());
  fmt::print(
      "| embedder | ingest records/s | query only p50 / p99 | vector given p50 / p99 | "
      "text p50 / p99 |\n|---|---|---|---|---|\n");
  std::vector<std::string> all = {""};
  all.insert(all.end(), embedders.begin(), embedders.end());
  for (const std::string& spec : all) {
    char tmpl[] = "/tmp/engram_embed_ingest.XXXXXX";
    if (::mkdtemp(tmpl) == nullptr) throw std::runtime_error("mkdtemp failed");
    const std::string dir = tmpl;
    std::string name = "(none: text only)";
    {
      auto engine = Must(Engine::Open(dir), "open");
      CollectionSpec c{"debian",
                       SchemaRef::Parse(R"({"fields":[]})").value(),
                       {{"title", 2.0}, {"text", 1.0}},
                       0,
                       "cosine",
                       "en",
                       ""};
      c.embedder = spec;
      if (Status st = engine->CreateCollection(c); !st.ok()) {
        throw std::runtime_error("create: " + st.ToString());
      }
      if (!spec.empty()) {
        const CollectionInfo info = Must(engine->DescribeCollection("debian"), "describe");
        name = info.spec.embedder_identity.model + " (" +
               std::to_string(info.spec.embedder_identity.dimension) + "-d)";
      }
      std::size_t refused = 0;
      const auto t0 = Clock::now();
      for (std::size_t at = 0; at < records.size(); at += 1000) {
        const std::size_t n = std::min<std::size_t>(1000, records.size() - at);
        std::vector<std::string_view> batch(records.begin() + at, records.begin() + at + n);
        // A package whose text gives no vector (the model knows none of its
        // words) is refused: count it and write the batch without it.
        for (WriteResult w = Must(engine->Upsert("debian", batch), "upsert"); w.rejected;
             w = Must(engine->Upsert("debian", batch), "upsert")) {
          batch.erase(batch.begin() + static_cast<std::ptrdiff_t>(w.rejected_index));
          ++refused;
        }
      }
      const double ingest_s = std::chrono::duration<double>(Clock::now() - t0).count();
      (void)engine->Checkpoint("debian");  // links the graph before the searches
      auto measure = [&](auto configure) {
        std::vector<double> us;
        for (std::size_t pass = 0; pass < 3; ++pass) {
          for (const std::string& q : queries) {
            SearchRequest r;
            r.query = q;
            r.k = 10;
            configure(&r, q);
            const auto s0 = Clock::now();
            SearchResponse res = Must(engine->Search("debian", r), "search");
            if (pass > 0) {
              us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - s0).count());
            }
            if (res.rejected) throw std::runtime_error("search rejected: " + res.rejected->message);
          }
        }
        return Percentiles(us);
      };
      const Latency text =
          measure([](SearchRequest* r, const std::string&) { r->mode = SearchMode::kText; });
      Latency alone, given;
      if (!spec.empty()) {
        alone = measure([](SearchRequest*, const std::string&) {});
        auto embedder = Must(OpenEmbedder(Must(ParseEmbedderSpec(spec), "spec"), 0), spec);
        std::map<std::string, std::vector<float>> vectors;
        for (const std::string& q : queries) {
          const std::string_view one[] = {q};
          vectors[q] = Must(embedder->Embed(one), "embed")[0];
        }
        given = measure([&](SearchRequest* r, const std::string& q) { r->vector = vectors[q]; });
      }
      auto cell = [&](const Latency& l) {
        return spec.empty() ? std::string("-") : fmt::format("{:.0f} / {:.0f} µs", l.p50, l.p99);
      };
      fmt::print("| {} | {:.0f}{} | {} | {} | {:.0f} / {:.0f} µs |\n", name,
                 records.size() / ingest_s,
                 refused == 0 ? "" : fmt::format(" ({} refused: no known word)", refused),
                 cell(alone), cell(given), text.p50, text.p99);
    }
    std::filesystem::remove_all(dir);
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
  IngestAndSearch(o.data, o.embedders, o.records);
}

}  // namespace engram::bench
