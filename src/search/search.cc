// Search: validate the request (plan.cc), build the allowed-set, run the retrievers
// inside it, fuse, apply temporal hints, cut to k, fill the other retriever's
// signal, threshold, and report filter impact and explain (README.md).
#include "search/search.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "base/status.h"
#include "search/explain.h"
#include "search/filter_impact.h"
#include "search/fusion.h"
#include "search/plan.h"
#include "search/retrievers.h"
#include "search/temporal.h"
#include "search/thresholds.h"
#include "search/value_cover.h"
#include "text/rank/plan.h"

namespace engram::search {
namespace {

constexpr std::size_t kDefaultCandidateK = 60;

struct Runs {
  TextRun text;
  VectorRun vector;
};

text::TextSearchOptions TextOptions(const Request& r) {
  text::TextSearchOptions options;
  options.max_expansions = r.max_expansions;
  options.deadline = r.deadline;
  return options;
}

Status CheckDeadline(const Request& r, std::string_view stage) {
  return r.deadline == nullptr ? Status::Ok() : r.deadline->Check(stage);
}

// The value cover (value_cover.h) of the records retrieval runs among: the
// smaller of the filter's (when it built `allowed`) and the scope's.
std::optional<std::vector<std::string>> RetrievalCover(const CollectionView& c, const Request& r,
                                                       bool filtered) {
  std::optional<std::vector<std::string>> best;
  if (c.graph_slots.empty() || c.vectors == nullptr || c.vectors->values().graphs() == 0) {
    return best;
  }
  std::size_t best_records = 0;
  for (const filter::CompiledFilter* f : {filtered ? r.filter : nullptr, r.scope}) {
    if (f == nullptr) continue;
    std::optional<std::vector<std::string>> cover =
        Cover(f->optimized.root, c.graph_slots, c.vectors->values());
    if (!cover) continue;
    const std::size_t records = CoverRecords(*cover, c.vectors->values());
    if (!best || records < best_records) best = std::move(cover), best_records = records;
  }
  return best;
}

StatusOr<Runs> RunRetrievers(const CollectionView& c, const Request& r, const Plan& plan,
                             std::size_t n, const roaring::Roaring* allowed, bool filtered) {
  Runs runs;
  if (plan.text) runs.text = RetrieveText(*c.text, *r.query, n, allowed, TextOptions(r));
  if (plan.vector) {
    vector::VectorSearchOptions options;
    options.k = n;
    options.ef = r.ef;
    options.plan = r.vector_plan;
    options.deadline = r.deadline;
    const std::optional<std::vector<std::string>> cover =
        allowed != nullptr ? RetrievalCover(c, r, filtered) : std::nullopt;
    if (cover) options.cover = &*cover;
    ASSIGN_OR_RETURN(runs.vector,
                     RetrieveVector(*c.vectors, plan.metric, r.vector, options, allowed));
  }
  RETURN_IF_ERROR(CheckDeadline(r, "retrieval"));
  return runs;
}

// The records of both runs, text's first (duplicates are counted once later).
std::vector<std::uint32_t> CandidateDocs(const Runs& runs) {
  std::vector<std::uint32_t> docs;
  docs.reserve(runs.text.hits.size() + runs.vector.hits.size());
  for (const Hit& h : runs.text.hits) docs.push_back(h.doc);
  for (const Hit& h : runs.vector.hits) docs.push_back(h.doc);
  return docs;
}

// The other side's signal for `hits`: distances for text-only hits (so
// `threshold` cuts uniformly), BM25 for vector-only hybrid hits; then each
// hit's relevance (SEARCH.md §5).
void FillSignals(const CollectionView& c, const Request& r, const Plan& plan,
                 const std::vector<float>& prepared, double max_bm25, std::vector<Hit>* hits) {
  if (!prepared.empty()) {
    const vector::VectorStore& store = c.vectors->store();
    for (Hit& h : *hits) {
      if (h.distance || !store.Contains(h.doc)) continue;
      h.distance = vector::ReportedDistance(plan.metric, store.Distance(prepared.data(), h.doc));
    }
  }
  if (plan.text && plan.vector) {
    std::vector<std::uint32_t> missing;
    for (const Hit& h : *hits) {
      if (!h.bm25) missing.push_back(h.doc);
    }
    const auto scores = ScoreText(*c.text, *r.query, missing, TextOptions(r));
    for (Hit& h : *hits) {
      if (auto it = scores.find(h.doc); !h.bm25 && it != scores.end()) h.bm25 = it->second;
    }
  }
  for (Hit& h : *hits) {
    double rel = 0;
    if (plan.text && h.bm25) rel = std::max(rel, TextRelevance(*h.bm25, max_bm25));
    if (plan.vector && h.distance) rel = std::max(rel, VectorRelevance(plan.metric, *h.distance));
    h.relevance = rel;
  }
}

json::Value OrNull(std::optional<double> x) {
  return x ? json::Value(*x) : json::Value(nullptr);
}

}  // namespace

StatusOr<Result> Search(const CollectionView& c, const Request& r) {
  Stopwatch total, lap;
  RETURN_IF_ERROR(CheckDeadline(r, "queueing"));
  Plan plan;
  RETURN_IF_ERROR(PlanSearch(c, r, &plan));
  if (plan.text && r.query->root) {
    // The cap on prefix expansion (text/rank/plan.h), before any work: a
    // query past it is refused, not run slowly or cut short.
    if (std::optional<std::string> over =
            text::CheckExpansions(c.text->data(), *r.query->root, r.max_expansions)) {
      Result refused;
      refused.rejected =
          Diagnostic{400, "query.too_many_expansions", "", "query.too_many_expansions: " + *over};
      return refused;
    }
  }
  std::vector<float> prepared;  // the query vector in stored form, for distances
  if (!r.vector.empty()) {
    StatusOr<std::vector<float>> p = c.vectors->store().PrepareQuery(r.vector);
    if (!p.ok()) return p.status().WithContext("vector");
    prepared = std::move(p).value();
  }
  const index::MetadataIndex& metadata = *c.metadata;
  json::Value timings = json::Value::object();
  json::Value counts = json::Value::object();
  timings["validate"] = lap.Lap();

  const std::size_t requested_k = r.candidate_k.value_or(std::max(r.k, kDefaultCandidateK));
  const std::size_t effective_k = EffectiveCandidateK(r.k, requested_k);
  const bool post = r.filter != nullptr && plan.filter_mode == FilterMode::kPost;
  // A retriever fetches enough for fusion and temporal re-ranking; in post
  // mode, seed 004's overfetch, since the filter comes after.
  // A ranked search re-sorts its candidates, so it takes a deeper pool.
  const bool ranked = r.ranking.on();
  const std::size_t depth =
      ranked && !r.candidate_k
          ? std::min(kMaxCandidateK, std::max(kRankingMinDepth, kRankingDepthFactor * r.k))
          : requested_k;
  const std::size_t fetch_k = post ? effective_k : std::max(r.k, depth);
  counts["candidate_k"] = requested_k;
  counts["fetch_k"] = fetch_k;

  // `readable`: the caller's records (none: every record); `allowed`: those
  // of them passing the filter, built in pre mode. Retrieval runs inside
  // the tighter of the two in every mode, so the scope is never post-filtered.
  std::optional<roaring::Roaring> readable;
  if (r.scope != nullptr) readable = metadata.Evaluate(r.scope->optimized.root, r.deadline);
  const roaring::Roaring* within = readable ? &*readable : nullptr;
  std::optional<roaring::Roaring> allowed;
  if (r.filter != nullptr && !post) {
    allowed = metadata.Evaluate(r.filter->optimized.root, r.deadline);
    if (readable) *allowed &= *readable;
    RETURN_IF_ERROR(CheckDeadline(r, "filtering"));
  }
  timings["filter"] = lap.Lap();

  ASSIGN_OR_RETURN(Runs runs, RunRetrievers(c, r, plan, fetch_k, allowed ? &*allowed : within,
                                            allowed.has_value()));
  timings["retrieve"] = lap.Lap();
  counts["retrieved"] = {{"text", runs.text.hits.size()}, {"vector", runs.vector.hits.size()}};
  std::vector<Hit> text_hits = runs.text.hits, vector_hits = runs.vector.hits;
  if (post) {
    KeepPassing(metadata, *r.filter, true, &text_hits);
    KeepPassing(metadata, *r.filter, false, &vector_hits);
    counts["post_filter"] = {{"text", text_hits.size()}, {"vector", vector_hits.size()}};
    timings["post_filter"] = lap.Lap();
  }

  const bool fused = plan.text && plan.vector;
  FusionContext fusion;
  std::vector<Hit> hits = fused       ? Fuse(text_hits, vector_hits, r.fusion, plan.metric, &fusion)
                          : plan.text ? std::move(text_hits)
                                      : std::move(vector_hits);
  counts["fused"] = hits.size();
  timings["fusion"] = lap.Lap();

  const double max_bm25 =
      plan.text ? MaxAttainableBm25(*c.text, *r.query, within, r.max_expansions) : 0;
  // A ranked search multiplies the score that ordered its candidates:
  // relevance for one retriever (every candidate's, computed first), the
  // fused score or, for z-scores (which can be negative), the fused rank.
  const RankingBase base =
      !fused ? RankingBase::kRelevance
      : r.fusion.method == FusionMethod::kConvex && r.fusion.normalization == Normalization::kZScore
          ? RankingBase::kFusedRank
          : RankingBase::kFusedScore;
  const bool pool_signals = ranked && base == RankingBase::kRelevance;
  json::Value ranking = nullptr;
  if (ranked) {
    if (pool_signals) FillSignals(c, r, plan, prepared, max_bm25, &hits);
    RETURN_IF_ERROR(CheckDeadline(r, "scoring"));
    ranking = ApplyRanking(r.ranking, base, r.fusion.rrf_k, metadata, &hits);
    RETURN_IF_ERROR(CheckDeadline(r, "ranking"));
    timings["ranking"] = lap.Lap();
  }

  json::Value temporal = nullptr;
  if (r.query && c.time_slot && !r.query->hints.empty()) {
    // After ranking, the hints work on its order as on one retriever's.
    // Convex scores are not on RRF's scale (z-scores can be negative): the
    // boost then multiplies the fused rank's RRF score, as in single modes.
    const bool rrf_scale = fused && !ranked && r.fusion.method != FusionMethod::kConvex;
    temporal = ApplyTemporalHints(r.query->hints, metadata, *c.time_slot, rrf_scale, r.fusion.rrf_k,
                                  &hits);
    timings["temporal"] = lap.Lap();
  }

  if (hits.size() > r.k) hits.resize(r.k);
  counts["top_k"] = hits.size();
  if (!pool_signals) FillSignals(c, r, plan, prepared, max_bm25, &hits);
  RETURN_IF_ERROR(CheckDeadline(r, "scoring"));
  timings["signals"] = lap.Lap();

  const CutCounts cut = ApplyThresholds(r.threshold, r.score_threshold, &hits);
  counts["after_thresholds"] = hits.size();
  timings["thresholds"] = lap.Lap();

  Result result;
  if (r.impact && r.filter != nullptr) {
    // The same candidates in both modes: each retriever's effective_k best
    // among the readable records, without the filter (post mode already
    // generated them); only the filter's drops are counted.
    std::vector<std::uint32_t> docs;
    if (post) {
      docs = CandidateDocs(runs);
    } else {
      ASSIGN_OR_RETURN(Runs unfiltered, RunRetrievers(c, r, plan, effective_k, within, false));
      docs = CandidateDocs(unfiltered);
    }
    result.filter_impact =
        FilterImpactJson(requested_k, effective_k, CountImpact(metadata, *r.filter, docs),
                         FilterEcho(*r.filter, r.dialect));
    timings["impact"] = lap.Lap();
  }
  result.hits = std::move(hits);
  if (!r.explain) return result;

  json::Value ex = json::Value::object();
  ex["mode"] = ModeName(r.mode);
  json::Value retrievers = json::Value::array();
  if (plan.text) retrievers.push_back("text");
  if (plan.vector) retrievers.push_back("vector");
  ex["retrievers"] = std::move(retrievers);
  ex["fallback"] = plan.fallback.empty() ? json::Value(nullptr) : json::Value(plan.fallback);
  ex["query"] = r.query ? QueryExplain(*r.query) : json::Value(nullptr);
  // Scoped: counts over the readable records, no whole-index figures.
  const std::size_t live = readable ? readable->cardinality() : metadata.size();
  ex["scope"] = r.scope != nullptr ? ScopeExplain(*r.scope, live) : json::Value(nullptr);
  ex["filter"] = nullptr;
  if (r.filter != nullptr) {
    std::optional<std::size_t> n;
    if (allowed) n = allowed->cardinality();
    std::optional<double> estimate;
    if (!readable) estimate = metadata.Estimate(r.filter->optimized.root, r.deadline);
    ex["filter"] =
        FilterExplain(*r.filter, plan.filter_mode, plan.filter_mode_reason, live, estimate, n);
    RETURN_IF_ERROR(CheckDeadline(r, "explain"));
  }
  ex["text"] =
      plan.text ? TextExplain(runs.text, fetch_k, max_bm25, !readable) : json::Value(nullptr);
  std::optional<std::size_t> vector_live;
  if (readable && plan.vector) vector_live = readable->and_cardinality(c.vectors->store().live());
  ex["vector"] = plan.vector ? VectorExplainJson(runs.vector, fetch_k, plan.metric, vector_live)
                             : json::Value(nullptr);
  ex["fusion"] = fused ? FusionExplain(fusion, result.hits) : json::Value(nullptr);
  ex["temporal"] = std::move(temporal);
  if (!ranking.is_null()) ranking["hits"] = RankedHitsJson(result.hits);
  ex["ranking"] = std::move(ranking);
  ex["thresholds"] = {{"threshold", OrNull(r.threshold)},
                      {"score_threshold", OrNull(r.score_threshold)},
                      {"cut_by_threshold", cut.by_threshold},
                      {"cut_by_score_threshold", cut.by_score_threshold}};
  ex["counts"] = std::move(counts);
  timings["explain"] = lap.Lap();
  timings["total"] = total.Lap();
  ex["timings_us"] = std::move(timings);
  result.explain = std::move(ex);
  return result;
}

}  // namespace engram::search
