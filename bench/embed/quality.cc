#include "quality.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>

#include <fmt/core.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "common/must.h"
#include "engram/embedder.h"
#include "engram/engine.h"
#include "text/data.h"
#include "text/ndcg.h"

namespace engram::bench {
namespace {

constexpr std::size_t kTop = 10;

// The collection: title and abstract as text fields (weight 1 each, English
// stemming: the text benchmark's configuration) and the embedder's vectors.
struct Corpus {
  std::string dir;
  std::unique_ptr<Engine> engine;
  std::vector<std::vector<float>> query_vectors;
  double embed_docs_s = 0, embed_queries_s = 0;
};

Corpus Build(const SciFact& s, const Embedder& embedder) {
  Corpus c;
  char tmpl[] = "/tmp/engram_embed_quality.XXXXXX";
  if (::mkdtemp(tmpl) == nullptr) throw std::runtime_error("mkdtemp failed");
  c.dir = tmpl;
  c.engine = Must(Engine::Open(c.dir), "open engine");
  Checked<SchemaRef> schema = SchemaRef::Parse(R"({"fields":[]})");
  if (!schema.ok()) throw std::runtime_error("schema: " + schema.diagnostic().message);
  const CollectionSpec spec{"scifact",
                            schema.value(),
                            {{"title", 1.0}, {"text", 1.0}},
                            embedder.identity().dimension,
                            "cosine",
                            "en",
                            ""};
  Must(c.engine->CreateCollection(spec), "create collection");
  auto t0 = std::chrono::steady_clock::now();
  std::vector<std::string> texts;
  for (const TextDoc& d : s.docs) texts.push_back(d.title + " " + d.text);
  std::vector<std::string> records;
  for (std::size_t at = 0; at < texts.size(); at += 256) {
    const std::size_t n = std::min<std::size_t>(256, texts.size() - at);
    std::vector<std::string_view> batch(texts.begin() + at, texts.begin() + at + n);
    auto vectors = Must(embedder.Embed(batch), "embed documents");
    for (std::size_t i = 0; i < n; ++i) {
      const TextDoc& d = s.docs[at + i];
      nlohmann::json r = {{"id", d.id}, {"title", d.title}, {"text", d.text}};
      // A document with no known word has a zero vector: stored without one.
      const bool zero =
          std::all_of(vectors[i].begin(), vectors[i].end(), [](float x) { return x == 0; });
      if (!zero) r["vector"] = vectors[i];
      records.push_back(r.dump());
    }
  }
  c.embed_docs_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::vector<std::string_view> views(records.begin(), records.end());
  WriteResult w = Must(c.engine->Upsert("scifact", views), "upsert");
  if (w.rejected) throw std::runtime_error("upsert rejected: " + w.rejected->message);
  t0 = std::chrono::steady_clock::now();
  std::vector<std::string_view> queries;
  for (const TextQuery& q : s.queries) queries.push_back(q.text);
  c.query_vectors = Must(embedder.Embed(queries), "embed queries");
  c.embed_queries_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return c;
}

struct Scores {
  double tune = 0, test = 0, all = 0;
};

// nDCG@10 of one configuration on the tuning claims, the others, and all.
Scores Evaluate(const SciFact& s, const Corpus& c, std::size_t tune,
                const std::function<void(SearchRequest*)>& configure) {
  std::map<std::string, std::vector<std::string>> runs;
  for (std::size_t i = 0; i < s.queries.size(); ++i) {
    SearchRequest r;
    r.k = kTop;
    r.query = s.queries[i].text;
    r.vector = c.query_vectors[i];
    configure(&r);
    SearchResponse res = Must(c.engine->Search("scifact", r), "search");
    auto& run = runs[s.queries[i].id];
    for (const SearchHit& h : res.hits) run.push_back(h.id);
  }
  Qrels tune_qrels, test_qrels;
  for (std::size_t i = 0; i < s.queries.size(); ++i) {
    auto it = s.qrels.find(s.queries[i].id);
    if (it == s.qrels.end()) continue;
    (i < tune ? tune_qrels : test_qrels).insert(*it);
  }
  return {MeanNdcgAtK(runs, tune_qrels, kTop), MeanNdcgAtK(runs, test_qrels, kTop),
          MeanNdcgAtK(runs, s.qrels, kTop)};
}

struct Row {
  std::string name, params;
  Scores scores;
};

// The best of `candidates` on the tuning claims (the first on ties).
Row Best(const SciFact& s, const Corpus& c, std::size_t tune, const std::string& name,
         const std::vector<FusionSpec>& candidates) {
  Row best{name, "", {-1, 0, 0}};
  for (const FusionSpec& f : candidates) {
    const Scores sc = Evaluate(s, c, tune, [&](SearchRequest* r) {
      r->mode = SearchMode::kHybrid;
      r->fusion = f;
    });
    if (sc.tune > best.scores.tune) best = {name, FusionText(f), sc};
  }
  return best;
}

std::vector<double> Steps(double from, double to, double step) {
  std::vector<double> out;
  for (double x = from; x <= to + 1e-9; x += step) out.push_back(std::round(x * 100) / 100);
  return out;
}

}  // namespace

void RunQuality(const QualityOptions& o) {
  const SciFact s = LoadSciFact(o.data + "/scifact");
  fmt::print("\n## Fusion on BEIR SciFact: {} documents, {} test claims\n\n", s.docs.size(),
             s.queries.size());
  fmt::print(
      "Parameters are chosen on claims 1-{} (file order of queries_test.jsonl) and "
      "reported on claims {}-{}; equal-weight RRF (k = 60) is shown beside them.\n",
      o.tune, o.tune + 1, s.queries.size());
  for (const std::string& spec_text : o.embedders) {
    const EmbedderSpec spec = Must(ParseEmbedderSpec(spec_text), "embedder");
    const auto embedder = Must(OpenEmbedder(spec, 0), "open embedder");
    const Corpus c = Build(s, *embedder);
    fmt::print("\n### {} ({}-d {}; documents embedded in {:.1f} s, claims in {:.2f} s)\n\n",
               embedder->identity().model, embedder->identity().dimension,
               embedder->identity().kind, c.embed_docs_s, c.embed_queries_s);
    std::vector<Row> rows;
    rows.push_back({"BM25 alone (mode text)", "",
                    Evaluate(s, c, o.tune, [](SearchRequest* r) { r->mode = SearchMode::kText; })});
    rows.push_back({"dense alone (mode vector)", "", Evaluate(s, c, o.tune, [](SearchRequest* r) {
                      r->mode = SearchMode::kVector;
                    })});
    rows.push_back({"hybrid, RRF k = 60 (equal weights)", "rrf:k=60",
                    Evaluate(s, c, o.tune, [](SearchRequest* r) {
                      r->mode = SearchMode::kHybrid;
                      r->fusion = FusionSpec{};
                    })});
    std::vector<FusionSpec> rrf, weighted, minmax, zscore;
    for (std::size_t k : {1, 5, 10, 20, 40, 60, 100}) {
      FusionSpec f;
      f.rrf_k = k;
      rrf.push_back(f);
      for (double w : {0.1, 0.2, 0.3, 0.4, 0.5, 0.7, 1.0, 1.5, 2.0, 3.0}) {
        FusionSpec g = f;
        g.method = "weighted_rrf";
        g.vector_weight = w;
        weighted.push_back(g);
      }
    }
    for (double a : Steps(0, 1, 0.05)) {
      FusionSpec f;
      f.method = "convex";
      f.alpha = a;
      minmax.push_back(f);
      f.normalization = "z_score";
      zscore.push_back(f);
    }
    rows.push_back(Best(s, c, o.tune, "hybrid, RRF, k tuned", rrf));
    rows.push_back(Best(s, c, o.tune, "hybrid, weighted RRF, tuned", weighted));
    rows.push_back(Best(s, c, o.tune, "hybrid, convex min-max, alpha tuned", minmax));
    rows.push_back(Best(s, c, o.tune, "hybrid, convex z-score, alpha tuned", zscore));
    fmt::print(
        "| run | parameters (chosen on claims 1-{}) | nDCG@10, claims 1-{} | nDCG@10, "
        "claims {}-{} | all {} |\n|---|---|---|---|---|\n",
        o.tune, o.tune, o.tune + 1, s.queries.size(), s.queries.size());
    for (const Row& r : rows) {
      fmt::print("| {} | {} | {:.4f} | **{:.4f}** | {:.4f} |\n", r.name,
                 r.params.empty() ? "-" : "`" + r.params + "`", r.scores.tune, r.scores.test,
                 r.scores.all);
    }
    // How much the choice matters: each convex alpha, and weighted RRF's
    // vector weight at k = 60, on both halves.
    fmt::print("\nSensitivity (nDCG@10 on claims 1-{} / {}-{}):\n\n", o.tune, o.tune + 1,
               s.queries.size());
    fmt::print("| alpha (convex) | min-max | z-score |\n|---|---|---|\n");
    for (std::size_t i = 0; i < minmax.size(); i += 2) {
      const auto run = [&](const FusionSpec& f) {
        return Evaluate(s, c, o.tune, [&](SearchRequest* r) {
          r->mode = SearchMode::kHybrid;
          r->fusion = f;
        });
      };
      const Scores a = run(minmax[i]), b = run(zscore[i]);
      fmt::print("| {:.1f} | {:.4f} / {:.4f} | {:.4f} / {:.4f} |\n", minmax[i].alpha, a.tune,
                 a.test, b.tune, b.test);
    }
    std::filesystem::remove_all(c.dir);
  }
}

}  // namespace engram::bench
