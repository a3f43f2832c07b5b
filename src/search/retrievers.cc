#include "search/retrievers.h"

#include <chrono>
#include <utility>

#include "search/thresholds.h"
#include "vector/metric.h"

namespace engram::search {
namespace {

std::int64_t MicrosSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() -
                                                               start)
      .count();
}

}  // namespace

TextRun RetrieveText(const text::TextIndex& index, const text::DefaultQuery& query, std::size_t n,
                     const roaring::Roaring* allowed, const text::TextSearchOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  TextRun run;
  const std::vector<text::TextHit> found = index.Search(query, n, allowed, &run.stats, options);
  run.hits.reserve(found.size());
  for (std::size_t i = 0; i < found.size(); ++i) {
    Hit h;
    h.doc = found[i].doc;
    h.score = found[i].score;
    h.bm25 = found[i].score;
    h.text_rank = i + 1;
    run.hits.push_back(std::move(h));
  }
  run.micros = MicrosSince(start);
  return run;
}

StatusOr<VectorRun> RetrieveVector(const vector::VectorIndex& index, vector::Metric metric,
                                   std::span<const float> query,
                                   const vector::VectorSearchOptions& options,
                                   const roaring::Roaring* allowed) {
  const auto start = std::chrono::steady_clock::now();
  VectorRun run;
  StatusOr<std::vector<vector::Neighbor>> found =
      index.Search(query, options, allowed, &run.explain);
  if (!found.ok()) return found.status().WithContext("vector");
  run.hits.reserve(found.value().size());
  for (std::size_t i = 0; i < found.value().size(); ++i) {
    const vector::Neighbor& nb = found.value()[i];
    Hit h;
    h.doc = nb.id;
    h.distance = vector::ReportedDistance(metric, nb.distance);
    h.score = VectorSimilarity(metric, *h.distance);
    h.vector_rank = i + 1;
    run.hits.push_back(std::move(h));
  }
  run.micros = MicrosSince(start);
  return run;
}

void KeepPassing(const index::MetadataIndex& metadata, const filter::CompiledFilter& filter,
                 bool text, std::vector<Hit>* hits) {
  std::vector<Hit> kept;
  for (Hit& h : *hits) {
    const std::vector<Value>* row = metadata.Row(h.doc);
    if (row == nullptr || !filter.program.Matches(*row)) continue;
    (text ? h.text_rank : h.vector_rank) = kept.size() + 1;
    kept.push_back(std::move(h));
  }
  *hits = std::move(kept);
}

std::unordered_map<std::uint32_t, double> ScoreText(const text::TextIndex& index,
                                                    const text::DefaultQuery& query,
                                                    std::span<const std::uint32_t> docs,
                                                    const text::TextSearchOptions& options) {
  std::unordered_map<std::uint32_t, double> out;
  if (docs.empty()) return out;
  roaring::Roaring only;
  for (std::uint32_t d : docs) only.add(d);
  for (const text::TextHit& h : index.Search(query, docs.size(), &only, nullptr, options)) {
    out[h.doc] = h.score;
  }
  return out;
}

}  // namespace engram::search
